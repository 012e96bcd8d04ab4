# Ownership rules (rules 3 and 4): who may create, chown, chmod, remove and
# prune which cgroups, recorded only as the owner and mode of cgroupfs
# directories and files. Each allowed case is checked with stat, each refusal
# by the message and by the cgroupfs state staying as it was.

# own_delegated_files HIERARCHY: the files a chown hands over in HIERARCHY, one a line.
own_delegated_files() {
	if [ "$1" != unified ]; then
		printf '%s\n' tasks cgroup.procs
	elif [ -r /sys/kernel/cgroup/delegate ]; then
		cat /sys/kernel/cgroup/delegate
	else
		printf '%s\n' cgroup.procs cgroup.threads cgroup.subtree_control
	fi
}

# --- create ---

test_create_under_root_owned_cgroup_refused() {
	local h d
	cgm_root create all own_cr_root
	expect_refused "$MH:/ is owned by uid 0 \(mode 755\); you are uid $TEST_UID and need write access" \
		cgm_as "$TEST_UID" "" create memory own_cr_x
	# With every hierarchy refused, the call fails as a whole.
	expect_refused "is owned by uid 0" cgm_as "$TEST_UID" "" create all own_cr_x
	# Nor beneath a root-owned cgroup, whether named from above or from inside it.
	expect_refused "$MH:/own_cr_root is owned by uid 0" cgm_as "$TEST_UID" "" create memory own_cr_root/x
	expect_refused "is owned by uid 0" cgm_as "$TEST_UID" own_cr_root create all x
	expect_refused "is owned by uid 0" cgm_as "$TEST_UID" own_cr_root create all x/y/z
	for h in $(sb_hierarchies); do
		d=$(sb_path "$h")
		expect_missing "$d/own_cr_x"
		expect_missing "$d/own_cr_root/x"
	done
	cgm_root remove all own_cr_root
}

test_create_under_delegated_cgroup_owned_by_creator() {
	local h d pid
	delegate own_cr_deleg "$TEST_UID"
	# Named from above (the sandbox root) and from inside, several levels at once.
	expect_eq "$(cgm_as "$TEST_UID" "" create all own_cr_deleg/kid/deep)" "" "create output"
	cgm_as "$TEST_UID" own_cr_deleg create all kid2
	for h in $(sb_hierarchies); do
		d=$(sb_path "$h")/own_cr_deleg
		expect_tree_owner "$d/kid" "$TEST_UID" "$TEST_UID"
		expect_tree_owner "$d/kid/deep" "$TEST_UID" "$TEST_UID"
		expect_tree_owner "$d/kid2" "$TEST_UID" "$TEST_UID"
		expect_owner "$d" "$TEST_UID" "$TEST_UID"
	done
	# The new v1 cpuset has cpus and mems, so the creator can put its task in at once (cgroup2 inherits them).
	if has_hierarchy cpuset; then
		[ -n "$(cat "$(sb_path cpuset)/own_cr_deleg/kid/deep/cpuset.cpus")" ] || fail "new cpuset has no cpus"
	fi
	pid=$(spawn_sleeper "$TEST_UID" own_cr_deleg)
	cgm_as "$TEST_UID" own_cr_deleg movepid all kid/deep "$pid"
	for h in $(sb_hierarchies); do expect_in_cgroup "$pid" "$h" own_cr_deleg/kid/deep; done
	expect_eq "$(cgm_as "$TEST_UID" own_cr_deleg create all kid/deep)" "Path existed" "second create"
	end_pids "$pid"
	cgm_root remove all own_cr_deleg
}

test_create_under_another_users_cgroup_refused() {
	local m
	m=$(sb_path memory)
	delegate own_cr_other "$TEST_UID"
	expect_refused "$MH:/own_cr_other is owned by uid $TEST_UID \(mode 755\); you are uid $TEST_UID2" \
		cgm_as "$TEST_UID2" "" create memory own_cr_other/x
	expect_refused "owned by uid $TEST_UID" cgm_as "$TEST_UID2" own_cr_other create all x
	expect_missing "$m/own_cr_other/x"
	cgm_root remove all own_cr_other
}

test_create_all_where_only_some_hierarchies_are_delegated() {
	# As in 0.42, "all" succeeds where the requester may create and skips the rest.
	local h d
	cgm_root create all own_cr_part
	cgm_root chown memory own_cr_part "$TEST_UID" "$TEST_UID"
	cgm_as "$TEST_UID" own_cr_part create all kid
	for h in $(sb_hierarchies); do
		d=$(sb_path "$h")/own_cr_part/kid
		if [ "$h" = memory ] || pure_v2; then
			expect_tree_owner "$d" "$TEST_UID" "$TEST_UID"
		else
			expect_missing "$d"
		fi
	done
	cgm_root remove all own_cr_part
}

