# Every method of org.linuxcontainers.cgmanager0_0 through `cgm`, as root and as
# an unprivileged uid, with the 0.42 argument and output conventions. Every
# cgroup these tests make is named meth_* beneath the sandbox.

# meth_cgpath PID HIERARCHY: PID's cgroup in HIERARCHY (as cgm names it) from /proc/PID/cgroup.
meth_cgpath() {
	local ctrls=$2
	{ [ "$ctrls" = unified ] || pure_v2; } && ctrls=
	# A task in a cgroup2 leaf is in the leaf's parent (ops/unified.h).
	awk -F: -v c="$ctrls" '$2 == c { sub(/^[^:]*:[^:]*:/, ""); sub(/\/\.leaf$/, ""); print; exit }' "/proc/$1/cgroup"
}

# meth_expect_proc_cgroup PID HIERARCHY REL: /proc/PID/cgroup puts PID in sandbox cgroup REL of HIERARCHY.
meth_expect_proc_cgroup() {
	local got want=/$SB_NAME${3:+/$3}
	got=$(meth_cgpath "$1" "$2")
	[[ $got == *"$want" ]] || fail "/proc/$1/cgroup: $2 is '$got', expected it to end in '$want'"
}

# meth_gone HIERARCHY REL: the sandbox cgroup REL no longer exists.
meth_gone() { [ ! -e "$(sb_path "$1")/$2" ]; }

test_cgm_ping_and_apiversion() {
	cgm_root ping
	cgm_as "$TEST_UID" "" ping
	expect_eq "$(cgm_root ping)" "" "ping output"
	expect_eq "$(cgm_root apiversion)" 10 "api_version as root"
	expect_eq "$(cgm_as "$TEST_UID" "" apiversion)" 10 "api_version as uid $TEST_UID"
	# A daemon that is not there: exit 1 and a reason naming the socket.
	expect_refused "cannot connect to cgmanager at $WORK/nosock" "$CGM" --socket "$WORK/nosock" ping
}

test_cgm_create_existed_and_nested_parents() {
	local h d
	d=$(sb_path memory)
	expect_eq "$(cgm_root create memory meth_cr/a/b/c)" "" "first create of a nested path"
	expect_exists "$d/meth_cr/a/b/c"
	expect_eq "$(cgm_root create memory meth_cr/a/b/c)" "Path existed" "second create"
	expect_eq "$(cgm_root create memory meth_cr/a)" "Path existed" "create of a parent made on the way"
	expect_eq "$(cgm_root create memory meth_cr/a/b2)" "" "create of a sibling"
	# Only the hierarchy named was touched.
	if multi_hierarchy; then expect_missing "$(sb_path pids)/meth_cr"; fi
	# all: every hierarchy; existed as soon as one had it.
	expect_eq "$(cgm_root create all meth_cr)" "Path existed" "create all where memory had it"
	for h in $(sb_hierarchies); do expect_exists "$(sb_path "$h")/meth_cr"; done
	expect_eq "$(cgm_root create all meth_cr_all/x)" "" "create all of a new path"
	for h in $(sb_hierarchies); do expect_exists "$(sb_path "$h")/meth_cr_all/x"; done
	# The empty name is one's own cgroup, which exists.
	expect_eq "$(cgm_root create memory '')" "Path existed" "create of ''"
	cgm_root remove all meth_cr
	cgm_root remove all meth_cr_all
	for h in $(sb_hierarchies); do expect_missing "$(sb_path "$h")/meth_cr"; done
}

