# Scm clients that misbehave: one goes silent, one forges credentials. Neither delays anyone else.

# scm_raw UID MODE: the suite's C Scm client (tests/helpers/scm_client.c) misbehaving as UID.
#   MODE silent: never answers the kick; forge-requester: claims pid 1 / uid 0 as the requester;
#   forge-victim: honest requester, but claims the daemon's pid (another uid's task) as the victim.
scm_raw() {
	local client=$BUILD/tests/scm-client
	case $2 in
	silent) run_as "$1" "" "$client" "$SOCK" CreateScm memory hostile_silent --no-cred ;;
	forge-requester) run_as "$1" "" "$client" "$SOCK" CreateScm memory hostile_forged --as 1:0:0 ;;
	forge-victim) run_as "$1" "" "$client" "$SOCK" MovePidScm memory "" --second "$DAEMON_PID" ;;
	esac
}

# ping_ms: how long one Ping from another client takes, in milliseconds.
ping_ms() {
	local t0 t1
	t0=$(date +%s%N)
	cgm_root ping
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}

test_scm_silent_client_times_out_and_delays_nobody() {
	local out ms base
	# A Ping's cost here (a process start and a round trip; seconds under emulation, as in the v2 VM) first.
	base=$(ping_ms)
	scm_raw "$TEST_UID" silent >"$WORK/silent.out" 2>&1 &
	local pid=$!
	sleep 1
	ms=$(ping_ms)
	[ "$ms" -lt $((300 + 2 * base)) ] ||
		fail "a Ping took $ms ms while a client sat silent in an Scm exchange (without it: $base ms)"
	wait "$pid" || fail "the silent client failed: $(cat "$WORK/silent.out")"
	grep -q "^nothing after 7 s" "$WORK/silent.out" || fail "silent client got: $(cat "$WORK/silent.out")"
	grep -q "CreateScm from pid .*: no credentials in time; dropped" "$WORK/daemon.log" || fail "the daemon did not drop it"
	expect_missing "$(sb_path memory)/hostile_silent"
}

test_scm_forged_requester_refused_by_kernel() {
	local out
	out=$(scm_raw "$TEST_UID" forge-requester) && fail "a forged requester was sent: $out"
	echo "$out" | grep -q "kernel refused: Operation not permitted" || fail "a forged requester was sent: $out"
	expect_missing "$(sb_path memory)/hostile_forged"
	expect_ok cgm_root ping
}

test_scm_forged_victim_refused_by_kernel() {
	local out
	out=$(scm_raw "$TEST_UID" forge-victim) && fail "a forged victim was sent: $out"
	# The honest requester credential went; the kernel refused the victim's.
	expect_eq "$out" "kernel refused: Operation not permitted" "the forged victim credential"
	grep -qx "$DAEMON_PID" "$(sb_path memory)/.cgmanager/cgroup.procs" || fail "the daemon was moved"
	expect_ok cgm_root ping
}

