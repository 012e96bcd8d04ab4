#!/usr/bin/env bash
# Runs every benchmark against daemons in a sandbox cgroup beneath this shell's own (the test suite's
# harness: tests/integration/lib.sh), and removes everything afterwards, on failure too.
#
#   BUILD=build bench/run.sh [--full] [--10k] [--iterations N] [--clients 1,4,16] [--repeat N]
#                            [--runs N] [--only startup,rss,cli,ops,scale,events,systemd1] [--which all|0|scm|1]
#
# Default (quick, a few minutes): 1000 iterations per row, 1, 4 and 16 clients, trees of 100 and 1000
# cgroups, 50 start-ups. --full: 5000 iterations, 200 start-ups, and the 10000-cgroup tree; --10k adds
# that tree to the quick run. The daemon runs with a soft RLIMIT_NOFILE of 1024 (a common default),
# which it raises itself to its hard limit. --repeat N runs the operation tables N times and then
# prints the median of each row (bench/medians.py).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${BUILD:-$here/../build}" && pwd)
iterations=1000 clients=1,4,16 sizes=100,1000 runs=50 only=startup,rss,cli,ops,scale,events,systemd1 repeat=1 which=all
while [ $# -gt 0 ]; do
	case $1 in
	--full) iterations=5000 sizes=100,1000,10000 runs=200 ;;
	--10k) sizes=100,1000,10000 ;;
	--iterations) iterations=$2; shift ;;
	--clients) clients=$2; shift ;;
	--only) only=$2; shift ;;
	--repeat) repeat=$2; shift ;;
	--runs) runs=$2; shift ;;
	--which) which=$2; shift ;;
	[0-9]*) iterations=$1 ;;
	*) echo "usage: BUILD=build bench/run.sh [--full] [--10k] [--iterations N] [--clients LIST] [--repeat N] [--runs N] [--only LIST] [--which all|0|scm|1]" >&2; exit 2 ;;
	esac
	shift
done
want() { [[ ,$only, == *,$1,* ]]; }
failed=

. "$here/../tests/integration/lib.sh"
trap 'daemon_stop; sandbox_destroy' EXIT
sandbox_create
hier=()
for e in "${SB_DIRS[@]}"; do hier+=(--hier "${e%%|*}=${e#*|}"); done
BENCH=$BUILD/bench/cgm-bench

echo "# cgm-bench $(date -u +%Y-%m-%dT%H:%MZ)"
echo
opts=$BUILD/meson-info/intro-buildoptions.json
opt() { grep -o "\"name\": \"$1\", \"value\": [^,]*" "$opts" 2>/dev/null | sed 's/.*: //; s/"//g'; }
echo "machine: $(nproc) cpus ($(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)), kernel $(uname -r)," \
	"load $(cut -d' ' -f1-3 /proc/loadavg); build: $(opt buildtype) -O$(opt optimization)," \
	"cc: $(sed -n 's/^C compiler for the host machine: //p' "$BUILD/meson-logs/meson-log.txt" | head -1)"
echo "hierarchies: $(sb_hierarchies | tr '\n' ' ')"
echo

if want startup; then
	run_as 0 "" "$BENCH" startup --daemon "$CGMANAGER" --sockdir "$WORK" --runs "$runs" || failed="$failed startup"
	echo
fi
# 1000 clients connect at once (rss): above the default connection limit where the hard fd limit is
# under 22024 (21 fds per connection are counted) and the daemon may not raise it.
DAEMON_LOG_LEVEL=warn DAEMON_WRAPPER="prlimit --nofile=1024:$(ulimit -Hn) --" daemon_start --max-connections 1100
if want rss; then
	run_as 0 "" "$BENCH" rss --socket "$SOCK" --daemon-pid "$DAEMON_PID" --conns 1000 || failed="$failed rss"
	echo
	echo "heap of one connection's sd-bus set-up, part by part (bench/busmem.c):"
	echo
	"$BUILD/bench/bench-busmem" || failed="$failed busmem"
	echo