# --- chown ---

test_chown_hands_over_directory_and_task_files_not_limits() {
	local h d f want n deleg got
	cgm_root create all own_ch_files
	cgm_root chown all own_ch_files "$TEST_UID" "$TEST_UID"
	for h in $(sb_hierarchies); do
		d=$(sb_path "$h")/own_ch_files
		expect_owner "$d" "$TEST_UID" "$TEST_UID"
		n=0
		deleg=$'\n'$(own_delegated_files "$h")$'\n'
		# One find for every file (a process per file is slow in the v2 lane's emulated VM).
		while read -r f got; do
			if [[ $deleg == *$'\n'$f$'\n'* ]]; then want=$TEST_UID; n=$((n + 1)); else want=0; fi
			[ "$got" = "$want $want" ] || fail "$d/$f is owned by $got, expected $want $want"
		done < <(find "$d" -maxdepth 1 -type f -printf '%f %U %G\n')
		if [ "$h" = unified ]; then
			for f in cgroup.procs cgroup.threads cgroup.subtree_control; do
				expect_owner "$d/$f" "$TEST_UID" "$TEST_UID"
			done
			expect_owner "$d/cgroup.max.descendants" 0 0
			expect_owner "$d/cgroup.freeze" 0 0
		else
			expect_eq "$n" 2 "files handed over in $h"
			expect_owner "$d/tasks" "$TEST_UID" "$TEST_UID"
			expect_owner "$d/notify_on_release" 0 0
		fi
	done
	d=$(sb_path memory)/own_ch_files
	expect_owner "$d/$MLIM" 0 0
	expect_owner "$d/$MSOFT" 0 0
	expect_owner "$(sb_path pids)/own_ch_files/pids.max" 0 0
	expect_owner "$(sb_path cpuset)/own_ch_files/cpuset.cpus" 0 0
	if has_hierarchy devices; then expect_owner "$(sb_path devices)/own_ch_files/devices.allow" 0 0; fi
	# A different gid is recorded too.
	cgm_root chown memory own_ch_files "$TEST_UID" "$TEST_UID2"
	expect_owner "$d" "$TEST_UID" "$TEST_UID2"
	expect_owner "$d/cgroup.procs" "$TEST_UID" "$TEST_UID2"
	expect_owner "$d/$MLIM" 0 0
	cgm_root remove all own_ch_files
}

test_chown_by_a_user_to_another_uid_refused() {
	local m h
	m=$(sb_path memory)
	delegate own_ch_user "$TEST_UID"
	cgm_as "$TEST_UID" own_ch_user create all kid
	expect_refused "only root may chown $MH:/own_ch_user to uid $TEST_UID2" \
		cgm_as "$TEST_UID" "" chown memory own_ch_user "$TEST_UID2" "$TEST_UID2"
	expect_refused "only root may chown" cgm_as "$TEST_UID" own_ch_user chown all kid "$TEST_UID2" "$TEST_UID2"
	expect_refused "only root may chown" cgm_as "$TEST_UID" own_ch_user chown memory kid 0 0
	# Not even to keep the uid and take a group that is not one's own.
	expect_refused "only root may chown" cgm_as "$TEST_UID" own_ch_user chown memory kid "$TEST_UID" "$TEST_UID2"
	for h in $(sb_hierarchies); do
		expect_owner "$(sb_path "$h")/own_ch_user" "$TEST_UID" "$TEST_UID"
		expect_tree_owner "$(sb_path "$h")/own_ch_user/kid" "$TEST_UID" "$TEST_UID"
	done
	# Someone else's cgroup, or root's, is not the user's to chown at all.
	expect_refused "owned by uid $TEST_UID; you are uid $TEST_UID2, and only its owner or root may chown it" \
		cgm_as "$TEST_UID2" "" chown memory own_ch_user "$TEST_UID2" "$TEST_UID2"
	expect_refused "owned by uid 0; you are uid $TEST_UID" cgm_as "$TEST_UID" "" chown memory "" "$TEST_UID" "$TEST_UID"
	expect_owner "$m/own_ch_user" "$TEST_UID" "$TEST_UID"
	expect_owner "$m" 0 0
	# Chowning one's own cgroup to oneself changes nothing and is allowed.
	cgm_as "$TEST_UID" own_ch_user chown memory kid "$TEST_UID" "$TEST_UID"
	expect_owner "$m/own_ch_user/kid" "$TEST_UID" "$TEST_UID"
	cgm_root remove all own_ch_user
}

# --- chmod ---

