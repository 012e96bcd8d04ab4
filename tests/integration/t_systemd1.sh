# The org.freedesktop.systemd1 subset (cgmanager --systemd1, issue 16) with the real clients: a private
# dbus-daemon on a socket of the test's own, a daemon serving systemd1 on it from the sandbox root (so the
# units' cgroups are made beneath the sandbox), and the clients run in a private mount namespace where a
# tmpfs over /run/systemd holds system/ (systemd1/ns.sh), with DBUS_SYSTEM_BUS_ADDRESS naming the private bus.

SD1_DIR= SD1_BUS= SD1_DBUS_PID= SD1_PID=

# sd1_start [OPTION...]: the private bus and a daemon owning org.freedesktop.systemd1 on it; ended on EXIT.
sd1_start() {
	local i
	SD1_DIR=$WORK/sd1-$BASHPID
	mkdir -p "$SD1_DIR"
	SD1_BUS=unix:path=$SD1_DIR/bus.sock
	sed "s|@SOCKET@|$SD1_DIR/bus.sock|" "$here/systemd1/bus.conf.in" >"$SD1_DIR/bus.conf"
	trap sd1_cleanup EXIT
	SD1_DBUS_PID=$(spawn_as 0 "" dbus-daemon --nofork --nopidfile --config-file="$SD1_DIR/bus.conf")
	for i in $(seq 100); do [ -S "$SD1_DIR/bus.sock" ] && break; sleep 0.05; done
	DAEMON_LOG_LEVEL=info daemon_spawn "$SD1_DIR/cgm.sock" "$SD1_DIR/daemon.log" --systemd1="$SD1_BUS" "$@"
	SD1_PID=$SPAWNED_PID
	for i in $(seq 100); do
		[ "$(sd1_bus_owner)" = "b true" ] && return 0
		kill -0 "$SD1_PID" 2>/dev/null || break
		sleep 0.05
	done
	fail "no daemon owns org.freedesktop.systemd1 on $SD1_BUS: $(tail -20 "$SD1_DIR/daemon.log")"
}

sd1_bus_owner() {
	busctl --address="$SD1_BUS" call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus NameHasOwner s \
		org.freedesktop.systemd1 2>/dev/null
}

sd1_cleanup() {
	local pid
	for pid in "${SD1_CLIENTS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
	local rc=0
	[ -z "$SD1_PID" ] || stop_pid "$SD1_PID" 10 || rc=$?
	[ -z "$SD1_DBUS_PID" ] || stop_pid "$SD1_DBUS_PID" 10 || true
	# A clean stop, also under the sanitizers (their findings end the daemon with another status).
	if [ "$rc" != 0 ]; then
		echo "  FAILED: the systemd1 daemon exited with status $rc: $(tail -40 "$SD1_DIR/daemon.log")" >&2
		exit 1
	fi
}
SD1_CLIENTS=()

# sd1_client UID CMD...: CMD as UID from the sandbox root, in the private mount namespace, on the private bus.
sd1_client() {
	local uid=$1
	shift
	run_as 0 "" env DBUS_SYSTEM_BUS_ADDRESS="$SD1_BUS" unshare -m --propagation private "$here/systemd1/ns.sh" \
		setpriv --reuid="$uid" --regid="$uid" --clear-groups -- "$@"
}

# sd1_spawn CMD...: the same as root, in the background; its pid (the one CMD runs as) in SD1_SPAWNED.
sd1_spawn() {
	(
		_enter "$BASHPID" "" || exit 99
		DBUS_SYSTEM_BUS_ADDRESS="$SD1_BUS" exec unshare -m --propagation private "$here/systemd1/ns.sh" "$@"
	) >>"$SD1_DIR/clients.log" 2>&1 &
	SD1_SPAWNED=$!
	SD1_CLIENTS+=("$SD1_SPAWNED")
}

# sd1_call METHOD SIGNATURE ARGS...: a Manager call with busctl as uid ${SD1_UID:-0}.
sd1_call() {
	local m=$1
	shift
	run_as "${SD1_UID:-0}" "" busctl --address="$SD1_BUS" -- call org.freedesktop.systemd1 /org/freedesktop/systemd1 \
		org.freedesktop.systemd1.Manager "$m" "$@"
}

