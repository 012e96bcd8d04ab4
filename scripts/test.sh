#!/usr/bin/env bash
# The whole test suite, as README and CI run it (as root, on Debian):
# installs dependencies, builds with gcc, with clang, and with ASan+UBSan,
# then runs the unit tests and the integration suite against the plain and
# the sanitizer build on this host, and the integration suite once more in a
# pure cgroup v2 VM (lane v2). Ends with "N passed, N failed[, N skipped]".
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
# Lane v2: the integration suite once more, on a pure cgroup v2 kernel (cgroup_no_v1=all) in a throw-away
# QEMU VM that shares this machine's / read-only, so the plain build runs there unchanged.
v2vm=${V2VM_SCRIPT:-}
for c in "$top/../shared/v2vm/run-in-v2vm.sh" /work/shared/v2vm/run-in-v2vm.sh; do
	[ -z "$v2vm" ] && [ -x "$c" ] && v2vm=$c
done
if [ -z "$v2vm" ]; then
	failed=$((failed + 1)); echo "FAIL v2: the lane cannot start: no run-in-v2vm.sh (set V2VM_SCRIPT)"
else
	"$v2vm" -t 1500 -- "$top/tests/v2/in-vm.sh" "$top/build" >"$tmp/v2.log" 2>&1
	grep -E '^(FAIL|    )' "$tmp/v2.log" || true
	grep -c '^PASS ' "$tmp/v2.log" | xargs printf "%s integration cases passed in lane v2\n"
	count "$tmp/v2.log"
	grep -q '^PASS' "$tmp/v2.log" || { failed=$((failed + 1)); echo "FAIL v2: the lane ran nothing"; tail -20 "$tmp/v2.log"; }
fi
if [ "$skipped" -gt 0 ]; then echo "$passed passed, $failed failed, $skipped skipped"; else echo "$passed passed, $failed failed"; fi
[ "$failed" = 0 ]
