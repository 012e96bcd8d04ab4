#!/bin/bash
# A systemd1 world for clients that need one of their own: run as PID 1 of a new pid namespace with its own
# /proc (unshare -m -p --fork --mount-proc), from the sandbox root. A tmpfs over /run/systemd holds system/;
# a dbus-daemon and a cgmanager --systemd1 run on DIR's sockets, in this namespace, so that the pids
# clients send are the daemon's numbers and /proc/1/cgroup (where runc on cgroup v1 looks for the manager's
# root) is the sandbox. Then "$@" runs with DBUS_SYSTEM_BUS_ADDRESS set; when it ends, so does everything here.
# With WORLD_CGROUP (a pure cgroup2 host, where runc, crun and podman look for the manager's cgroups beneath
# the root of /sys/fs/cgroup), PID 1 first moves into that cgroup (one the suite's daemon made with
# controllers) and enters a cgroup namespace rooted there (unshare -C), and cgroup2 is mounted again over
# /sys/fs/cgroup, showing it as the root. Once the daemon runs (it steps aside into .cgmanager), PID 1 and the
# bus move into .world, so that the root holds no task and the daemon may enable controllers in it.
#   world.sh CGMANAGER DIR CMD...
set -eu
if [ -n "${WORLD_CGROUP:-}" ] && [ -z "${WORLD_IN_CGROUPNS:-}" ]; then
	echo $$ >"$WORLD_CGROUP/cgroup.procs"
	WORLD_IN_CGROUPNS=1 exec unshare -C "$0" "$@"
fi
cgmanager=$1 dir=$2
shift 2
. "$(dirname "$0")/run_systemd.sh"
if [ -n "${WORLD_CGROUP:-}" ]; then
	# (The kernel mounts a superblock only once on one mount point: a tmpfs in between.)
	mount -t tmpfs tmpfs /sys/fs/cgroup
	mount -t cgroup2 cgroup2 /sys/fs/cgroup
fi
dbus-daemon --nofork --nopidfile --config-file="$dir/bus.conf" &
bus=$!
for _ in $(seq 100); do [ -S "$dir/bus.sock" ] && break; sleep 0.05; done
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$dir/bus.sock
# The system bus's default path leads there too, for programs started without the environment (conmon starts
# crun so for podman): a tmpfs over /run/dbus, or a directory in our own /run.
if [ -d /run/dbus ]; then
	mount -t tmpfs -o mode=0755 tmpfs /run/dbus
elif [ -n "$RUN_IS_OURS" ]; then
	mkdir /run/dbus
fi
[ ! -d /run/dbus ] || ln -s "$dir/bus.sock" /run/dbus/system_bus_socket
"$cgmanager" --socket "$dir/cgm.sock" --systemd1="$DBUS_SYSTEM_BUS_ADDRESS" --log-level info 2>>"$dir/daemon.log" &
daemon=$!
for _ in $(seq 100); do
	busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus NameHasOwner s \
		org.freedesktop.systemd1 2>/dev/null | grep -q true && break
	sleep 0.05
done
if [ -n "${WORLD_CGROUP:-}" ]; then
	mkdir /sys/fs/cgroup/.world
	echo "$bus" >/sys/fs/cgroup/.world/cgroup.procs
	echo $$ >/sys/fs/cgroup/.world/cgroup.procs
fi
rc=0
"$@" || rc=$?
# The daemon stops cleanly (under the sanitizers: without findings), or the world fails.
kill -TERM "$daemon"
wait "$daemon" || { echo "  FAILED: the daemon exited with status $?" >&2; rc=1; }
exit $rc
