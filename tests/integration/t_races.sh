# Races between the daemon's check and its write: an unprivileged owner (TEST_UID) renames, removes and
# remakes cgroups of its delegated subtree while the daemon acts on their names; tasks exit, or exec a
# setuid-root program, while they are being moved. Each loop runs in tests/helpers/race.c, bounded in
# iterations (10^4) and in seconds (RACE_SECONDS, default 20), and prints how many iterations it ran.

RACE=$BUILD/tests/race
RACE_ITER=${RACE_ITER:-10000}
RACE_SECONDS=${RACE_SECONDS:-20}

# race_as UID REL ARGS...: the race helper as UID in sandbox cgroup REL; its count line goes to stdout.
race_as() { local uid=$1 rel=$2; shift 2; run_as "$uid" "$rel" "$RACE" "$@"; }

# A cgroup root made inside the owner's delegated cgroup stays root's: the owner may rename it (cgroup v1,
# within the same parent) or remove it while empty, as the kernel lets a directory's owner, but never own it.
# Here the owner renames the cgroup the daemon has just made for it away, and root's into its name, between
# the daemon's mkdir and its chown.
test_race_create_swapped_for_root_cgroup_v1() {
	local d out rc=0
	multi_hierarchy || skip "cgroup2 has no rename: only v1 can swap a cgroup for another of the same name"
	delegate rc_swap "$TEST_UID"
	# Not empty, so that nobody but root may remove it.
	cgm_root create memory rc_swap/rootkid/inner
	d=$(sb_path memory)/rc_swap
	echo 67108864 >"$d/rootkid/$MLIM"
	out=$(race_as "$TEST_UID" rc_swap create-swap "$SOCK" memory "$d" new rootkid "$RACE_ITER" "$RACE_SECONDS") || rc=$?
	echo "measured: $out"
	expect_tree_owner "$d/rootkid" 0 0
	expect_tree_owner "$d/rootkid/inner" 0 0
	expect_eq "$(cat "$d/rootkid/$MLIM")" 67108864 "rootkid's memory limit"
	[ "$rc" = 0 ] || fail "the race helper: $out"
	ping_quickly
	cgm_root remove all rc_swap 1
}

# setuid_sleep: a root-owned setuid copy of sleep in a directory of $WORK only root may write; prints its path.
setuid_sleep() {
	local d=$WORK/suid
	mkdir -p "$d" && chmod 755 "$d"
	cp "$(command -v sleep)" "$d/sleep" && chown 0:0 "$d/sleep" && chmod 4755 "$d/sleep" && echo "$d/sleep"
}

# A task of the requester's that execs a setuid-root program between the daemon's check of its uids and
# the daemon's write runs as root when it is moved: the daemon must not leave it moved. A second daemon,
# its openat2 calls slowed by 300 ms (strace's fault injection), makes the exec land in that window every
# time: the uids are read (openat) before the target is opened (openat2), and the exec comes 0-50 ms
# after the request.
test_race_move_task_that_execs_setuid_between_check_and_write() {
	local bin out rc=0 sock=$WORK/slow.sock slow
	command -v strace >/dev/null || skip "no strace here to slow the daemon"
	bin=$(setuid_sleep)
	delegate rx_exec "$TEST_UID"
	cgm_as "$TEST_UID" rx_exec create memory d
	DAEMON_WRAPPER="strace -f -qq -o /dev/null -e trace=openat2 -e inject=openat2:delay_exit=300000" \
		daemon_spawn "$sock" "$WORK/slow.log"
	slow=$SPAWNED_PID
	wait_until 20 "$CGM" --socket "$sock" ping || fail "the slowed daemon did not start: $(tail -5 "$WORK/slow.log")"
	out=$(race_as "$TEST_UID" rx_exec exec-move "$sock" memory d "$bin" 5 20 50000 strict 2>&1) || rc=$?
	echo "measured: ${out##*$'\n'}"
	# SIGTERM to strace would only detach it: the daemon, its child, is stopped itself.
	kill -TERM $(cat "/proc/$slow/task/$slow/children" 2>/dev/null) 2>/dev/null || true
	stop_pid "$slow" 5 || true
	[ "$rc" = 0 ] || fail "$out"
	expect_eq "$(cat "$(sb_path memory)/rx_exec/d/cgroup.procs")" "" "tasks of rx_exec/d"
	cgm_root remove all rx_exec 1
}

# The same against the suite's daemon, unslowed, 10^4 times with the exec at a random moment up to 400 us
# after the request: a refused move leaves the task where it was; the daemon stays up.
test_race_move_task_that_execs_setuid_looped() {
	local bin out rc=0
	bin=$(setuid_sleep)
	delegate rx_execl "$TEST_UID"
	cgm_as "$TEST_UID" rx_execl create all d
	out=$(race_as "$TEST_UID" rx_execl exec-move "$SOCK" all d "$bin" "$RACE_ITER" "$RACE_SECONDS" 400 2>&1) || rc=$?
	echo "measured: ${out##*$'\n'}"
	[ "$rc" = 0 ] || fail "$out"
	ping_quickly
	cgm_root remove all rx_execl 1
}
