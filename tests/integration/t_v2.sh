# Pure cgroup v2 (the lane "v2": tests/v2/in-vm.sh in a cgroup_no_v1=all VM). Elsewhere these are skipped:
# run.sh runs test_v2_* only where the only hierarchy is cgroup2.

V2_USER=$((TEST_UID2 + 2))

test_v2_delegation_to_a_user_and_what_it_may_do_directly() {
	local d u=$V2_USER f
	d=$(sb_path unified)/v2_del
	cgm_root create all v2_del
	cgm_root setvalue unified v2_del memory.max 256M
	cgm_root chown all v2_del "$u" "$u"
	# The directory and what /sys/kernel/cgroup/delegate lists are handed over; the limits stay root's.
	expect_owner "$d" "$u" "$u"
	for f in $(cat /sys/kernel/cgroup/delegate); do [ -e "$d/$f" ] && { expect_owner "$d/$f" "$u" "$u" || return 1; }; done
	expect_owner "$d/memory.max" 0 0
	# Directly on cgroupfs, as the kernel allows a delegatee: children, their controllers and limits.
	run_as "$u" "" sh -c 'mkdir "$0/kid" && echo +memory >"$0/cgroup.subtree_control" && echo 32M >"$0/kid/memory.max"' "$d" ||
		fail "the delegatee could not set up its subtree directly"
	expect_eq "$(cat "$d/kid/memory.max")" 33554432 "kid's memory.max written by the delegatee"
	run_as "$u" "" sh -c 'echo 1G >"$0/memory.max"' "$d" 2>/dev/null && fail "the delegatee raised its own limit"
	# The same through the daemon.
	cgm_as "$u" "" create all v2_del/kid2
	cgm_as "$u" "" setvalue memory v2_del/kid2 memory.max 16M
	expect_eq "$(cat "$d/kid2/memory.max")" 16777216 "kid2's memory.max through the daemon"
	expect_refused "owned by uid 0" cgm_as "$u" "" setvalue memory v2_del memory.max 1G
	expect_eq "$(cat "$d/memory.max")" 268435456 "the delegated cgroup's own limit"
	cgm_root remove all v2_del
}

test_v2_controllers_enabled_top_down_and_tasks_kept_in_a_leaf() {
	local d pid
	d=$(sb_path unified)
	# "unified" hands over no controller (Create all would enable them all down to v2_td/a already).
	cgm_root create unified v2_td/a/b
	pid=$(spawn_sleeper 0 v2_td/a)
	# Setting a limit on v2_td/a/b enables memory from the daemon's root down to v2_td/a ...
	cgm_root setvalue memory v2_td/a/b memory.max 64M
	expect_eq "$(cat "$d/v2_td/a/b/memory.max")" 67108864 "memory.max"
	grep -qw memory "$d/cgroup.subtree_control" || fail "memory not enabled in the daemon's root"
	grep -qw memory "$d/v2_td/cgroup.subtree_control" || fail "memory not enabled in v2_td"
	grep -qw memory "$d/v2_td/a/cgroup.subtree_control" || fail "memory not enabled in v2_td/a"
	# ... whose task moved into its leaf, which every answer hides.
	grep -qx "$pid" "$d/v2_td/a/.leaf/cgroup.procs" || fail "the task of v2_td/a is not in its leaf"
	expect_eq "$(cgm_root getpidcgroup unified "$pid")" v2_td/a "the task's cgroup, as answered"
	expect_eq "$(cgm_root gettasks unified v2_td/a)" "$pid" "gettasks of v2_td/a"
	expect_eq "$(cgm_root listchildren unified v2_td/a)" b "children of v2_td/a"
	# Moving a task into a cgroup whose children have controllers puts it in the leaf as well.
	cgm_root movepid unified v2_td "$pid"
	grep -qx "$pid" "$d/v2_td/.leaf/cgroup.procs" || fail "a task moved into v2_td is not in its leaf"
	end_pids "$pid"
	wait_until 2 sh -c "[ -z \"\$(cat '$d/v2_td/.leaf/cgroup.procs')\" ]"
	cgm_root remove unified v2_td
	expect_missing "$d/v2_td"
}

