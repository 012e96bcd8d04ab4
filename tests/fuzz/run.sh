#!/usr/bin/env bash
# run.sh SECONDS BUILDDIR: runs every fuzz target of BUILDDIR (configured with -Dfuzz=true, see TESTING.md)
# for SECONDS on a scratch copy of its seed corpus. Prints "PASS fuzz: T (N execs)" or "FAIL fuzz: T" with
# the reproducer and the start of the sanitizer report; exits non-zero on any failure. Reproducers are kept
# in $FUZZ_CRASH_DIR (default /tmp/cgm-fuzz-crashes); the checked-in corpus is never written.
set -u
secs=${1:?usage: run.sh SECONDS BUILDDIR}
build=${2:?usage: run.sh SECONDS BUILDDIR}
here=$(cd "$(dirname "$0")" && pwd)
crashes=${FUZZ_CRASH_DIR:-/tmp/cgm-fuzz-crashes}
mkdir -p "$crashes"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

failed=0 ran=0
for exe in "$build"/tests/fuzz/fuzz-*; do
	[ -x "$exe" ] && [ -f "$exe" ] || continue
	t=${exe##*/fuzz-}
	ran=$((ran + 1))
	mkdir -p "$work/$t"
	[ -d "$here/corpus/$t" ] && cp -r "$here/corpus/$t/." "$work/$t/"
	log=$work/$t.log
	"$exe" -max_total_time="$secs" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$crashes/$t-" "$work/$t" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	if [ "$rc" -eq 0 ] && [ -n "$execs" ]; then
		echo "PASS fuzz: $t ($execs execs)"
	else
		failed=$((failed + 1))
		echo "FAIL fuzz: $t (exit $rc)"
		repro=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
		echo "    reproducer: ${repro:-none written}"
		[ -n "$repro" ] && echo "    rerun: $exe $repro"
		grep -m 12 -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|invariant failed|    #[0-9])' "$log" | sed 's/^/    /'
		[ -n "$(grep -cE 'ERROR|runtime error|invariant' "$log" | grep -v '^0$')" ] || tail -15 "$log" | sed 's/^/    /'
	fi
done
if [ "$ran" -eq 0 ]; then
	echo "FAIL fuzz: no fuzz targets in $build/tests/fuzz (configure with CC=clang -Dfuzz=true)"
	exit 1
fi
[ "$failed" -eq 0 ]
