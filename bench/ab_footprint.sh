#!/usr/bin/env bash
# The idle footprint of two builds of the daemon side by side (A/B in the same moment, so that the shares of
# the libraries, which depend on what else maps them, are alike):
#
#   BUILD=build bench/ab_footprint.sh OLD/cgmanager NEW/cgmanager [ROUNDS]
#
# Each round spawns both daemons in one sandbox (tests/integration/lib.sh), pings each, and prints the Rss, Pss
# and Anonymous KiB of their /proc/PID/smaps_rollup; then stops them. The load average goes with each line.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/integration/lib.sh"
trap 'sandbox_destroy' EXIT
sandbox_create
for r in $(seq "${3:-3}"); do
	pids=()
	for b in "$1" "$2"; do
		CGMANAGER=$b DAEMON_LOG_LEVEL=warn daemon_spawn "$WORK/ab-$r-${#pids[@]}.sock" "$WORK/ab.log"
		pids+=("$SPAWNED_PID")
	done
	for i in 0 1; do wait_until 5 "$CGM" --socket "$WORK/ab-$r-$i.sock" ping >/dev/null; done
	sleep 0.2
	for i in 0 1; do
		echo "round $r $([ $i = 0 ] && echo A || echo B) load $(cut -d' ' -f1 /proc/loadavg) $(awk '/^(Rss|Pss|Anonymous):/{printf "%s %s ", $1, $2}' /proc/${pids[$i]}/smaps_rollup)"
	done
	for p in "${pids[@]}"; do stop_pid "$p" 10; done
done