fi
if want ops; then
	for r in $(seq "$repeat"); do
		[ "$repeat" = 1 ] || echo "## run $r of $repeat"
		{ run_as 0 "" "$BENCH" ops --socket "$SOCK" "${hier[@]}" --iterations "$iterations" --clients "$clients" --which "$which" ||
			echo "ops run $r: some calls failed (the rows say ERRORS)" >&2; } | tee -a "$WORK/ops.md"
		echo
	done
	[ "$repeat" = 1 ] || { echo "## medians of $repeat runs"; python3 "$here/medians.py" "$WORK/ops.md"; echo; }
fi
if want cli; then
	run_as 0 "" "$BENCH" cli --socket "$SOCK" --cgm "$CGM" --noop "$BUILD/bench/cgm-noop" --runs "$runs" || failed="$failed cli"
	echo
fi
if want scale; then
	run_as 0 "" "$BENCH" scale --socket "$SOCK" "${hier[@]}" --sizes "$sizes" || failed="$failed scale"
fi
if want events; then
	echo
	run_as 0 "" "$BENCH" events --socket "$SOCK" "${hier[@]}" --iterations "$((iterations < 1000 ? iterations : 1000))" ||
		failed="$failed events"
fi
# p50_ms CMD...: runs CMD $runs times (as root from the sandbox root) and prints the median wall time in ms.
p50_ms() {
	local i t0 ts=()
	for i in $(seq "$runs"); do
		t0=$(date +%s%N)
		run_as 0 "" "$@" >/dev/null 2>&1 || return 1
		ts+=($(( $(date +%s%N) - t0 )))
	done
	printf '%s\n' "${ts[@]}" | sort -n | awk '{ v[NR] = $1 } END { printf "%.1f", v[int((NR + 1) / 2)] / 1e6 }'
}
if want systemd1; then
	# A private dbus-daemon and a daemon serving systemd1 on it, as t_systemd1 makes them.
	sd1=$WORK/systemd1 bus=unix:path=$WORK/systemd1/bus.sock
	mkdir -p "$sd1"
	sed "s|@SOCKET@|$sd1/bus.sock|" "$here/../tests/integration/systemd1/bus.conf.in" >"$sd1/bus.conf"
	bus_pid=$(spawn_as 0 "" dbus-daemon --nofork --nopidfile --config-file="$sd1/bus.conf")
	for _ in $(seq 100); do [ -S "$sd1/bus.sock" ] && break; sleep 0.05; done
	DAEMON_LOG_LEVEL=warn daemon_spawn "$sd1/cgm.sock" "$sd1/daemon.log" --systemd1="$bus"
	sd1_pid=$SPAWNED_PID
	for _ in $(seq 100); do
		busctl --address="$bus" call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus NameHasOwner s \
			org.freedesktop.systemd1 2>/dev/null | grep -q true && break
		sleep 0.05
	done
	echo "systemd1 interface: one client on a private dbus-daemon (bench/systemd1.c), $iterations iterations"
	echo
	run_as 0 "" "$BUILD/bench/cgm-bench-systemd1" --bus "$bus" --iterations "$iterations" || failed="$failed systemd1"
	echo
	# Whole processes, in a mount namespace whose /run/systemd/system says "systemd" (t_systemd1's ns.sh).
	ns=(env DBUS_SYSTEM_BUS_ADDRESS="$bus" unshare -m --propagation private "$here/../tests/integration/systemd1/ns.sh")
	whole=$(p50_ms "${ns[@]}" systemd-run --scope --quiet true) || failed="$failed systemd-run"
	start=$(p50_ms "${ns[@]}" systemd-run --version) || failed="$failed systemd-run-version"
	echo "| whole process (ms, p50 of $runs) | p50 |"
	echo "|---|---|"
	echo "| systemd-run --scope true | $whole |"
	echo "| floor: the same process start, systemd-run --version | $start |"
	echo
	stop_pid "$sd1_pid" 10 || failed="$failed systemd1-daemon-exit"
	stop_pid "$bus_pid" 10 || true
fi
[ -z "$failed" ] || { echo "failed:$failed" >&2; exit 1; }