test_cgm_controller_arguments() {
	local h d
	# A comma list names exactly those hierarchies.
	expect_eq "$(cgm_root create memory,pids meth_ctl)" "" "create memory,pids"
	expect_exists "$(sb_path memory)/meth_ctl"
	expect_exists "$(sb_path pids)/meth_ctl"
	for h in $(sb_hierarchies); do
		case $h in memory | pids) ;; *) multi_hierarchy && expect_missing "$(sb_path "$h")/meth_ctl" ;; esac
	done
	# A controller named twice is one hierarchy.
	expect_eq "$(cgm_root create memory,memory meth_ctl2)" "" "create memory,memory"
	cgm_root remove memory meth_ctl2
	# systemd and name=systemd are the same hierarchy.
	if has_hierarchy name=systemd; then
		d=$(sb_path name=systemd)
		expect_eq "$(cgm_root create systemd meth_ctl)" "" "create systemd"
		expect_exists "$d/meth_ctl"
		expect_eq "$(cgm_root create name=systemd meth_ctl)" "Path existed" "create name=systemd after systemd"
		expect_eq "$(cgm_root listchildren name=systemd '')" "$(cgm_root listchildren systemd '')" "listchildren systemd"
		cgm_root remove name=systemd meth_ctl
		expect_missing "$d/meth_ctl"
	fi
	# unified is the cgroup2 hierarchy (on a pure cgroup2 host, memory,pids named it already).
	expect_eq "$(cgm_root create unified meth_ctl)" "$(pure_v2 && echo "Path existed")" "create unified"
	expect_exists "$(sb_path unified)/meth_ctl"
	# Unknown controllers are refused, alone or in a list, and nothing is made.
	expect_refused "controller 'nosuchctl' is not available.*FileNotFound" cgm_root create nosuchctl meth_ctl3
	expect_refused "controller 'nosuchctl' is not available" cgm_root create memory,nosuchctl meth_ctl3
	expect_missing "$(sb_path memory)/meth_ctl3"
	expect_refused "not available" cgm_root getvalue nosuchctl '' tasks
	expect_refused "not available" cgm_root gettasksrecursive nosuchctl ''
	expect_refused "no controller named" cgm_root create '' meth_ctl3
	# The single-controller methods refuse lists of several hierarchies.
	if multi_hierarchy; then
		expect_refused "exactly one controller; 'all' names [0-9]+ hierarchies.*InvalidArgs" cgm_root gettasks all ''
		expect_refused "exactly one controller; 'memory,pids' names 2 hierarchies" cgm_root getvalue memory,pids meth_ctl $MLIM
		expect_refused "exactly one controller" cgm_root listchildren all ''
		expect_refused "exactly one controller" cgm_root listkeys memory,pids ''
		expect_refused "exactly one controller" cgm_root getpidcgroup all 1
	fi
	cgm_root remove all meth_ctl
}

# A controller that names no hierarchy is reported after the checks of the other arguments, as 0.42 did (and as
# this daemon did before it parsed the controller in the front end): each call has two faults, the other wins.
test_cgm_controller_error_comes_after_the_other_arguments() {
	expect_refused "must not be negative" busctl_call Chown ssii nosuch meth_two -- -1 -1
	expect_refused "only permission bits" busctl_call Chmod sssi nosuch meth_two "" 4095
	expect_refused "key .a/b. is refused" busctl_call SetValue ssss nosuch meth_two "a/b" 1
	expect_refused "pid 0 is not a valid pid" busctl_call MovePid ssi nosuch meth_two 0
	# Alone, the controller is the fault named.
	expect_refused "controller 'nosuch' is not available" busctl_call Chown ssii nosuch meth_two 0 0
}

test_cgm_chown_hands_over_the_cgroup() {
	local d
	cgm_root create memory meth_cho
	d=$(sb_path memory)/meth_cho
	cgm_root chown memory meth_cho "$TEST_UID" "$TEST_UID2"
	expect_owner "$d" "$TEST_UID" "$TEST_UID2"
	expect_owner "$d/cgroup.procs" "$TEST_UID" "$TEST_UID2"
	expect_owner "$d/$TASKS" "$TEST_UID" "$TEST_UID2"
	expect_owner "$d/$MLIM" 0 0
	# The new owner can now create beneath it; what it creates is its own.
	expect_eq "$(cgm_as "$TEST_UID" "" create memory meth_cho/kid)" "" "create by the new owner"
	expect_tree_owner "$d/kid" "$TEST_UID" "$TEST_UID"
	# The owner cannot give it away; root can give it back.
	expect_refused "AccessDenied" cgm_as "$TEST_UID" "" chown memory meth_cho/kid "$TEST_UID2" "$TEST_UID2"
	cgm_root chown memory meth_cho 0 0
	expect_owner "$d" 0 0
	expect_refused "not a number" cgm_root chown memory meth_cho -1 0
	expect_refused "does not exist.*FileNotFound" cgm_root chown memory meth_cho_missing 0 0
	cgm_root remove memory meth_cho
}

test_cgm_chmod_and_chmodfile() {
	local d
	cgm_root create memory meth_chm
	d=$(sb_path memory)/meth_chm
	cgm_root chmod memory meth_chm 750
	expect_mode "$d" 750
	cgm_root chmod memory meth_chm 0755
	expect_mode "$d" 755
	cgm_root chmodfile memory meth_chm $MLIM 600
	expect_mode "$d/$MLIM" 600
	cgm_root chmodfile memory meth_chm $MLIM 644
	expect_mode "$d/$MLIM" 644
	# cgm parses modes as octal, and the daemon refuses what names no file of the cgroup.
	expect_refused "not an octal mode" cgm_root chmod memory meth_chm 9
	expect_refused "has no file 'nosuchfile'.*FileNotFound" cgm_root chmodfile memory meth_chm nosuchfile 644
	expect_refused "may not contain '/'.*InvalidArgs" cgm_root chmodfile memory meth_chm a/b 644
	# A user may not chmod root's cgroup.
	expect_refused "AccessDenied" cgm_as "$TEST_UID" "" chmod memory meth_chm 777
	expect_mode "$d" 755
	cgm_root remove memory meth_chm
}