# The cap on Scm exchanges under way is per account: all users of one container (a user namespace that root
# made: one account, as for the connection caps) share 32. 33 of them each start one and go silent.
test_scm_exchanges_capped_per_account_not_per_uid() {
	local out n
	out=$(run_as 0 "" "$BUILD/tests/nsexec" --map "0 100000 65536" -- sh -c "
		for u in \$(seq 1 33); do
			setpriv --reuid=\$u --regid=\$u --clear-groups '$BUILD/tests/scm-client' '$SOCK' CreateScm memory capped_\$u --no-cred &
		done
		wait" 2>&1)
	n=$(grep -c "^dbus-error org.freedesktop.DBus.Error.LimitsExceeded: 32 Scm exchanges are under way" <<<"$out") || true
	echo "measured: $n of 33 refused; $(grep -c "^nothing after" <<<"$out") went silent"
	expect_eq "$n" 1 "exchanges refused to the 33 users of one container"
	expect_eq "$(grep -c "^nothing after" <<<"$out")" 32 "silent exchanges admitted: $(sort <<<"$out" | uniq -c)"
	expect_ok cgm_root ping
}

# --- Credentials the kernel vouched for, but for another sender than the caller ---
#
# SCM_CREDENTIALS proves who *sent* a datagram, not who passed the socket. The daemon sends on every Scm
# socket too, as root: its kicks and answers carry its own credentials (SO_PASSCRED attaches the sender's
# when none is given), and GetTasksScm's answers carry each task's pid with uid 0. A caller who wires a socket
# so that the daemon reads what it wrote itself must not borrow root's credentials.

# scm_wired UID REL MODE METHOD ARGS...: the suite's Scm client as UID in sandbox cgroup REL, its socket wired
# as MODE (--self-connected, --crosswire, --replay-tasks CGROUP): it sends no credential of its own.
scm_wired() {
	local uid=$1 rel=$2
	shift 2
	run_as "$uid" "$rel" "$BUILD/tests/scm-client" "$SOCK" "$@"
}

# scm_vouch_refusal WHICH UID GID PEER_UID: the reason the daemon gives for a credential the caller could not send.
scm_vouch_refusal() {
	echo "error org.freedesktop.DBus.Error.AccessDenied: refused the $1 credential (uid $2, gid $3): you (uid $4) could not have sent it"
}

# The daemon's kick comes back to a socket connected to itself: read as a credential, it is the daemon's own
# (host root). From the sandbox root (an ancestor of the daemon's own cgroup) root could create beneath it.
test_scm_self_connected_socket_lends_no_root() {
	local out d; d=$(sb_path memory)
	out=$(scm_wired "$TEST_UID" "" CreateScm memory scm_selfwired --self-connected 2>&1) || true
	expect_missing "$d/scm_selfwired"
	expect_missing "$d/.cgmanager/scm_selfwired"
	expect_eq "$out" "0
$(scm_vouch_refusal requester\'s 0 0 "$TEST_UID")" "the answer to a self-connected socket"
	expect_ok cgm_root ping
}

# Two exchanges on the two ends of one socketpair: each reads the other's kick (root's credentials).
test_scm_crosswired_exchanges_lend_no_root() {
	local out d; d=$(sb_path memory)
	out=$(scm_wired "$TEST_UID" "" CreateScm memory scm_crosswired --crosswire 2>&1) || true
	expect_missing "$d/scm_crosswired"
	expect_missing "$d/.cgmanager/scm_crosswired"
	expect_eq "$out" "0
$(scm_vouch_refusal requester\'s 0 0 "$TEST_UID")" "the answer to crosswired exchanges"
	grep -q "ListChildrenScm for pid .*: refused the requester's credential" "$WORK/daemon.log" ||
		fail "the ListChildrenScm exchange took the other's kick: $(grep ListChildrenScm "$WORK/daemon.log" | tail -2)"
	expect_ok cgm_root ping
}

# GetTasksScm's answers name each task with uid 0; left on the socket and passed to the next call, they would
# make a user host root in its own cgroup: it raises the memory limit root set on it. From a delegated cgroup,
# so this needs no particular place.
test_scm_replayed_task_answers_make_no_root() {
	local out d; d=$(sb_path memory)/scm_rp
	delegate scm_rp "$TEST_UID"
	cgm_root setvalue memory scm_rp "$MLIM" 64M >/dev/null
	spawn_sleeper "$TEST_UID" scm_rp >/dev/null
	out=$(scm_wired "$TEST_UID" scm_rp SetValueScm memory "" "$MLIM" 1G --replay-tasks "" 2>&1) || true
	expect_eq "$(cat "$d/$MLIM")" 67108864 "the limit root set on the user's cgroup"
	expect_eq "$(sed 1d <<<"$out")" "0
$(scm_vouch_refusal requester\'s 0 0 "$TEST_UID")" "the answer to replayed task credentials"
	# The victim's credential the same way: MovePidScm of root's task (pid 0's uids) in the user's cgroup.
	local rootpid; rootpid=$(spawn_sleeper 0 scm_rp)
	cgm_root create all scm_rp/sub >/dev/null
	out=$(scm_wired "$TEST_UID" scm_rp MovePidScm memory sub --replay-tasks "" 2>&1) || true
	expect_in_cgroup "$rootpid" memory scm_rp
	expect_eq "$(sed 1d <<<"$out")" "0
$(scm_vouch_refusal requester\'s 0 0 "$TEST_UID")" "the answer to replayed task credentials (MovePidScm)"
	expect_eq "$(cat "$d/sub/cgroup.procs")" "" "tasks in scm_rp/sub"
}