test_v2_threaded_subtrees_refused_clearly() {
	local d
	d=$(sb_path unified)
	# Not "all", which enables every controller in v2_thr: the kernel then refuses to make a child threaded.
	cgm_root create unified v2_thr/t
	echo threaded >"$d/v2_thr/t/cgroup.type"
	cgm_root create all v2_thr/t/x
	expect_refused "threaded" cgm_root setvalue memory v2_thr/t/x memory.max 1M
	cgm_root remove all v2_thr
}

test_v2_cpus_number_throttles_a_busy_loop() {
	local pid n
	cgm_root new v2_cpu cpus_number=0.1
	expect_eq "$(cat "$(sb_path unified)/v2_cpu/cpu.max")" "10000 100000" "cpu.max"
	pid=$(spawn_as 0 v2_cpu sh -c 'while :; do :; done')
	sleep 1.5
	n=$(awk '$1 == "nr_throttled" {print $2}' "$(sb_path unified)/v2_cpu/cpu.stat")
	[ "${n:-0}" -gt 0 ] || fail "nr_throttled is '$n' after 1.5 s of a busy loop under cpus_number=0.1"
	end_pids "$pid"
	cgm_root delete -f v2_cpu
}

test_v2_blkio_throttle_write_slows_a_writer() {
	local img dev t0 t1 ms
	img=$WORK/v2.img
	truncate -s 64M "$img"
	dev=$(losetup -f --show "$img") || { fail "no loop device"; return 1; }
	cgm_root new v2_io blkio_throttle_write="$dev 1M"
	expect_eq "$(cgm_root get v2_io blkio_throttle_write)" "$(tr -d '\n' </sys/block/${dev#/dev/}/dev) 1048576" "blkio_throttle_write"
	t0=$(now_ms)
	run_as 0 v2_io dd if=/dev/zero of="$dev" bs=64k count=32 oflag=direct status=none
	t1=$(now_ms)
	ms=$((t1 - t0))
	losetup -d "$dev"
	[ "$ms" -ge 1500 ] || fail "2 MiB at 1 MiB/s took $ms ms"
	cgm_root delete v2_io
}

test_v2_listcontrollers_names_what_cgroup_controllers_offers() {
	local c
	for c in $(cat "$(sb_path unified)/cgroup.controllers"); do
		cgm_root listcontrollers | grep -qx "$c" || fail "listcontrollers lacks $c"
	done
	cgm_root create memory v2_lc
	expect_exists "$(sb_path unified)/v2_lc"
	cgm_root remove memory v2_lc
}

# The leaf stands for its cgroup and is handed over as the cgroup is (issue 13 review): when the owner's request
# enables a controller and the daemon moves the cgroup's tasks, root's among them, into the leaf, the leaf's
# cgroup.kill and cgroup.freeze stay root's as the cgroup's are, so the owner cannot kill or freeze root's task
# by writing them (they were the owner's before: every file of the leaf went to the owner).
test_v2_leaf_hands_over_no_power_over_roots_task() {
	local u=$TEST_UID d roots f
	d=$(sb_path unified)/v2_leaf
	delegate v2_leaf "$u"
	# The owner makes the leaf itself first, so that its files are the owner's (the attack on the first fix).
	run_as "$u" "" mkdir "$d/.leaf"
	roots=$(spawn_sleeper 0 v2_leaf)
	cgm_as "$u" v2_leaf new c >/dev/null
	cgm_as "$u" v2_leaf setvalue memory c memory.max 100000000
	grep -qx "$roots" "$d/.leaf/cgroup.procs" || fail "root's task did not go into v2_leaf's leaf"
	expect_owner "$d/.leaf/cgroup.procs" "$u" "$u"
	for f in cgroup.kill cgroup.freeze memory.max; do
		[ -e "$d/.leaf/$f" ] || continue
		expect_eq "$(stat -c %u "$d/.leaf/$f")" "$(stat -c %u "$d/$f")" "owner of .leaf/$f (as v2_leaf/$f)"
	done
	[ -e "$d/.leaf/cgroup.kill" ] && run_as "$u" "" sh -c "echo 1 >'$d/.leaf/cgroup.kill'" 2>/dev/null &&
		fail "the owner could write the leaf's cgroup.kill"
	run_as "$u" "" sh -c "echo 1 >'$d/.leaf/cgroup.freeze'" 2>/dev/null && fail "the owner could write the leaf's cgroup.freeze"
	alive_and_running "$roots" || fail "root's task in the leaf was killed or frozen"
	end_pids "$roots"
	cgm_root delete -f v2_leaf
}
alive_and_running() { ! pid_gone "$1" && grep -qE '^State:\s+[RS]' "/proc/$1/status"; }