test_cgm_remove_recursive_nonrecursive_and_busy() {
	local d pid
	d=$(sb_path memory)
	cgm_root create memory meth_rm/a/b
	# 0: not recursive, refused while there are children; nothing is removed.
	expect_refused "has child cgroups.*Error.Busy" cgm_root remove memory meth_rm 0
	expect_exists "$d/meth_rm/a/b"
	# A leaf goes with 0.
	expect_eq "$(cgm_root remove memory meth_rm/a/b 0)" "" "non-recursive remove of a leaf"
	expect_missing "$d/meth_rm/a/b"
	# Recursive is the default.
	cgm_root create memory meth_rm/a/b/c
	expect_eq "$(cgm_root remove memory meth_rm)" "" "recursive remove"
	expect_missing "$d/meth_rm"
	expect_eq "$(cgm_root remove memory meth_rm)" "Path did not exist" "remove of a missing cgroup"
	expect_eq "$(cgm_root remove memory meth_rm 1)" "Path did not exist" "remove 1 of a missing cgroup"
	expect_refused "not a number" cgm_root remove memory meth_rm 2
	# A populated cgroup is refused as busy, recursively or not, and stays.
	cgm_root create all meth_rm_busy/kid
	pid=$(spawn_sleeper 0 meth_rm_busy/kid)
	expect_refused "still has tasks.*Error.Busy" cgm_root remove memory meth_rm_busy
	expect_refused "Error.Busy" cgm_root remove memory meth_rm_busy/kid 0
	expect_refused "Error.Busy" cgm_root remove unified meth_rm_busy/kid
	expect_exists "$d/meth_rm_busy/kid"
	expect_in_cgroup "$pid" memory meth_rm_busy/kid
	end_pids "$pid"
	expect_eq "$(cgm_root remove all meth_rm_busy)" "" "remove all once empty"
	expect_missing "$d/meth_rm_busy"
	# The daemon's root (the sandbox) cannot be removed.
	expect_refused "cannot be removed" cgm_root remove memory ''
	expect_exists "$d"
}

test_cgm_getpidcgroup_relative() {
	local top kid pid_u
	cgm_root create all meth_gp/a/b
	top=$(spawn_sleeper 0 "")
	kid=$(spawn_sleeper 0 meth_gp/a/b)
	# Relative to the requester: "/" for its own cgroup, no leading slash beneath it.
	expect_eq "$(cgm_root getpidcgroup memory "$top")" / "a task in root's own cgroup"
	expect_eq "$(cgm_root getpidcgroup memory "$kid")" meth_gp/a/b "a task beneath"
	expect_eq "$(cgm_root getpidcgroup unified "$kid")" meth_gp/a/b "a task beneath, unified"
	if has_hierarchy name=systemd; then
		expect_eq "$(cgm_root getpidcgroup systemd "$kid")" meth_gp/a/b "a task beneath, systemd"
	fi
	expect_eq "$(run_as 0 meth_gp "$CGM" --socket "$SOCK" getpidcgroup memory "$kid")" a/b "from meth_gp"
	expect_eq "$(run_as 0 meth_gp/a/b "$CGM" --socket "$SOCK" getpidcgroup memory "$kid")" / "from the task's cgroup"
	# A task that is not beneath the requester is refused, even for root.
	expect_refused "not beneath your cgroup.*AccessDenied" run_as 0 meth_gp/a "$CGM" --socket "$SOCK" getpidcgroup memory "$top"
	expect_refused "not beneath your cgroup" run_as 0 meth_gp/a/b "$CGM" --socket "$SOCK" getpidcgroup memory "$top"
	# The same for a user in its delegated cgroup.
	delegate meth_gp_u "$TEST_UID"
	pid_u=$(spawn_sleeper "$TEST_UID" meth_gp_u)
	expect_eq "$(cgm_as "$TEST_UID" meth_gp_u getpidcgroup memory "$pid_u")" / "user's own cgroup"
	cgm_as "$TEST_UID" meth_gp_u create all k
	cgm_as "$TEST_UID" meth_gp_u movepid all k "$pid_u"
	expect_eq "$(cgm_as "$TEST_UID" meth_gp_u getpidcgroup memory "$pid_u")" k "user's child"
	expect_refused "not beneath your cgroup" cgm_as "$TEST_UID" meth_gp_u getpidcgroup memory "$kid"
	expect_refused "not a number" cgm_root getpidcgroup memory notapid
	expect_refused "FileNotFound" cgm_root getpidcgroup memory 999999999
	end_pids "$top" "$kid" "$pid_u"
	cgm_root remove all meth_gp
	cgm_root remove all meth_gp_u
}

