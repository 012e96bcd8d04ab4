# Privilege rules seen from the requester: no escape from one's own cgroup
# (rule 1), no moving of other people's tasks (rule 2), limits stay with the
# cgroup's parent owner (rule 4), and the daemon's root is host root's alone.
# Requesters are real uids (TEST_UID, TEST_UID2) placed in sandbox cgroups.
# Every escape is tried from a requester deep enough in the sandbox that even
# a daemon that failed to contain it would land inside the sandbox.

# --- rule 1: names are relative to the requester's cgroup, and stay beneath it ---

test_escape_dotdot_refused_for_every_verb() {
	local m me=esc_dd/r1/r2 n pid soft
	m=$(sb_path memory)
	cgm_root create all "$me"
	cgm_root create all esc_dd/r1/sib
	cgm_root setvalue memory esc_dd/r1/sib $MSOFT 8388608
	soft=$(cat "$m/esc_dd/r1/sib/$MSOFT")
	pid=$(spawn_sleeper 0 "$me")
	for n in .. ../sib ../../r1/sib /../sib '..//sib' sib/.. ./sib x/./y . ../../x; do
		expect_refused "'\.' and '\.\.' are not allowed" cgm_as 0 "$me" create memory "$n"
		expect_refused "'\.' and '\.\.' are not allowed" cgm_as 0 "$me" remove memory "$n"
		expect_refused "'\.' and '\.\.' are not allowed" cgm_as 0 "$me" chown memory "$n" "$TEST_UID" "$TEST_UID"
		expect_refused "'\.' and '\.\.' are not allowed" cgm_as 0 "$me" chmod memory "$n" 777
		expect_refused "'\.' and '\.\.' are not allowed" cgm_as 0 "$me" chmodfile memory "$n" cgroup.procs 666
		expect_refused "'\.' and '\.\.' are not allowed" cgm_as 0 "$me" movepid memory "$n" "$pid"
		expect_refused "'\.' and '\.\.' are not allowed" cgm_as 0 "$me" getvalue memory "$n" $MSOFT
		expect_refused "'\.' and '\.\.' are not allowed" cgm_as 0 "$me" setvalue memory "$n" $MSOFT 4096
		expect_refused "'\.' and '\.\.' are not allowed" cgm_as 0 "$me" gettasks memory "$n"
		expect_refused "'\.' and '\.\.' are not allowed" cgm_as 0 "$me" gettasksrecursive memory "$n"
		expect_refused "'\.' and '\.\.' are not allowed" cgm_as 0 "$me" listchildren memory "$n"
		expect_refused "'\.' and '\.\.' are not allowed" cgm_as 0 "$me" listkeys memory "$n"
		expect_refused "'\.' and '\.\.' are not allowed" cgm_as 0 "$me" prune memory "$n"
		expect_refused "'\.' and '\.\.' are not allowed" cgm_as 0 "$me" removeonempty memory "$n"
	done
	# Nothing above the requester changed.
	expect_exists "$m/esc_dd/r1/sib"
	expect_owner "$m/esc_dd/r1/sib" 0 0
	expect_owner "$m/esc_dd/r1/sib/cgroup.procs" 0 0
	expect_mode "$m/esc_dd/r1/sib" 755
	expect_eq "$(cat "$m/esc_dd/r1/sib/$MSOFT")" "$soft" "sibling's soft limit"
	expect_missing "$m/esc_dd/r1/x"
	expect_missing "$m/esc_dd/x"
	expect_missing "$m/esc_dd/r1/r2/x"
	expect_in_cgroup "$pid" memory "$me"
	end_pids "$pid"
	cgm_root remove all esc_dd
}

