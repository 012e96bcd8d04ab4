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
