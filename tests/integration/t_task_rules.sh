# Whose tasks a request reaches (issue 13): Kill and Freeze act on a subtree's tasks only when every one of
# them is the requester's (freezing stops a task as surely as SIGSTOP), and a refusal touches none; the tasks of
# a threaded cgroup2 subtree are found like any other, so root's Kill and Delete force reach them. The rule binds
# requests to the daemon (a container behind cgproxy has no other way); in a cgroup it created, a user owns the
# freeze and kill files and the kernel lets it write them directly, as cgmanager(8) says.

# alive PID: running, not a zombie (kill -0 succeeds on a zombie, which a signalled child of ours can be).
alive() { ! pid_gone "$1"; }

# frozen_in HIERARCHY REL: the kernel reports the sandbox cgroup REL frozen (v1 freezer.state, cgroup.freeze).
frozen_in() {
	local d; d=$(sb_path "$1")/$2
	if [ -e "$d/freezer.state" ]; then [ "$(cat "$d/freezer.state")" != THAWED ]; else [ "$(cat "$d/cgroup.freeze")" = 1 ]; fi
}

test_task_rule_kill_refused_signals_nobody() {
	local mine roots
	delegate tr_kill "$TEST_UID"
	# The user's task first: it has the lower pid, so it is checked (and, before the fix, was signalled) before
	# the root task is refused.
	mine=$(spawn_sleeper "$TEST_UID" tr_kill)
	roots=$(spawn_sleeper 0 tr_kill)
	expect_refused "Kill refused, nothing was signalled: pid $roots runs as uid 0; you are uid $TEST_UID and may signal only your own tasks" \
		cgm_as "$TEST_UID" "" kill tr_kill TERM
	sleep 0.2
	alive "$mine" || fail "the user's own task was signalled by a refused Kill"
	alive "$roots" || fail "root's task was signalled by a refused Kill"
	# Its own tasks alone, the user's Kill goes through.
	end_pids "$roots"
	expect_ok cgm_as "$TEST_UID" "" kill tr_kill TERM
	wait_until 5 pid_gone "$mine" || fail "the user's Kill did not end its own task"
	cgm_root delete -f tr_kill
}

test_task_rule_freeze_refused_for_a_task_not_the_requesters() {
	local mine roots h
	delegate tr_frz "$TEST_UID"
	# The user's own child cgroup, whose freezer files it owns; root (or sudo run from there) puts a task in.
	cgm_as "$TEST_UID" tr_frz new c >/dev/null
	mine=$(spawn_sleeper "$TEST_UID" tr_frz/c)
	roots=$(spawn_sleeper 0 tr_frz/c)
	expect_refused "Freeze refused, nothing was frozen: pid $roots runs as uid 0; you are uid $TEST_UID and may freeze only your own tasks" \
		cgm_as "$TEST_UID" tr_frz freeze c
	# The same through 0.42's SetValue, on each freezer this host has.
	if has_hierarchy freezer; then
		expect_refused "Freeze refused, nothing was frozen: pid $roots runs as uid 0.*may freeze only your own tasks" \
			cgm_as "$TEST_UID" tr_frz setvalue freezer c freezer.state FROZEN
	fi
	if has_hierarchy unified && [ -e "$(sb_path unified)/tr_frz/c/cgroup.freeze" ]; then
		expect_refused "Freeze refused, nothing was frozen: pid $roots runs as uid 0.*may freeze only your own tasks" \
			cgm_as "$TEST_UID" tr_frz setvalue unified c cgroup.freeze 1
	fi
	for h in freezer unified; do
		has_hierarchy "$h" && frozen_in "$h" tr_frz/c && fail "$h:/tr_frz/c was frozen by a refused request"
	done
	grep -qE '^State:\s+[RS]' "/proc/$roots/status" || fail "root's task is not running: $(grep State "/proc/$roots/status")"
	# Its own tasks alone, the user freezes and thaws them.
	end_pids "$roots"
	expect_ok cgm_as "$TEST_UID" tr_frz freeze c
	expect_eq "$(cgm_as "$TEST_UID" tr_frz get c freezer.state)" frozen "freezer.state once only the user's tasks are left"
	expect_ok cgm_as "$TEST_UID" tr_frz thaw c
	end_pids "$mine"
	cgm_root delete -f tr_frz
}

# cgroup.kill is a Kill by another name: 0.42's SetValue of it in a cgroup the user made, with root's task in
# it, must be refused as the Kill is, and signal nobody.
test_task_rule_cgroup_kill_value_refused_for_a_task_not_the_requesters() {
	local mine roots
	has_hierarchy unified || skip "no cgroup2 hierarchy here"
	delegate tr_ck "$TEST_UID"
	cgm_as "$TEST_UID" tr_ck create all c >/dev/null
	[ -e "$(sb_path unified)/tr_ck/c/cgroup.kill" ] || skip "this kernel has no cgroup.kill"
	mine=$(spawn_sleeper "$TEST_UID" tr_ck/c)
	roots=$(spawn_sleeper 0 tr_ck/c)
	expect_refused "Kill refused, nothing was signalled: pid $roots runs as uid 0; you are uid $TEST_UID and may signal only your own tasks" \
		cgm_as "$TEST_UID" tr_ck setvalue unified c cgroup.kill 1
	sleep 0.2
	alive "$mine" && alive "$roots" || fail "a refused cgroup.kill signalled a task"
	end_pids "$roots"
	expect_ok cgm_as "$TEST_UID" tr_ck setvalue unified c cgroup.kill 1
	wait_until 5 pid_gone "$mine" || fail "the user's cgroup.kill did not end its own task"
	cgm_root delete -f tr_ck
}