test_cgm_getpidcgroupabs_from_daemon_root() {
	local kid top
	delegate meth_gpa "$TEST_UID"
	cgm_as "$TEST_UID" meth_gpa create all in/deep
	kid=$(spawn_sleeper "$TEST_UID" meth_gpa/in/deep)
	top=$(spawn_sleeper 0 "")
	# From the daemon's root, with a leading slash, whoever asks and wherever they are.
	expect_eq "$(cgm_root getpidcgroupabs memory "$kid")" /meth_gpa/in/deep "abs as root"
	expect_eq "$(cgm_as "$TEST_UID" meth_gpa getpidcgroupabs memory "$kid")" /meth_gpa/in/deep "abs as the user"
	expect_eq "$(cgm_as "$TEST_UID" meth_gpa getpidcgroup memory "$kid")" in/deep "relative as the user"
	expect_eq "$(cgm_root getpidcgroupabs pids "$kid")" /meth_gpa/in/deep "abs in pids"
	expect_eq "$(cgm_root getpidcgroupabs unified "$kid")" /meth_gpa/in/deep "abs in unified"
	expect_eq "$(cgm_root getpidcgroupabs memory "$top")" / "abs of a task in the daemon's root"
	end_pids "$kid" "$top"
	cgm_root remove all meth_gpa
}

test_cgm_movepid_shows_in_proc() {
	local pid h upid
	cgm_root create all meth_mv/a
	pid=$(spawn_sleeper 0 "")
	cgm_root movepid memory meth_mv "$pid"
	meth_expect_proc_cgroup "$pid" memory meth_mv
	if multi_hierarchy; then meth_expect_proc_cgroup "$pid" pids ""; fi
	cgm_root movepid all meth_mv/a "$pid"
	for h in $(sb_hierarchies); do
		meth_expect_proc_cgroup "$pid" "$h" meth_mv/a
		expect_in_cgroup "$pid" "$h" meth_mv/a
	done
	expect_eq "$(cgm_root gettasks memory meth_mv/a)" "$pid" "gettasks after movepid"
	cgm_root movepid memory,pids '' "$pid"
	meth_expect_proc_cgroup "$pid" memory ""
	meth_expect_proc_cgroup "$pid" pids ""
	if multi_hierarchy; then meth_expect_proc_cgroup "$pid" cpu meth_mv/a; fi
	# Into a missing cgroup: refused, and the task stays where it was in every hierarchy.
	expect_refused "does not exist.*FileNotFound" cgm_root movepid all meth_mv/missing "$pid"
	meth_expect_proc_cgroup "$pid" cpu "$(multi_hierarchy && echo meth_mv/a)"
	expect_refused "FileNotFound" cgm_root movepid memory meth_mv 999999999
	# A user moves its own task within what it was handed.
	delegate meth_mv_u "$TEST_UID"
	cgm_as "$TEST_UID" meth_mv_u create all job
	upid=$(spawn_sleeper "$TEST_UID" meth_mv_u)
	cgm_as "$TEST_UID" meth_mv_u movepid all job "$upid"
	for h in $(sb_hierarchies); do meth_expect_proc_cgroup "$upid" "$h" meth_mv_u/job; done
	# ... but not root's task.
	expect_refused "AccessDenied" cgm_as "$TEST_UID" meth_mv_u movepid memory job "$pid"
	meth_expect_proc_cgroup "$pid" memory ""
	end_pids "$pid" "$upid"
	cgm_root remove all meth_mv
	cgm_root remove all meth_mv_u
}

test_cgm_movepidabs_root_only() {
	local pid upid h
	cgm_root create all meth_mva/in
	cgm_root create all meth_mva/out
	pid=$(spawn_sleeper 0 "")
	# Root in meth_mva/in names cgroups from the daemon's root and reaches tasks outside its own cgroup.
	expect_refused "outside your cgroup.*MovePidAbs is for root" \
		run_as 0 meth_mva/in "$CGM" --socket "$SOCK" movepid memory "" "$pid"
	meth_expect_proc_cgroup "$pid" memory ""
	run_as 0 meth_mva/in "$CGM" --socket "$SOCK" movepidabs all meth_mva/out "$pid"
	for h in $(sb_hierarchies); do meth_expect_proc_cgroup "$pid" "$h" meth_mva/out; done
	# A leading slash is allowed.
	run_as 0 meth_mva/in "$CGM" --socket "$SOCK" movepidabs memory /meth_mva "$pid"
	meth_expect_proc_cgroup "$pid" memory meth_mva
	cgm_root movepidabs all / "$pid"
	for h in $(sb_hierarchies); do meth_expect_proc_cgroup "$pid" "$h" ""; done
	# A user is refused, even for its own task in its own subtree.
	delegate meth_mva_u "$TEST_UID"
	cgm_as "$TEST_UID" meth_mva_u create all job
	upid=$(spawn_sleeper "$TEST_UID" meth_mva_u)
	expect_refused "MovePidAbs is for root.*AccessDenied" cgm_as "$TEST_UID" meth_mva_u movepidabs memory meth_mva_u/job "$upid"
	meth_expect_proc_cgroup "$upid" memory meth_mva_u
	end_pids "$pid" "$upid"
	cgm_root remove all meth_mva
	cgm_root remove all meth_mva_u
}