test_chmod_before_and_after_chown() {
	local m
	m=$(sb_path memory)
	cgm_root create all own_cm
	expect_refused "$MH:/own_cm is owned by uid 0; you are uid $TEST_UID, and only its owner or root may chmod it" \
		cgm_as "$TEST_UID" "" chmod memory own_cm 0777
	expect_refused "only its owner or root may chmod" cgm_as "$TEST_UID" "" chmodfile memory own_cm cgroup.procs 0666
	expect_mode "$m/own_cm" 755
	expect_mode "$m/own_cm/cgroup.procs" 644
	cgm_root chown all own_cm "$TEST_UID" "$TEST_UID"
	cgm_as "$TEST_UID" "" chmod memory own_cm 0770
	expect_mode "$m/own_cm" 770
	cgm_as "$TEST_UID" own_cm chmodfile memory "" cgroup.procs 0664
	expect_mode "$m/own_cm/cgroup.procs" 664
	# The limit files still belong to root.
	expect_refused "$MH:/own_cm $MLIM is owned by uid 0; you are uid $TEST_UID" \
		cgm_as "$TEST_UID" own_cm chmodfile memory "" $MLIM 0666
	expect_mode "$m/own_cm/$MLIM" 644
	# Another user may not chmod the first one's cgroup.
	expect_refused "owned by uid $TEST_UID; you are uid $TEST_UID2" cgm_as "$TEST_UID2" "" chmod memory own_cm 0777
	expect_mode "$m/own_cm" 770
	# Root may chmod anything in its tree.
	cgm_root chmodfile memory own_cm $MLIM 0640
	expect_mode "$m/own_cm/$MLIM" 640
	cgm_root remove all own_cm
}

test_chmod_mode_gives_others_access() {
	# Permissions are the kernel's: a mode the owner sets lets others create beneath it.
	local m
	m=$(sb_path memory)
	delegate own_cm_share "$TEST_UID"
	expect_refused "owned by uid $TEST_UID" cgm_as "$TEST_UID2" "" create memory own_cm_share/theirs
	cgm_as "$TEST_UID" "" chmod memory own_cm_share 0777
	cgm_as "$TEST_UID2" "" create memory own_cm_share/theirs
	expect_tree_owner "$m/own_cm_share/theirs" "$TEST_UID2" "$TEST_UID2"
	cgm_as "$TEST_UID" "" chmod memory own_cm_share 0755
	expect_refused "owned by uid $TEST_UID" cgm_as "$TEST_UID2" "" create memory own_cm_share/again
	expect_missing "$m/own_cm_share/again"
	cgm_root remove all own_cm_share
}

test_chmod_modes_above_0777_refused() {
	local m mode uid
	m=$(sb_path memory)
	delegate own_cm_bits "$TEST_UID"
	for uid in 0 "$TEST_UID"; do
		for mode in 1777 2755 4755 7777; do
			expect_refused "only permission bits .*InvalidArgs" cgm_as "$uid" "" chmod memory own_cm_bits "$mode"
			expect_refused "only permission bits .*InvalidArgs" \
				cgm_as "$uid" "" chmodfile memory own_cm_bits cgroup.procs "$mode"
		done
	done
	# Past what cgm parses: straight over D-Bus.
	expect_refused "only permission bits" busctl_call Chmod sssi memory own_cm_bits "" 4096
	expect_refused "only permission bits" busctl_call -- Chmod sssi memory own_cm_bits "" -1
	BUSCTL_UID=$TEST_UID expect_refused "only permission bits" busctl_call Chmod sssi memory own_cm_bits "" 65535
	expect_mode "$m/own_cm_bits" 755
	expect_mode "$m/own_cm_bits/cgroup.procs" 644
	[ "$(stat -c %A "$m/own_cm_bits")" = drwxr-xr-x ] || fail "own_cm_bits got special bits: $(stat -c %A "$m/own_cm_bits")"
	cgm_as "$TEST_UID" "" chmod memory own_cm_bits 0777
	expect_mode "$m/own_cm_bits" 777
	cgm_root chmod memory own_cm_bits 0
	expect_mode "$m/own_cm_bits" 0
	cgm_root remove all own_cm_bits
}

# --- remove and prune ---

test_remove_what_you_do_not_own_refused() {
	local h d
	cgm_root create all own_rm_root
	delegate own_rm_deleg "$TEST_UID"
	cgm_as "$TEST_UID" own_rm_deleg create all kid
	expect_refused "$MH:/ is owned by uid 0 .*write access to remove a cgroup from it" \
		cgm_as "$TEST_UID" "" remove memory own_rm_root
	expect_refused "is owned by uid 0" cgm_as "$TEST_UID" "" remove all own_rm_root
	# A cgroup delegated to the user stays: its parent is not the user's.
	expect_refused "is owned by uid 0" cgm_as "$TEST_UID" "" remove all own_rm_deleg
	# Another user may not remove what the first one created.
	expect_refused "$MH:/own_rm_deleg is owned by uid $TEST_UID .*you are uid $TEST_UID2" \
		cgm_as "$TEST_UID2" "" remove memory own_rm_deleg/kid
	expect_refused "owned by uid $TEST_UID" cgm_as "$TEST_UID2" own_rm_deleg remove all kid 0
	# Recursive removal does not descend through a subtree that is root's.
	cgm_root create all own_rm_deleg/kid/rootsub/deeper
	expect_refused "cannot remove the cgroups beneath .*rootsub" cgm_as "$TEST_UID" own_rm_deleg remove all kid
	for h in $(sb_hierarchies); do
		d=$(sb_path "$h")
		expect_exists "$d/own_rm_root"
		expect_exists "$d/own_rm_deleg"
		expect_exists "$d/own_rm_deleg/kid/rootsub/deeper"
	done
	cgm_root remove all own_rm_root
	cgm_root remove all own_rm_deleg
}

