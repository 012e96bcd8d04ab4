# Races between the daemon's check and its write: an unprivileged owner (TEST_UID) renames, removes and
# remakes cgroups of its delegated subtree while the daemon acts on their names; tasks exit, or exec a
# setuid-root program, while they are being moved. Each loop runs in tests/helpers/race.c, bounded in
# iterations (10^4) and in seconds (RACE_SECONDS, default 20), and prints how many iterations it ran.

RACE=$BUILD/tests/race
RACE_ITER=${RACE_ITER:-10000}
RACE_SECONDS=${RACE_SECONDS:-20}

# race_as UID REL ARGS...: the race helper as UID in sandbox cgroup REL; its count line goes to stdout.
race_as() { local uid=$1 rel=$2; shift 2; run_as "$uid" "$rel" "$RACE" "$@"; }

# owner_creates UID REL CGM-ARGS...: a Create of UID's that the quota may refuse for a moment: the churns above
# remove thousands of UID's cgroups behind the suite daemon's back, which counts them out at its next count,
# no sooner than 99 times its last walk (about half a second under ASan).
owner_creates() { local uid=$1 rel=$2; shift 2; wait_until 5 cgm_as "$uid" "$rel" create "$@"; }

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

# The same swap against the key API's Create with a value: the owner's rename comes after the new cgroup was
# made and opened, so the value is for the cgroup that now has the name, root's, and is refused; the undo
# must then remove what the call made, not what took its name (root's, with a child the owner may not remove).
test_race_create_with_values_undone_after_swap_v1() {
	local d out rc=0
	multi_hierarchy || skip "cgroup2 has no rename: only v1 can swap a cgroup for another of the same name"
	delegate rc_undo "$TEST_UID"
	cgm_root create memory rc_undo/rootkid/inner
	d=$(sb_path memory)/rc_undo
	out=$(race_as "$TEST_UID" rc_undo create-swap "$SOCK" memory "$d" new rootkid "$RACE_ITER" "$RACE_SECONDS" \
		values) || rc=$?
	echo "measured: $out"
	expect_exists "$d/rootkid/inner"
	expect_tree_owner "$d/rootkid" 0 0
	[ "$rc" = 0 ] || fail "the race helper: $out"
	ping_quickly
	cgm_root remove all rc_undo 1
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
	owner_creates "$TEST_UID" rx_exec memory d || fail "uid $TEST_UID could not create rx_exec/d"
	DAEMON_WRAPPER="strace -f -qq -o /dev/null -e trace=openat2 -e inject=openat2:delay_exit=300000" \
		daemon_spawn "$sock" "$WORK/slow.log"
	slow=$SPAWNED_PID
	wait_until 20 "$CGM" --socket "$sock" ping || fail "the slowed daemon did not start: $(tail -5 "$WORK/slow.log")"
	out=$(race_as "$TEST_UID" rx_exec exec-move "$sock" memory d "$bin" 5 20 50000 strict 2>&1) || rc=$?
	echo "measured: $(grep '^iterations' <<<"$out")"
	# SIGTERM to strace would only detach it: the daemon, its child, is stopped itself.
	kill -TERM $(cat "/proc/$slow/task/$slow/children" 2>/dev/null) 2>/dev/null || true
	stop_pid "$slow" 5 || true
	[ "$rc" = 0 ] || fail "$out"
	# The exec lands between the check and the write (the re-check's refusal), or, on a machine so busy that the
	# daemon took the request late, before the check (the check's own); either way nothing is moved (rc 0 says so).
	# On a machine so busy that the exec came after the move was answered, that task was the user's when it was
	# moved, as when it runs a setuid program later: counted ("only after"), not failed.
	grep -qE "^the first refusal: pid [0-9]+ changed its uids while it was being moved \(it ran a setuid program\): pid \
[0-9]+ runs as uid 0; you are uid $TEST_UID and may move only your own tasks; pid [0-9]+ was left where it was in every \
hierarchy$|^the first refusal: pid [0-9]+ runs as uid 0; you are uid $TEST_UID and may move only your own tasks$" <<<"$out" ||
		fail "not the refusal expected: $out"
	grep -q "changed its uids" <<<"$out" || echo "measured: every exec landed before the check (a busy machine): the ordinary refusal"
	expect_eq "$(cat "$(sb_path memory)/rx_exec/d/cgroup.procs")" "" "tasks of rx_exec/d"
	cgm_root remove all rx_exec 1
}

# The same against the suite's daemon, unslowed, 10^4 times with the exec at a random moment up to 400 us
# after the request: a refused move leaves the task where it was; the daemon stays up.
test_race_move_task_that_execs_setuid_looped() {
	local bin out rc=0
	bin=$(setuid_sleep)
	delegate rx_execl "$TEST_UID"
	owner_creates "$TEST_UID" rx_execl all d || fail "uid $TEST_UID could not create rx_execl/d"
	out=$(race_as "$TEST_UID" rx_execl exec-move "$SOCK" all d "$bin" "$RACE_ITER" "$RACE_SECONDS" 400 2>&1) || rc=$?
	echo "measured: $(grep '^iterations' <<<"$out")"
	[ "$rc" = 0 ] || fail "$out"
	ping_quickly
	cgm_root remove all rx_execl 1
}