test_escape_dotdot_refused_for_a_user_in_a_delegated_cgroup() {
	# The user owns esc_du, so only containment stops it from creating there via "..".
	local m me=esc_du/r n
	m=$(sb_path memory)
	delegate esc_du "$TEST_UID"
	cgm_as "$TEST_UID" esc_du create all r
	for n in .. ../x /../x x/../../y ../../esc_du/x; do
		expect_refused "'\.' and '\.\.' are not allowed" cgm_as "$TEST_UID" "$me" create memory "$n"
		expect_refused "'\.' and '\.\.' are not allowed" cgm_as "$TEST_UID" "$me" remove memory "$n"
		expect_refused "'\.' and '\.\.' are not allowed" cgm_as "$TEST_UID" "$me" chmod memory "$n" 777
	done
	expect_missing "$m/esc_du/x"
	expect_missing "$m/esc_du/y"
	expect_exists "$m/esc_du/r"
	expect_mode "$m/esc_du" 755
	# The same user may of course work beneath its own cgroup.
	cgm_as "$TEST_UID" "$me" create memory x
	expect_exists "$m/esc_du/r/x"
	cgm_root remove all esc_du
}

test_escape_leading_slash_stays_relative() {
	local h d m pid rootpid out
	m=$(sb_path memory)
	delegate esc_abs "$TEST_UID"
	cgm_root create all esc_abs_b # a sibling at the sandbox root that "/esc_abs_b" must not reach
	out=$(cgm_as "$TEST_UID" esc_abs create all /esc_abs_b)
	expect_eq "$out" "" "create /esc_abs_b from esc_abs (sandbox/esc_abs_b must not count as existing)"
	for h in $(sb_hierarchies); do
		d=$(sb_path "$h")
		expect_tree_owner "$d/esc_abs/esc_abs_b" "$TEST_UID" "$TEST_UID"
		expect_tree_owner "$d/esc_abs_b" 0 0
	done
	expect_eq "$(cgm_as "$TEST_UID" esc_abs create memory //esc_abs_b//)" "Path existed" "create //esc_abs_b//"
	# "/" and "" name the requester's own cgroup, not the daemon's root.
	expect_eq "$(cgm_as "$TEST_UID" esc_abs listchildren memory /)" esc_abs_b "children of / seen from esc_abs"
	cgm_root setvalue memory esc_abs $MSOFT 8388608
	expect_eq "$(cgm_as "$TEST_UID" esc_abs getvalue memory / $MSOFT)" 8388608 "soft limit of /"
	pid=$(spawn_sleeper "$TEST_UID" esc_abs)
	rootpid=$(spawn_sleeper 0 "")
	out=$(cgm_as "$TEST_UID" esc_abs gettasks memory /)
	echo "$out" | grep -qx "$pid" || fail "gettasks / from esc_abs does not list $pid: $out"
	echo "$out" | grep -qx "$rootpid" && fail "gettasks / from esc_abs lists $rootpid of the sandbox root"
	expect_eq "$(cgm_as "$TEST_UID" esc_abs getpidcgroup memory "$pid")" / "getpidcgroup of a task in esc_abs"
	# A task above the requester is not named even by getpidcgroup.
	expect_refused "not beneath your cgroup" cgm_as "$TEST_UID" esc_abs getpidcgroup memory "$rootpid"
	# Root in esc_abs removing "/esc_abs_b" removes esc_abs/esc_abs_b, never sandbox/esc_abs_b.
	cgm_as 0 esc_abs remove all /esc_abs_b
	for h in $(sb_hierarchies); do
		d=$(sb_path "$h")
		expect_missing "$d/esc_abs/esc_abs_b"
		expect_exists "$d/esc_abs_b"
	done
	end_pids "$pid" "$rootpid"
	cgm_root remove all esc_abs
	cgm_root remove all esc_abs_b
}

