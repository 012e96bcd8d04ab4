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