# snap_tree DIR SKIP...: owner, group and mode of DIR and of everything beneath it, and the value of each
# limit file named in $SNAP_FILES, leaving out the paths beneath DIR/SKIP (each of SKIP a relative path).
snap_tree() {
	local d=$1 s args=()
	shift
	for s in "$@"; do args+=(-path "$d/$s" -prune -o); done
	find "$d" "${args[@]}" -printf '%P %u %g %m\n' | sort
	for s in $SNAP_FILES; do
		find "$d" "${args[@]}" -name "$s" -type f -printf '%P ' -exec cat {} \; | sort
	done
}

# cgroup_line PID HIERARCHY: PID's cgroup in HIERARCHY, as /proc/PID/cgroup shows it.
cgroup_line() {
	if [ "$2" = unified ] || pure_v2; then sed -n 's/^0:://p' "/proc/$1/cgroup"
	else sed -nE "s/^[0-9]+:([^:]*,)?$2(,[^:]*)?://p" "/proc/$1/cgroup"; fi
}

# tasks_at_least N DIR: the cgroup DIR (or its cgroup2 leaf) holds N tasks or more.
tasks_at_least() { local f; f=$(procs_file "$2") && [ "$(wc -l <"$f")" -ge "$1" ]; }

# race_names_churned HIERARCHY KEY VALUE: the owner of rn churns names in its delegated cgroup rn (made,
# grown into a tree, renamed aside while a new tree takes the name where the kernel allows a rename, removed;
# among them root's cgroup rn/rootkid and TEST_UID2's rn/u2, which it may rename but not change)
# while three requesters ask the daemon, 10^4 calls in all, to SetValue KEY, Chown, MovePid, Create and
# Remove those names: the owner itself (its own task, one of TEST_UID2's, one of root's), TEST_UID2 from its
# own cgroup rn/u2 inside the owner's (which the owner renames too), and TEST_UID2 from the sandbox's root,
# naming the owner's cgroups. Afterwards nothing outside rn's own cgroups changed owner, mode or value, no
# task is outside where its requester could move it, and the daemon answers.
race_names_churned() {
	local h=$1 key=$2 value=$3 d sb before after mine theirs roots out1 out2 out3 churn rc=0
	sb=$(sb_path "$h")
	d=$sb/rn
	# What a failed run of the other hierarchy's variant left (its tasks, all the sandbox's, then its cgroups).
	end_pids $(find "$sb/rn" -name cgroup.procs -exec cat {} + 2>/dev/null)
	cgm_root remove all rn 1 >/dev/null 2>&1 || true
	cgm_root remove all rn_out >/dev/null 2>&1 || true
	delegate rn "$TEST_UID"
	cgm_root create all rn_out
	cgm_root create all rn/rootkid/inner
	cgm_root create all rn/u2
	cgm_root chown all rn/u2 "$TEST_UID2" "$TEST_UID2"
	mine=$(spawn_sleeper "$TEST_UID" rn) theirs=$(spawn_sleeper "$TEST_UID2" rn/u2) roots=$(spawn_sleeper 0 rn/rootkid)
	before=$(snap_tree "$sb" "rn/c[0-3]*" rn/u2/x)
	# The requesters enter their cgroups first, then wait for $WORK/go: the churn renames them too.
	rm -f "$WORK/go"
	run_as "$TEST_UID" rn sh -c 'while [ ! -e "$0" ]; do sleep 0.01; done; exec "$@"' "$WORK/go" \
		"$RACE" calls "$SOCK" "$h" $((RACE_ITER / 2)) "$RACE_SECONDS" "$key" "$value" \
		"$TEST_UID" "$mine" "$theirs" "$roots" -- c0 c1/a c2/a/b c3 rootkid u2 u2/x >"$WORK/rn.1" 2>&1 & p1=$!
	run_as "$TEST_UID2" rn/u2 sh -c 'while [ ! -e "$0" ]; do sleep 0.01; done; exec "$@"' "$WORK/go" \
		"$RACE" calls "$SOCK" "$h" $((RACE_ITER / 4)) "$RACE_SECONDS" "$key" "$value" \
		"$TEST_UID2" "$theirs" "$mine" "$roots" -- x x/y ../c0 >"$WORK/rn.2" 2>&1 & p2=$!
	run_as "$TEST_UID2" "" sh -c 'while [ ! -e "$0" ]; do sleep 0.01; done; exec "$@"' "$WORK/go" \
		"$RACE" calls "$SOCK" "$h" $((RACE_ITER / 4)) "$RACE_SECONDS" "$key" "$value" \
		"$TEST_UID2" "$theirs" "$mine" "$roots" -- rn/c0 rn/c1/a rn/rootkid rn/u2 rn_out rn >"$WORK/rn.3" 2>&1 & p3=$!
	wait_until 10 tasks_at_least 2 "$d" && wait_until 10 tasks_at_least 2 "$d/u2" || fail "the requesters did not start"
	churn=$(spawn_as "$TEST_UID" rn "$RACE" churn "$d" "$RACE_SECONDS" c0 c1 c2 c3 u2 rootkid)
	touch "$WORK/go"
	wait $p1 || rc=1
	wait $p2 || rc=1
	wait $p3 || rc=1
	# The churn is not this shell's child (spawn_as ran in a command substitution): it ends by itself.
	wait_until $((RACE_SECONDS + 10)) pid_gone "$churn" || fail "the churn did not end"
	out1=$(cat "$WORK/rn.1") out2=$(cat "$WORK/rn.2") out3=$(cat "$WORK/rn.3")
	sed 's/^/measured: owner: /' <<<"$out1"
	sed 's/^/measured: TEST_UID2 in rn\/u2: /' <<<"$out2"
	sed 's/^/measured: TEST_UID2 from the sandbox root: /' <<<"$out3"
	[ "$rc" = 0 ] || fail "a requester stopped: $out1 / $out2 / $out3"
	after=$(snap_tree "$sb" "rn/c[0-3]*" rn/u2/x)
	[ "$before" = "$after" ] || fail "outside the owner's own cgroups: $(diff <(echo "$before") <(echo "$after"))"
	# Root's task stayed in root's cgroup; TEST_UID2's task is at or beneath its own; the owner's is its own.
	expect_in_cgroup "$roots" "$h" rn/rootkid
	case $(cgroup_line "$theirs" "$h") in
	*/rn/u2 | */rn/u2/*) ;;
	*) fail "TEST_UID2's task left rn/u2: $(cgroup_line "$theirs" "$h")" ;;
	esac
	case $(cgroup_line "$mine" "$h") in
	*/rn | */rn/*) ;;
	*) fail "the owner's task left rn: $(cgroup_line "$mine" "$h")" ;;
	esac
	# With the names at rest again, the refusals the loops met, exactly.
	expect_refused "pid $mine runs as uid $TEST_UID; you are uid $TEST_UID2 and may move only your own tasks" \
		cgm_as "$TEST_UID2" "" movepid "$h" rn/u2 "$mine"
	# The churn may have stopped with c0 removed (a slow lane ends it at any step): the owner makes it again.
	[ -d "$d/c0" ] || run_as "$TEST_UID" "" mkdir "$d/c0"
	expect_refused "pid $roots runs as uid 0; you are uid $TEST_UID and may move only your own tasks" \
		cgm_as "$TEST_UID" rn movepid "$h" c0 "$roots"
	expect_refused "$h:/rn/rootkid $key is owned by uid 0" cgm_as "$TEST_UID" rn setvalue "$h" rootkid "$key" "$value"
	expect_refused "$h:/rn is owned by uid $TEST_UID" cgm_as "$TEST_UID2" "" create "$h" rn/c9
	expect_missing "$d/c9"
	ping_quickly 2000
	end_pids "$mine" "$theirs" "$roots"
	cgm_root remove all rn 1
	cgm_root remove all rn_out
}

test_race_names_churned_v1() {
	multi_hierarchy || skip "no cgroup v1 hierarchy here"
	SNAP_FILES="$MLIM $MSOFT" race_names_churned memory "$MSOFT" 33554432
}

test_race_names_churned_cgroup2() {
	has_hierarchy unified || pure_v2 || skip "no cgroup2 hierarchy here"
	SNAP_FILES="cgroup.max.descendants cgroup.max.depth" race_names_churned unified cgroup.max.descendants 7
}

# A task of TEST_UID's exits while TEST_UID asks to move it, and its pid goes at once (clone3 with set_tid,
# as a full turn of pid_max would hand it out) to a task of TEST_UID2's: that task must never be moved,
# 10^4 times with the exit at a random moment up to 3 ms after the request.
test_race_move_task_that_exits_and_whose_pid_is_reused() {
	local out rc=0
	delegate rx_exit "$TEST_UID"
	cgm_as "$TEST_UID" rx_exit create all d
	out=$(run_as 0 rx_exit "$RACE" exit-move "$SOCK" all d "$TEST_UID" "$TEST_UID2" "$RACE_ITER" "$RACE_SECONDS" 2>&1) ||
		rc=$?
	echo "measured: ${out##*$'\n'}"
	[ "$rc" = 0 ] || fail "$out"
	[[ $out == *"pid reused at once "[1-9]* ]] || fail "no pid was reused: $out"
	expect_eq "$(cat "$(sb_path memory)/rx_exit/d/cgroup.procs")" "" "tasks of rx_exit/d"
	ping_quickly
	cgm_root remove all rx_exit 1
}
