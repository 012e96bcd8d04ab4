# Shared by every integration test: one sandbox cgroup beneath our own cgroup
# in each hierarchy, a daemon started inside it on a private socket, helpers
# to run requesters (root or real unprivileged uids) inside the sandbox, and
# assertions. Nothing outside the sandbox is ever written, and only pids we
# started are signalled.

: "${BUILD:?BUILD must name the build directory}"
CGMANAGER=$BUILD/cgmanager
CGM=$BUILD/src/client/cgm
TEST_UID=${TEST_UID:-60001}
TEST_UID2=${TEST_UID2:-60002}

SB_NAME=cgm-test-$$
SB_DIRS=()      # "hierarchy-name|path" of the sandbox in each hierarchy
SB_PIDS=()      # every process we started, to be ended by pid
DAEMON_PID=
SOCK=
WORK=

# Prints "controllers-field mountpoint root" for the mount of one /proc/self/cgroup line.
_mount_of() {
	awk -v c="$1" '{ for (s = 7; $s != "-"; s++); t = $(s+1); n = split($(s+3), o, ",");
		if (t == "cgroup2" && c == "") { print $5, $4; exit }
		if (t == "cgroup" && c != "") { m = split(c, w, ","); hit = 1;
			for (j = 1; j <= m; j++) { f = 0; for (i = 1; i <= n; i++) if (o[i] == w[j]) f = 1; if (!f) hit = 0 }
			if (hit) { print $5, $4; exit } } }' /proc/self/mountinfo
}

# sb_path NAME: the sandbox directory of the hierarchy named as cgm names it. On a pure cgroup2 host
# every controller name is the one hierarchy.
sb_path() {
	local e
	for e in "${SB_DIRS[@]}"; do
		[ "${e%%|*}" = "$1" ] && { echo "${e#*|}"; return 0; }
	done
	if pure_v2; then sb_path unified; return; fi
	return 1
}

# The names a test uses for files and hierarchies that differ between cgroup v1 and a pure cgroup2 host:
# MLIM, MSOFT the memory limit and soft limit files; MH, PH the hierarchy of memory and of pids as the
# daemon's messages name it; TASKS a task file other than cgroup.procs that a chown hands over; CPUW the
# cpu weight file; MEMLINE the line of /proc/PID/cgroup for memory's hierarchy (an extended regex).
lane_files() {
	if pure_v2; then
		MLIM=memory.max MSOFT=memory.low MH=unified PH=unified TASKS=cgroup.threads CPUW=cpu.weight PURE_V2=1 MEMLINE='^0::'
	else
		MLIM=memory.limit_in_bytes MSOFT=memory.soft_limit_in_bytes MH=memory PH=pids TASKS=tasks CPUW=cpu.shares PURE_V2= MEMLINE='^[0-9]+:memory:'
	fi
}

# has_hierarchy NAME: the host has that hierarchy itself (not as a name of cgroup2's).
has_hierarchy() { local e; for e in "${SB_DIRS[@]}"; do [ "${e%%|*}" = "$1" ] && return 0; done; return 1; }
# multi_hierarchy: controllers live in more than one hierarchy, as on a v1 or hybrid host.
multi_hierarchy() { ! pure_v2; }

# pure_v2: the only hierarchy is cgroup2.
pure_v2() { [ "${#SB_DIRS[@]}" = 1 ] && [ "${SB_DIRS[0]%%|*}" = unified ]; }

sb_hierarchies() { local e; for e in "${SB_DIRS[@]}"; do echo "${e%%|*}"; done; }