test_escape_bad_names_refused() {
	local m n long ok255 huge i uid
	m=$(sb_path memory)
	delegate esc_bad "$TEST_UID"
	long=$(printf 'a%.0s' $(seq 256))
	ok255=$(printf 'b%.0s' $(seq 255))
	huge=$(for i in $(seq 17); do printf 'c%.0s' $(seq 250); printf /; done)
	for uid in 0 "$TEST_UID"; do
		for n in $'x\ny' $'x\ty' $'x\001y' $'x\037' $'x\177y' $'\033[0m'; do
			expect_refused "control characters are not allowed" cgm_as "$uid" esc_bad create memory "$n"
			expect_refused "control characters are not allowed" cgm_as "$uid" esc_bad remove memory "$n"
			expect_refused "control characters are not allowed" cgm_as "$uid" esc_bad chown memory "$n" "$uid" "$uid"
		done
		expect_refused "longer than 255 bytes" cgm_as "$uid" esc_bad create memory "$long"
		expect_refused "longer than 255 bytes" cgm_as "$uid" esc_bad create memory "ok/$long"
		expect_refused "longer than 4095 bytes" cgm_as "$uid" esc_bad create memory "$huge"
	done
	[ -z "$(find "$m/esc_bad" -mindepth 1 -type d)" ] || fail "a refused name left a cgroup: $(find "$m/esc_bad" -mindepth 1 -type d)"
	# A 255-byte component is a legal name.
	cgm_as "$TEST_UID" esc_bad create memory "$ok255"
	expect_owner "$m/esc_bad/$ok255" "$TEST_UID" "$TEST_UID"
	cgm_as "$TEST_UID" esc_bad remove memory "$ok255"
	expect_missing "$m/esc_bad/$ok255"
	# File names are single components too.
	expect_refused "may not contain '/'" cgm_root getvalue memory esc_bad ../$MLIM
	expect_refused "may not contain '/'" cgm_root setvalue memory esc_bad/x ../$MSOFT 4096
	expect_refused "may not contain '/'" cgm_root chmodfile memory esc_bad ../cgroup.procs 666
	expect_refused "'\.' and '\.\.' are not allowed" cgm_root chmodfile memory esc_bad .. 777
	expect_refused "control characters" cgm_root setvalue memory esc_bad "$MSOFT"$'\n' 4096
	expect_refused "file name is empty|refused" cgm_root getvalue memory esc_bad ""
	expect_mode "$m" 755
	expect_mode "$m/esc_bad/cgroup.procs" 644
	cgm_root remove all esc_bad
}

test_refusals_of_long_multibyte_names_keep_their_reason() {
	# Messages with long names are cut short; what is left must still be sent (valid UTF-8) and say why.
	local comp name pre
	cgm_root create all esc_utf
	comp=$(for i in $(seq 127); do printf '\303\251'; done) # 127 x e-acute: 254 bytes, a legal component
	for pre in "" x; do
		name="$pre$comp/$comp/$comp/$comp"
		expect_refused "$MH:/esc_utf/$pre$(printf '\303\251')+.*FileNotFound" \
			cgm_as 0 esc_utf getvalue memory "$name" $MSOFT
		expect_refused "is refused: a path component is longer than 255 bytes" \
			cgm_as 0 esc_utf create memory "$pre$comp$comp"
		expect_refused "is refused: the cgroup name is longer than 4095 bytes" \
			cgm_as 0 esc_utf create memory "$name/$name/$name/$name/$name"
	done
	cgm_root remove all esc_utf
}

# --- rule 2: a task is moved by its own uid only, and only within the requester's subtree ---

test_move_own_task_within_delegated_subtree() {
	local h pid
	delegate mv_own "$TEST_UID"
	cgm_as "$TEST_UID" mv_own create all kid
	pid=$(spawn_sleeper "$TEST_UID" mv_own)
	cgm_as "$TEST_UID" mv_own movepid all kid "$pid"
	for h in $(sb_hierarchies); do expect_in_cgroup "$pid" "$h" mv_own/kid; done
	expect_eq "$(cgm_as "$TEST_UID" mv_own getpidcgroup memory "$pid")" kid "getpidcgroup after the move"
	# And back up to the requester's own cgroup ("" names it), on cgroup2 as well.
	cgm_as "$TEST_UID" mv_own movepid all "" "$pid"
	for h in $(sb_hierarchies); do expect_in_cgroup "$pid" "$h" mv_own; done
	end_pids "$pid"
	cgm_root remove all mv_own
}

test_move_other_uids_task_refused() {
	local h pid
	delegate mv_other "$TEST_UID"
	cgm_as "$TEST_UID" mv_other create all kid
	pid=$(spawn_sleeper "$TEST_UID2" mv_other)
	expect_refused "pid $pid runs as uid $TEST_UID2; you are uid $TEST_UID" \
		cgm_as "$TEST_UID" mv_other movepid memory kid "$pid"
	expect_refused "runs as uid $TEST_UID2" cgm_as "$TEST_UID" mv_other movepid all kid "$pid"
	for h in $(sb_hierarchies); do expect_in_cgroup "$pid" "$h" mv_other; done
	# Root may move anyone's task.
	cgm_root movepid memory mv_other/kid "$pid"
	expect_in_cgroup "$pid" memory mv_other/kid
	end_pids "$pid"
	cgm_root remove all mv_other
}