# On cgroup2 the owner of a delegated cgroup may make a child threaded; its cgroup.procs then refuses to be
# read (EOPNOTSUPP), which made root's Kill, tasks -r, GetTasksRecursive and Delete force fail and spare the
# tasks beneath. Their threads are listed in cgroup.threads, and their processes found from those.
test_task_rule_threaded_subtree_is_reached() {
	local u=$TEST_UID d pid out
	has_hierarchy unified || skip "no cgroup2 hierarchy here"
	delegate tr_thr "$u"
	d=$(sb_path unified)/tr_thr
	[ -z "$(cat "$d/cgroup.subtree_control")" ] || skip "tr_thr has domain controllers enabled; it cannot go threaded"
	run_as "$u" "" sh -c "mkdir '$d/th' && echo threaded >'$d/th/cgroup.type'" || fail "the owner could not make th threaded"
	expect_eq "$(cat "$d/th/cgroup.type")" threaded "cgroup.type of tr_thr/th"
	# A process of the user's whose (only) thread the user moves into the threaded child.
	pid=$(spawn_as "$u" tr_thr sh -c "echo \$\$ >'$d/th/cgroup.threads' && exec sleep 600")
	wait_until 5 grep -qx "$pid" "$d/th/cgroup.threads" || fail "pid $pid did not enter tr_thr/th"
	cat "$d/th/cgroup.procs" >/dev/null 2>&1 && skip "this kernel lists processes of a threaded cgroup"
	out=$(cgm_root tasks -r tr_thr) || fail "tasks -r failed: $out"
	grep -qx "$pid" <<<"$out" || fail "tasks -r does not list pid $pid: $out"
	out=$(cgm_root gettasksrecursive unified tr_thr) || fail "GetTasksRecursive failed: $out"
	grep -qw "$pid" <<<"$out" || fail "GetTasksRecursive does not list pid $pid: $out"
	# The owner's own Kill of the threaded child, then root's Kill and Delete force of the whole tree.
	expect_ok cgm_as "$u" "" kill tr_thr/th STOP
	wait_until 5 grep -qE '^State:\s+T' "/proc/$pid/status" || fail "the owner's Kill of tr_thr/th did not reach pid $pid"
	expect_ok cgm_root kill tr_thr KILL
	wait_until 5 pid_gone "$pid" || fail "root's Kill of tr_thr did not reach pid $pid in the threaded child"
	pid=$(spawn_as "$u" tr_thr sh -c "echo \$\$ >'$d/th/cgroup.threads' && exec sleep 600")
	wait_until 5 grep -qx "$pid" "$d/th/cgroup.threads" || fail "pid $pid did not enter tr_thr/th"
	expect_ok cgm_root delete -f tr_thr
	wait_until 5 pid_gone "$pid" || fail "Delete force of tr_thr did not end pid $pid"
	expect_missing "$d"
}

# On cgroup v1 the owner may rename its cgroups while root's Kill walks them (issue 13 review): a child the
# walk listed and then did not find under that name was taken as removed, and its whole subtree (with the
# owner's task) was left out while the Kill reported success. Renamed children are now found again; a Kill
# either ends the task or fails saying why, never reports success with the task alive.
test_task_rule_renames_do_not_hide_a_subtree_from_kill() {
	local u=$TEST_UID h=name=systemd d renamer pid i out ok=0 failed=0
	has_hierarchy "$h" || skip "no v1 $h hierarchy here"
	d=$(sb_path "$h")
	delegate tr_ren "$u" >/dev/null
	delegate tr_ren2 "$u" >/dev/null
	# Siblings, so that the walk spends a while between listing the children and entering them.
	run_as "$u" "" sh -c "cd '$d/tr_ren' && mkdir a a/x && for i in \$(seq 1000 1300); do mkdir \$i; done"
	renamer=$(spawn_as "$u" "" sh -c "cd '$d/tr_ren' && while :; do mv a b; mv b a; done")
	for i in $(seq 20); do
		# The owner's task: in tr_ren2 in every hierarchy, and in tr_ren/{a,b}/x in this one.
		pid=$(spawn_sleeper "$u" tr_ren2) || break
		run_as "$u" "" sh -c "echo $pid >'$d/tr_ren/a/x/cgroup.procs' 2>/dev/null || echo $pid >'$d/tr_ren/b/x/cgroup.procs'" ||
			{ end_pids "$pid"; continue; }
		if out=$(cgm_root kill tr_ren KILL 2>&1); then
			ok=$((ok + 1))
			wait_until 2 pid_gone "$pid" || { fail "Kill of tr_ren answered success, but pid $pid in its renamed child lives"; break; }
		else
			failed=$((failed + 1))
			grep -qE "faster than they could be listed" <<<"$out" || { fail "Kill failed for another reason: $out"; break; }
			end_pids "$pid"
		fi
	done
	echo "measured: $ok Kills went through and ended the task, $failed failed saying the tree kept changing"
	end_pids "$renamer"
	find "$d/tr_ren" -mindepth 1 -depth -type d -delete 2>/dev/null
	cgm_root delete -f tr_ren >/dev/null
	cgm_root delete -f tr_ren2 >/dev/null
	[ "$ok" -gt 0 ] || fail "no Kill went through while the names changed"
}
