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
	# Latency is judged where the daemon runs at native speed: under ASan within x3 (it slows every call
	# alike); under valgrind (which runs the daemon's threads serialised with its own work) it is only
	# printed, the bounds are checked all the same.
	# The 15 us: the 4096-connect burst's 64 authenticating connections each get their sd-bus on the serving
	# thread (one per turn, 20-40 us); in most runs within 1.2x, in some up to 1.3x (TESTING.md).
	local ratio=1.2
	case $LANE in host) ;; host-asan) ratio=3 ;; *) ratio=0 ;; esac
	load_run --rss-slack-kb "$(load_slack)" --attacker-idle --isolate-cpus --p99-ratio "$ratio" --p99-slack-us 15 \
		${LOAD_HOSTILE_ONLY:+--only "$LOAD_HOSTILE_ONLY"} hostile
}