# sweep_stale_sandboxes DIR: removes the sandboxes a run killed outright (SIGKILL, a lost machine) left
# in DIR, our own cgroup: only cgm-test-PID directories whose PID is gone and that hold no task.
sweep_stale_sandboxes() {
	local old pid
	for old in "$1"/cgm-test-*; do
		[ -d "$old" ] || continue
		pid=${old##*cgm-test-}
		[[ $pid =~ ^[0-9]+$ ]] && ! kill -0 "$pid" 2>/dev/null || continue
		[ -z "$(find "$old" -name cgroup.procs -exec cat {} + 2>/dev/null)" ] || continue
		# -delete removes relative to its parent, so it also clears trees deeper than PATH_MAX (t_deep_trees).
		find "$old" -depth -type d -delete 2>/dev/null
	done
	return 0
}

sandbox_create() {
	local id ctrls path mp root rel d name
	while IFS=: read -r id ctrls path; do
		read -r mp root < <(_mount_of "$ctrls") || true
		[ -n "$mp" ] || continue
		if [ "$root" = / ]; then rel=$path; else rel=${path#"$root"}; fi
		d=${mp%/}${rel%/}/$SB_NAME
		sweep_stale_sandboxes "$(dirname "$d")"
		mkdir "$d" || return 1
		name=${ctrls:-unified}
		SB_DIRS+=("$name|$d")
		if [ "$ctrls" = cpuset ]; then
			cat "$(dirname "$d")/cpuset.cpus" >"$d/cpuset.cpus"
			cat "$(dirname "$d")/cpuset.mems" >"$d/cpuset.mems"
		fi
	done </proc/self/cgroup
	lane_files
	# On a pure cgroup2 host the sandbox hands every controller it has to its children, before any task
	# is in it, as a service manager does for the cgroup it delegates.
	if pure_v2; then
		for c in $(cat "$(sb_path unified)/cgroup.controllers"); do
			echo "+$c" >"$(sb_path unified)/cgroup.subtree_control" || return 1
		done
	fi
	WORK=$(mktemp -d /tmp/cgm-test.XXXXXX)
	chmod 755 "$WORK"
	SOCK=$WORK/sock
}

# Kills what is left in the sandbox (all of it ours), then removes it bottom-up.
sandbox_destroy() {
	local e d p i f
	# A frozen task does not die until thawed (a test that failed while its cgroup was frozen).
	for e in "${SB_DIRS[@]}"; do
		d=${e#*|}
		[ -d "$d" ] || continue
		while read -r f; do
			case $f in
			*/freezer.state) echo THAWED >"$f" ;;
			*) echo 0 >"$f" ;;
			esac
		done < <(find "$d" \( -name freezer.state -o -name cgroup.freeze \) 2>/dev/null)
	done 2>/dev/null
	for p in "${SB_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
	for i in 1 2 3 4 5 6 7 8 9 10; do
		local busy=
		for e in "${SB_DIRS[@]}"; do
			d=${e#*|}
			[ -d "$d" ] || continue
			while read -r p; do
				[ -n "$p" ] && { kill -KILL "$p" 2>/dev/null; busy=1; }
			done < <(find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null)
		done
		[ -z "$busy" ] && break
		sleep 0.1
	done
	for e in "${SB_DIRS[@]}"; do
		d=${e#*|}
		[ -d "$d" ] && find "$d" -depth -type d -delete 2>/dev/null
		[ -d "$d" ] && echo "warning: could not remove $d" >&2
	done
	[ -n "$WORK" ] && rm -rf "$WORK"
}

# Writes pid into cgroup REL (relative to the sandbox) of every hierarchy. On cgroup2 a cgroup whose
# children have controllers holds its tasks in its leaf, .leaf, as the daemon does (ops/unified.h).
# Every test command goes through here, so it forks nothing (procs_file_to sets a variable).
_enter() {
	local pid=$1 rel=$2 e PROCS
	for e in "${SB_DIRS[@]}"; do
		procs_file_to PROCS "${e#*|}${rel:+/$rel}" && echo "$pid" >"$PROCS" || return 1
	done
}

# procs_file_to VAR DIR: sets VAR to the cgroup.procs a task entering cgroup DIR is written to: DIR's, or on
# cgroup2 that of DIR's leaf (made, and given to DIR's owner, if need be) when DIR's children have controllers.
procs_file_to() {
	local -n _to=$1
	local d=$2 sc=
	[ -e "$d/cgroup.subtree_control" ] && read -r sc <"$d/cgroup.subtree_control"
	if [ -n "$sc" ]; then
		# One process, not three: each costs much in the v2 lane's emulated VM, and every cgm call comes here.
		{ [ -d "$d/.leaf" ] || mkdir "$d/.leaf"; } && chown --reference="$d" "$d/.leaf" "$d/.leaf/cgroup.procs" ||
			return 1
		d=$d/.leaf
	fi
	_to=$d/cgroup.procs
}
procs_file() { local f; procs_file_to f "$1" && echo "$f"; }

# run_as UID REL CMD...: runs CMD in sandbox cgroup REL as UID (0 for root), waits, returns its status.
run_as() {
	local uid=$1 rel=$2
	shift 2
	(
		_enter "$BASHPID" "$rel" || exit 99
		if [ "$uid" = 0 ]; then exec "$@"; fi
		exec setpriv --reuid="$uid" --regid="$uid" --clear-groups --inh-caps=-all -- "$@"
	)
}

# spawn_as UID REL CMD...: the same in the background; prints the pid and records it.
spawn_as() {
	local uid=$1 rel=$2
	shift 2
	(
		_enter "$BASHPID" "$rel" || exit 99
		if [ "$uid" = 0 ]; then exec "$@"; fi
		exec setpriv --reuid="$uid" --regid="$uid" --clear-groups --inh-caps=-all -- "$@"
	) >/dev/null 2>&1 &
	SB_PIDS+=("$!")
	# SB_PIDS is lost when spawn_as runs in $(...), as it mostly does: run.sh ends what a test left from here.
	echo "$!" >>"$WORK/test.pids"
	echo "$!"
}

# end_test_pids: after a test, SIGKILLs what its spawn_as started and is still in the sandbox (a pid that left it
# is no longer ours to end, whatever has it now), so that a failed test's subscribers and sleepers do not hold
# the next tests' quotas and watches.
end_test_pids() {
	local p
	[ -s "$WORK/test.pids" ] || return 0
	while read -r p; do
		grep -q "/$SB_NAME\(/\|$\)" "/proc/$p/cgroup" 2>/dev/null && kill -KILL "$p" 2>/dev/null
	done <"$WORK/test.pids"
	: >"$WORK/test.pids"
}

# cgm as root from the sandbox root, or as UID from REL.
cgm_root() { run_as 0 "" "$CGM" --socket "$SOCK" "$@"; }
cgm_as() { local uid=$1 rel=$2; shift 2; run_as "$uid" "$rel" "$CGM" --socket "$SOCK" "$@"; }

# daemon_spawn SOCK LOG [OPTION...]: a daemon in the sandbox root on SOCK, in the background, appending to
# LOG; its pid in SPAWNED_PID (recorded, so that the sandbox ends it).
daemon_spawn() {
	local sock=$1 log=$2
	shift 2
	(
		_enter "$BASHPID" "" || exit 99
		exec ${DAEMON_WRAPPER:-} "$CGMANAGER" --socket "$sock" --log-level "${DAEMON_LOG_LEVEL:-debug}" "$@"
	) >>"$log" 2>&1 &
	SPAWNED_PID=$!
	SB_PIDS+=("$SPAWNED_PID")
}

# daemon_start [OPTION...]: the suite's daemon on $SOCK, answering a ping.
daemon_start() {
	local i
	daemon_spawn "$SOCK" "$WORK/daemon.log" "$@"
	DAEMON_PID=$SPAWNED_PID
	for i in $(seq 100); do
		[ -S "$SOCK" ] && "$CGM" --socket "$SOCK" ping 2>/dev/null && return 0
		kill -0 "$DAEMON_PID" 2>/dev/null || break
		sleep 0.05
	done
	echo "daemon did not start:" >&2
	cat "$WORK/daemon.log" >&2
	return 1
}

daemon_stop() {
	[ -n "$DAEMON_PID" ] || return 0
	stop_pid "$DAEMON_PID"
	local rc=$?
	DAEMON_PID=
	return $rc
}

# stop_pid PID [SECONDS]: SIGTERM to PID, a child of this shell; SIGKILL if it is still there after SECONDS
# (default 30), so that a process that ignores SIGTERM cannot hang the suite and its sandbox. Returns its
# exit status (137 when it had to be killed).
stop_pid() {
	local pid=$1 i
	kill -TERM "$pid" 2>/dev/null
	for ((i = 0; i < ${2:-30} * 20; i++)); do
		pid_gone "$pid" && break
		sleep 0.05
	done
	if ! pid_gone "$pid"; then
		echo "  pid $pid did not stop within ${2:-30} s of SIGTERM; killed" >&2
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
}

daemon_alive() { [ -n "$DAEMON_PID" ] && kill -0 "$DAEMON_PID" 2>/dev/null; }

# skip REASON: ends the test as skipped (run.sh counts it, with the reason), where this host lacks what it needs.
skip() { echo "  skipped: $*"; exit 77; }

# --- assertions: each prints what went wrong and returns 1 ---
fail() { echo "  FAILED: $*" >&2; return 1; }
expect_eq() { [ "$1" = "$2" ] || fail "${3:-value}: expected '$2', got '$1'"; }
expect_ok() { local out; out=$("$@" 2>&1) || fail "command failed: $* -> $out"; }
# expect_refused PATTERN CMD...: the command must fail with stderr matching PATTERN.
expect_refused() {
	local pat=$1 out
	shift
	if out=$("$@" 2>&1); then fail "command succeeded but should not have: $*"; return 1; fi
	echo "$out" | grep -qE "$pat" || fail "refusal of '$*' did not match /$pat/: $out"
}
expect_exists() { [ -e "$1" ] || fail "$1 does not exist"; }
expect_missing() { [ ! -e "$1" ] || fail "$1 exists but should not"; }
# expect_owner PATH UID GID
expect_owner() {
	local got
	got=$(stat -c '%u %g' "$1") || return 1
	[ "$got" = "$2 $3" ] || fail "$1 is owned by $got, expected $2 $3"
}

busctl_call() { run_as "${BUSCTL_UID:-0}" "${BUSCTL_REL:-}" busctl --address="unix:path=$SOCK" call org.linuxcontainers.cgmanager /org/linuxcontainers/cgmanager org.linuxcontainers.cgmanager0_0 "$@"; }

# --- requesters and their tasks ---

# delegate CGROUP UID [CONTROLLER]: root creates CGROUP (in every hierarchy by default) and chowns it to UID:UID.
delegate() {
	cgm_root create "${3:-all}" "$1" >/dev/null || return 1
	cgm_root chown "${3:-all}" "$1" "$2" "$2"
}

# spawn_sleeper UID REL [WRAPPER...]: a `sleep` as UID in sandbox cgroup REL (run through WRAPPER, if
# given); prints its pid once the sleep runs there, so that its uids and cgroups are final.
spawn_sleeper() {
	local uid=$1 rel=$2 pid i
	shift 2
	pid=$(spawn_as "$uid" "$rel" "$@" sleep 600)
	for i in $(seq 200); do
		[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = sleep ] && { echo "$pid"; return 0; }
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.02
	done
	fail "sleeper $pid (uid $uid in '$rel') did not start"
}

# pid_gone PID: PID has exited. A zombie counts as gone: it has left its cgroups, and it may wait long for
# a reaper (an orphan's is PID 1, which on some hosts reaps seldom).
pid_gone() {
	local st
	st=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	st=${st##*) }
	[ "${st%% *}" = Z ]
}

# end_pids PID...: kills processes we started and waits (briefly) until they are gone.
end_pids() {
	local p i
	for p in "$@"; do kill -KILL "$p" 2>/dev/null || true; done
	for p in "$@"; do
		for i in $(seq 100); do pid_gone "$p" && break; sleep 0.02; done
	done
	return 0
}

# daemon_fds: how many fds the suite's daemon holds.
daemon_fds() { ls "/proc/$DAEMON_PID/fd" | wc -l; }

# settled CMD...: CMD's output once two runs 0.2 s apart agree (at most 5 s): a count of the daemon's fds taken
# while the connection of a previous cgm call is still being closed (later on a loaded machine) would count it.
settled() {
	local a b i
	b=$("$@")
	for i in $(seq 25); do
		sleep 0.2
		a=$b b=$("$@")
		[ "$a" != "$b" ] || break
	done
	echo "$b"
}

# expect_in_cgroup PID HIERARCHY REL: PID is listed in cgroup.procs of sandbox cgroup REL of HIERARCHY.
# On cgroup2 a task may be in REL's leaf, which is REL for every answer of the daemon.
expect_in_cgroup() {
	local d f; d=$(sb_path "$2")${3:+/$3}; f=$d/cgroup.procs
	grep -qx "$1" "$f" && return 0
	[ -e "$d/.leaf" ] && grep -qx "$1" "$d/.leaf/cgroup.procs" && return 0
	fail "pid $1 is not in $2:/$3 (its cgroup.procs: $(tr '\n' ' ' <"$f"))"
}

# expect_mode PATH OCTAL: the permission bits of PATH.
expect_mode() {
	local got; got=$(stat -c %a "$1") || return 1
	[ "$got" = "$2" ] || fail "$1 has mode $got, expected $2"
}

# expect_tree_owner DIR UID GID: DIR and every file directly in it.
expect_tree_owner() {
	local f
	expect_owner "$1" "$2" "$3" || return 1
	for f in "$1"/*; do
		[ -f "$f" ] && { expect_owner "$f" "$2" "$3" || return 1; }
	done
	return 0
}

# --- other D-Bus clients, timing (t_methods, t_clients, t_robust) ---

CGM_DEST=org.linuxcontainers.cgmanager
CGM_PATH=/org/linuxcontainers/cgmanager
CGM_IFACE0=org.linuxcontainers.cgmanager0_0

# dbus_send_as UID REL METHOD ARGS...: dbus-send --print-reply of cgmanager0_0.METHOD (or of IFACE.METHOD if it has a dot).
dbus_send_as() {
	local uid=$1 rel=$2 m=$3
	shift 3
	[[ $m == *.* ]] || m=$CGM_IFACE0.$m
	run_as "$uid" "$rel" dbus-send --address="unix:path=$SOCK" --print-reply --dest=$CGM_DEST $CGM_PATH "$m" "$@"
}

# gdbus_as UID REL METHOD ARGS...: gdbus call of cgmanager0_0.METHOD (or of IFACE.METHOD).
gdbus_as() {
	local uid=$1 rel=$2 m=$3
	shift 3
	[[ $m == *.* ]] || m=$CGM_IFACE0.$m
	run_as "$uid" "$rel" gdbus call --address "unix:path=$SOCK" --dest $CGM_DEST -o $CGM_PATH -m "$m" "$@"
}

now_ms() { local us=${EPOCHREALTIME//[.,]/}; echo $((us / 1000)); }

# wait_until SECONDS CMD...: polls CMD every 0.1 s until it succeeds; fails after SECONDS.
wait_until() {
	local deadline=$(($(now_ms) + $1 * 1000))
	shift
	while ! "$@" 2>/dev/null; do
		[ "$(now_ms)" -lt "$deadline" ] || return 1
		sleep 0.1
	done
}

# ping_quickly [MS]: a fresh client's ping is answered within MS milliseconds (default 1000; three times
# that in the v2 VM, where starting the client alone can take half a second).
ping_quickly() {
	local ms=${1:-1000} t0 t1
	[ "$LANE" != v2 ] || ms=$((ms * 3))
	t0=$(now_ms)
	timeout 5 "$CGM" --socket "$SOCK" ping || { fail "ping from another client failed"; return 1; }
	t1=$(now_ms)
	[ $((t1 - t0)) -le "$ms" ] || fail "ping from another client took $((t1 - t0)) ms (limit $ms ms)"
}
