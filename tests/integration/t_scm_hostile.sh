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
