# Faults and load (tests/load/cgm-load.c): SIGKILLed clients, a million mixed requests, hostile clients.
# The heavy counts run in lane host only; other lanes run them scaled down (ASan is ~5x slower, the v2 VM
# ~10x), and loosen the RSS checks where the allocator is not glibc's own (ASan and valgrind keep freed
# memory).

load_run() {
	local out rc=0
	out=$(run_as 0 load "$BUILD/tests/cgm-load" --socket "$SOCK" --daemon-pid "$DAEMON_PID" --uid "$TEST_UID" "$@" 2>&1) ||
		rc=$?
	echo "$out" | sed 's/^/measured: /'
	[ $rc = 0 ] || fail "cgm-load $*: failed"
}

# Not in lane v2 (run.sh): its emulated cpus would measure the emulator.
load_setup() {
	[ -d "$(sb_path pids)/load" ] || delegate load "$TEST_UID" >/dev/null
}

load_slack() { if [ "$LANE" = host ]; then echo 2048; else echo 1000000; fi; }

test_load_kill_storm() {
	load_setup
	local n=1000
	[ "$LANE" = host ] || n=200
	load_run --rss-slack-kb "$(load_slack)" kill-storm --clients "$n" --parallel 32
}

test_load_mixed_requests() {
	load_setup
	local n=1000000
	[ "$LANE" = host ] || n=20000
	load_run --rss-slack-kb "$(load_slack)" mixed --clients 16 --requests "$n" --window 4
}

test_load_hostile_clients() {
	load_setup
	# Latency is judged where the daemon runs at native speed. Under ASan within x3 for the attacks that
	# cost the serving thread (ASan slows its calls alike), but not for the 4096-connect burst, whose cost
	# is the acceptor's (4096 accepts and up to 64 auth exchanges at ASan's speed) competing for this VM's
	# 2 cpus: it measured 3-5x with the code before and after the acceptor took over the auth exchange.
	# Under valgrind (which runs the daemon's threads serialised with its own work) it is only printed.
	# The bounds are checked in every lane.
	# Where it is judged against 1.2x, 9 rounds: a median of 5 rounds' p99 moves by 20% on this VM alone.
	# The 15 us: the serving thread still takes over each authenticated connection, a unit a Ping can land
	# behind; runs on this noisy VM scatter from -7% to +31% (TESTING.md).
	local ratio=1.2 rounds=9 only=${LOAD_HOSTILE_ONLY:-}
	case $LANE in host) ;; host-asan) ratio=3 rounds=5 ;; *) ratio=0 rounds=5 ;; esac
	if [ "$LANE" = host-asan ] && [ -z "$only" ]; then
		hostile_run 0 "$rounds" conns
		only=noauth,bigmsg,flood
	fi
	hostile_run "$ratio" "$rounds" "$only"
}

# hostile_run RATIO ROUNDS [KINDS]: cgm-load's hostile attacks (all, or KINDS), latency judged against RATIO
# (0: printed only).
hostile_run() {
	load_run --rss-slack-kb "$(load_slack)" --attacker-idle --isolate-cpus --p99-ratio "$1" --p99-slack-us 15 \
		--rounds "$2" --seconds "$(($2 * 6 / 10))" ${3:+--only "$3"} hostile
}