test_cgm_getvalue_setvalue() {
	local d v
	cgm_root create all meth_val
	d=$(sb_path memory)/meth_val
	cgm_root setvalue memory meth_val $MLIM 64M
	expect_eq "$(cgm_root getvalue memory meth_val $MLIM)" 67108864 "$MLIM"
	expect_eq "$(cat "$d/$MLIM")" 67108864 "$MLIM in cgroupfs"
	cgm_root setvalue pids meth_val pids.max 17
	expect_eq "$(cgm_root getvalue pids meth_val pids.max)" 17 "pids.max"
	cgm_root setvalue pids meth_val pids.max max
	expect_eq "$(cgm_root getvalue pids meth_val pids.max)" max "pids.max back to max"
	cgm_root setvalue cpu meth_val $CPUW 512
	expect_eq "$(cgm_root getvalue cpu meth_val $CPUW)" 512 "$CPUW"
	if [ -e "$(sb_path unified)/meth_val/cgroup.type" ]; then
		expect_eq "$(cgm_root getvalue unified meth_val cgroup.type)" domain "unified cgroup.type"
	fi
	# Multi-line values come without the trailing newline.
	v=$(cgm_root getvalue memory meth_val memory.stat)
	echo "$v" | grep -qE '^(cache|file) ' || fail "memory.stat has no cache (v1) or file (v2) line: $v"
	expect_eq "$(cgm_root getvalue memory meth_val memory.stat | wc -l)" "$(wc -l <"$d/memory.stat")" "memory.stat lines"
	# The kernel's refusal comes back with its reason, and the value is unchanged.
	expect_refused "kernel refused 'lots' for $MH:/meth_val $MLIM: Invalid argument.*InvalidArgs" \
		cgm_root setvalue memory meth_val $MLIM lots
	expect_refused "kernel refused '-5' for $PH:/meth_val pids.max" cgm_root setvalue pids meth_val pids.max -5
	expect_eq "$(cgm_root getvalue memory meth_val $MLIM)" 67108864 "limit after a refused write"
	# Files that are not there, and names that are not file names.
	expect_refused "has no file 'memory.nosuch'.*FileNotFound" cgm_root getvalue memory meth_val memory.nosuch
	expect_refused "FileNotFound" cgm_root setvalue memory meth_val memory.nosuch 1
	expect_refused "FileNotFound" cgm_root getvalue memory meth_val_missing $MLIM
	expect_refused "InvalidArgs" cgm_root getvalue memory meth_val ../$MLIM
	# A user cannot raise root's limits.
	expect_refused "AccessDenied" cgm_as "$TEST_UID" "" setvalue memory meth_val $MLIM 1G
	expect_eq "$(cgm_root getvalue memory meth_val $MLIM)" 67108864 "limit after a user's attempt"
	cgm_root remove all meth_val
}

test_cgm_gettasks_and_recursive() {
	local p1 p2 p3 want got
	cgm_root create all meth_gt/kid/grand
	p1=$(spawn_sleeper 0 meth_gt)
	p2=$(spawn_sleeper 0 meth_gt/kid)
	p3=$(spawn_sleeper 0 meth_gt/kid/grand)
	expect_eq "$(cgm_root gettasks memory meth_gt)" "$p1" "gettasks memory"
	expect_eq "$(cgm_root gettasks unified meth_gt/kid)" "$p2" "gettasks unified"
	expect_eq "$(cgm_root gettasks memory meth_gt/kid/grand)" "$p3" "gettasks of a leaf"
	want=$(printf '%s\n' "$p1" "$p2" "$p3" | sort -n)
	expect_eq "$(cgm_root gettasksrecursive memory meth_gt)" "$want" "gettasksrecursive memory"
	# Several hierarchies: each pid once, sorted.
	expect_eq "$(cgm_root gettasksrecursive memory,pids meth_gt)" "$want" "gettasksrecursive memory,pids"
	expect_eq "$(cgm_root gettasksrecursive all meth_gt)" "$want" "gettasksrecursive all"
	expect_eq "$(cgm_root gettasksrecursive all meth_gt/kid)" "$(printf '%s\n' "$p2" "$p3" | sort -n)" "recursive of kid"
	# With no cgroup, the requester's own (the cgm process itself is there too).
	got=$(run_as 0 meth_gt/kid/grand "$CGM" --socket "$SOCK" gettasks memory)
	echo "$got" | grep -qx "$p3" || fail "gettasks with no cgroup lacks $p3: $got"
	if echo "$got" | grep -qx "$p1"; then fail "gettasks with no cgroup lists $p1 from above"; fi
	got=$(run_as 0 meth_gt/kid "$CGM" --socket "$SOCK" gettasksrecursive all)
	echo "$got" | grep -qx "$p3" || fail "gettasksrecursive with no cgroup lacks $p3: $got"
	# A user in the sandbox root may read the task lists (they are world-readable).
	expect_eq "$(cgm_as "$TEST_UID" "" gettasks memory meth_gt)" "$p1" "gettasks as a user"
	end_pids "$p1" "$p2" "$p3"
	expect_eq "$(cgm_root gettasksrecursive all meth_gt)" "" "gettasksrecursive once empty"
	expect_refused "FileNotFound" cgm_root gettasks memory meth_gt_missing
	cgm_root remove all meth_gt
}