test_remove_what_you_created() {
	local h d
	delegate own_rm_mine "$TEST_UID"
	cgm_as "$TEST_UID" own_rm_mine create all kid/deep
	cgm_as "$TEST_UID" own_rm_mine create all flat
	expect_refused "has child cgroups" cgm_as "$TEST_UID" own_rm_mine remove memory kid 0
	expect_exists "$(sb_path memory)/own_rm_mine/kid/deep"
	expect_eq "$(cgm_as "$TEST_UID" own_rm_mine remove all kid)" "" "recursive remove output"
	expect_eq "$(cgm_as "$TEST_UID" "" remove all own_rm_mine/flat 0)" "" "remove output"
	for h in $(sb_hierarchies); do
		d=$(sb_path "$h")/own_rm_mine
		expect_missing "$d/kid"
		expect_missing "$d/flat"
		expect_exists "$d"
	done
	expect_eq "$(cgm_as "$TEST_UID" own_rm_mine remove all kid)" "Path did not exist" "second remove"
	cgm_root remove all own_rm_mine
}

test_remove_own_cgroup_refused() {
	local h
	delegate own_rm_self "$TEST_UID"
	expect_refused "$MH:/own_rm_self is your own cgroup" cgm_as "$TEST_UID" own_rm_self remove memory ""
	expect_refused "is your own cgroup" cgm_as "$TEST_UID" own_rm_self remove all /
	expect_refused "is your own cgroup" cgm_as "$TEST_UID" own_rm_self remove all "" 0
	# Root too: a cgroup is removed from outside it.
	expect_refused "is your own cgroup" cgm_as 0 own_rm_self remove all ""
	expect_refused "the root this daemon manages" cgm_root remove memory ""
	for h in $(sb_hierarchies); do expect_exists "$(sb_path "$h")/own_rm_self"; done
	cgm_root remove all own_rm_self
}

test_prune_what_you_do_not_own_refused() {
	local h d
	cgm_root create all own_pr_root/a/b
	delegate own_pr_deleg "$TEST_UID"
	cgm_as "$TEST_UID" own_pr_deleg create all kid
	expect_refused "is owned by uid 0" cgm_as "$TEST_UID" "" prune memory own_pr_root
	expect_refused "cannot prune beneath $MH:/own_pr_root: .*owned by uid 0" \
		cgm_as "$TEST_UID" own_pr_root prune memory ""
	expect_refused "cannot prune beneath $MH:/: .*owned by uid 0" cgm_as "$TEST_UID" "" prune memory ""
	# The delegated cgroup itself is not the user's to prune away, and not another user's at all.
	expect_refused "is owned by uid 0" cgm_as "$TEST_UID" "" prune memory own_pr_deleg
	expect_refused "owned by uid $TEST_UID" cgm_as "$TEST_UID2" own_pr_deleg prune memory ""
	expect_refused "owned by uid $TEST_UID" cgm_as "$TEST_UID2" "" prune memory own_pr_deleg/kid
	for h in $(sb_hierarchies); do
		d=$(sb_path "$h")
		expect_exists "$d/own_pr_root/a/b"
		expect_exists "$d/own_pr_deleg/kid"
	done
	cgm_root remove all own_pr_root
	cgm_root remove all own_pr_deleg
}

test_prune_what_you_own() {
	local m pid
	m=$(sb_path memory)
	delegate own_pr_mine "$TEST_UID"
	cgm_as "$TEST_UID" own_pr_mine create memory a/b
	cgm_as "$TEST_UID" own_pr_mine create memory busy
	pid=$(spawn_sleeper "$TEST_UID" own_pr_mine)
	cgm_as "$TEST_UID" own_pr_mine movepid memory busy "$pid"
	cgm_as "$TEST_UID" own_pr_mine prune memory ""
	expect_missing "$m/own_pr_mine/a"
	expect_exists "$m/own_pr_mine/busy"
	expect_exists "$m/own_pr_mine"
	end_pids "$pid"
	cgm_root remove all own_pr_mine
}