test_move_root_task_refused_for_user() {
	local h pid
	delegate mv_root "$TEST_UID"
	cgm_as "$TEST_UID" mv_root create all kid
	pid=$(spawn_sleeper 0 mv_root)
	expect_refused "pid $pid runs as uid 0; you are uid $TEST_UID" cgm_as "$TEST_UID" mv_root movepid memory kid "$pid"
	expect_refused "runs as uid 0" cgm_as "$TEST_UID" mv_root movepid all kid "$pid"
	for h in $(sb_hierarchies); do expect_in_cgroup "$pid" "$h" mv_root; done
	end_pids "$pid"
	cgm_root remove all mv_root
}

test_move_setuid_task_refused_for_its_real_uid() {
	# Real uid is the user's, effective and saved uid root's, as after exec of a set-uid program.
	local pid
	delegate mv_suid "$TEST_UID"
	cgm_as "$TEST_UID" mv_suid create memory kid
	pid=$(spawn_sleeper 0 mv_suid setpriv --ruid="$TEST_UID" --)
	expect_eq "$(awk '/^Uid:/ {print $2, $3}' "/proc/$pid/status")" "$TEST_UID 0" "real and effective uid of the sleeper"
	expect_refused "runs as uid 0" cgm_as "$TEST_UID" mv_suid movepid memory kid "$pid"
	expect_in_cgroup "$pid" memory mv_suid
	end_pids "$pid"
	cgm_root remove all mv_suid
}

test_move_task_outside_requesters_subtree_refused() {
	local h pid
	delegate mv_out_a "$TEST_UID"
	delegate mv_out_b "$TEST_UID"
	pid=$(spawn_sleeper "$TEST_UID" mv_out_b)
	# Its own task, but in a sibling of the requester's cgroup.
	expect_refused "pid $pid is in $MH:/mv_out_b, outside your cgroup $MH:/mv_out_a" \
		cgm_as "$TEST_UID" mv_out_a movepid memory "" "$pid"
	expect_refused "outside your cgroup" cgm_as "$TEST_UID" mv_out_a movepid all "" "$pid"
	# Not even root names a task outside its own cgroup with MovePid (MovePidAbs is for that).
	expect_refused "outside your cgroup" cgm_as 0 mv_out_a movepid memory "" "$pid"
	for h in $(sb_hierarchies); do expect_in_cgroup "$pid" "$h" mv_out_b; done
	# MovePidAbs is root's alone.
	expect_refused "MovePidAbs is for root" cgm_as "$TEST_UID" mv_out_b movepidabs memory /mv_out_a "$pid"
	expect_in_cgroup "$pid" memory mv_out_b
	cgm_as 0 mv_out_a movepidabs memory /mv_out_a "$pid"
	expect_in_cgroup "$pid" memory mv_out_a
	end_pids "$pid"
	cgm_root remove all mv_out_a
	cgm_root remove all mv_out_b
}

test_move_into_root_owned_cgroup_refused() {
	local pid
	delegate mv_rootcg "$TEST_UID"
	cgm_root create all mv_rootcg/rootkid
	pid=$(spawn_sleeper "$TEST_UID" mv_rootcg)
	expect_refused "$MH:/mv_rootcg/rootkid is owned by uid 0 .*write access to its task file" \
		cgm_as "$TEST_UID" mv_rootcg movepid memory rootkid "$pid"
	expect_in_cgroup "$pid" memory mv_rootcg
	end_pids "$pid"
	cgm_root remove all mv_rootcg
}