test_cgm_listchildren() {
	cgm_root create all meth_lc
	cgm_root create memory meth_lc/a
	cgm_root create memory meth_lc/b/deep
	cgm_root create memory meth_lc/c
	expect_eq "$(cgm_root listchildren memory meth_lc | sort)" "$(printf '%s\n' a b c)" "children of meth_lc"
	expect_eq "$(cgm_root listchildren memory meth_lc/b)" deep "children of meth_lc/b"
	expect_eq "$(cgm_root listchildren memory meth_lc/c)" "" "children of a leaf"
	# With no cgroup: the requester's own.
	expect_eq "$(run_as 0 meth_lc "$CGM" --socket "$SOCK" listchildren memory | sort)" "$(printf '%s\n' a b c)" \
		"children with no cgroup"
	cgm_root listchildren memory '' | grep -qx meth_lc || fail "meth_lc not among the sandbox root's children"
	expect_eq "$(cgm_as "$TEST_UID" "" listchildren memory meth_lc | sort)" "$(printf '%s\n' a b c)" "as a user"
	expect_refused "FileNotFound" cgm_root listchildren memory meth_lc/missing
	if multi_hierarchy; then expect_eq "$(cgm_root listchildren pids meth_lc)" "" "children in pids, where none were made"; fi
	if multi_hierarchy; then expect_refused "FileNotFound" cgm_root listchildren pids meth_lc/a; fi
	cgm_root remove all meth_lc
}

test_cgm_removeonempty_v1_memory() {
	local pid d t0
	d=$(sb_path memory)
	cgm_root create all meth_roe1
	pid=$(spawn_sleeper 0 meth_roe1)
	cgm_root removeonempty memory meth_roe1
	sleep 1.2
	expect_exists "$d/meth_roe1"
	t0=$(now_ms)
	end_pids "$pid"
	wait_until 3 meth_gone memory meth_roe1 || fail "$MH:/meth_roe1 still there 3 s after its last task left"
	echo "  removed after $(($(now_ms) - t0)) ms"
	# Only the hierarchy that was marked.
	if multi_hierarchy; then expect_exists "$(sb_path pids)/meth_roe1"; fi
	cgm_root remove all meth_roe1
}

# v1 has no notification of emptiness: marks are checked once a second, and a mark counts only once its cgroup
# has held a task. A task the daemon moves in counts at once, so one that leaves within the second (a short
# login session) still gets its cgroup removed; it stayed for good before.
test_cgm_removeonempty_v1_task_moved_in_and_gone_within_a_second() {
	has_hierarchy pids || skip "no v1 pids hierarchy"
	local pid
	cgm_root create pids meth_roe5/kid
	cgm_root removeonempty pids meth_roe5
	pid=$(spawn_sleeper 0 "")
	cgm_root movepid pids meth_roe5/kid "$pid"
	end_pids "$pid"
	wait_until 3 meth_gone pids meth_roe5 || fail "pids:/meth_roe5 still there 3 s after its only task left"
	[ -e "$(sb_path pids)/meth_roe5" ] && cgm_root remove pids meth_roe5 1
	return 0
}

test_cgm_removeonempty_unified() {
	local pid d t0
	d=$(sb_path unified)
	cgm_root create all meth_roe2/kid
	pid=$(spawn_sleeper 0 meth_roe2/kid)
	cgm_root removeonempty unified meth_roe2
	cgm_root removeonempty unified meth_roe2/kid
	expect_exists "$d/meth_roe2/kid"
	t0=$(now_ms)
	end_pids "$pid"
	wait_until 3 meth_gone unified meth_roe2 || fail "unified:/meth_roe2 still there 3 s after its last task left"
	echo "  removed after $(($(now_ms) - t0)) ms"
	if multi_hierarchy; then expect_exists "$(sb_path memory)/meth_roe2/kid"; fi
	cgm_root remove all meth_roe2
}