# Delegation hands over controllers (issue 15): Create with controllers and Chown enable them in
# cgroup.subtree_control from the daemon's root down to the cgroup's parent, so that the cgroup has them and its
# owner can enable them for its own children. v2_deleg_* cgroups sit beneath a parent the daemon made, which enables
# nothing of its own: only what the request hands over is there.

# deleg_owner_uses_memory DIR UID: as UID, directly on cgroupfs, memory enabled for DIR's children and a child's limit.
deleg_owner_uses_memory() {
	run_as "$2" "" sh -c 'mkdir "$0/kid" && echo +memory >"$0/cgroup.subtree_control" && echo 32M >"$0/kid/memory.max"' "$1" ||
		fail "uid $2 could not enable memory in $1 for its own child"
	expect_eq "$(cat "$1/kid/memory.max")" 33554432 "the owner's child's memory.max"
}

# deleg_has DIR CTRL...: each CTRL is in DIR's cgroup.controllers.
deleg_has() {
	local d=$1 c have
	shift
	read -r have <"$d/cgroup.controllers" || have=
	for c in "$@"; do [[ " $have " == *" $c "* ]] || fail "$d has no $c (cgroup.controllers: '$have')" || return 1; done
}

test_v2_deleg_042_create_with_a_list_and_chown() {
	local d u=$V2_USER
	d=$(sb_path unified)/v2_dl
	cgm_root create memory,pids v2_dl/ctr
	deleg_has "$d/ctr" memory pids
	# Only what was named: cpu stays off on the way.
	grep -qw cpu "$d/cgroup.subtree_control" && fail "cpu enabled in v2_dl, which the list did not name"
	cgm_root chown memory,pids v2_dl/ctr "$u" "$u"
	expect_owner "$d/ctr/cgroup.subtree_control" "$u" "$u"
	deleg_owner_uses_memory "$d/ctr" "$u"
	cgm_root remove all v2_dl
}

test_v2_deleg_042_create_all_hands_over_every_controller() {
	local d u=$V2_USER
	d=$(sb_path unified)/v2_da
	cgm_root create all v2_da/ctr
	# shellcheck disable=SC2046
	deleg_has "$d/ctr" $(cat "$(sb_path unified)/cgroup.controllers")
	cgm_root chown all v2_da/ctr "$u" "$u"
	deleg_owner_uses_memory "$d/ctr" "$u"
	cgm_root remove all v2_da
}

# As the issue tried it: `cgm new ctr -c cpu,io,memory,pids`, then `cgm own`.
test_v2_deleg_key_api_new_with_controllers_then_own() {
	local d u=$V2_USER
	d=$(sb_path unified)/v2_dk
	cgm_root new v2_dk/ctr -c cpu,io,memory,pids
	deleg_has "$d/ctr" cpu io memory pids
	cgm_root own v2_dk/ctr "$u" "$u"
	deleg_owner_uses_memory "$d/ctr" "$u"
	# The owner's own children through the daemon as well, with the controllers it enabled.
	run_as "$u" "" sh -c 'echo +pids >"$0/cgroup.subtree_control"' "$d/ctr" || fail "the owner could not enable pids"
	cgm_as "$u" "" new v2_dk/ctr/kid2 memory.limit=16M pids.limit=20
	expect_eq "$(cat "$d/ctr/kid2/memory.max")" 16777216 "kid2's memory.max"
	expect_eq "$(cat "$d/ctr/kid2/pids.max")" 20 "kid2's pids.max"
	cgm_root delete -f v2_dk
}