test_move_cgroup2_needs_the_common_ancestor() {
	# From a sibling (root's) into a delegated cgroup: cgroup v1 asks only for the destination's task file,
	# cgroup2 also for the common ancestor's cgroup.procs.
	local pid
	delegate mv_anc "$TEST_UID"
	cgm_root create all mv_side
	pid=$(spawn_sleeper "$TEST_UID" mv_side)
	expect_refused "common ancestor" cgm_as "$TEST_UID" "" movepid unified mv_anc "$pid"
	expect_in_cgroup "$pid" unified mv_side
	if multi_hierarchy; then
		cgm_as "$TEST_UID" "" movepid memory mv_anc "$pid"
		expect_in_cgroup "$pid" memory mv_anc
	fi
	# Within the delegated subtree the common ancestor is the user's: allowed on cgroup2 too.
	cgm_as "$TEST_UID" mv_anc create all a
	cgm_as "$TEST_UID" mv_anc create all b
	cgm_root movepid unified mv_anc/a "$pid"
	cgm_as "$TEST_UID" mv_anc movepid unified b "$pid"
	expect_in_cgroup "$pid" unified mv_anc/b
	end_pids "$pid"
	cgm_root remove all mv_anc
	cgm_root remove all mv_side
}

# A move down, beneath the task's own cgroup, leaves it under every cgroup it was under: the user's own task
# goes from a root's cgroup into the cgroup delegated beneath it (a login session's shell into its delegated
# cgroup), on cgroup2 too; another's task does not.
test_move_down_into_a_delegated_child_of_the_task_s_cgroup() {
	local pid other
	delegate mv_down "$TEST_UID"
	pid=$(spawn_sleeper "$TEST_UID" "")
	other=$(spawn_sleeper "$TEST_UID2" "")
	cgm_as "$TEST_UID" "" movepid all mv_down "$pid"
	expect_in_cgroup "$pid" "$MH" mv_down
	has_hierarchy unified && expect_in_cgroup "$pid" unified mv_down
	expect_refused "uid $TEST_UID2" cgm_as "$TEST_UID" "" movepid all mv_down "$other"
	expect_in_cgroup "$other" "$MH" ""
	end_pids "$pid" "$other"
	cgm_root remove all mv_down
}

