# cgroup2 device programs (src/cgfs/devices_bpf.c) through tests/helpers/devbpf, in child cgroups of the
# sandbox's cgroup2 directory only. Every cgroup made here is removed when the test ends, also on failure.

DEVBPF=$BUILD/tests/devbpf

# _devbpf_mk REL: creates sandbox cgroup2 cgroup REL (parents too) and prints its path.
_devbpf_mk() {
	local root
	root=$(sb_path unified) || { fail "the sandbox has no cgroup2 directory"; return 1; }
	mkdir -p "$root/$1" && echo "$root/$1"
}

# _devbpf_rm REL: removes sandbox cgroup2 cgroup REL and all beneath it (their tasks were ours and have ended).
_devbpf_rm() {
	local root
	root=$(sb_path unified) || return 0
	[ -d "$root/$1" ] && find "$root/$1" -depth -type d -exec rmdir {} + 2>/dev/null
	return 0
}

# _devbpf_in DIR CMD...: runs CMD as a task of cgroup DIR, waits, returns its status.
_devbpf_in() {
	local d=$1
	shift
	sh -c 'echo $$ >"$1" || exit 99; shift; exec "$@"' sh "$(procs_file "$d")" "$@"
}

test_devices_bpf_deny_all_but_dev_null() {
	trap '_devbpf_rm devbpf1' EXIT
	local d; d=$(_devbpf_mk devbpf1)
	expect_ok "$DEVBPF" "$d" 'a *:* rwm deny' 'c 1:3 rwm allow'
	_devbpf_in "$d" sh -c 'echo x >/dev/null && head -c1 /dev/null' || fail "/dev/null is not usable in $d"
	expect_refused "/dev/zero.*Operation not permitted" _devbpf_in "$d" head -c1 /dev/zero
	expect_refused "/dev/full.*Operation not permitted" _devbpf_in "$d" sh -c 'echo x >/dev/full'
	# The sandbox itself, outside the restricted cgroup, is untouched.
	expect_eq "$(_devbpf_in "$(sb_path unified)" head -c1 /dev/zero | od -An -tx1 | tr -d ' ')" 00 "a byte of /dev/zero"
}

test_devices_bpf_reapply_replaces_the_program() {
	trap '_devbpf_rm devbpf2' EXIT
	local d; d=$(_devbpf_mk devbpf2)
	expect_ok "$DEVBPF" "$d" 'a *:* rwm deny' 'c 1:3 rwm allow'
	expect_eq "$("$DEVBPF" "$d" --count)" "1 0" "programs attached (ours, others)"
	expect_refused "Operation not permitted" _devbpf_in "$d" head -c1 /dev/zero
	expect_ok "$DEVBPF" "$d" 'a *:* rwm deny' 'c 1:3 rwm allow' 'c 1:5 r allow'
	expect_eq "$("$DEVBPF" "$d" --count)" "1 0" "programs attached after re-applying"
	# The new program decides: /dev/zero is readable now, but (allow needs all the access wanted) not writable.
	_devbpf_in "$d" head -c1 /dev/zero >/dev/null || fail "/dev/zero is not readable after 'c 1:5 r allow'"
	expect_refused "/dev/zero.*Operation not permitted" _devbpf_in "$d" sh -c 'echo x >/dev/zero'
	# No rules: our program is detached, everything is allowed again.
	expect_ok "$DEVBPF" "$d"
	expect_eq "$("$DEVBPF" "$d" --count)" "0 0" "programs attached after applying no rules"
	expect_eq "$("$DEVBPF" "$d" --list)" "" "stored rules after applying no rules"
	_devbpf_in "$d" sh -c 'echo x >/dev/zero' || fail "/dev/zero is not writable once the program is gone"
}

test_devices_bpf_list_shows_the_stored_rules() {
	trap '_devbpf_rm devbpf3' EXIT
	local d; d=$(_devbpf_mk devbpf3)
	expect_eq "$("$DEVBPF" "$d" --list)" "" "stored rules of a fresh cgroup"
	expect_ok "$DEVBPF" "$d" 'a *:* rwm deny' 'c 1:3 wr allow' 'b 8:*  m  deny' 'c *:* m allow'
	expect_eq "$("$DEVBPF" "$d" --list)" "$(printf '%s\n' 'a *:* rwm deny' 'c 1:3 rw allow' 'b 8:* m deny' \
		'c *:* m allow')" "stored rules"
	# A malformed rule changes nothing.
	expect_refused "malformed rule" "$DEVBPF" "$d" 'a *:* rwm deny' 'c 1:3 rwx allow'
	expect_refused "malformed rule" "$DEVBPF" "$d" 'c 4096:1 r allow'
	expect_eq "$("$DEVBPF" "$d" --list | wc -l)" 4 "stored rules after refusals"
	expect_eq "$("$DEVBPF" "$d" --count)" "1 0" "programs attached after refusals"
}

