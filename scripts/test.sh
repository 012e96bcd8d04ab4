#!/usr/bin/env bash
# The whole test suite, as README and CI run it (as root, on Debian):
# installs dependencies, builds with gcc, with clang, and with ASan+UBSan,
# then runs the unit tests and the integration suite against the plain and
# the sanitizer build. Ends with "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/install-deps.sh || { echo "0 passed, 1 failed"; exit 1; }

passed=0 failed=0 skipped=0
count() { # count LOGFILE: adds its PASS/FAIL/SKIP lines to the totals
	local p f s
	p=$(grep -c '^PASS ' "$1")
	f=$(grep -c '^FAIL ' "$1")
	s=$(grep -c '^SKIP ' "$1")
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}
step() { # step NAME CMD...: a build step counts as one case
	if "${@:2}" >"$tmp/step.log" 2>&1; then
		passed=$((passed + 1)); echo "PASS build: $1"
	else
		failed=$((failed + 1)); echo "FAIL build: $1"; sed 's/^/    /' "$tmp/step.log" | tail -40
		return 1
	fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

step gcc scripts/build.sh build
step clang env CC=clang scripts/build.sh build-clang
step asan-ubsan env CC=clang scripts/build.sh build-asan -Db_sanitize=address,undefined -Db_lundef=false

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=23
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=24
for b in build build-asan; do
	lane=host; [ "$b" = build-asan ] && lane=host-asan
	[ -x "$b/cgmanager" ] || continue
	for t in "$b"/tests/unit/test-*; do
		[ -x "$t" ] || continue
		"$t" 2>&1 | sed "s/^\(PASS\|FAIL\) unit:/\1 $lane-unit:/" | tee "$tmp/unit.log" | grep -E '^(FAIL|    )' || true
		count "$tmp/unit.log"
	done
	LANE=$lane BUILD=$b bash tests/integration/run.sh >"$tmp/int.log" 2>&1
	grep -E '^(FAIL|    )' "$tmp/int.log" || true
	grep -c '^PASS ' "$tmp/int.log" | xargs printf "%s integration cases passed in lane $lane\n"
	count "$tmp/int.log"
	grep -q '^PASS' "$tmp/int.log" || { failed=$((failed + 1)); echo "FAIL $lane: integration suite ran nothing"; tail -20 "$tmp/int.log"; }
done
if [ "$skipped" -gt 0 ]; then echo "$passed passed, $failed failed, $skipped skipped"; else echo "$passed passed, $failed failed"; fi
[ "$failed" = 0 ]