test_cgm_removeonempty_all_and_refusals() {
	local pid h
	cgm_root create all meth_roe3
	pid=$(spawn_sleeper 0 meth_roe3)
	cgm_root removeonempty all meth_roe3
	end_pids "$pid"
	for h in $(sb_hierarchies); do
		wait_until 3 meth_gone "$h" meth_roe3 || fail "$h:/meth_roe3 still there 3 s after its last task left"
	done
	expect_refused "FileNotFound" cgm_root removeonempty memory meth_roe3
	expect_refused "cannot be removed" cgm_root removeonempty memory ''
	cgm_root create memory meth_roe4
	expect_refused "AccessDenied" cgm_as "$TEST_UID" "" removeonempty memory meth_roe4
	cgm_root remove memory meth_roe4
}

test_cgm_prune_removes_empty_keeps_populated() {
	local pid h d
	cgm_root create all meth_pr/e1
	cgm_root create all meth_pr/e2/e3
	cgm_root create all meth_pr/full/empty_kid
	pid=$(spawn_sleeper 0 meth_pr/full)
	cgm_root prune memory meth_pr
	d=$(sb_path memory)/meth_pr
	expect_missing "$d/e1"
	expect_missing "$d/e2"
	expect_missing "$d/full/empty_kid"
	expect_exists "$d/full"
	expect_in_cgroup "$pid" memory meth_pr/full
	# Other hierarchies untouched.
	if multi_hierarchy; then expect_exists "$(sb_path pids)/meth_pr/e2/e3"; fi
	# Prune of all, from inside: one's own cgroup stays, its empty children go.
	run_as 0 meth_pr "$CGM" --socket "$SOCK" prune all
	for h in $(sb_hierarchies); do
		d=$(sb_path "$h")/meth_pr
		expect_exists "$d/full"
		expect_missing "$d/e1"
		expect_missing "$d/e2"
	done
	# What was kept for its tasks goes once they leave.
	end_pids "$pid"
	wait_until 3 meth_gone memory meth_pr/full || fail "$MH:/meth_pr/full not removed after its task left"
	cgm_root remove all meth_pr
	# Prune of an empty tree removes it; of a missing one is refused.
	cgm_root create memory meth_pr2/a/b
	cgm_root prune memory meth_pr2
	expect_missing "$(sb_path memory)/meth_pr2"
	expect_refused "FileNotFound" cgm_root prune memory meth_pr2
}

test_cgm_listcontrollers_every_hierarchy() {
	local out h
	out=$(cgm_root listcontrollers)
	for h in $(sb_hierarchies | grep -vx unified); do
		echo "$out" | grep -qx "$h" || fail "listcontrollers lacks $h: $(echo "$out" | tr '\n' ' ')"
	done
	# cgroup2 has no name a 0.42 client finds in /proc/self/cgroup (t_compat042.sh): not listed as unified.
	if echo "$out" | grep -qx unified; then fail "listcontrollers lists unified"; fi
	if pure_v2; then
		# cgroup2 by each controller it offers, the names 0.42 clients use.
		expect_eq "$(echo "$out" | wc -l)" "$(wc -w <"$(sb_path unified)/cgroup.controllers")" "names"
	else
		echo "$out" | grep -qx name=systemd || fail "listcontrollers lacks name=systemd"
		expect_eq "$(echo "$out" | wc -l)" "$(sb_hierarchies | grep -vcx unified)" "number of v1 hierarchies"
	fi
	expect_eq "$(echo "$out" | sort | uniq -d)" "" "duplicate hierarchies"
	expect_eq "$(cgm_as "$TEST_UID" "" listcontrollers)" "$out" "listcontrollers as a user"
}

