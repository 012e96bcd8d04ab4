#!/usr/bin/env bash
# Runs cgm-bench against a daemon in a sandbox cgroup beneath this shell's own (the test suite's
# harness), with 1 and 4 clients, and removes everything afterwards.
#   BUILD=build bench/run.sh [ITERATIONS]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${BUILD:-$here/../build}" && pwd)
. "$here/../tests/integration/lib.sh"
trap 'daemon_stop; sandbox_destroy' EXIT
sandbox_create
DAEMON_LOG_LEVEL=warn daemon_start
echo "machine: $(nproc) cpus, $(uname -r), $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
for c in 1 4; do
	run_as 0 "" "$BUILD/bench/cgm-bench" --socket "$SOCK" --memdir "$(sb_path memory)" --iterations "${1:-20000}" --clients "$c"
done
