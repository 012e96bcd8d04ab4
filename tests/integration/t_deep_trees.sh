# Trees 4000 levels deep, made by their owner with plain mkdir (as cgroup v1 lets the owner of a delegated
# cgroup do, with no daemon call): every walk of the daemon goes through them and the daemon lives (issue 13:
# Prune recursed once per level and overflowed its stack). Each test runs a daemon of its own with a 256 KiB
# stack, so that any walk taking a stack frame per level (even one of 100 bytes) would overflow it. On a pure
# cgroup2 host a delegated cgroup's cgroup.max.depth stops its owner at --max-depth, so there root makes the
# tree in a cgroup it did not delegate.

DEEP_LEVELS=4000
DEEP_TREE=$here/../helpers/deep_tree.py

# deep_daemon: this test's daemon on a socket of its own (SOCK, for cgm_as and cgm_root), with a 256 KiB stack;
# deep_daemon_stop checks that it exits cleanly (no sanitizer or valgrind report: their exit statuses).
deep_daemon() {
	SUITE_SOCK=$SOCK DEEP_NAME=
	SOCK=$WORK/deep-$BASHPID.sock
	DAEMON_WRAPPER="prlimit --stack=262144 -- ${DAEMON_WRAPPER:-}" daemon_spawn "$SOCK" "$WORK/deep-$BASHPID.log"
	DEEP_PID=$SPAWNED_PID
	trap 'deep_cleanup; kill -0 "$DEEP_PID" 2>/dev/null && stop_pid "$DEEP_PID" 10; true' EXIT
	wait_for_socket "$SOCK"
}
deep_daemon_stop() {
	kill -0 "$DEEP_PID" 2>/dev/null || { tail -5 "$WORK/deep-$BASHPID.log"; fail "the daemon died"; return 1; }
	stop_pid "$DEEP_PID" 10 || { tail -20 "$WORK/deep-$BASHPID.log"; fail "the daemon exited with status $?"; }
}

# deep_owner: DH, the hierarchy of the tree (name=systemd on v1: it has no controller, so 4000 cgroups cost
# the kernel little), and DO, who makes it.
deep_owner() {
	if pure_v2; then DH=unified DO=0; else DH=name=systemd DO=$TEST_UID; fi
	has_hierarchy "$DH" || skip "no $DH hierarchy here"
}

# deep_setup NAME [PID]: NAME made (and delegated to DO), and in hierarchy DH the tree NAME/d/d/...
# DEEP_LEVELS deep, made by DO; PID moved to its deepest cgroup.
deep_setup() {
	local name=$1 made
	deep_owner
	DEEP_NAME=$name
	if [ "$DO" = 0 ]; then cgm_root create all "$name" >/dev/null; else delegate "$name" "$DO" >/dev/null; fi
	DDIR=$(sb_path "$DH")/$name
	made=$(run_as "$DO" "" /usr/bin/python3 "$DEEP_TREE" "$DDIR" "$DEEP_LEVELS" ${2:+"$2"}) || return 1
	expect_eq "$made" "$DEEP_LEVELS" "levels made beneath $DH:/$name"
}

# deep_cleanup: on the test's exit, removes what is left of its tree (find -delete works relative to each
# parent, so it reaches beneath PATH_MAX), through the suite's daemon.
deep_cleanup() {
	[ -n "${DEEP_NAME:-}" ] || return 0
	[ -d "$DDIR" ] && find "$DDIR" -mindepth 1 -depth -type d -delete 2>/dev/null
	SOCK=$SUITE_SOCK cgm_root remove all "$DEEP_NAME" 1 >/dev/null 2>&1 || true
}

test_deep_tree_prune() {
	deep_daemon
	deep_setup dp || return 1
	# From inside dp, its owner prunes what is beneath it.
	expect_ok cgm_as "$DO" dp prune "$DH" ""
	expect_missing "$DDIR/d"
	deep_daemon_stop
}

test_deep_tree_remove_recursive() {
	deep_daemon
	deep_setup dr || return 1
	expect_ok cgm_as "$DO" "" remove "$DH" dr/d 1
	expect_missing "$DDIR/d"
	deep_daemon_stop
}

test_deep_tree_tasks_kill_and_delete_force_reach_the_bottom() {
	local pid out
	deep_owner
	deep_daemon
	pid=$(spawn_sleeper "$DO" "") || return 1
	deep_setup dk "$pid" || return 1
	# A removal's search for tasks finds it, and names where (the name is cut at the daemon's name length).
	expect_refused "$DH:/dk/d still has tasks \\(pid $pid in $DH:/dk/d/d/d" cgm_as "$DO" "" remove "$DH" dk/d 1
	out=$(cgm_as "$DO" "" tasks -r dk) || fail "tasks -r failed: $out"
	grep -qx "$pid" <<<"$out" || fail "tasks -r does not list pid $pid at the bottom: $out"
	out=$(cgm_as "$DO" "" gettasksrecursive "$DH" dk) || fail "GetTasksRecursive failed: $out"
	grep -qw "$pid" <<<"$out" || fail "GetTasksRecursive does not list pid $pid: $out"
	expect_ok cgm_as "$DO" "" kill dk KILL
	wait_until 5 pid_gone "$pid" || fail "pid $pid at the bottom survived the kill"
	# Delete force: the kill's walk and the removal's walks, from the top (root: dk's parent is the sandbox).
	expect_ok cgm_root delete -f dk
	expect_missing "$DDIR"
	deep_daemon_stop
}

test_deep_tree_remove_on_empty_removes_it_whole() {
	local pid
	deep_owner
	deep_daemon
	pid=$(spawn_sleeper "$DO" "") || return 1
	deep_setup de "$pid" || return 1
	expect_ok cgm_as "$DO" "" removeonempty "$DH" de/d
	end_pids "$pid"
	wait_until 10 test ! -e "$DDIR/d" || fail "de/d was not removed once empty"
	deep_daemon_stop
}

test_deep_tree_quota_count_walks_it() {
	pure_v2 && skip "on cgroup2 the kernel's cgroup.max.depth stops the owner first"
	deep_daemon
	deep_setup dq || return 1
	# The owner now owns more than --max-cgroups-per-uid (1000): counting walks the whole tree, then refuses.
	expect_refused "uid $DO owns [0-9]+ cgroups in $DH, its limit" cgm_as "$DO" "" create "$DH" dq/more
	deep_daemon_stop
}