# sd1_wait_in REL PID: PID is in sandbox cgroup REL of every hierarchy (within 5 s).
sd1_wait_in() {
	local rel=$1 pid=$2 i e dir
	for i in $(seq 100); do
		local all=1
		for e in "${SB_DIRS[@]}"; do
			dir=${e#*|}/$rel
			grep -qx "$pid" "$dir/cgroup.procs" 2>/dev/null || { all=; break; }
		done
		[ -n "$all" ] && return 0
		sleep 0.05
	done
	for e in "${SB_DIRS[@]}"; do
		dir=${e#*|}/$rel
		grep -qx "$pid" "$dir/cgroup.procs" 2>/dev/null || fail "pid $pid is not in ${e%%|*}:$rel: $(grep . \
			"/proc/$pid/cgroup" 2>&1 | tr '\n' ' '); the clients said: $(tail -5 "$SD1_DIR/clients.log" 2>&1); the \
			daemon: $(grep -v ' serving ' "$SD1_DIR/daemon.log" | tail -10)"
	done
}

test_systemd1_systemd_run_scope_limits_and_placement() {
	sd1_start
	lane_files
	sd1_spawn systemd-run --scope --unit=cgmtest-a -p MemoryMax=64M -p TasksMax=16 sleep 30
	local pid=$SD1_SPAWNED
	sd1_wait_in system.slice/cgmtest-a.scope "$pid"
	local mem pids
	mem=$(sb_path "$MH")/system.slice/cgmtest-a.scope
	pids=$(sb_path "$PH")/system.slice/cgmtest-a.scope
	expect_eq "$(cat "$mem/$MLIM")" 67108864 "$MLIM of the scope"
	expect_eq "$(cat "$pids/pids.max")" 16 "pids.max of the scope"
	# systemd-run itself became sleep in the scope, after the job's JobRemoved: it read InvocationID then.
	expect_eq "$(tr '\0' '\n' <"/proc/$pid/environ" | grep -c '^INVOCATION_ID=[0-9a-f]\{32\}$')" 1 \
		"INVOCATION_ID of the scope in sleep's environment"
	local out
	out=$(sd1_call GetUnit s cgmtest-a.scope)
	expect_eq "$out" 'o "/org/freedesktop/systemd1/unit/cgmtest_2da_2escope"' "GetUnit"
	out=$(run_as 0 "" busctl --address="$SD1_BUS" get-property org.freedesktop.systemd1 \
		/org/freedesktop/systemd1/unit/cgmtest_2da_2escope org.freedesktop.systemd1.Scope ControlGroup)
	expect_eq "$out" 's "/system.slice/cgmtest-a.scope"' "ControlGroup"
	out=$(run_as 0 "" busctl --address="$SD1_BUS" get-property org.freedesktop.systemd1 \
		/org/freedesktop/systemd1/unit/cgmtest_2da_2escope org.freedesktop.systemd1.Scope TasksCurrent)
	expect_eq "$out" "t 1" "TasksCurrent"
	# The scope goes with its last task.
	kill -KILL "$pid"
	local i
	for i in $(seq 100); do [ -d "$mem" ] || break; sleep 0.05; done
	expect_missing "$mem"
	expect_exists "$(sb_path "$MH")/system.slice"
}

test_systemd1_systemd_run_nested_slice() {
	sd1_start
	sd1_spawn systemd-run --scope --unit=cgmtest-b --slice=a-b sleep 30
	local pid=$SD1_SPAWNED
	sd1_wait_in a.slice/a-b.slice/cgmtest-b.scope "$pid"
	# The slices are units too, each in its parent.
	local out
	out=$(run_as 0 "" busctl --address="$SD1_BUS" get-property org.freedesktop.systemd1 \
		/org/freedesktop/systemd1/unit/a_2db_2eslice org.freedesktop.systemd1.Slice Slice ControlGroup)
	expect_eq "$out" $'s "a.slice"\ns "/a.slice/a-b.slice"' "a-b.slice's Slice and ControlGroup"
	out=$(sd1_call GetUnitByPID u "$pid")
	expect_eq "$out" 'o "/org/freedesktop/systemd1/unit/cgmtest_2db_2escope"' "GetUnitByPID"
	out=$(sd1_call ListUnits | tr ' ' '\n' | grep '^"\(-\|a\|a-b\)\.slice"\|^"cgmtest-b\.scope"' | sort -u | wc -l)
	expect_eq "$out" 4 "units listed (-.slice, a.slice, a-b.slice, cgmtest-b.scope)"
}

# sd1_monitor: a busctl monitor of JobRemoved writing $SD1_DIR/monitor.log, once it monitors.
sd1_monitor() {
	local i
	run_as 0 "" timeout 120 busctl --address="$SD1_BUS" --match="type='signal',member='JobRemoved'" monitor \
		>"$SD1_DIR/monitor.log" 2>&1 &
	SD1_CLIENTS+=("$!")
	# busctl says so once it monitors (the v2 VM takes seconds to get there).
	for i in $(seq 400); do grep -q "Monitoring bus message stream" "$SD1_DIR/monitor.log" && break; sleep 0.05; done
}

# sd1_job_removed UNIT: the monitor has seen JobRemoved of UNIT, with done.
sd1_job_removed() {
	grep -A12 'STRING "'"$1"'";' "$SD1_DIR/monitor.log" 2>/dev/null | grep -q 'STRING "done";'
}

# StopUnit kills what is in the scope and removes it; the job's end is checked in cgroupfs and in the JobRemoved
# a busctl monitor saw. busctl call does not wait for the job: the job must not need its caller.
test_systemd1_stop_unit_kills_and_removes() {
	sd1_start
	sd1_spawn systemd-run --scope --unit=cgmtest-c sleep 30
	local pid=$SD1_SPAWNED dir
	sd1_wait_in system.slice/cgmtest-c.scope "$pid"
	sd1_monitor
	local out i
	out=$(sd1_call StopUnit ss cgmtest-c.scope replace)
	[[ $out =~ ^o\ \"/org/freedesktop/systemd1/job/[0-9]+\"$ ]] || fail "StopUnit answered '$out'"
	for i in $(seq 100); do pid_gone "$pid" && break; sleep 0.05; done
	pid_gone "$pid" || fail "pid $pid outlived StopUnit"
	dir=$(sb_path name=systemd 2>/dev/null || sb_path unified)/system.slice/cgmtest-c.scope
	for i in $(seq 100); do [ -d "$dir" ] || break; sleep 0.05; done
	expect_missing "$dir"
	for i in $(seq 200); do sd1_job_removed cgmtest-c.scope && break; sleep 0.05; done
	sd1_job_removed cgmtest-c.scope || fail "no JobRemoved done for cgmtest-c.scope: $(cat "$SD1_DIR/monitor.log")"
	expect_refused "Unit cgmtest-c.scope not loaded" sd1_call StopUnit ss cgmtest-c.scope replace
}

test_systemd1_refusals() {
	sd1_start
	local pid
	pid=$(spawn_sleeper 0 "")
	# Only host root starts units, whatever the bus lets through. (dbus-daemon lets in only uids with a
	# passwd entry: nobody's. gdbus, as busctl shows every AccessDenied as "Access denied".)
	expect_refused "AccessDenied: only host root may start units, as of systemd's system manager; you are uid 65534" \
		run_as 65534 "" gdbus call --address "$SD1_BUS" --dest org.freedesktop.systemd1 --object-path \
		/org/freedesktop/systemd1 --method org.freedesktop.systemd1.Manager.StartTransientUnit x.scope fail \
		"[('PIDs', <[uint32 $pid]>)]" "@a(sa(sv)) []"
	expect_refused "unit name 'a b.scope' has a character" \
		sd1_call StartTransientUnit 'ssa(sv)a(sa(sv))' 'a b.scope' fail 1 PIDs au 1 "$pid" 0
	expect_refused "slice name 'a--b.slice' has an empty part" \
		sd1_call StartTransientUnit 'ssa(sv)a(sa(sv))' x.scope fail 2 PIDs au 1 "$pid" Slice s a--b.slice 0
	expect_refused "only scopes and slices" \
		sd1_call StartTransientUnit 'ssa(sv)a(sa(sv))' x.service fail 1 PIDs au 1 "$pid" 0
	expect_refused "property MemoryMax: expects a value of type t, not s" \
		sd1_call StartTransientUnit 'ssa(sv)a(sa(sv))' x.scope fail 2 PIDs au 1 "$pid" MemoryMax s 64M 0
	expect_refused "property TasksMax: 4194305 is out of range \(0 to 4194304" \
		sd1_call StartTransientUnit 'ssa(sv)a(sa(sv))' x.scope fail 2 PIDs au 1 "$pid" TasksMax t 4194305 0
	expect_refused "scope x.scope has no PIDs" sd1_call StartTransientUnit 'ssa(sv)a(sa(sv))' x.scope fail 0 0
	# Nothing of the refused calls was made.
	expect_missing "$(sb_path name=systemd 2>/dev/null || sb_path unified)/system.slice/x.scope"
	# An unknown property is ignored, and logged once.
	expect_ok sd1_call StartTransientUnit 'ssa(sv)a(sa(sv))' x.scope fail 2 PIDs au 1 "$pid" NoSuchProperty b true 0
	sd1_wait_in system.slice/x.scope "$pid"
	expect_refused "UnitExists|already loaded" \
		sd1_call StartTransientUnit 'ssa(sv)a(sa(sv))' x.scope fail 2 PIDs au 1 "$pid" NoSuchProperty b true 0
	expect_eq "$(grep -c 'property NoSuchProperty is not known here; ignored' "$SD1_DIR/daemon.log")" 1 \
		"log lines about NoSuchProperty"
	end_pids "$pid"
}

# A second daemon is refused the name, and says so; the first keeps it.
test_systemd1_second_daemon_refused() {
	sd1_start
	local log=$SD1_DIR/second.log
	daemon_spawn "$SD1_DIR/second.sock" "$log" --systemd1="$SD1_BUS"
	local pid=$SPAWNED_PID rc=0
	wait "$pid" || rc=$?
	expect_eq "$rc" 1 "the second daemon's exit status"
	grep -q "org.freedesktop.systemd1 is owned already on the bus at $SD1_BUS" "$log" ||
		fail "the second daemon did not say why: $(cat "$log")"
	expect_eq "$(sd1_bus_owner)" "b true" "the name is still owned"
	expect_ok sd1_call GetUnit s -.slice
	# The first daemon answers, with the systemd release whose interface it follows first (runc parses it).
	local version
	version=$(run_as 0 "" busctl --address="$SD1_BUS" get-property org.freedesktop.systemd1 /org/freedesktop/systemd1 \
		org.freedesktop.systemd1.Manager Version)
	[[ $version =~ ^s\ \"252\ \(cgmanager\ [0-9.]+\)\"$ ]] || fail "Version is '$version'"
}

# The bus goes away: the daemon serves its socket on, and takes the name again on a new bus.
test_systemd1_bus_restart_reconnects() {
	sd1_start
	stop_pid "$SD1_DBUS_PID" 10 || true
	expect_ok "$CGM" --socket "$SD1_DIR/cgm.sock" ping
	local i
	for i in $(seq 100); do
		grep -q "systemd1: the bus at $SD1_BUS went away" "$SD1_DIR/daemon.log" && break
		sleep 0.05
	done
	grep -q "systemd1: the bus at $SD1_BUS went away" "$SD1_DIR/daemon.log" || fail "no log of the bus going away"
	rm -f "$SD1_DIR/bus.sock"
	SD1_DBUS_PID=$(spawn_as 0 "" dbus-daemon --nofork --nopidfile --config-file="$SD1_DIR/bus.conf")
	for i in $(seq 200); do [ "$(sd1_bus_owner)" = "b true" ] && break; sleep 0.05; done
	expect_eq "$(sd1_bus_owner)" "b true" "the name owned on the new bus"
	expect_ok "$CGM" --socket "$SD1_DIR/cgm.sock" ping
	expect_ok sd1_call GetUnit s -.slice
}

# sd1_bundle DIR: a busybox-static bundle in DIR/bundle (cgroupsPath system.slice:RUNTIME:cgmtest, memory 32M,
# pids 64; RUNTIME as the first argument) and DIR/bus.conf for world.sh.
sd1_bundle() {
	local dir=$1 runtime=$2 b
	[ -x /bin/busybox ] && file -L /bin/busybox | grep -q 'statically linked' || skip "no static busybox"
	mkdir -p "$dir/bundle/rootfs/bin" "$dir/bundle/rootfs/proc" "$dir/bundle/rootfs/dev" "$dir/bundle/rootfs/sys"
	sed "s|@SOCKET@|$dir/bus.sock|" "$here/systemd1/bus.conf.in" >"$dir/bus.conf"
	cp /bin/busybox "$dir/bundle/rootfs/bin/"
	for b in sh sleep; do ln -s busybox "$dir/bundle/rootfs/bin/$b"; done
	(cd "$dir/bundle" && runc spec)
	python3 - "$dir/bundle/config.json" "$runtime" <<'PY'
import json, sys
p = sys.argv[1]
c = json.load(open(p))
c["process"]["terminal"] = False
c["process"]["args"] = ["sleep", "300"]
c["linux"]["cgroupsPath"] = "system.slice:%s:cgmtest" % sys.argv[2]
c["linux"].setdefault("resources", {}).update({"memory": {"limit": 33554432}, "pids": {"limit": 64}})
json.dump(c, open(p, "w"))
PY
}

# sd1_world DIR STEPS: runs systemd1/STEPS in a world of its own (systemd1/world.sh): a pid namespace whose
# PID 1 is in the sandbox root, with the bus and a daemon; on cgroup2 alone PID 1 is in a cgroup of its own
# (with the controllers a runtime delegates) and a cgroup namespace rooted there, /sys/fs/cgroup showing it
# as the root (where runc, crun and podman look for the manager's cgroups). Fails with what the steps printed
# and the daemon's log.
sd1_world() {
	local dir=$1 steps=$2 dirs world_cgroup= out rc=0
	dirs=$(printf '%s\n' "${SB_DIRS[@]}")
	if pure_v2; then
		local w=sd1w-${steps%%_*}
		expect_ok cgm_root new "$w" -c memory,pids,cpu,io,cpuset
		world_cgroup=$(sb_path unified)/$w dirs="unified|/sys/fs/cgroup"
	fi
	out=$(run_as 0 "" env SB_DIRS="$dirs" BUNDLE="$dir/bundle" WORK_DIR="$dir" WORLD_CGROUP="$world_cgroup" \
		timeout 600 unshare -m -p --fork --mount-proc --propagation private \
		"$here/systemd1/world.sh" "$CGMANAGER" "$dir" "$here/systemd1/$steps" 2>&1) || rc=$?
	[ "$rc" = 0 ] || fail "$steps (status $rc): $out; the daemon's log: $(tail -20 "$dir/daemon.log" 2>&1)"
}

# runc --systemd-cgroup: create, exec, update, pause/resume, kill and delete of a busybox container. runc finds
# the manager's root as the cgroup of PID 1 (cgroup v1) or the root of /sys/fs/cgroup (cgroup2 alone): hence
# the world of its own.
test_systemd1_runc_container_lifecycle() {
	command -v runc >/dev/null || skip "no runc"
	sd1_bundle "$WORK/sd1-runc" runc
	sd1_world "$WORK/sd1-runc" runc_steps.sh
}

# crun 1.8 refuses a hybrid host's layout, so it is tested on cgroup2 alone (lane v2).
test_v2_systemd1_crun_container_lifecycle() {
	command -v crun >/dev/null || skip "no crun"
	sd1_bundle "$WORK/sd1-crun" crun
	sd1_world "$WORK/sd1-crun" crun_steps.sh
}

test_v2_systemd1_podman_run_and_rm() {
	command -v podman >/dev/null && command -v crun >/dev/null || skip "no podman or crun"
	sd1_bundle "$WORK/sd1-podman" crun
	sd1_world "$WORK/sd1-podman" podman_steps.sh
}

# SetUnitProperties changes a running scope's limits and device rules through the key API; the unit's
# properties say what was set; KillUnit signals its tasks; ResetFailedUnit knows it.
test_systemd1_set_unit_properties_kill_unit() {
	sd1_start
	lane_files
	sd1_spawn systemd-run --scope --unit=cgmtest-d -p MemoryMax=64M sleep 30
	local pid=$SD1_SPAWNED unit=/org/freedesktop/systemd1/unit/cgmtest_2dd_2escope
	sd1_wait_in system.slice/cgmtest-d.scope "$pid"
	expect_ok sd1_call SetUnitProperties 'sba(sv)' cgmtest-d.scope true 4 MemoryMax t 33554432 TasksMax t 8 \
		DevicePolicy s strict DeviceAllow 'a(ss)' 1 /dev/null rw
	expect_eq "$(cat "$(sb_path "$MH")/system.slice/cgmtest-d.scope/$MLIM")" 33554432 "$MLIM after SetUnitProperties"
	expect_eq "$(cat "$(sb_path "$PH")/system.slice/cgmtest-d.scope/pids.max")" 8 "pids.max after SetUnitProperties"
	if has_hierarchy devices; then
		expect_eq "$(cat "$(sb_path devices)/system.slice/cgmtest-d.scope/devices.list")" "c 1:3 rw" \
			"devices.list after DevicePolicy=strict DeviceAllow=/dev/null rw"
	fi
	local out
	out=$(run_as 0 "" busctl --address="$SD1_BUS" get-property org.freedesktop.systemd1 "$unit" \
		org.freedesktop.systemd1.Scope DevicePolicy DeviceAllow)
	expect_eq "$out" $'s "strict"\na(ss) 1 "/dev/null" "rw"' "DevicePolicy and DeviceAllow"
	expect_refused "property PIDs: only set when the unit starts" \
		sd1_call SetUnitProperties 'sba(sv)' cgmtest-d.scope true 1 PIDs au 1 "$pid"
	expect_refused "property TasksMax: 4194305 is out of range" \
		sd1_call SetUnitProperties 'sba(sv)' cgmtest-d.scope true 1 TasksMax t 4194305
	expect_eq "$(cat "$(sb_path "$PH")/system.slice/cgmtest-d.scope/pids.max")" 8 "pids.max after a refused change"
	expect_refused "Unit nosuch.scope not loaded" sd1_call SetUnitProperties 'sba(sv)' nosuch.scope true 0
	expect_ok sd1_call ResetFailedUnit s cgmtest-d.scope
	SD1_UID=65534 expect_refused "Access denied" sd1_call KillUnit ssi cgmtest-d.scope all 9
	pid_gone "$pid" && fail "a refused KillUnit killed pid $pid"
	expect_ok sd1_call KillUnit ssi cgmtest-d.scope all 9
	pid_gone "$pid" || fail "pid $pid outlived KillUnit"
}

# The bus vouches for the uid a caller connected with; the pid it names may run with another euid later. A
# nobody connects, then execs su (setuid root, waiting for a password) while a child of it calls StopUnit on
# the same connection: the caller is still nobody, and root's scope must stay.
test_systemd1_setuid_exec_after_connect_is_not_root() {
	/usr/bin/python3 -c 'import jeepney' 2>/dev/null || skip "no python3-jeepney"
	[ -u /usr/bin/su ] || skip "no setuid su"
	sd1_start
	local pid out
	pid=$(spawn_sleeper 0 "")
	expect_ok sd1_call StartTransientUnit 'ssa(sv)a(sa(sv))' cgmtest-e.scope fail 1 PIDs au 1 "$pid" 0
	sd1_wait_in system.slice/cgmtest-e.scope "$pid"
	out=$(run_as 65534 "" timeout 30 /usr/bin/python3 "$here/systemd1/exec_setuid_caller.py" "$SD1_BUS" \
		cgmtest-e.scope su root -c true 2>&1) || true
	sleep 0.5
	pid_gone "$pid" && fail "nobody stopped root's scope by exec'ing su after connecting (it said: $out)"
	[[ $out == *"refused: org.freedesktop.DBus.Error.AccessDenied: "* ]] ||
		fail "StopUnit from nobody after its exec of su was not refused as AccessDenied: $out"
	end_pids "$pid"
}

# -.slice is the daemon's root: what is there is the daemon itself, the bus and every peer-to-peer client's
# tree. StopUnit refuses it; KillUnit must too (with SIGTERM the daemon shut itself down; SIGCONT shows the
# call taken without harm).
test_systemd1_kill_unit_root_slice_refused() {
	sd1_start
	local pid
	pid=$(spawn_sleeper 0 "")
	expect_ok sd1_call StartTransientUnit 'ssa(sv)a(sa(sv))' cgmtest-f.scope fail 1 PIDs au 1 "$pid" 0
	sd1_wait_in system.slice/cgmtest-f.scope "$pid"
	expect_refused "Access denied" sd1_call StopUnit ss -.slice replace
	expect_refused "Access denied|daemon's root" sd1_call KillUnit ssi -.slice all 18
	end_pids "$pid"
}


# sd1_call_get UID UNIT-PATH PROPERTY: a Scope property read by busctl as UID.
sd1_call_get() {
	run_as "$1" "" busctl --address="$SD1_BUS" get-property org.freedesktop.systemd1 "$2" \
		org.freedesktop.systemd1.Scope "$3"
}


# A refused SetUnitProperties changes nothing: the DeviceAllow entry that failed is not kept in the unit (where
# its property showed it, and where it failed every later change of the device rules), and a valid change after
# it is applied.
test_systemd1_refused_device_change_leaves_unit_as_was() {
	sd1_start
	local pid u=/org/freedesktop/systemd1/unit/cgmtest_2di_2escope
	pid=$(spawn_sleeper 0 "")
	expect_ok sd1_call StartTransientUnit 'ssa(sv)a(sa(sv))' cgmtest-i.scope fail 2 PIDs au 1 "$pid" \
		DevicePolicy s strict 0
	sd1_wait_in system.slice/cgmtest-i.scope "$pid"
	expect_refused "cannot resolve /dev/nonexistent" \
		sd1_call SetUnitProperties 'sba(sv)' cgmtest-i.scope true 1 DeviceAllow 'a(ss)' 1 /dev/nonexistent rw
	expect_eq "$(sd1_call_get 0 "$u" DeviceAllow)" "a(ss) 0" "DeviceAllow after a refused change"
	expect_ok sd1_call SetUnitProperties 'sba(sv)' cgmtest-i.scope true 1 DeviceAllow 'a(ss)' 1 /dev/null rw
	expect_eq "$(sd1_call_get 0 "$u" DeviceAllow)" 'a(ss) 1 "/dev/null" "rw"' "DeviceAllow after a valid change"
	if has_hierarchy devices; then
		expect_eq "$(cat "$(sb_path devices)/system.slice/cgmtest-i.scope/devices.list")" "c 1:3 rw" \
			"devices.list after DeviceAllow=/dev/null rw"
	fi
	end_pids "$pid"
}

# StopUnit as systemd stops a scope: SIGTERM to its tasks (a trap runs and the task exits cleanly), and the
# scope removed once they have left, without waiting for the timeout; KillMode=none leaves the tasks.
test_systemd1_stop_unit_sends_sigterm_first() {
	sd1_start
	local term=$SD1_DIR/term out i
	sd1_spawn systemd-run --scope --unit=cgmtest-t sh -c \
		"trap 'echo clean >$term; exit 0' TERM; touch $term.ready; while :; do sleep 0.1; done"
	local pid=$SD1_SPAWNED
	sd1_wait_in system.slice/cgmtest-t.scope "$pid"
	# In the scope as systemd-run, before it execs sh: the stop waits for sh's trap.
	wait_until 10 test -e "$term.ready" || fail "sh in cgmtest-t.scope set no trap"
	local u=/org/freedesktop/systemd1/unit/cgmtest_2dt_2escope
	expect_eq "$(sd1_call_get 0 "$u" KillMode)" 's "control-group"' "KillMode by default"
	expect_eq "$(sd1_call_get 0 "$u" TimeoutStopUSec)" "t 90000000" "TimeoutStopUSec by default"
	sd1_monitor
	expect_ok sd1_call StopUnit ss cgmtest-t.scope replace
	for i in $(seq 100); do sd1_job_removed cgmtest-t.scope && break; sleep 0.05; done
	sd1_job_removed cgmtest-t.scope || fail "no JobRemoved done for cgmtest-t.scope: $(cat "$SD1_DIR/monitor.log")"
	pid_gone "$pid" || fail "pid $pid outlived its JobRemoved"
	expect_eq "$(cat "$term" 2>&1)" clean "what the task's SIGTERM trap wrote"
	expect_missing "$(sb_path name=systemd 2>/dev/null || sb_path unified)/system.slice/cgmtest-t.scope"
	# KillMode=none: the task stays, the unit is stopped, JobRemoved done.
	pid=$(spawn_sleeper 0 "")
	expect_ok sd1_call StartTransientUnit 'ssa(sv)a(sa(sv))' cgmtest-n.scope fail 2 PIDs au 1 "$pid" KillMode s none 0
	sd1_wait_in system.slice/cgmtest-n.scope "$pid"
	# As systemd's, a scope's kill settings are taken when it starts only.
	expect_refused "property TimeoutStopUSec: only set when the unit starts" \
		sd1_call SetUnitProperties 'sba(sv)' cgmtest-n.scope true 1 TimeoutStopUSec t 1000000
	expect_ok sd1_call StopUnit ss cgmtest-n.scope replace
	for i in $(seq 100); do sd1_job_removed cgmtest-n.scope && break; sleep 0.05; done
	sd1_job_removed cgmtest-n.scope || fail "no JobRemoved done for cgmtest-n.scope: $(cat "$SD1_DIR/monitor.log")"
	pid_gone "$pid" && fail "KillMode=none killed pid $pid"
	expect_refused "Unit cgmtest-n.scope not loaded" sd1_call StopUnit ss cgmtest-n.scope replace
	expect_refused "property KillMode: 'all' is not control-group, mixed, process or none" \
		sd1_call StartTransientUnit 'ssa(sv)a(sa(sv))' cgmtest-o.scope fail 2 PIDs au 1 "$pid" KillMode s all 0
	end_pids "$pid"
}

# A task that ignores SIGTERM keeps its scope for TimeoutStopUSec (JobRemoved waits too, and the daemon
# answers meanwhile), then gets SIGKILL; JobRemoved comes once it is gone. KillSignal picks the first signal.
test_systemd1_stop_unit_sigkill_after_timeout() {
	sd1_start
	local sig=$SD1_DIR/sig i t0 took
	# SIGUSR1, not SIGINT: a shell cannot trap a signal that was ignored when it started, and SIGINT is ignored in
	# background jobs of a non-interactive shell (as CI may start the suite).
	sd1_spawn systemd-run --scope --unit=cgmtest-u -p TimeoutStopSec=1500ms -p KillSignal=SIGUSR1 sh -c \
		"trap '' TERM; trap 'echo usr1 >>$sig' USR1; touch $sig.ready; while :; do sleep 0.1; done"
	local pid=$SD1_SPAWNED
	sd1_wait_in system.slice/cgmtest-u.scope "$pid"
	# In the scope as systemd-run, before it execs sh: the stop waits for sh's trap.
	wait_until 10 test -e "$sig.ready" || fail "sh in cgmtest-u.scope set no trap"
	sd1_monitor
	t0=$(now_ms)
	expect_ok sd1_call StopUnit ss cgmtest-u.scope replace
	sleep 0.5
	pid_gone "$pid" && fail "pid $pid was killed before its TimeoutStopUSec of 1.5 s"
	sd1_job_removed cgmtest-u.scope && fail "JobRemoved before the tasks of cgmtest-u.scope were gone"
	expect_ok sd1_call GetUnit s -.slice
	for i in $(seq 200); do sd1_job_removed cgmtest-u.scope && break; sleep 0.05; done
	took=$(( $(now_ms) - t0 ))
	sd1_job_removed cgmtest-u.scope || fail "no JobRemoved done for cgmtest-u.scope: $(cat "$SD1_DIR/monitor.log")"
	pid_gone "$pid" || fail "pid $pid outlived its JobRemoved"
	[ "$took" -ge 1500 ] || fail "JobRemoved after $took ms, before the timeout of 1500 ms"
	grep -q usr1 "$sig" || fail "the task got no SIGUSR1 (KillSignal) before SIGKILL"
	expect_missing "$(sb_path name=systemd 2>/dev/null || sb_path unified)/system.slice/cgmtest-u.scope"
}

# sd1_memory_cpu_scope UNIT: systemd-run --scope of sleep 30 with the memory and cpu properties systemd-run
# turns into MemoryHigh, MemoryMin, AllowedMemoryNodes, CPUQuotaPerSecUSec and CPUQuotaPeriodUSec; its pid
# in SD1_SPAWNED once it is in the scope.
sd1_memory_cpu_scope() {
	sd1_spawn systemd-run --scope --unit="$1" -p MemoryHigh=48M -p MemoryMin=16M -p AllowedMemoryNodes=0 \
		-p CPUQuota=150% -p CPUQuotaPeriodSec=50ms sleep 30
	sd1_wait_in "system.slice/$1" "$SD1_SPAWNED"
}

# Where memory is a v1 hierarchy (this host): AllowedMemoryNodes and CPUQuotaPeriodUSec applied, the cpu quota
# kept over the new period, also when SetUnitProperties changes the period alone; MemoryHigh and MemoryMin, which
# v1 has no equivalent of, accepted and logged once as not applied, as systemd does on v1.
test_systemd1_memory_nodes_and_cpu_period() {
	pure_v2 && skip "pure cgroup2: test_v2_systemd1_memory_high_min_nodes_and_cpu_period"
	has_hierarchy cpuset && has_hierarchy cpu && has_hierarchy memory || skip "no v1 cpuset, cpu and memory"
	sd1_start
	sd1_memory_cpu_scope cgmtest-g.scope
	local cpu cpuset
	cpu=$(sb_path cpu)/system.slice/cgmtest-g.scope
	cpuset=$(sb_path cpuset)/system.slice/cgmtest-g.scope
	expect_eq "$(cat "$cpuset/cpuset.mems")" 0 "cpuset.mems"
	expect_eq "$(cat "$cpu/cpu.cfs_period_us") $(cat "$cpu/cpu.cfs_quota_us")" "50000 75000" \
		"cpu.cfs_period_us and cpu.cfs_quota_us (1.5 cpus over 50 ms)"
	expect_ok sd1_call SetUnitProperties 'sba(sv)' cgmtest-g.scope true 1 CPUQuotaPeriodUSec t 20000
	expect_eq "$(cat "$cpu/cpu.cfs_period_us") $(cat "$cpu/cpu.cfs_quota_us")" "20000 30000" \
		"cpu.cfs_period_us and cpu.cfs_quota_us after CPUQuotaPeriodUSec=20ms"
	expect_refused "property CPUQuotaPeriodUSec: 999 is out of range \(1000 to 1000000" \
		sd1_call SetUnitProperties 'sba(sv)' cgmtest-g.scope true 1 CPUQuotaPeriodUSec t 999
	local line
	for line in "MemoryHigh is accepted but not applied: memory.high has no equivalent on cgroup v1" \
		"MemoryMin is accepted but not applied: memory.min has no equivalent on cgroup v1"; do
		expect_eq "$(grep -c "property $line" "$SD1_DIR/daemon.log")" 1 "log lines '$line'"
	done
	# Logged once in the daemon's life.
	expect_ok sd1_call SetUnitProperties 'sba(sv)' cgmtest-g.scope true 1 MemoryHigh t 33554432
	expect_eq "$(grep -c "property MemoryHigh is accepted" "$SD1_DIR/daemon.log")" 1 "log lines of MemoryHigh"
	end_pids "$SD1_SPAWNED"
}

# Lane v2: the same properties, memory.high and memory.min included, in the scope's cgroup2 files.
test_v2_systemd1_memory_high_min_nodes_and_cpu_period() {
	sd1_start
	sd1_memory_cpu_scope cgmtest-h.scope
	local dir
	dir=$(sb_path unified)/system.slice/cgmtest-h.scope
	expect_eq "$(cat "$dir/memory.high") $(cat "$dir/memory.min")" "50331648 16777216" "memory.high and memory.min"
	expect_eq "$(cat "$dir/cpuset.mems")" 0 "cpuset.mems"
	expect_eq "$(cat "$dir/cpu.max")" "75000 50000" "cpu.max (1.5 cpus over 50 ms)"
	end_pids "$SD1_SPAWNED"
}

# Review of 8b4c45f: systemd-run -p CPUQuota=1% -p CPUQuotaPeriodSec=1ms: a 1% quota over 1 ms is below the
# kernel's 1 ms minimum; systemd lengthens the period (to 100 ms: cgroup_cpu_adjust_period), so the scope still
# gets 1% of a cpu. cpu.cfs_quota_us / cpu.cfs_period_us (cpu.max on cgroup2) must stay 1/100.
test_systemd1_cpu_quota_below_the_minimum_of_a_short_period() {
	has_hierarchy cpu || has_hierarchy unified || skip "no cpu controller"
	sd1_start
	sd1_spawn systemd-run --scope --unit=cgmtest-q -p CPUQuota=1% -p CPUQuotaPeriodSec=1ms sleep 30
	sd1_wait_in system.slice/cgmtest-q.scope "$SD1_SPAWNED"
	local quota period
	if has_hierarchy cpu; then
		read -r quota <"$(sb_path cpu)/system.slice/cgmtest-q.scope/cpu.cfs_quota_us"
		read -r period <"$(sb_path cpu)/system.slice/cgmtest-q.scope/cpu.cfs_period_us"
	else
		read -r quota period <"$(sb_path unified)/system.slice/cgmtest-q.scope/cpu.max"
	fi
	expect_eq "$((quota * 100))" "$period" "quota x 100 against the period (quota $quota, period $period)"
	end_pids "$SD1_SPAWNED"
}

# Review of 8b4c45f: StopUnit of a slice stops the units in it, each as its own kill settings say (systemd: a
# scope Requires= its slice, so the slice's stop job stops the scope first, and a slice itself signals
# nobody). A KillMode=none scope's task outlives its slice's stop; it got the slice's SIGTERM (and would have
# got SIGKILL after 90 s).
test_systemd1_stop_slice_keeps_each_scopes_kill_mode() {
	sd1_start
	local pid i
	pid=$(spawn_sleeper 0 "")
	expect_ok sd1_call StartTransientUnit 'ssa(sv)a(sa(sv))' cgmtest-sn.scope fail 3 PIDs au 1 "$pid" \
		KillMode s none Slice s cgmtest.slice 0
	sd1_wait_in cgmtest.slice/cgmtest-sn.scope "$pid"
	sd1_monitor
	expect_ok sd1_call StopUnit ss cgmtest.slice replace
	for i in $(seq 100); do grep -q 'STRING "cgmtest.slice";' "$SD1_DIR/monitor.log" && break; sleep 0.05; done
	grep -q 'STRING "cgmtest.slice";' "$SD1_DIR/monitor.log" ||
		fail "no JobRemoved for cgmtest.slice: $(cat "$SD1_DIR/monitor.log")"
	sleep 0.5
	pid_gone "$pid" && fail "the slice's StopUnit killed pid $pid of cgmtest-sn.scope, whose KillMode is none"
	end_pids "$pid"
}

# Review of 8b4c45f: a unit whose stop waits (a task that ignores SIGTERM, TimeoutStopUSec 20 s) is still loaded
# until its stop ends, as systemd's is (ActiveState deactivating): GetUnit finds it and KillUnit ... 9, what an
# admin does to end a stop that hangs, reaches its tasks. The unit was forgotten when StopUnit was called:
# GetUnit and KillUnit said it was not loaded while its cgroup and task stayed for the whole timeout.
test_systemd1_unit_stays_loaded_while_its_stop_waits() {
	sd1_start
	local pid i
	pid=$(spawn_as 0 "" sh -c "trap '' TERM; while :; do sleep 0.1; done")
	expect_ok sd1_call StartTransientUnit 'ssa(sv)a(sa(sv))' cgmtest-w.scope fail 2 PIDs au 1 "$pid" \
		TimeoutStopUSec t 20000000 0
	sd1_wait_in system.slice/cgmtest-w.scope "$pid"
	expect_ok sd1_call StopUnit ss cgmtest-w.scope replace
	sleep 0.3
	pid_gone "$pid" && fail "pid $pid ended by SIGTERM, which it ignores"
	expect_ok sd1_call GetUnit s cgmtest-w.scope
	expect_ok sd1_call KillUnit ssi cgmtest-w.scope all 9
	for i in $(seq 50); do pid_gone "$pid" && break; sleep 0.1; done
	pid_gone "$pid" || fail "KillUnit 9 during the stop left pid $pid"
	end_pids "$pid"
}

# A stopping unit is loaded, deactivating, till its stop ends (systemd's ActiveState and a scope's SubState
# stop-sigterm): a second StopUnit answers the same job, and StartTransientUnit of its name is UnitExists (the
# daemon's message: already loaded). Once KillUnit ... 9 has ended it, JobRemoved done, and the unit is unloaded.
test_systemd1_stopping_unit_is_deactivating_and_keeps_its_name() {
	sd1_start
	local pid other job out i
	pid=$(spawn_as 0 "" sh -c "trap '' TERM; while :; do sleep 0.1; done")
	other=$(spawn_sleeper 0 "")
	expect_ok sd1_call StartTransientUnit 'ssa(sv)a(sa(sv))' cgmtest-dz.scope fail 2 PIDs au 1 "$pid" \
		TimeoutStopUSec t 20000000 0
	sd1_wait_in system.slice/cgmtest-dz.scope "$pid"
	sd1_monitor
	job=$(sd1_call StopUnit ss cgmtest-dz.scope replace) || fail "StopUnit: $job"
	out=$(run_as 0 "" busctl --address="$SD1_BUS" get-property org.freedesktop.systemd1 \
		/org/freedesktop/systemd1/unit/cgmtest_2ddz_2escope org.freedesktop.systemd1.Unit ActiveState SubState)
	expect_eq "$out" $'s "deactivating"\ns "stop-sigterm"' "ActiveState and SubState while the stop waits"
	expect_eq "$(sd1_call StopUnit ss cgmtest-dz.scope replace)" "$job" "a second StopUnit's job"
	expect_refused "Unit cgmtest-dz.scope was already loaded" sd1_call StartTransientUnit 'ssa(sv)a(sa(sv))' \
		cgmtest-dz.scope fail 1 PIDs au 1 "$other" 0
	pid_gone "$other" && fail "pid $other ended"
	grep -qx "$other" "$(sb_path name=systemd 2>/dev/null || sb_path unified)/cgroup.procs" ||
		fail "the refused start moved pid $other"
	expect_ok sd1_call KillUnit ssi cgmtest-dz.scope all 9
	for i in $(seq 100); do sd1_job_removed cgmtest-dz.scope && break; sleep 0.05; done
	sd1_job_removed cgmtest-dz.scope || fail "no JobRemoved done for cgmtest-dz.scope: $(cat "$SD1_DIR/monitor.log")"
	pid_gone "$pid" || fail "KillUnit 9 left pid $pid"
	expect_refused "Unit cgmtest-dz.scope not loaded" sd1_call GetUnit s cgmtest-dz.scope
	end_pids "$pid" "$other"
}

# A stop acts only on the cgroup it started with: removed (here by hand, while the daemon is held with SIGSTOP, as
# remove-on-empty would once its last task left) and made again under the same name with another task, the cgroup
# is another's; the old stop, whose 1 s timeout would have sent SIGKILL, ends there without a signal.
test_systemd1_stop_spares_a_cgroup_made_again_under_its_name() {
	sd1_start
	local old new= e dir ok=1 i
	old=$(spawn_as 0 "" sh -c "trap '' TERM; while :; do sleep 0.1; done")
	expect_ok sd1_call StartTransientUnit 'ssa(sv)a(sa(sv))' cgmtest-rz.scope fail 2 PIDs au 1 "$old" \
		TimeoutStopUSec t 1000000 0
	sd1_wait_in system.slice/cgmtest-rz.scope "$old"
	sd1_monitor
	expect_ok sd1_call StopUnit ss cgmtest-rz.scope replace
	kill -STOP "$SD1_PID"
	end_pids "$old"
	for e in "${SB_DIRS[@]}"; do
		dir=${e#*|}/system.slice/cgmtest-rz.scope
		# The killed sh's sleep outlives it by up to 0.1 s, and keeps the cgroup busy till then.
		{ wait_until 10 rmdir "$dir" && mkdir "$dir"; } 2>/dev/null || ok=
		# A new v1 cpuset cgroup has no cpus nor memory nodes, and takes no task till it is given some.
		if [ -e "$dir/cpuset.cpus" ] && [ ! -e "$dir/cpuset.cpus.effective" ]; then
			cat "$dir/../cpuset.cpus" >"$dir/cpuset.cpus" && cat "$dir/../cpuset.mems" >"$dir/cpuset.mems" || ok=
		fi
	done
	[ -n "$ok" ] && new=$(spawn_sleeper 0 system.slice/cgmtest-rz.scope)
	kill -CONT "$SD1_PID"
	[ -n "$new" ] || fail "cannot remove the scope's cgroup and make it again with a task in it"
	for i in $(seq 100); do sd1_job_removed cgmtest-rz.scope && break; sleep 0.05; done
	sd1_job_removed cgmtest-rz.scope || fail "no JobRemoved done for cgmtest-rz.scope: $(cat "$SD1_DIR/monitor.log")"
	sleep 1.5
	pid_gone "$new" && fail "the old stop of cgmtest-rz.scope killed pid $new in the cgroup made again"
	sd1_wait_in system.slice/cgmtest-rz.scope "$new"
	grep -q "cgmtest-rz.scope was removed and made again meanwhile" "$SD1_DIR/daemon.log" ||
		fail "the daemon did not log why the stop ended: $(tail -5 "$SD1_DIR/daemon.log")"
	end_pids "$new"
}

# StopUnit of a slice stops each unit beneath it by its own kill settings, the scope of the default (control-group)
# and that of KillMode none alike, then the tasks in the slice's cgroup itself, which belong to no unit, by the
# default (SIGTERM); the slice's JobRemoved comes after its scopes'. The slice and both scopes are unloaded; the
# task that KillMode none left stays in its scope's cgroup.
test_systemd1_stop_slice_stops_each_unit_then_its_own_tasks() {
	sd1_start
	local a n own i
	a=$(spawn_sleeper 0 "") n=$(spawn_sleeper 0 "")
	expect_ok sd1_call StartTransientUnit 'ssa(sv)a(sa(sv))' cgmtest-s3a.scope fail 2 PIDs au 1 "$a" \
		Slice s cgmtest3.slice 0
	expect_ok sd1_call StartTransientUnit 'ssa(sv)a(sa(sv))' cgmtest-s3b.scope fail 3 PIDs au 1 "$n" \
		KillMode s none Slice s cgmtest3.slice 0
	sd1_wait_in cgmtest3.slice/cgmtest-s3b.scope "$n"
	own=$(spawn_sleeper 0 cgmtest3.slice)
	sd1_monitor
	expect_ok sd1_call StopUnit ss cgmtest3.slice replace
	for i in $(seq 100); do sd1_job_removed cgmtest3.slice && break; sleep 0.05; done
	sd1_job_removed cgmtest3.slice || fail "no JobRemoved done for cgmtest3.slice: $(cat "$SD1_DIR/monitor.log")"
	sd1_job_removed cgmtest-s3a.scope || fail "no JobRemoved done for cgmtest-s3a.scope"
	sd1_job_removed cgmtest-s3b.scope || fail "no JobRemoved done for cgmtest-s3b.scope"
	local order
	order=$(grep -o 'STRING "cgmtest[-a-z0-9]*\.s[a-z]*"' "$SD1_DIR/monitor.log" | tr '\n' ' ')
	[[ $order == *cgmtest-s3a.scope*cgmtest3.slice* ]] || fail "the slice's JobRemoved came before its scope's: $order"
	for i in $(seq 50); do pid_gone "$a" && pid_gone "$own" && break; sleep 0.05; done
	pid_gone "$a" || fail "the control-group scope's pid $a outlived the slice's stop"
	pid_gone "$own" || fail "pid $own in the slice's own cgroup outlived the slice's stop"
	pid_gone "$n" && fail "the KillMode=none scope's pid $n was killed"
	sd1_wait_in cgmtest3.slice/cgmtest-s3b.scope "$n"
	for i in cgmtest3.slice cgmtest-s3a.scope cgmtest-s3b.scope; do
		expect_refused "Unit $i not loaded" sd1_call GetUnit s "$i"
	done
	end_pids "$a" "$n" "$own"
}