test_cgm_listkeys_name_uid_gid_mode() {
	local d out line name uid gid mode st n
	cgm_root create all meth_lk
	cgm_root create memory meth_lk/kid
	cgm_root chown memory meth_lk "$TEST_UID" "$TEST_UID2"
	d=$(sb_path memory)/meth_lk
	out=$(cgm_root listkeys memory meth_lk)
	[ -n "$out" ] || fail "listkeys printed nothing"
	n=0
	while read -r line; do
		[[ $line =~ ^([^\ ]+)\ ([0-9]+)\ ([0-9]+)\ ([0-7]+)$ ]] || fail "listkeys line '$line' is not 'name uid gid mode'"
		name=${BASH_REMATCH[1]} uid=${BASH_REMATCH[2]} gid=${BASH_REMATCH[3]} mode=${BASH_REMATCH[4]}
		[ -f "$d/$name" ] || fail "listkeys lists '$name', which is not a file of $d"
		st=$(stat -c '%u %g %f' "$d/$name")
		expect_eq "$uid $gid $mode" "${st% *} $(printf %o "0x${st##* }")" "listkeys of $name"
		n=$((n + 1))
	done <<<"$out"
	expect_eq "$n" "$(find "$d" -maxdepth 1 -type f | wc -l)" "number of keys"
	echo "$out" | grep -qx "$MLIM 0 0 100644" || fail "no root-owned $MLIM 100644 line"
	echo "$out" | grep -qx "cgroup.procs $TEST_UID $TEST_UID2 100644" || fail "cgroup.procs not listed as chowned"
	if echo "$out" | grep -q "^kid "; then fail "listkeys lists the child cgroup kid"; fi
	# With no cgroup, from inside; and as a user.
	expect_eq "$(run_as 0 meth_lk "$CGM" --socket "$SOCK" listkeys memory)" "$out" "listkeys with no cgroup"
	expect_eq "$(cgm_as "$TEST_UID" meth_lk listkeys memory)" "$out" "listkeys as the owner"
	if multi_hierarchy; then expect_refused "FileNotFound" cgm_root listkeys unified meth_lk/kid; fi
	cgm_root remove all meth_lk
}

test_cgm_user_workflow_in_a_delegated_cgroup() {
	local U=$TEST_UID pid d
	delegate meth_user "$U"
	d=$(sb_path pids)/meth_user
	cgm_as "$U" meth_user create all job/step
	cgm_as "$U" meth_user chmod all job 750
	expect_mode "$d/job" 750
	cgm_as "$U" meth_user chmodfile pids job pids.max 640
	expect_mode "$d/job/pids.max" 640
	cgm_as "$U" meth_user setvalue pids job pids.max 20
	expect_eq "$(cgm_as "$U" meth_user getvalue pids job pids.max)" 20 "pids.max set by the user"
	expect_eq "$(cgm_as "$U" meth_user listchildren pids job)" step "listchildren as the user"
	pid=$(spawn_sleeper "$U" meth_user)
	cgm_as "$U" meth_user movepid all job/step "$pid"
	expect_eq "$(cgm_as "$U" meth_user gettasks pids job/step)" "$pid" "gettasks as the user"
	expect_eq "$(cgm_as "$U" meth_user gettasksrecursive all job)" "$pid" "gettasksrecursive as the user"
	cgm_as "$U" meth_user gettasksrecursive all | grep -qx "$pid" || fail "gettasksrecursive with no cgroup lacks $pid"
	expect_eq "$(cgm_as "$U" meth_user getpidcgroup pids "$pid")" job/step "getpidcgroup as the user"
	cgm_as "$U" meth_user listkeys pids job | grep -qx "pids.max $U $U 100640" || fail "listkeys does not show pids.max"
	expect_refused "Error.Busy" cgm_as "$U" meth_user remove all job
	cgm_as "$U" meth_user removeonempty all job/step
	end_pids "$pid"
	wait_until 3 meth_gone pids meth_user/job/step || fail "$PH:/meth_user/job/step not removed on empty"
	cgm_as "$U" meth_user create all job/other
	cgm_as "$U" meth_user prune all job
	expect_missing "$d/job"
	expect_exists "$d"
	cgm_root remove all meth_user
}

test_cgm_help_and_usage() {
	local out v rc
	out=$("$CGM" help)
	for v in ping apiversion create chown chmod chmodfile remove getpidcgroup getpidcgroupabs movepid movepidabs \
		getvalue setvalue gettasks gettasksrecursive listchildren removeonempty prune listcontrollers listkeys; do
		echo "$out" | grep -qE "^  $v( |$)" || fail "cgm help does not list $v"
		"$CGM" help "$v" | grep -q "^Usage: cgm $v" || fail "cgm help $v prints no usage"
	done
	expect_eq "$("$CGM" help create | head -1)" "Usage: cgm create CONTROLLER CGROUP" "cgm help create"
	expect_eq "$("$CGM" --help | head -1)" "$(echo "$out" | head -1)" "cgm --help"
	expect_refused "unknown verb 'frobnicate'" "$CGM" --socket "$SOCK" frobnicate
	rc=0
	"$CGM" --socket "$SOCK" frobnicate 2>/dev/null || rc=$?
	expect_eq "$rc" 1 "exit status of an unknown verb"
	expect_refused "unknown verb" "$CGM" help frobnicate
	expect_refused "Usage:" "$CGM"
	expect_refused "unknown option" "$CGM" --bogus ping
	# Wrong numbers of arguments: usage and exit 1, without asking the daemon.
	expect_refused "Usage: cgm create CONTROLLER CGROUP" "$CGM" --socket "$SOCK" create memory
	expect_refused "Usage: cgm ping" "$CGM" --socket "$SOCK" ping extra
	expect_refused "Usage: cgm setvalue" "$CGM" --socket "$WORK/nosock" setvalue memory x y
}
