#!/usr/bin/env bash
# The whole test suite, as README and CI run it (as root, on Debian): installs dependencies, builds with
# gcc, with clang and ASan+UBSan, and with clang for fuzzing (-Werror in all three), then runs the unit
# tests, the integration suite against the plain build (lane host), the sanitizer build (host-asan) and the
# daemon under valgrind memcheck (valgrind), a short pass of every fuzz target, and the integration suite
# once more in a pure cgroup v2 VM (lane v2). Three streams run side by side, each on its own sandbox and
# socket: the v2 VM from the start (the longest), host then host-asan, and valgrind then fuzz. Ends with
# "N passed, N failed[, N skipped]".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/install-deps.sh || { echo "0 passed, 1 failed"; exit 1; }
FUZZ_SECONDS=${FUZZ_SECONDS:-5}

passed=0 failed=0 skipped=0
count() { # count LOGFILE: adds its PASS/FAIL/SKIP lines to the totals
	local p f s
	p=$(grep -c '^PASS ' "$1")
	f=$(grep -c '^FAIL ' "$1")
	s=$(grep -c '^SKIP ' "$1")
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}
step() { # step NAME CMD...: a build step counts as one case
	local t0=$SECONDS
	if "${@:2}" >"$tmp/step.log" 2>&1; then
		passed=$((passed + 1)); echo "PASS build: $1 ($((SECONDS - t0)) s)"
	else
		failed=$((failed + 1)); echo "FAIL build: $1"; sed 's/^/    /' "$tmp/step.log" | tail -40
		return 1
	fi
}

lane_report() { # lane_report NAME LOGFILE [SECONDS]: prints the lane's failures and count, adds it to the totals
	grep -E '^(FAIL|    )' "$2" || true
	echo "$(grep -c '^PASS ' "$2") cases passed in lane $1 ($(grep -c '^SKIP ' "$2") skipped)${3:+ in $3 s}"
	count "$2"
	grep -q '^PASS' "$2" || { failed=$((failed + 1)); echo "FAIL $1: the lane ran nothing"; tail -20 "$2"; return; }
	# An integration lane ends with run.sh's count; without it the lane was cut short (the v2 VM's timeout).
	if [ "$1" != fuzz ] && ! grep -qE '^[0-9]+ passed, [0-9]+ failed' "$2"; then
		failed=$((failed + 1)); echo "FAIL $1: the lane did not finish"; tail -5 "$2"
	fi
}
tmp=$(mktemp -d)
v2pid= stream2=
trap '[ -n "$v2pid" ] && kill "$v2pid" 2>/dev/null; [ -n "$stream2" ] && kill "$stream2" 2>/dev/null; rm -rf "$tmp"' EXIT

step gcc scripts/build.sh build
# The layers' order is checked by the link of tests/layers/ (in every build); circular includes here.
step include-cycles python3 scripts/include_cycles.py src

# Lane v2: the integration suite on a pure cgroup v2 kernel (cgroup_no_v1=all) in a throw-away QEMU VM that
# shares this machine's / read-only, so the plain build runs there unchanged.
v2vm=${V2VM_SCRIPT:-}
for c in "$top/../shared/v2vm/run-in-v2vm.sh" /work/shared/v2vm/run-in-v2vm.sh; do
	[ -z "$v2vm" ] && [ -x "$c" ] && v2vm=$c
done
if [ -n "$v2vm" ] && [ -x build/cgmanager ]; then
	"$v2vm" -t 3000 -- "$top/tests/v2/in-vm.sh" "$top/build" >"$tmp/v2.log" 2>&1 &
	v2pid=$! v2t0=$SECONDS
	# The VM is the longest lane and its suite runs on one emulated cpu at a time; what follows runs
	# niced, in the cpu time the VM leaves, so that the two end at about the same time.
	renice -n 10 -p $$ >/dev/null
fi

# The sanitizer build is the clang build (a plain one would only repeat its compile and warnings).
step clang-asan-ubsan env CC=clang scripts/build.sh build-asan -Db_sanitize=address,undefined -Db_lundef=false
step fuzz env CC=clang scripts/build.sh build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
	-Dc_args=-fsanitize=fuzzer-no-link

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=23
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=24
for b in build build-asan; do
	lane=host; [ "$b" = build-asan ] && lane=host-asan
	for t in "$b"/tests/unit/test-*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		"$t" 2>&1 | sed "s/^\(PASS\|FAIL\) unit:/\1 $lane-unit:/" | tee "$tmp/unit.log" | grep -E '^(FAIL|    )' || true
		count "$tmp/unit.log"
	done
done
lane() { # lane NAME BUILD [DAEMON_WRAPPER]: runs an integration lane into $tmp/NAME.log, its time in NAME.time
	local t0=$SECONDS
	if [ -x "$2/cgmanager" ]; then
		DAEMON_WRAPPER=${3:-} LANE=$1 BUILD=$2 bash tests/integration/run.sh >"$tmp/$1.log" 2>&1
	else
		echo "FAIL $1: no daemon in $2" >"$tmp/$1.log"
	fi
	echo $((SECONDS - t0)) >"$tmp/$1.time"
}
fuzz_lane() {
	local t0=$SECONDS
	FUZZ_CRASH_DIR=$tmp/fuzz-crashes tests/fuzz/run.sh "$FUZZ_SECONDS" build-fuzz >"$tmp/fuzz.log" 2>&1
	echo $((SECONDS - t0)) >"$tmp/fuzz.time"
}
# The daemon under memcheck: any error or definite/indirect leak is printed (-q prints nothing else) and makes
# its exit status 25, which daemon_clean_shutdown and daemon_sanitizer_clean report.
{
	lane valgrind build "valgrind -q --error-exitcode=25 --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect"
	[ -d build-fuzz/tests/fuzz ] && fuzz_lane
} &
stream2=$!
lane host build
lane host-asan build-asan
wait "$stream2"
stream2=
for l in host host-asan valgrind fuzz; do
	[ -f "$tmp/$l.log" ] && lane_report "$l" "$tmp/$l.log" "$(cat "$tmp/$l.time")"
done

if [ -z "$v2pid" ]; then
	failed=$((failed + 1)); echo "FAIL v2: the lane cannot start: no run-in-v2vm.sh (set V2VM_SCRIPT) or no build"
else
	wait "$v2pid"
	v2pid=
	lane_report v2 "$tmp/v2.log" $((SECONDS - v2t0))
fi
echo "the whole run took $SECONDS s"
if [ "$skipped" -gt 0 ]; then echo "$passed passed, $failed failed, $skipped skipped"; else echo "$passed passed, $failed failed"; fi
[ "$failed" = 0 ]