# Floods under quota (issue 13): one uid owns 10^4 cgroups (made by its own plain mkdir, behind the daemon's
# back, as cgroup v1 lets the owner of a delegated cgroup do), holds the 128 connections and 32 Scm exchanges
# its caps allow, and loops Creates there that its quota (the default --max-cgroups-per-uid, 1000) refuses;
# another client's Ping p99 is printed against the 20% target, which is missed (TESTING.md has the figures:
# a refused Create costs the serving thread about as much as the Ping it delays), and judged against 4x + 1 ms,
# which the daemon before the accounts' shares missed by a thousandfold. A daemon of its own, with the default
# quotas, so that its first count of the uid's cgroups (at the first refused Create) finds them all. Lanes
# host-asan and valgrind make 2000 (over the quota still) and print the latencies.
test_load_hostile_quota_flood() {
	local qh n=10000 ratio=4 slack=1000 rounds=9 qdir qlog=$WORK/qflood.log made
	# Under ASan a refused Create costs several times what it does in lane host (p99 270 -> 8,800 us in CI):
	# printed there, as under valgrind, and judged in lane host.
	case $LANE in host) ;; *) ratio=0 rounds=5 n=2000 ;; esac
	# A light hierarchy: name=systemd has no controller, pids a small one (memory v1's cgroups are heavy). On a
	# pure cgroup2 host its one hierarchy, in a cgroup that root made with plain mkdir and chowned: a delegated
	# one's cgroup.max.descendants (the quota, set at Chown) would stop the owner's mkdir at 1000.
	if pure_v2; then qh=unified; elif has_hierarchy name=systemd; then qh=name=systemd; else qh=pids; fi
	has_hierarchy "$qh" || pure_v2 || skip "no name=systemd or pids hierarchy here"
	load_setup
	SOCK=$WORK/qflood.sock
	daemon_spawn "$SOCK" "$qlog"
	DAEMON_PID=$SPAWNED_PID
	qdir=$(sb_path "$qh")/qflood
	# On every exit (the trap runs after this function's locals are gone: their values are put in now).
	# Each command may fail (what it removes may be gone already) without failing the test: errexit holds there too.
	trap "find $(printf %q "$qdir") -mindepth 1 -depth -type d -delete 2>/dev/null || true
		rmdir $(printf '%q %q' "$qdir" "$(sb_path "$qh")/load/quota-flood-x") 2>/dev/null || true
		! kill -0 $DAEMON_PID 2>/dev/null || stop_pid $DAEMON_PID 10 || true" EXIT
	wait_for_socket "$SOCK"
	if pure_v2; then
		mkdir "$qdir" && chown "$TEST_UID:$TEST_UID" "$qdir"
	else
		delegate qflood "$TEST_UID" "$qh" >/dev/null
	fi
	seq -f q%g 1 "$n" >"$WORK/qflood.names"
	local t0; t0=$(now_ms)
	run_as "$TEST_UID" load sh -c 'cd "$1" && xargs mkdir <"$2"' _ "$qdir" "$WORK/qflood.names"
	made=$(find "$qdir" -mindepth 1 -maxdepth 1 -type d -user "$TEST_UID" | wc -l)
	echo "measured: uid $TEST_UID made $made cgroups in $qh:/qflood with plain mkdir in $(($(now_ms) - t0)) ms"
	expect_eq "$made" "$n" "cgroups the attacker made"
	load_run --rss-slack-kb "$(load_slack)" --attacker-idle --isolate-cpus --p99-ratio "$ratio" --p99-slack-us "$slack" \
		--rounds "$rounds" --seconds "$((rounds * 6 / 10))" --only quota --quota-hierarchy "$qh" hostile
	# How often the daemon counted the uid's cgroups meanwhile (each a walk of all of them), and how long one took.
	echo "measured: the daemon counted the cgroups of $qh $(grep -c "quota: counted the owners of .* of $qh" "$qlog") times;" \
		"last: $(grep "quota: counted the owners of .* of $qh" "$qlog" | tail -1 | sed 's/.*quota: //')"
	expect_missing "$(sb_path "$qh")/load/quota-flood-x"
	t0=$(now_ms)
	find "$qdir" -mindepth 1 -depth -type d -delete
	echo "measured: the $n cgroups removed in $(($(now_ms) - t0)) ms"
	stop_pid "$DAEMON_PID" 10 || { tail -20 "$qlog"; fail "the quota daemon exited with status $?"; }
	# As run.sh reads the suite daemon's log (valgrind's note of an ioctl it has no model of left out).
	local unmodelled="== (Warning: noted but unhandled ioctl|   This could cause spurious value errors|   See README_MISSING_SYSCALL_OR_IOCTL)"
	if grep -vE "$unmodelled" "$qlog" | grep -E "runtime error|AddressSanitizer|LeakSanitizer|^==[0-9]+== "; then
		fail "a sanitizer or valgrind reported the above"
	fi
}
