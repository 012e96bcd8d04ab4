# What clients built against cgmanager 0.42 rely on beyond the method signatures (issue 14): the names
# ListControllers gives, GetTasksRecursive of a cgroup that is gone, and a client library that does not take
# the place of 0.42's.

# 0.42's own test 23 (tests/test23.sh there): every name cgmanager0_0's ListControllers gives is found in the
# client's /proc/self/cgroup. LXC's cgmanager driver and pam_cgm take these names for hierarchies as the kernel
# shows them there. Besides test 23's substring match, each comma-separated part of a name must be a whole
# controller of a line's controller field (split at commas, "name=systemd" as it is).
test_compat_listcontrollers_names_are_in_proc_self_cgroup() {
	local out procs name part
	out=$(cgm_root listcontrollers)
	[ -n "$out" ] || fail "listcontrollers gave no name"
	echo "$out" | grep -qx unified && fail "listcontrollers gives unified, which no /proc/self/cgroup line names"
	# A pure cgroup2 host's only line is "0::/path": no name can be found there, and the daemon lists cgroup2's
	# controllers so that a 0.42 client has names to use (t_v2.sh checks them).
	pure_v2 && return 0
	procs=$(run_as 0 "" cat /proc/self/cgroup)
	for name in $out; do
		grep -qF -- "$name" <<<"$procs" || fail "test 23: $name is not in /proc/self/cgroup: $procs"
		for part in ${name//,/ }; do
			cut -d: -f2 <<<"$procs" | tr ',' '\n' | grep -qxF -- "$part" ||
				fail "$part (of $name) is no controller of /proc/self/cgroup: $procs"
		done
	done
	# Requests still take unified.
	cgm_root create unified cmp_lc
	expect_exists "$(sb_path unified)/cmp_lc"
	cgm_root remove unified cmp_lc
}

# 0.42 answers GetTasksRecursive of "all" or a comma list with the tasks it finds, a hierarchy where the cgroup
# is gone adding none (its pam_cgm asks at close_session, when the cgroup may be removed, and crashed on the
# error); of one controller a missing cgroup is an error there too. cgmanager1's ListTasks keeps its error.
test_compat_gettasksrecursive_of_a_missing_cgroup() {
	local pid out
	cgm_root create all cmp_gone
	cgm_root remove all cmp_gone
	out=$(cgm_root gettasksrecursive all cmp_gone) || fail "gettasksrecursive all of a removed cgroup refused"
	expect_eq "$out" "" "gettasksrecursive all of a removed cgroup"
	expect_eq "$(BUSCTL_UID=0 busctl_call GetTasksRecursive ss all cmp_gone)" "ai 0" "GetTasksRecursive all"
	expect_eq "$(BUSCTL_UID=0 busctl_call GetTasksRecursive ss memory,pids cmp_gone)" "ai 0" \
		"GetTasksRecursive of a list"
	expect_eq "$(scm GetTasksRecursiveScm all cmp_gone)" "count 0" "GetTasksRecursiveScm all"
	expect_refused "FileNotFound" cgm_root gettasksrecursive memory cmp_gone
	expect_refused "FileNotFound" cgm_root gettasks memory cmp_gone
	expect_refused "FileNotFound|does not exist" busctl1_as 0 "" ListTasks sb cmp_gone true
	# Where it exists in one hierarchy only, that one's tasks.
	cgm_root create memory cmp_part
	pid=$(spawn_sleeper 0 "")
	cgm_root movepid memory cmp_part "$pid"
	expect_eq "$(cgm_root gettasksrecursive all cmp_part)" "$pid" "gettasksrecursive all where only memory has it"
	end_pids "$pid"
	cgm_root remove memory cmp_part
}

# This project's libcgmanager has other functions than 0.42's libcgmanager.so.0; installed under that soname
# it would break every program built against 0.42 (the original cgm died with "undefined symbol:
# cgmanager_ping_sync").
test_client_libcgmanager_soname_is_not_042s() {
	local lib=$BUILD/src/client/libcgmanager.so soname needed
	soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
	[ -n "$soname" ] || fail "$lib has no SONAME"
	[ "$soname" != libcgmanager.so.0 ] || fail "$lib has 0.42's soname $soname"
	needed=$(readelf -d "$CGM" | sed -n 's/.*(NEEDED).*\[\(libcgmanager\..*\)\]/\1/p')
	expect_eq "$needed" "$soname" "the library cgm is linked against"
}