# Chown alone hands over: of 0.42 the controllers named, of the key API (and `all`) every one.
test_v2_deleg_chown_hands_over_controllers() {
	local d u=$V2_USER
	d=$(sb_path unified)/v2_dc
	# "unified" names the hierarchy, not a controller: nothing is enabled by the Create.
	cgm_root create unified v2_dc/a
	cgm_root create unified v2_dc/b
	expect_eq "$(cat "$d/cgroup.subtree_control")" "" "v2_dc's cgroup.subtree_control after Create unified"
	cgm_root chown memory v2_dc/a "$u" "$u"
	deleg_has "$d/a" memory
	deleg_owner_uses_memory "$d/a" "$u"
	cgm_root own v2_dc/b "$u" "$u"
	# shellcheck disable=SC2046
	deleg_has "$d/b" $(cat "$(sb_path unified)/cgroup.controllers")
	cgm_root remove all v2_dc
}

# A user may have controllers enabled at and beneath its delegation point only, never above it unless there already.
test_v2_deleg_not_above_the_requesters_delegation_point() {
	local d u=$V2_USER
	d=$(sb_path unified)/v2_dr
	cgm_root create unified v2_dr/user
	cgm_root chown unified v2_dr/user "$u" "$u"
	expect_refused "memory must be enabled in unified:/v2_dr cgroup.subtree_control.*above what was delegated to you" \
		cgm_as "$u" v2_dr/user new kid -c memory
	expect_eq "$(cat "$d/cgroup.subtree_control")" "" "v2_dr's cgroup.subtree_control after the refusal"
	expect_missing "$d/user/kid"
	# "all" is every controller the user can have: here none, and the cgroup is made.
	cgm_as "$u" v2_dr/user create all kid
	expect_eq "$(cat "$d/cgroup.subtree_control")" "" "v2_dr's cgroup.subtree_control after the user's Create all"
	# Once memory is enabled above (by root), the user's Create enables it in its own delegation point.
	echo +memory >"$d/cgroup.subtree_control"
	cgm_as "$u" v2_dr/user new kid2 -c memory
	deleg_has "$d/user/kid2" memory
	grep -qw pids "$d/cgroup.subtree_control" && fail "pids enabled in v2_dr"
	cgm_root delete -f v2_dr
}

# From a user namespace (unshare -U -r as the owner: uid 0 there, mapping the owner's uid), a requester may not
# have a controller enabled above its own cgroup, even where the owner its namespace maps owns that cgroup: the
# kernel's boundary there is the namespace's own cgroup (nsdelegate). The same owner outside a namespace may.
test_v2_deleg_userns_not_above_its_own_cgroup() {
	local d u=$V2_USER
	d=$(sb_path unified)/v2_un
	cgm_root create unified v2_un/user
	cgm_root chown unified v2_un/user "$u" "$u"
	echo +memory >"$d/cgroup.subtree_control"
	cgm_as "$u" v2_un/user create unified box
	expect_refused "memory must be enabled in unified:/v2_un/user cgroup.subtree_control, above your own cgroup" \
		run_as "$u" v2_un/user/box unshare -U -r "$CGM" --socket "$SOCK" new kid -c memory
	grep -qw memory "$d/user/cgroup.subtree_control" && fail "memory enabled in v2_un/user from a user namespace"
	expect_missing "$d/user/box/kid"
	cgm_as "$u" v2_un/user/box new kid -c memory
	deleg_has "$d/user/box/kid" memory
	cgm_root delete -f v2_un
}