test_devices_bpf_grandchild_is_restricted_too() {
	trap '_devbpf_rm devbpf4' EXIT
	local d g; d=$(_devbpf_mk devbpf4); g=$(_devbpf_mk devbpf4/mid/leaf)
	expect_ok "$DEVBPF" "$d" 'a *:* rwm deny' 'c 1:3 rwm allow'
	_devbpf_in "$g" sh -c 'echo x >/dev/null' || fail "/dev/null is not usable in $g"
	expect_refused "/dev/zero.*Operation not permitted" _devbpf_in "$g" head -c1 /dev/zero
	# A program of the grandchild's own cannot allow what an ancestor's denies: every program must allow.
	expect_ok "$DEVBPF" "$g" 'c 1:5 rwm allow'
	expect_eq "$("$DEVBPF" "$g" --count)" "1 0" "programs attached to the grandchild"
	expect_refused "/dev/zero.*Operation not permitted" _devbpf_in "$g" head -c1 /dev/zero
	# ... but it can deny more.
	expect_ok "$DEVBPF" "$g" 'c 1:3 w deny'
	_devbpf_in "$g" head -c1 /dev/null || fail "/dev/null is not readable in $g"
	expect_refused "/dev/null.*Operation not permitted" _devbpf_in "$g" sh -c 'echo x >/dev/null'
	_devbpf_in "$d" sh -c 'echo x >/dev/null' || fail "the grandchild's rule restricted $d"
}

test_devices_bpf_programs_of_others_are_left_alone() {
	trap '_devbpf_rm devbpf5' EXIT
	local d; d=$(_devbpf_mk devbpf5)
	expect_ok "$DEVBPF" "$d" --foreign
	expect_ok "$DEVBPF" "$d" 'c 1:5 rwm deny'
	expect_eq "$("$DEVBPF" "$d" --count)" "1 1" "programs attached (ours, others)"
	expect_ok "$DEVBPF" "$d" 'c 1:5 w deny'
	expect_eq "$("$DEVBPF" "$d" --count)" "1 1" "programs attached after re-applying"
	_devbpf_in "$d" head -c1 /dev/zero >/dev/null || fail "/dev/zero is not readable after 'c 1:5 w deny'"
	expect_refused "/dev/zero.*Operation not permitted" _devbpf_in "$d" sh -c 'echo x >/dev/zero'
	expect_ok "$DEVBPF" "$d"
	expect_eq "$("$DEVBPF" "$d" --count)" "0 1" "programs attached after applying no rules"
}

# An ancestor's program attached with BPF_F_ALLOW_OVERRIDE would be replaced, for the subtree, by one
# attached beneath it: rules beneath it are refused, and the ancestor's program keeps deciding.
test_devices_bpf_override_program_of_an_ancestor_is_not_replaced() {
	trap '_devbpf_rm devbpf6' EXIT
	local d g; d=$(_devbpf_mk devbpf6); g=$(_devbpf_mk devbpf6/mid/leaf)
	expect_ok "$DEVBPF" "$d" --foreign-override
	expect_refused "devbpf6 has a device program attached without BPF_F_ALLOW_MULTI; one attached beneath it would replace it there" \
		"$DEVBPF" "$g" 'a *:* rwm allow'
	expect_eq "$("$DEVBPF" "$g" --count)" "0 0" "programs attached to the grandchild"
	expect_eq "$("$DEVBPF" "$g" --list)" "" "stored rules of the grandchild"
	expect_refused "/dev/zero.*Operation not permitted" _devbpf_in "$g" head -c1 /dev/zero
	# Emptying rules attaches nothing, so it is not refused.
	expect_ok "$DEVBPF" "$g"
}

# libbpf is loaded by the first call that needs a device program (src/cgfs/libbpf_lazy.h), not at start-up: a
# fresh daemon that has served a ping (and the calls that touch no cgroup2 device rule) does not map it.
test_devices_bpf_libbpf_is_not_mapped_by_an_idle_daemon() {
	local sock=$WORK/nobpf.sock pid
	daemon_spawn "$sock" "$WORK/nobpf.log"
	pid=$SPAWNED_PID
	trap 'stop_pid '"$pid"' 10' EXIT
	wait_until 5 "$CGM" --socket "$sock" ping || { fail "no daemon on $sock: $(cat "$WORK/nobpf.log")"; return 1; }
	"$CGM" --socket "$sock" listcontrollers >/dev/null || fail "listcontrollers failed"
	! grep -F libbpf "/proc/$pid/maps" || fail "the idle daemon maps libbpf"
}

# Where libbpf.so.1 cannot be loaded, a device rule on cgroup2 is refused with an error naming it (the daemon
# and devbpf start without it). The library is hidden by /dev/null bound over it in a mount namespace of
# devbpf's own.
test_devices_bpf_without_libbpf_the_rule_is_refused_naming_it() {
	local lib d
	lib=$(ldconfig -p | awk '$1 == "libbpf.so.1" { print $NF; exit }')
	[ -n "$lib" ] || skip "ldconfig knows no libbpf.so.1"
	trap '_devbpf_rm devbpf7' EXIT
	d=$(_devbpf_mk devbpf7)
	expect_refused "device rules on cgroup2 need libbpf.so.1 \(Debian: libbpf1\), which cannot be loaded" \
		unshare -m --propagation private sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' sh \
		"$(realpath "$lib")" "$DEVBPF" "$d" 'a *:* rwm deny'
	expect_eq "$("$DEVBPF" "$d" --count)" "0 0" "programs attached to $d"
	expect_eq "$("$DEVBPF" "$d" --list)" "" "stored rules of $d"
}
