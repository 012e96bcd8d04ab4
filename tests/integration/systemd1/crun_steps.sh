#!/bin/bash
# crun --systemd-cgroup's life of a busybox container against cgmanager's systemd1 interface, on cgroup2
# alone, each step checked in cgroupfs; run inside world.sh with WORLD_CGROUPNS=1 (so /sys/fs/cgroup is the
# sandbox). BUNDLE is the container's bundle (cgroupsPath system.slice:crun:cgmtest, memory 32M, pids 64).
# crun puts the container in the scope or, with the scope delegated, in a child of it. Prints what failed.
set -u
state=$WORK_DIR/crun
scope=/sys/fs/cgroup/system.slice/crun-cgmtest.scope
failed=0
fail() { echo "  FAILED: $*" >&2; failed=1; }
crun_() { crun --root "$state" --systemd-cgroup "$@"; }
expect() { [ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"; }
# cg_of PID: the cgroup directory of PID, which must be the scope or beneath it.
cg_of() {
	local rel
	rel=$(sed -n 's/^0:://p' "/proc/$1/cgroup")
	case /sys/fs/cgroup$rel in
	"$scope" | "$scope"/*) echo "/sys/fs/cgroup$rel" ;;
	*) fail "pid $1 is in $rel, not in $scope"; echo /nonexistent ;;
	esac
}
status() { crun_ state cgmtest | sed -n 's/.*"status": "\([a-z]*\)".*/\1/p'; }

crun_ create --bundle "$BUNDLE" cgmtest || { fail "crun create failed"; exit 1; }
init=$(crun_ state cgmtest | sed -n 's/.*"pid": \([0-9]*\).*/\1/p')
cg=$(cg_of "$init")
expect "$(cat "$cg/memory.max")" 33554432 "memory.max after create"
expect "$(cat "$cg/pids.max")" 64 "pids.max after create"
busctl call org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager GetUnit s \
	crun-cgmtest.scope >/dev/null || fail "GetUnit crun-cgmtest.scope"
crun_ start cgmtest || fail "crun start failed"
crun_ exec -d cgmtest sleep 301 || fail "crun exec failed"
for _ in $(seq 100); do pgrep -f '^sleep 301$' >/dev/null && break; sleep 0.05; done
ex=$(pgrep -f '^sleep 301$')
[ -n "$ex" ] && cg_of "$ex" >/dev/null || fail "the exec'd process is not there"
crun_ update --memory 50331648 --pids-limit 32 cgmtest || fail "crun update failed"
expect "$(cat "$cg/memory.max")" 50331648 "memory.max after update"
expect "$(cat "$cg/pids.max")" 32 "pids.max after update"
crun_ pause cgmtest || fail "crun pause failed"
expect "$(status)" paused "state after pause"
crun_ resume cgmtest || fail "crun resume failed"
expect "$(status)" running "state after resume"
crun_ kill cgmtest KILL || fail "crun kill failed"
for _ in $(seq 100); do [ "$(status)" = stopped ] && break; sleep 0.05; done
crun_ delete cgmtest || fail "crun delete failed"
for _ in $(seq 100); do [ -d "$scope" ] || break; sleep 0.05; done
[ ! -d "$scope" ] || fail "$scope is still there after delete"
exit $failed