# A move down is not down for every thread: in a threaded subtree a process's threads may sit in other cgroups
# than its leader (whose cgroup /proc/PID/cgroup shows), and a write to cgroup.procs takes them all. The user's
# process, its leader in root's threaded thr/a and a second thread in root's thr/b (where root limits it), must
# not be moved by the user into thr/a/x (delegated beneath the leader's cgroup): that would take the thread out
# of thr/b, as the common ancestor rule (thr, root's) forbids (found by the review of 44a5b17).
test_move_down_takes_no_thread_out_of_another_threaded_cgroup() {
	has_hierarchy unified || skip "no cgroup2 hierarchy"
	local u pid tid
	u=$(sb_path unified)
	cgm_root create all thr >/dev/null
	cgm_root create unified thr/a/x >/dev/null
	cgm_root create unified thr/b >/dev/null
	echo threaded >"$u/thr/a/cgroup.type" && echo threaded >"$u/thr/a/x/cgroup.type" &&
		echo threaded >"$u/thr/b/cgroup.type" || skip "this kernel has no threaded cgroups"
	cgm_root chown unified thr/a/x "$TEST_UID" "$TEST_UID"
	pid=$(spawn_as "$TEST_UID" "" /usr/bin/python3 -c 'import threading, time
threading.Thread(target=time.sleep, args=(600,)).start()
time.sleep(600)')
	wait_until 30 sh -c "[ \$(ls /proc/$pid/task | wc -l) = 2 ]" ||
		fail "python3 $pid has no second thread: $(cat /proc/$pid/comm; ls /proc/$pid/task)"
	echo "$pid" >"$u/thr/a/cgroup.procs"
	tid=$(ls "/proc/$pid/task" | grep -vx "$pid")
	echo "$tid" >"$u/thr/b/cgroup.threads"
	grep -qx "$tid" "$u/thr/b/cgroup.threads" || fail "thread $tid is not in thr/b"
	cgm_as "$TEST_UID" "" movepid unified thr/a/x "$pid" >/dev/null 2>&1 || true
	local where_tid where_pid
	where_tid=$(grep '^0::' "/proc/$pid/task/$tid/cgroup") where_pid=$(grep '^0::' "/proc/$pid/task/$pid/cgroup")
	end_pids "$pid"
	cgm_root remove all thr 1 >/dev/null
	[[ "$where_tid" == */thr/b ]] || fail "the user's move of pid $pid (leader in thr/a, now ${where_pid#0::}) took thread $tid out of root's thr/b into ${where_tid#0::}"
}

# --- rule 4: the owner of a delegated cgroup sets its children's limits, not its own ---

test_limits_of_a_delegated_cgroup_refused() {
	local m p u lim
	m=$(sb_path memory); p=$(sb_path pids); u=$(sb_path unified)
	delegate lim_deleg "$TEST_UID"
	lim=$(cat "$m/lim_deleg/$MLIM")
	expect_refused "$MH:/lim_deleg $MLIM is owned by uid 0 .*you are uid $TEST_UID" \
		cgm_as "$TEST_UID" "" setvalue memory lim_deleg $MLIM 67108864
	expect_refused "is owned by uid 0" cgm_as "$TEST_UID" lim_deleg setvalue memory "" $MLIM 67108864
	expect_refused "is owned by uid 0" cgm_as "$TEST_UID" lim_deleg setvalue pids "" pids.max 10
	expect_refused "is owned by uid 0" cgm_as "$TEST_UID" lim_deleg setvalue unified "" cgroup.max.descendants 5
	expect_eq "$(cat "$m/lim_deleg/$MLIM")" "$lim" "$MLIM of the delegated cgroup"
	expect_eq "$(cat "$p/lim_deleg/pids.max")" max "pids.max of the delegated cgroup"
	# (the daemon's quota, set at chown: cgmanager --max-cgroups-per-uid)
	expect_eq "$(cat "$u/lim_deleg/cgroup.max.descendants")" 1000 "cgroup.max.descendants of the delegated cgroup"
	# Reading its limits is fine.
	expect_eq "$(cgm_as "$TEST_UID" lim_deleg getvalue memory "" $MLIM)" "$lim" "getvalue"
	# A second user is refused the same way.
	expect_refused "is owned by uid 0" cgm_as "$TEST_UID2" "" setvalue memory lim_deleg $MLIM 67108864
	cgm_root remove all lim_deleg
}

test_limits_of_a_child_one_created_allowed() {
	local m p u
	m=$(sb_path memory); p=$(sb_path pids); u=$(sb_path unified)
	delegate lim_child "$TEST_UID"
	cgm_as "$TEST_UID" lim_child create all kid
	cgm_as "$TEST_UID" lim_child setvalue memory kid $MLIM 67108864
	expect_eq "$(cgm_as "$TEST_UID" lim_child getvalue memory kid $MLIM)" 67108864 "limit read back"
	expect_eq "$(cat "$m/lim_child/kid/$MLIM")" 67108864 "limit in cgroupfs"
	cgm_as "$TEST_UID" "" setvalue pids lim_child/kid pids.max 10
	expect_eq "$(cat "$p/lim_child/kid/pids.max")" 10 "pids.max in cgroupfs"
	cgm_as "$TEST_UID" lim_child setvalue unified kid cgroup.max.descendants 5
	expect_eq "$(cgm_as "$TEST_UID" lim_child getvalue unified kid cgroup.max.descendants)" 5 "cgroup.max.descendants"
	# The kernel still checks the value itself.
	expect_refused "the kernel refused" cgm_as "$TEST_UID" lim_child setvalue pids kid pids.max lots
	expect_eq "$(cat "$p/lim_child/kid/pids.max")" 10 "pids.max after a bad value"
	# Another user may not touch them.
	expect_refused "owned by uid $TEST_UID" cgm_as "$TEST_UID2" "" setvalue pids lim_child/kid pids.max 20
	expect_eq "$(cat "$p/lim_child/kid/pids.max")" 10 "pids.max after the other user's try"
	cgm_root remove all lim_child
}

test_setvalue_refuses_task_and_agent_files_even_for_root() {
	local m h key pid nor
	m=$(sb_path memory)
	cgm_root create all sv_task/a
	cgm_root create all sv_task/b
	delegate sv_task/mine "$TEST_UID"
	pid=$(spawn_sleeper 0 sv_task/a)
	nor=$(cat "$m/sv_task/b/notify_on_release" 2>/dev/null || echo none)
	for key in tasks cgroup.procs; do
		expect_refused "cannot be set as a value" cgm_root setvalue memory sv_task/b "$key" "$pid"
		expect_refused "cannot be set as a value" cgm_as "$TEST_UID" sv_task/mine setvalue memory "" "$key" "$pid"
	done
	for key in cgroup.procs cgroup.threads; do
		expect_refused "cannot be set as a value" cgm_root setvalue unified sv_task/b "$key" "$pid"
	done
	for h in $(sb_hierarchies); do expect_in_cgroup "$pid" "$h" sv_task/a; done
	expect_refused "cannot be set as a value" cgm_root setvalue memory "" release_agent /bin/true
	expect_refused "cannot be set as a value" cgm_root setvalue memory sv_task/b release_agent /bin/true
	expect_refused "cannot be set as a value" cgm_root setvalue memory sv_task/b notify_on_release 1
	expect_refused "cannot be set as a value" cgm_as "$TEST_UID" sv_task/mine setvalue memory "" notify_on_release 1
	expect_eq "$(cat "$m/sv_task/b/notify_on_release" 2>/dev/null || echo none)" "$nor" "notify_on_release"
	end_pids "$pid"
	cgm_root remove all sv_task
}

# --- the daemon's root: nobody but root changes its settings ---

test_daemon_root_settings_are_roots_alone() {
	local m p soft
	m=$(sb_path memory); p=$(sb_path pids)
	soft=$(cat "$m/$MSOFT")
	# Even with the files made world-writable, a user is refused.
	cgm_root chmodfile memory "" $MSOFT 0666
	cgm_root chmodfile pids "" pids.max 0666
	expect_mode "$m/$MSOFT" 666
	expect_refused "setting of the root cgroup, which only host root may change" \
		cgm_as "$TEST_UID" "" setvalue memory "" $MSOFT 4096
	expect_refused "setting of the root cgroup" cgm_as "$TEST_UID" "" setvalue memory / $MSOFT 4096
	expect_refused "setting of the root cgroup" cgm_as "$TEST_UID" "" setvalue pids "" pids.max 10
	expect_eq "$(cat "$m/$MSOFT")" "$soft" "the root's soft limit"
	expect_eq "$(cat "$p/pids.max")" max "the root's pids.max"
	# A user cannot chmod or chown the root back or forth either.
	expect_refused "only its owner or root may chmod" cgm_as "$TEST_UID" "" chmodfile memory "" $MSOFT 0600
	expect_refused "only its owner or root may chmod" cgm_as "$TEST_UID" "" chmod memory "" 0777
	expect_refused "only its owner or root may chown" cgm_as "$TEST_UID" "" chown memory "" "$TEST_UID" "$TEST_UID"
	expect_owner "$m" 0 0
	expect_mode "$m" 755
	# Root may.
	cgm_root setvalue memory "" $MSOFT "$soft"
	cgm_root setvalue pids "" pids.max max
	cgm_root chmodfile memory "" $MSOFT 0644
	cgm_root chmodfile pids "" pids.max 0644
	expect_mode "$m/$MSOFT" 644
	expect_mode "$p/pids.max" 644
}

# The daemon's own cgroup (<root>/.cgmanager) is host root's business only: not listed to anyone else.
test_daemons_own_cgroup_listed_to_host_root_only() {
	local h=$MH
	cgm_root listchildren "$h" "" | grep -qx .cgmanager || fail "root does not see .cgmanager in $h:/"
	if cgm_as "$TEST_UID" "" listchildren "$h" "" | grep -qx .cgmanager; then fail "uid $TEST_UID sees .cgmanager"; fi
	if cgm_as "$TEST_UID" "" ls | grep -qx .cgmanager; then fail "uid $TEST_UID sees .cgmanager in cgm ls"; fi
	cgm_root ls | grep -qx .cgmanager || fail "root does not see .cgmanager in cgm ls"
}
