# Watch/Unwatch and the Event signal (issue 17): cgm watch as the subscriber, real tasks and real limits as the
# events' cause, the kernel's cgroup files as the source. Each test ends its watchers by pid.

# watch_start OUT UID REL NAME [EVENT...]: `cgm --json watch NAME EVENT...` (with WATCH_PLAIN=1 without --json)
# as UID from REL in the background, its lines to OUT; returns once the watch is in place (cgm says so on
# OUT.err). Its pid in WATCH_PID.
watch_start() {
	local out=$1 uid=$2 rel=$3
	shift 3
	: >"$out"
	: >"$out.err"
	chown "$uid" "$out" "$out.err"
	WATCH_PID=$(spawn_as "$uid" "$rel" bash -c 'exec "$0" --socket "$1" $2 watch "${@:3}" >"'"$out"'" 2>"'"$out"'.err"' \
		"$CGM" "$SOCK" "$([ -n "${WATCH_PLAIN:-}" ] || echo --json)" "$@")
	wait_until 10 grep -q '^watching' "$out.err" || { fail "cgm watch $* did not start: $(cat "$out.err")"; return 1; }
}

# ev_cleanup NAME...: once the test is over, passed or failed, the sandbox cgroups NAME are removed in every
# hierarchy with all that was made beneath them: a user's cgroups left behind count against its quota in later tests
# (faults_quota_counts_survive_removal_behind_the_back). The tasks in them, the test's own, are killed first; find
# -delete works relative to each parent, so it reaches beneath PATH_MAX.
ev_cleanup() {
	trap "ev_remove $*" EXIT
}

ev_remove() {
	local h d try name
	for name in "$@"; do for h in $(sb_hierarchies); do
		d=$(sb_path "$h")/$name
		for try in 1 2 3 4 5; do
			[ -d "$d" ] || break
			find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null | xargs -r kill -KILL 2>/dev/null || true
			find "$d" -depth -type d -delete 2>/dev/null || true
			[ -d "$d" ] && sleep 0.2
		done
	done; done
	true
}

# event_seen OUT EVENT NAME: OUT has a line of EVENT on NAME.
event_seen() { grep -q "\"name\":\"$3\",\"event\":\"$2\"" "$1"; }

# expect_event OUT EVENT NAME [SECONDS]: waits for it (default 5 s).
expect_event() {
	wait_until "${4:-5}" event_seen "$1" "$2" "$3" || fail "no '$2' event of '$3' came; the watcher printed: $(cat "$1" "$1.err")"
}

# event_field OUT EVENT NAME FIELD: FIELD (count, time_us) of the first such event.
event_field() {
	grep "\"name\":\"$3\",\"event\":\"$2\"" "$1" | head -1 | sed -E "s/.*\"$4\":([0-9]+).*/\\1/"
}

# kill_and_time PID: SIGKILLs PID and prints the CLOCK_REALTIME (us) at which its pidfd said it had exited.
kill_and_time() {
	python3 -c '
import os, select, signal, sys, time
fd = os.pidfd_open(int(sys.argv[1]))
signal.pidfd_send_signal(fd, signal.SIGKILL)
select.select([fd], [], [])
print(time.time_ns() // 1000)
' "$1"
}

# Latency is judged where the daemon runs at its own speed or near it (t_load.sh does the same): under valgrind,
# 10-50 times slower and serialised with valgrind's own work, it is only printed; that lane is for memcheck.
latency_judged() { [ "$LANE" != valgrind ]; }

# pct FILE P: the P-th percentile (P in 1-100; 100 the max) of the numbers in FILE, one a line.
pct() { sort -n "$1" | sed -n "$((($(wc -l <"$1") * $2 + 99) / 100))p"; }

test_events_populated_empty_within_100ms() {
	cgm_root new evpop >/dev/null
	local out=$WORK/evpop.out pid t_exit t_ev
	watch_start "$out" 0 "" evpop populated empty
	pid=$(spawn_sleeper 0 evpop)
	expect_event "$out" populated evpop
	t_exit=$(kill_and_time "$pid")
	expect_event "$out" empty evpop
	t_ev=$(event_field "$out" empty evpop time_us)
	echo "measured: empty read by the daemon $(( (t_ev - t_exit) / 1000 )) ms after the last task's exit was seen"
	! latency_judged || [ $((t_ev - t_exit)) -le 100000 ] || fail "empty came $(( (t_ev - t_exit) / 1000 )) ms after the last task exited"
	end_pids "$pid" "$WATCH_PID"
}

test_events_removed_ends_the_watch() {
	cgm_root new evrm >/dev/null
	local out=$WORK/evrm.out plain=$WORK/evrm.plain plain_pid
	WATCH_PLAIN=1 watch_start "$plain" 0 "" evrm
	plain_pid=$WATCH_PID
	watch_start "$out" 0 "" evrm
	cgm_root delete evrm
	expect_event "$out" removed evrm
	# cgm watch ends with its watch, by itself; without --json its line is "EVENT NAME".
	wait_until 5 pid_gone "$WATCH_PID" || fail "cgm watch did not end after 'removed'"
	wait_until 5 pid_gone "$plain_pid" || fail "cgm watch (plain) did not end after 'removed'"
	expect_eq "$(cat "$plain")" "removed evrm" "cgm watch's line"
}

test_events_frozen_and_thawed_on_freeze() {
	cgm_root new evfrz >/dev/null
	local out=$WORK/evfrz.out pid
	pid=$(spawn_sleeper 0 evfrz)
	watch_start "$out" 0 "" evfrz frozen thawed
	cgm_root freeze evfrz
	expect_event "$out" frozen evfrz
	cgm_root thaw evfrz
	expect_event "$out" thawed evfrz
	end_pids "$pid" "$WATCH_PID"
}

test_events_pids_max_on_fork_past_the_limit() {
	cgm_root new evpids pids.limit=4 >/dev/null
	local out=$WORK/evpids.out
	watch_start "$out" 0 "" evpids pids_max
	# A shell forking 8 sleepers where 4 tasks may be: the forks past the limit fail.
	run_as 0 evpids sh -c 'for i in 1 2 3 4 5 6 7 8; do sleep 2 & done 2>/dev/null; wait' || true
	expect_event "$out" pids_max evpids
	local count; count=$(event_field "$out" pids_max evpids count)
	[ "$count" -ge 1 ] || fail "pids_max count: $count"
	expect_eq "$count" "$(awk '$1 == "max" {print $2}' "$(sb_path "$PH")/evpids/pids.events" | head -1)" \
		"the count of the first pids_max against pids.events" || true
	end_pids "$WATCH_PID"
}

test_events_oom_kill_counts_the_kill() {
	cgm_root new evoom memory.limit=48M >/dev/null
	# Without swap accounting a v1 cgroup swaps instead of OOMing: swap is limited too where it can be.
	cgm_root set evoom swap.limit=0 >/dev/null 2>&1 || true
	local out=$WORK/evoom.out
	watch_start "$out" 0 "" evoom oom_kill max
	# Touches 256 MiB, 16 times its limit: the kernel kills it.
	run_as 0 evoom python3 -c 'b = [bytes([1]) * (1 << 20) for _ in range(256)]' 2>/dev/null && fail "the allocation was not killed"
	expect_event "$out" oom_kill evoom 5
	expect_eq "$(event_field "$out" oom_kill evoom count)" 1 "oom_kill count after one kill"
	# cgroup2's memory.events also counts the times the limit was hit; v1 has no such notice.
	if [ -n "$PURE_V2" ]; then expect_event "$out" max evoom; fi
	end_pids "$WATCH_PID"
}

test_events_refused_for_an_unreadable_cgroup() {
	cgm_root new evsec >/dev/null
	cgm_root new evopen >/dev/null
	cgm_root chmod all evsec 0700 >/dev/null
	expect_refused 'evsec.*may not watch.*AccessDenied' cgm_as "$TEST_UID" "" watch evsec
	# The same uid may watch a cgroup it can read.
	local out=$WORK/evopen.out
	watch_start "$out" "$TEST_UID" "" evopen
	end_pids "$WATCH_PID"
}

WATCH_CLIENT=${BASH_SOURCE[0]%/*}/watch_client.py

# watch_many UID NAME OUT: watch_client.py many (1000 watches over 8 connections) as UID in the background, its
# report in OUT once it is done; its pid in MANY_PID.
watch_many() {
	local uid=$1 name=$2 out=$3
	: >"$out"
	chown "$uid" "$out"
	MANY_PID=$(spawn_as "$uid" "" bash -c 'exec python3 "$0" "$1" many "$2" 1000 8 >"$3" 2>&1' "$WATCH_CLIENT" "$SOCK" \
		"$name" "$out")
	# In lane v2's emulated VM each of the 512 watches a uid may make there costs ~0.1 s.
	wait_until 300 grep -qE '^(error|1000 ok)' "$out" || fail "the watches did not finish: $(cat "$out")"
}

test_events_1000_watches_of_one_uid_hit_the_cap() {
	cgm_root new evcap >/dev/null
	local out=$WORK/evcap.out rc=0
	watch_many "$TEST_UID" evcap "$out" || rc=1
	# Its watches end with it, before anything else can fail: the next tests' watches of this uid need room.
	end_pids "$MANY_PID"
	[ "$rc" = 0 ] || return 1
	grep -q '^error org.freedesktop.DBus.Error.LimitsExceeded: uid '"$TEST_UID"' follows .* the cap of 512 per uid' "$out" ||
		fail "1000 watches of uid $TEST_UID were not stopped by its cap: $(cat "$out")"
	echo "measured: $(head -1 "$out") before the cap"
}

# hold_spawn UID NAME N READY [EVENT...]: watch_client.py hold as UID (N watches of NAME on one connection) in the
# background, its output in READY.log; prints its pid. hold_ready READY: waits until it holds them.
hold_spawn() {
	local uid=$1 name=$2 n=$3 ready=$4
	shift 4
	spawn_as "$uid" "" bash -c 'exec /usr/bin/python3 "$0" "$1" hold "$2" "$3" "$4" "${@:5}" >"$4.log" 2>&1' \
		"$WATCH_CLIENT" "$SOCK" "$name" "$n" "$ready" "$@"
}
hold_ready() { wait_until 60 test -e "$1" || fail "the subscriber did not start: $(cat "$1.log")"; }

test_events_killed_subscriber_leaves_nothing() {
	cgm_root new evkill >/dev/null
	local ready=$WORK/evkill.ready fds0 pid
	fds0=$(settled daemon_fds)
	chmod 777 "$WORK"
	pid=$(hold_spawn "$TEST_UID" evkill 50 "$ready")
	hold_ready "$ready"
	[ "$(daemon_fds)" -gt "$fds0" ] || fail "the subscriber's connection holds no fd of the daemon's"
	end_pids "$pid"
	wait_until 5 test "$(daemon_fds)" -le "$fds0" || fail "after the subscriber was killed the daemon holds $(daemon_fds) fds, $fds0 before"
	# Its watches left the uid's account, which is what the daemon's debug log says when a subscriber goes.
	wait_until 5 grep -q "its 50 watches ended; uid $TEST_UID now follows 0 cgroups" "$WORK/daemon.log" ||
		fail "the daemon did not end the killed subscriber's watches: $(grep 'watches ended' "$WORK/daemon.log" | tail -2)"
}

# The daemon's resident memory in KiB.
daemon_rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$DAEMON_PID/status"; }

test_events_unread_subscriber_bounded_while_1e5_events_fire() {
	cgm_root new evflood >/dev/null
	local ready=$WORK/evflood.ready go=$WORK/evflood.go res=$WORK/evflood.res d sub rss0 rss1 t0 i seen lost steps
	# 10^5 populated flags that change, each seen by the daemon (watch_client.py flood: a second subscriber, which
	# reads, paces the moves): 40 tasks moved 1250 times between 40 pairs of cgroups (a step's 80 events fit in what the
	# pacer's connection holds: the daemon's queue of 64 and the socket).
	d=$(sb_path unified)/evflood
	for i in $(seq 0 79); do mkdir "$d/f$i"; done
	chmod 777 "$WORK"
	sub=$(spawn_as 0 "" bash -c 'exec python3 "$0" "$1" no-read evflood "$2" "$3" >"$4" 2>&1' "$WATCH_CLIENT" "$SOCK" \
		"$ready" "$go" "$res")
	wait_until 10 test -e "$ready" || fail "the subscriber did not start: $(cat "$res")"
	rss0=$(daemon_rss_kb)
	t0=$(now_ms)
	# ASan and valgrind's daemon is 3-10 times slower, and those lanes look for leaks, not the bound: 2*10^4 there.
	steps=1250
	case $LANE in host-asan | valgrind) steps=250 ;; esac
	run_as 0 "" python3 "$WATCH_CLIENT" "$SOCK" flood evflood "$d" "$steps" >"$WORK/evflood.pacer" 2>&1 ||
		fail "the flood failed: $(tail -3 "$WORK/evflood.pacer")"
	rss1=$(daemon_rss_kb)
	echo "measured: $(cat "$WORK/evflood.pacer") in $(( $(now_ms) - t0 )) ms; daemon RSS ${rss0} KiB before, ${rss1} KiB after"
	# Under ASan and valgrind freed memory waits in the tool's quarantine (ASan's: up to 256 MiB), which churn
	# alone grows: the bound holds for the real allocator; those lanes check for leaks instead.
	if [ "$LANE" = host ] || [ "$LANE" = v2 ]; then
		[ $((rss1 - rss0)) -le 1024 ] || fail "the daemon grew by $((rss1 - rss0)) KiB (bound: 1024) for a subscriber that does not read"
	fi
	touch "$go"
	wait_until 70 grep -q . "$res" || fail "the subscriber did not report"
	echo "measured: $(cat "$res")"
	read -r seen _ _ _ lost < <(grep -E '^[0-9]+ events then lost [1-9][0-9]*$' "$res") ||
		fail "no lost event after the flood: $(cat "$res")"
	# Every event was either queued for it or counted in lost: 80 flips of the children per step, and evflood's own.
	[ $((seen + lost)) -ge $((steps * 80)) ] ||
		fail "the subscriber was told of $seen events and lost $lost: fewer than the $((steps * 80)) that fired"
	end_pids "$sub"
}

# A watcher in a container (user, pid, mount and cgroup namespaces, a cgproxy; t_containers.sh): cgproxy sends
# the key API, Watch included, to the host's daemon, which the container's cgm then watches on directly; the
# names are the container's.
test_events_watch_from_a_container_names_as_it_sees_them() {
	containers_nested 1
	local out=$WORK/c1/evc.out pid
	in_container c1 "$CGM" new kwatch >/dev/null
	( in_container c1 bash -c 'exec "$0" --json watch kwatch subtree >"$1" 2>"$1.err"' "$CGM" "$out" ) &
	SB_PIDS+=("$!")
	wait_until 20 grep -q '^watching' "$out.err" 2>/dev/null || fail "cgm watch in the container did not start: $(cat "$out.err")"
	in_container c1 "$CGM" new kwatch/job >/dev/null
	pid=$(spawn_sleeper 0 c1/kwatch/job)
	expect_event "$out" populated kwatch/job
	end_pids "$pid"
	expect_event "$out" empty kwatch/job
	in_container c1 "$CGM" delete kwatch
	expect_event "$out" removed kwatch
	containers_cleanup
}

# subtree: the descendants there are and those made later, each named beneath the watched name; one the
# subscriber may not read (root's, mode 0700) is left out, as Watch would refuse it.
test_events_subtree_follows_readable_descendants() {
	delegate evsub "$TEST_UID"
	ev_cleanup evsub
	cgm_root new evsub/open >/dev/null
	cgm_root new evsub/secret >/dev/null
	cgm_root chmod all evsub/secret 0700 >/dev/null
	local out=$WORK/evsub.out p1 p2 p3
	watch_start "$out" "$TEST_UID" "" evsub populated subtree
	cgm_root new evsub/later >/dev/null
	p2=$(spawn_sleeper 0 evsub/secret)
	p1=$(spawn_sleeper 0 evsub/open)
	p3=$(spawn_sleeper 0 evsub/later)
	expect_event "$out" populated evsub/open
	expect_event "$out" populated evsub/later
	expect_event "$out" populated evsub
	! event_seen "$out" populated evsub/secret || fail "the subscriber heard of evsub/secret, which it may not read"
	end_pids "$p1" "$p2" "$p3" "$WATCH_PID"
}

# The caps are the daemon's options: a daemon of this test's own with --max-watches-per-connection 8 stops one
# connection's watches at 8 cgroups followed, naming that cap; a bad value is refused at start.
test_events_caps_are_options() {
	local sock=$WORK/evopt.sock out=$WORK/evopt.out pid
	expect_refused "max-watches-per-uid takes a number" "$CGMANAGER" --max-watches-per-uid none
	daemon_spawn "$sock" "$WORK/evopt.log" --max-watches-per-connection 8
	pid=$SPAWNED_PID
	wait_until 10 "$CGM" --socket "$sock" ping || fail "the daemon with --max-watches-per-connection did not start"
	cgm_root new evopt >/dev/null
	: >"$out"
	local sub; sub=$(spawn_as 0 "" bash -c 'exec python3 "$0" "$1" many evopt 20 1 >"$2" 2>&1' "$WATCH_CLIENT" "$sock" "$out")
	wait_until 30 grep -q '^error' "$out" || fail "20 watches on one connection were not stopped: $(cat "$out")"
	end_pids "$sub"
	stop_pid "$pid"
	grep -q 'LimitsExceeded: this connection follows .* cap of 8' "$out" || fail "not the connection's cap of 8: $(cat "$out")"
}

# The kernel's inotify queue overflowing (a limit of the whole host, so only in the v2 VM, which is thrown away):
# a daemon started with fs.inotify.max_queued_events at 16 is stopped (SIGSTOP) while a task moves round 50 watched
# cgroups, so that the kernel drops notices; once it runs again it reads every watched cgroup again, and the
# subscriber is told where the task is (f0, whose notices came after the queue was full).
test_v2_events_inotify_overflow_reads_again() {
	[ "$LANE" = v2 ] || skip "sets fs.inotify.max_queued_events, a limit of the whole machine: the v2 VM only"
	local limit=/proc/sys/fs/inotify/max_queued_events old sock=$WORK/evovf.sock out=$WORK/evovf.out d pid dpid i
	old=$(cat "$limit")
	echo 16 >"$limit"
	daemon_spawn "$sock" "$WORK/evovf.log"
	dpid=$SPAWNED_PID
	# The limit is taken when the daemon makes its inotify instances, before it answers.
	wait_until 30 "$CGM" --socket "$sock" ping || { echo "$old" >"$limit"; fail "the daemon did not start"; }
	echo "$old" >"$limit"
	cgm_root new evovf >/dev/null
	d=$(sb_path unified)/evovf
	for i in $(seq 0 49); do mkdir "$d/f$i"; done
	local SOCK=$sock
	watch_start "$out" 0 "" evovf populated empty subtree
	pid=$(spawn_sleeper 0 "")
	kill -STOP "$dpid"
	python3 -c '
import os, sys
pid, d = sys.argv[1].encode(), sys.argv[2]
fds = [os.open("%s/f%d/cgroup.procs" % (d, i), os.O_WRONLY) for i in range(50)]
for k in range(1, 2001):
    os.write(fds[k % 50], pid)
' "$pid" "$d"
	kill -CONT "$dpid"
	# The task ends in f0 (2000 is a multiple of 50).
	wait_until 30 grep -q 'inotify queue overflow' "$WORK/evovf.log" || fail "no overflow in the daemon's log"
	wait_until 10 bash -c '[ "$(grep "\"name\":\"evovf/f0\"" "$1" | tail -1 | grep -o "\"event\":\"[a-z]*\"")" = "\"event\":\"populated\"" ]' \
		_ "$out" || fail "the last event of evovf/f0 is not populated: $(grep 'evovf/f0"' "$out" | tail -2)"
	end_pids "$pid" "$WATCH_PID"
	stop_pid "$dpid"
}

# A subtree watch followed evpriv/secret while it was readable; root then made it private (0700, as a cgroup handed
# to another user is) and made evpriv/secret/hidden beneath it. The subscriber may no longer list evpriv/secret, so
# it must not learn the name of what is made there, as a Watch made now would not (review of issue 17).
test_events_subtree_forgets_a_cgroup_made_private_later() {
	delegate evpriv "$TEST_UID"
	ev_cleanup evpriv
	local out=$WORK/evpriv.out p1 p2 p3
	watch_start "$out" "$TEST_UID" "" evpriv populated subtree
	cgm_root new evpriv/secret >/dev/null
	# The daemon follows it while it is readable: its populated event proves it.
	p1=$(spawn_sleeper 0 evpriv/secret)
	expect_event "$out" populated evpriv/secret
	end_pids "$p1"
	cgm_root chmod all evpriv/secret 0700 >/dev/null
	expect_refused 'evpriv/secret.*read access to list it' cgm_as "$TEST_UID" "" ls evpriv/secret
	cgm_root new evpriv/secret/hidden >/dev/null
	p2=$(spawn_sleeper 0 evpriv/secret/hidden)
	# A readable sibling made afterwards: once its event came, the daemon has read the hidden one too.
	cgm_root new evpriv/open >/dev/null
	p3=$(spawn_sleeper 0 evpriv/open)
	expect_event "$out" populated evpriv/open
	sleep 1.5
	! grep -q 'evpriv/secret/hidden' "$out" ||
		fail "the subscriber learnt the name of a cgroup beneath one it may not list: $(grep 'evpriv/secret/' "$out")"
	end_pids "$p2" "$p3" "$WATCH_PID"
}

# The watched cgroup itself made private (0700) after the watch began: the subscriber hears nothing more of what
# its files say, as a Watch made now would be refused; its removal is still told, as the watch ends with it.
test_events_watched_cgroup_made_private_is_no_longer_told() {
	cgm_root new evtop >/dev/null
	local out=$WORK/evtop.out p1 p2
	watch_start "$out" "$TEST_UID" "" evtop populated empty removed
	p1=$(spawn_sleeper 0 evtop)
	expect_event "$out" populated evtop
	end_pids "$p1"
	expect_event "$out" empty evtop
	cgm_root chmod all evtop 0700 >/dev/null
	expect_refused 'evtop.*may not watch' cgm_as "$TEST_UID" "" watch evtop
	p2=$(spawn_sleeper 0 evtop)
	end_pids "$p2"
	# Its populated and empty came within a second before (5 ms on the host, 1 s for a v1 check).
	sleep 1.5
	expect_eq "$(grep -c '"event":"populated"' "$out")" 1 "populated events of evtop, private since the first ($(cat "$out"))"
	cgm_root delete evtop
	expect_event "$out" removed evtop
	wait_until 5 pid_gone "$WATCH_PID" || fail "cgm watch did not end after 'removed'"
}

# The cap per uid counts the user behind a user namespace, as the cap of connections does (cgmanager(8)
# --max-connections-per-uid): the ids of a namespace TEST_UID made (mapped to 200000-200009, as newuidmap would
# map its subordinate ids) are TEST_UID's account, else one user follows as many cgroups as it has subordinate
# ids times the cap, and fills the cap of all clients together (--max-watches) that every other user shares.
test_events_uid_cap_counts_the_user_behind_a_user_namespace() {
	local dir=$WORK/evns sock=$WORK/evns/sock ns holder out
	mkdir -p "$dir"
	chmod 1777 "$dir"
	daemon_spawn "$sock" "$WORK/evns.log" --max-watches-per-uid 8
	wait_until 10 "$CGM" --socket "$sock" ping || fail "no daemon on $sock: $(cat "$WORK/evns.log")"
	cgm_root new evns >/dev/null
	# TEST_UID fills its account.
	run_as "$TEST_UID" "" /usr/bin/python3 "$WATCH_CLIENT" "$sock" many evns 100 1 >"$dir/host" 2>&1 &
	holder=$!
	SB_PIDS+=("$holder")
	wait_until 30 grep -q '^error' "$dir/host" || fail "TEST_UID's watches were not capped: $(cat "$dir/host")"
	grep -q "uid $TEST_UID follows .* cap of 8 per uid" "$dir/host" || fail "not TEST_UID's cap: $(cat "$dir/host")"
	ns=$(spawn_as "$TEST_UID" "" unshare --user sleep 60)
	wait_until 5 in_own_userns "$ns" || fail "pid $ns made no user namespace"
	echo "0 200000 10" >"/proc/$ns/uid_map"
	echo "0 200000 10" >"/proc/$ns/gid_map"
	# The namespace's root (host uid 200000) finds that account full: not a single watch more.
	run_as 0 "" nsenter -t "$ns" -U --setuid 0 --setgid 0 -- /usr/bin/python3 "$WATCH_CLIENT" "$sock" many evns 100 1 \
		>"$dir/ns" 2>&1 &
	SB_PIDS+=("$!")
	wait_until 30 grep -q '^error' "$dir/ns" || fail "the namespace's watches were not capped: $(cat "$dir/ns")"
	expect_eq "$(head -1 "$dir/ns")" "0 ok" \
		"watches of host uid 200000 in TEST_UID's user namespace while TEST_UID is at its cap ($(tail -1 "$dir/ns"))"
	end_pids "$!"
	end_pids "$holder" "$ns"
	stop_pid "$SPAWNED_PID" || fail "exit status $? on SIGTERM; its log ends: $(tail -40 "$WORK/evns.log")"
}

# pids_max tells what pids.events tells: a subscriber that may list the cgroup but not read that file (root made it
# 0600, and GetValue refuses it) must not learn its counter through Watch either: Watch refuses the event, or no
# pids_max comes.
test_events_pids_max_needs_pids_events_readable() {
	cgm_root new evpfile pids.limit=4 >/dev/null
	cgm_root chmodfile "$PH" evpfile pids.events 0600 >/dev/null
	expect_refused 'pids.events' cgm_as "$TEST_UID" "" getvalue "$PH" evpfile pids.events
	local out=$WORK/evpfile.out
	: >"$out"
	: >"$out.err"
	chown "$TEST_UID" "$out" "$out.err"
	WATCH_PID=$(spawn_as "$TEST_UID" "" bash -c 'exec "$0" --socket "$1" --json watch evpfile pids_max >"$2" 2>"$2.err"' \
		"$CGM" "$SOCK" "$out")
	wait_until 10 grep -q . "$out.err" || fail "cgm watch said nothing: $(cat "$out.err")"
	grep -q '^watching' "$out.err" || { echo "measured: refused: $(cat "$out.err")"; end_pids "$WATCH_PID"; return 0; }
	run_as 0 evpfile sh -c 'for i in 1 2 3 4 5 6 7 8; do sleep 2 & done 2>/dev/null; wait' || true
	# v1's pids.events is read once a second.
	sleep 2
	! event_seen "$out" pids_max evpfile ||
		fail "uid $TEST_UID, which may not read evpfile's pids.events, heard its count: $(cat "$out")"
	end_pids "$WATCH_PID"
}

# The same rule holds for as long as the watch does: a subscriber that could read evplate's pids.events when it
# began hears a fork past pids.limit; once root made the file 0600 it hears nothing of the next one.
test_events_pids_max_not_told_once_pids_events_is_made_private() {
	cgm_root new evplate pids.limit=4 >/dev/null
	local out=$WORK/evplate.out n
	watch_start "$out" "$TEST_UID" "" evplate pids_max
	run_as 0 evplate sh -c 'for i in 1 2 3 4 5 6 7 8; do sleep 1 & done 2>/dev/null; wait' || true
	expect_event "$out" pids_max evplate
	cgm_root chmodfile "$PH" evplate pids.events 0600 >/dev/null
	expect_refused 'pids.events' cgm_as "$TEST_UID" "" getvalue "$PH" evplate pids.events
	run_as 0 evplate sh -c 'for i in 1 2 3 4 5 6 7 8; do sleep 1 & done 2>/dev/null; wait' || true
	# v1's pids.events is read once a second.
	sleep 2
	n=$(grep -c '"event":"pids_max"' "$out")
	expect_eq "$n" 1 "pids_max events of evplate, whose pids.events uid $TEST_UID may no longer read ($(cat "$out"))"
	end_pids "$WATCH_PID"
}

# inotify watch descriptors the daemon holds (fdinfo of every fd), the kernel's count of what it follows.
daemon_inotify_wds() { cat /proc/"$DAEMON_PID"/fdinfo/* 2>/dev/null | grep -c '^inotify wd:' || true; }

# A subtree watch (root's, a supervisor's) of a cgroup delegated to TEST_UID: the user makes and removes a child
# (and a grandchild) 2000 times as fast as mkdir and rmdir go. Each removed cgroup must leave the daemon: once the
# churn is over and nothing is beneath the watched cgroup, the daemon holds as many inotify watches as it did
# before, else each missed removal keeps a node (its inotify watches, a unit of the watch's account) for as long as
# the watch lasts, and the watch stops following new cgroups at its cap.
test_events_subtree_churn_leaves_no_inotify_watch_behind() {
	delegate evchurn "$TEST_UID"
	ev_cleanup evchurn
	local out=$WORK/evchurn.out d wds0 wds1
	d=$(sb_path "$(sb_hierarchies | head -1)")/evchurn
	has_hierarchy unified && d=$(sb_path unified)/evchurn
	watch_start "$out" 0 "" evchurn subtree
	wds0=$(daemon_inotify_wds)
	run_as "$TEST_UID" "" /usr/bin/python3 -c '
import os, sys
d = sys.argv[1]
for i in range(2000):
    os.mkdir(d + "/c"); os.mkdir(d + "/c/g"); os.rmdir(d + "/c/g"); os.rmdir(d + "/c")
' "$d"
	wait_until 5 test "$(daemon_inotify_wds)" -le "$wds0" ||
		fail "after 2000 children made and removed the daemon holds $(daemon_inotify_wds) inotify watches, $wds0 before"
	end_pids "$WATCH_PID"
}

# A watch at its cap does not follow a new descendant, and says so in the daemon's log: but the user a cgroup is
# delegated to makes children as fast as mkdir goes, so those lines are rate-limited as the acceptor's refusals
# are, else any user floods the daemon's log (the journal, syslog) through its own watch. A daemon of this test's
# own with a cap of 1 per connection: the watch's one unit is evflog itself, and 1000 children are refused.
test_events_unfollowed_descendants_do_not_flood_the_log() {
	local sock=$WORK/evflog.sock log=$WORK/evflog.log out=$WORK/evflog.out d n
	daemon_spawn "$sock" "$log" --max-watches-per-connection 1
	wait_until 10 "$CGM" --socket "$sock" ping || fail "no daemon on $sock: $(cat "$log")"
	delegate evflog "$TEST_UID"
	ev_cleanup evflog
	d=$(sb_path "$(sb_hierarchies | head -1)")/evflog
	has_hierarchy unified && d=$(sb_path unified)/evflog
	local SOCK=$sock
	watch_start "$out" "$TEST_UID" "" evflog populated subtree
	run_as "$TEST_UID" "" /usr/bin/python3 -c '
import os, sys
for i in range(1000):
    os.mkdir("%s/c%d" % (sys.argv[1], i))
' "$d"
	# The daemon reads the 1000 IN_CREATE notices in well under a second.
	sleep 1
	run_as "$TEST_UID" "" /usr/bin/python3 -c '
import os, sys
for i in range(1000):
    os.rmdir("%s/c%d" % (sys.argv[1], i))
' "$d"
	n=$(grep -c 'does not follow' "$log" || true)
	echo "measured: $n log lines for 1000 children not followed"
	[ "$n" -le 10 ] || fail "$n lines in the daemon's log for one user's 1000 mkdirs: $(grep 'does not follow' "$log" | head -2)"
	end_pids "$WATCH_PID"
	stop_pid "$SPAWNED_PID" || fail "exit status $? on SIGTERM"
}

# A user's subtree watch deep in its own delegated v1 tree (attack on the review's fixes of issue 17): TEST_UID makes
# 900 levels by plain mkdir and watches the cgroup at level 700 with subtree (the 200 beneath it, within its cap),
# then moves a task of its own to the deepest and back, which changes the populated flag of all 200. Once a second
# the daemon walks each followed cgroup's whole subtree for a task (v1 has no cgroup.events: 200 walks of up to 200
# levels), and each change it finds is checked by opening every cgroup from the watched one down, each from the
# hierarchy's root (up to 200 opens of 900 levels per event), all in its one thread. Another client's Ping must not
# wait behind that.
test_events_deep_subtree_churn_does_not_stall_other_clients() {
	pure_v2 && skip "v1's walks: a pure cgroup2 host reports emptiness in cgroup.events and stops trees at cgroup.max.depth"
	delegate evdeep "$TEST_UID"
	ev_cleanup evdeep
	local d out=$WORK/evdeep.out lat=$WORK/evdeep.lat name pid churn p50 p90 p99 n
	# cgroup2 stops a tree at the daemon's cgroup.max.depth; v1 has no such limit.
	d=$(sb_path "$(sb_hierarchies | grep -vx unified | head -1)")/evdeep
	run_as "$TEST_UID" "" /usr/bin/python3 -c '
import os, sys
p = sys.argv[1]
for i in range(900):
    p += "/d"
    os.mkdir(p)
' "$d" || { fail "TEST_UID could not make 900 levels beneath $d"; return 1; }
	name=evdeep$(printf '/d%.0s' $(seq 700))
	watch_start "$out" "$TEST_UID" "" "$name" populated empty subtree || return 1
	pid=$(spawn_sleeper "$TEST_UID" evdeep)
	churn=$(spawn_as "$TEST_UID" "" /usr/bin/python3 -c '
import os, sys, time
top, pid = sys.argv[1], sys.argv[2]
deep = top + "/d" * 900
end = time.time() + 8
while time.time() < end:
    with open(deep + "/cgroup.procs", "w") as f: f.write(pid)
    time.sleep(0.1)
    with open(top + "/cgroup.procs", "w") as f: f.write(pid)
    time.sleep(0.1)
' "$d" "$pid")
	# 20 pings on one connection (a cgm process's start would be most of what is timed under ASan or load): on
	# 35bee0b each waited 4-7 s, 40 made the case take 174 s.
	run_as 0 "" python3 "$here/raw_client.py" "$SOCK" ping-every 20 100 60 >"$lat"
	# The churn goes on for 8 s: under valgrind the first populated may come after the pings.
	wait_until 20 grep -q '"event":"populated"' "$out" || true
	end_pids "$churn"
	! grep -q failed "$lat" || fail "root's ping failed while the user's watch was served: $(grep -c failed "$lat") of $(wc -l <"$lat")"
	n=$(grep -c '"event":"populated"' "$out" || true)
	p50=$(pct "$lat" 50) p90=$(pct "$lat" 90) p99=$(pct "$lat" 100)
	echo "measured: root's pings while uid $TEST_UID churns a subtree watch 700-900 deep: p50 ${p50} ms, p90 ${p90} ms, max ${p99} ms (20 pings); $n populated events told"
	end_pids "$pid" "$WATCH_PID"
	[ "$n" -gt 0 ] || fail "the watch told no populated event: $(cat "$out.err")"
	# p90, not the max: one ping of 20 held 406 ms once in CI, where this lane runs niced beside the VM (p50 0 ms);
	# a daemon stalled by the churn (4-7 s a ping before the fix) fails it.
	! latency_judged || [ "$p90" -le 250 ] ||
		fail "another client's ping took $p90 ms at p90 (p50 $p50 ms, max $p99 ms) while a user's watch at depth 700 was told of its churn"
}

# A subtree watch of a v1 cgroup whose owner then makes 4000 levels beneath it by plain mkdir (t_deep_trees.sh's
# tree), as fast as mkdir goes. v1 reports no emptiness: each cgroup the watch comes to follow is first checked by
# walking its whole subtree for a task (follow's cgtree_populated), and again once a second. Each new child's notice
# follows it and every descendant already beneath it (up to the watch's cap), each with such a walk: thousands of
# levels walked per mkdir, in the daemon's one thread, unbudgeted. Another client's Ping must still be answered.
# (One watch without subtree of such a cgroup costs one walk a second: pings within 250 ms.)
test_events_subtree_watch_of_a_deep_v1_tree_does_not_stall_other_clients() {
	pure_v2 && skip "v1's walks: a pure cgroup2 host reports emptiness in cgroup.events"
	local SUITE_SOCK=$SOCK out=$WORK/evdeep1.out lat=$WORK/evdeep1.lat p50 p90 p99 made n
	deep_owner
	DEEP_NAME=evdeep1
	# In DH alone: were it in cgroup2 too, that would be the watch's primary hierarchy, which tells emptiness itself.
	if [ "$DO" = 0 ]; then cgm_root create "$DH" evdeep1 >/dev/null; else delegate evdeep1 "$DO" "$DH" >/dev/null; fi
	ev_cleanup evdeep1
	DDIR=$(sb_path "$DH")/evdeep1
	watch_start "$out" "$DO" "" evdeep1 populated empty subtree || { deep_cleanup; return 1; }
	made=$(run_as "$DO" "" /usr/bin/python3 "$DEEP_TREE" "$DDIR" "$DEEP_LEVELS")
	expect_eq "$made" "$DEEP_LEVELS" "levels made beneath $DH:/evdeep1" || { deep_cleanup; return 1; }
	echo "measured: the daemon holds $(daemon_inotify_wds) inotify watches"
	# 20 pings on one connection, or as many as 20 s let through.
	run_as 0 "" python3 "$here/raw_client.py" "$SOCK" ping-every 20 200 20 >"$lat"
	end_pids "$WATCH_PID"
	deep_cleanup
	! grep -q failed "$lat" || fail "root's ping failed while the user's watch was served: $(grep -c failed "$lat") of $(wc -l <"$lat")"
	n=$(wc -l <"$lat")
	p50=$(pct "$lat" 50) p90=$(pct "$lat" 90) p99=$(pct "$lat" 100)
	echo "measured: root's pings while uid $DO has a subtree watch of a v1 cgroup 4000 levels deep: p50 ${p50} ms, p90 ${p90} ms, max ${p99} ms ($n pings)"
	# p90, not the max, as in the case above: one slow ping is the scheduler's in CI; a stall is most of them.
	! latency_judged || [ "$p90" -le 250 ] ||
		fail "another client's ping took $p90 ms at p90 (p50 $p50 ms, max $p99 ms) while one subtree watch of a tree 4000 levels deep was checked"
}

# The removal of a descendant is told only if the subscriber may list its parent (may_tell_removed); where the
# parent is gone too, what was found "the last time it was asked", which is when the descendant was followed if
# no event of it came since. 60002's subtree watch of evrml (60001's) follows evrml/x and evrml/x/y while they are
# 0755; 60001 makes x 0700 (60002 may no longer list it, nor learn what happens in it), then removes y and x
# together. 60002 may hear that x went (it may list evrml), not that y did, which it could not see.
test_events_removal_beneath_a_cgroup_made_private_is_not_told() {
	delegate evrml "$TEST_UID"
	ev_cleanup evrml
	local out=$WORK/evrml.out d
	d=$(sb_path "$(sb_hierarchies | head -1)")/evrml
	has_hierarchy unified && d=$(sb_path unified)/evrml
	run_as "$TEST_UID" "" mkdir -p "$d/x/y"
	watch_start "$out" "$TEST_UID2" "" evrml removed subtree || return 1
	run_as "$TEST_UID" "" chmod 0700 "$d/x"
	expect_refused 'evrml/x.*list' cgm_as "$TEST_UID2" "" ls evrml/x
	run_as "$TEST_UID" "" /usr/bin/python3 -c 'import os, sys; os.rmdir(sys.argv[1] + "/x/y"); os.rmdir(sys.argv[1] + "/x")' "$d"
	expect_event "$out" removed evrml/x
	sleep 0.5
	! event_seen "$out" removed evrml/x/y ||
		fail "uid $TEST_UID2 heard of the removal of evrml/x/y, beneath evrml/x, which it may no longer list: $(cat "$out")"
	end_pids "$WATCH_PID"
}

# A `lost` event of a watch (count 0) says a descendant beyond the watch's cap is not followed (cgmanager(8),
# EVENTS). Root's subtree watch of evlost in v1's memory hierarchy, far below its cap, while 60001 makes and
# removes a child and a grandchild 500 times: a child removed while the daemon sets up its watches is simply gone,
# no `lost` may come, nor a "does not follow" line in the log.
test_events_churn_below_the_cap_sends_no_lost() {
	has_hierarchy memory || skip "no v1 memory hierarchy here"
	pure_v2 && skip "v1's memory.oom_control"
	delegate evlost "$TEST_UID" memory
	ev_cleanup evlost
	local out=$WORK/evlost.out d=$(sb_path memory)/evlost
	watch_start "$out" 0 "" evlost subtree || return 1
	run_as "$TEST_UID" "" /usr/bin/python3 -c '
import os, sys
d = sys.argv[1]
for i in range(500):
    os.mkdir(d + "/c"); os.mkdir(d + "/c/g"); os.rmdir(d + "/c/g"); os.rmdir(d + "/c")
' "$d"
	sleep 2
	end_pids "$WATCH_PID"
	! grep -q '"event":"lost"' "$out" ||
		fail "$(grep -c '"event":"lost"' "$out") lost events for a watch far below its cap; the daemon logged: $(grep 'does not follow' "$WORK/daemon.log" | tail -2)"
}

# The same churn while the watch is being set up: a subtree Watch is all or nothing, so a descendant that goes
# while the daemon sets up its watches must not make it fail, else the user a cgroup is delegated to keeps a
# supervisor (root here) from watching it at all, by making and removing children. 150 Watch calls of evwsu with
# subtree, each by a `cgm watch` of its own, while 60001 churns a child and a grandchild at four places. The race
# is narrow: on 35bee0b 0-3 of 100 calls were refused with two churners, 10 of 150 with these four.
test_events_subtree_watch_is_not_refused_by_churn_beneath() {
	has_hierarchy memory || skip "no v1 memory hierarchy here"
	pure_v2 && skip "v1's memory.oom_control"
	delegate evwsu "$TEST_UID" memory
	ev_cleanup evwsu
	local d=$(sb_path memory)/evwsu churns=() i bad=0 err=$WORK/evwsu.err
	run_as "$TEST_UID" "" mkdir -p "$d/a/b" "$d/e/f"
	for i in c a/c e/c a/b/c; do
		churns+=("$(spawn_as "$TEST_UID" "" /usr/bin/python3 -c '
import os, sys, time
d = sys.argv[1]
end = time.time() + 90
while time.time() < end:
    try:
        os.mkdir(d); os.mkdir(d + "/g"); os.rmdir(d + "/g"); os.rmdir(d)
    except OSError:
        pass
' "$d/$i")")
	done
	for i in $(seq 150); do
		# -k: under ASan, LeakSanitizer's check at exit can hang for good when timeout's second SIGTERM (to its
		# process group) comes in the middle of it.
		run_as 0 "" timeout -k 2 0.3 "$CGM" --socket "$SOCK" watch evwsu subtree >/dev/null 2>"$err.$i" || true
		# Refused: cgm said why (one that said nothing within 0.3 s was only slow).
		grep -q '^cgm: watch' "$err.$i" && { bad=$((bad + 1)); cp "$err.$i" "$err"; }
	done
	end_pids "${churns[@]}"
	echo "measured: $bad of 150 subtree watches refused while 60001 churned beneath"
	[ "$bad" = 0 ] || fail "$bad of 150 subtree watches of evwsu were refused while its owner made and removed children: $(cat "$err")"
}

# One inotify instance holds the notices of every watch, and the kernel drops them all when its queue
# (fs.inotify.max_queued_events) is full: then every watched cgroup of every user is read again (resync: on v1 each
# with a walk of its subtree) and transitions that came and went are lost to all subscribers. 60001 alone, in its
# own delegated evqof with its own subtree watch, makes and removes children from four processes for 8 s: that must
# not overflow the queue the other users share (the daemon logs each overflow).
test_events_one_users_churn_does_not_overflow_the_shared_queue() {
	has_hierarchy unified || skip "no cgroup2 hierarchy here"
	delegate evqof "$TEST_UID"
	ev_cleanup evqof
	local out=$WORK/evqof.out d=$(sb_path unified)/evqof i pids=() n n0
	n0=$(grep -c 'inotify queue overflow' "$WORK/daemon.log" || true)
	run_as "$TEST_UID" "" mkdir "$d/1" "$d/2" "$d/3" "$d/4"
	watch_start "$out" "$TEST_UID" "" evqof subtree || return 1
	for i in 1 2 3 4; do
		pids+=("$(spawn_as "$TEST_UID" "" /usr/bin/python3 -c '
import os, sys, time
d = sys.argv[1]
end = time.time() + 8
k = 0
while time.time() < end:
    k += 1
    n = "%s/x%d" % (d, k % 2000)
    try:
        os.mkdir(n); os.rmdir(n)
    except OSError:
        pass
' "$d/$i")")
	done
	sleep 9
	end_pids "${pids[@]}" "$WATCH_PID"
	n=$(($(grep -c 'inotify queue overflow' "$WORK/daemon.log" || true) - n0))
	echo "measured: $n overflows of the daemon's inotify queue in 8 s of one user's churn"
	[ "$n" = 0 ] || fail "one user's churn in its own cgroup overflowed the inotify queue all watches share $n times"
}

# v1 lets a cgroup's owner rename(2) a child within its parent (cgroup2 does not); the daemon's nodes are keyed by
# name and inode, and inotify gives one watch descriptor per inode and instance. TEST_UID watches evren/r0, then
# renames it r1 and watches evren/r1, and so on to r8 (those watches of `removed` alone: nothing polls them once a
# second); each rename is made while the daemon is stopped (SIGSTOP) with the next Watch already in its socket, so
# that it may serve the Watch before it reads the rename (the loop rotates its order: one round in two): the node of
# the new name then gets the old one's descriptor. A watch follows its name (cgmanager(8), EVENTS): a rename ends the
# watch of the old name, told `removed`, and no end of a watch of an old name may take the descriptor from the new
# name's node (h-events5 removed it from the kernel and kept a slot pointing to the freed node: a use after free,
# which the ASan lane reported). Once the watches of r1 to r7 ended (their connections closed), a subtree watch of
# evren/r8 must hear of a child c made and given a task (populated), as of any other child.
test_events_v1_rename_then_unwatch_keeps_the_other_watch() {
	multi_hierarchy || skip "cgroup2 has no rename"
	local h d out1=$WORK/evren1.out out2=$WORK/evren2.out w1 subs=() k pid
	# A v1 hierarchy alone, no controller's events: the watch's primary one (emptiness, removal, new children).
	h=$(sb_hierarchies | grep -vxE 'unified|memory|pids|freezer' | head -1)
	delegate evren "$TEST_UID" "$h"
	ev_cleanup evren
	d=$(sb_path "$h")/evren
	chmod 777 "$WORK"
	run_as "$TEST_UID" "" mkdir "$d/r0"
	watch_start "$out1" "$TEST_UID" "" evren/r0 || return 1
	w1=$WATCH_PID
	for k in 1 2 3 4 5 6 7 8; do
		subs+=("$(spawn_as "$TEST_UID" "" bash -c 'exec /usr/bin/python3 "$0" "$1" watch-on-go "$2" "$3" "$4" removed >"$5" 2>&1' \
			"$WATCH_CLIENT" "$SOCK" "evren/r$k" "$WORK/evren.ready$k" "$WORK/evren.go$k" "$WORK/evren.sub$k")")
		wait_until 10 test -e "$WORK/evren.ready$k" || { fail "subscriber $k did not start: $(cat "$WORK/evren.sub$k")"; return 1; }
		kill -STOP "$DAEMON_PID"
		run_as "$TEST_UID" "" mv "$d/r$((k - 1))" "$d/r$k" || echo "mv failed" >"$WORK/evren.mv"
		touch "$WORK/evren.go$k"
		sleep 0.3 # the Watch is in the daemon's socket
		kill -CONT "$DAEMON_PID"
		[ ! -e "$WORK/evren.mv" ] || { fail "uid $TEST_UID could not rename its v1 cgroup"; return 1; }
		wait_until 10 grep -q '^ok' "$WORK/evren.sub$k" || { fail "the watch of evren/r$k failed: $(cat "$WORK/evren.sub$k")"; return 1; }
		[ "$k" != 1 ] || wait_until 5 event_seen "$out1" removed evren/r0 ||
			fail "the watch of evren/r0 was not told its cgroup was renamed away: $(cat "$out1" "$out1.err")"
	done
	end_pids "$w1" "${subs[@]:0:7}"
	# Those watches (if any is left) ended once the daemon logged their connections' ends.
	for pid in "${subs[@]:0:7}"; do
		wait_until 10 grep -q "client pid $pid gone$" "$WORK/daemon.log" ||
			fail "the daemon did not see subscriber $pid's connection end"
	done
	watch_start "$out2" "$TEST_UID" "" evren/r8 populated subtree || return 1
	run_as "$TEST_UID" "" mkdir "$d/r8/c"
	pid=$(spawn_sleeper "$TEST_UID" "")
	echo "$pid" >"$d/r8/c/cgroup.procs"
	# v1 emptiness is checked once a second.
	wait_until 5 event_seen "$out2" populated evren/r8/c ||
		fail "the subtree watch of evren/r8 did not follow its new child after the watches of the same directory under 8 other names ended: $(cat "$out2")"
	end_pids "$pid" "$WATCH_PID" "${subs[7]}"
}

# A watch follows names (cgmanager(8), EVENTS): a v1 cgroup renamed beneath a subtree watch is told `removed` under
# its old name and followed as a new cgroup under its new one. Root's subtree watch of TEST_UID's evmv; the user
# makes c, renames it d once the watch follows c and gives d a task: the watch hears `removed` of evmv/c and
# `populated` of evmv/d (h-events5 followed neither IN_MOVE_SELF nor IN_MOVED_TO: c stayed followed under a name
# that no longer was, d was never followed).
test_events_v1_renamed_child_told_removed_and_followed_by_its_new_name() {
	multi_hierarchy || skip "cgroup2 has no rename"
	local h d out=$WORK/evmv.out pid
	h=$(sb_hierarchies | grep -vxE 'unified|memory|pids|freezer' | head -1)
	delegate evmv "$TEST_UID" "$h"
	d=$(sb_path "$h")/evmv
	watch_start "$out" 0 "" evmv subtree || return 1
	run_as "$TEST_UID" "" mkdir "$d/c"
	sleep 0.5 # the daemon reads the mkdir and follows c
	run_as "$TEST_UID" "" mv "$d/c" "$d/d" || { fail "uid $TEST_UID could not rename its v1 cgroup"; return 1; }
	expect_event "$out" removed evmv/c
	pid=$(spawn_sleeper "$TEST_UID" "")
	echo "$pid" >"$d/d/cgroup.procs"
	expect_event "$out" populated evmv/d
	end_pids "$pid" "$WATCH_PID"
}

# Unwatch ends a watch: its reply is the last word of it. A subscriber that read nothing while populated flags
# changed for 3 s beneath its subtree watch (a task moved round 200 cgroups: the socket full, the daemon's queue of
# 64 full) calls Unwatch and reads until the reply, then 2 s more: no Event of that watch's id may come after the
# reply. The daemon answers Unwatch at once, ahead of the events still queued for the connection (dbus/events.c),
# and sends those later under an id that is no longer a watch: a client that dropped its state for the id on the
# reply (a library's callback data, freed) is handed events of it.
test_events_no_event_of_a_watch_after_its_unwatch_reply() {
	has_hierarchy unified || skip "no cgroup2 hierarchy here"
	cgm_root new evunw >/dev/null
	local ready=$WORK/evunw.ready go=$WORK/evunw.go res=$WORK/evunw.res d pid sub i
	d=$(sb_path unified)/evunw
	for i in $(seq 0 199); do mkdir "$d/f$i"; done
	chmod 777 "$WORK"
	sub=$(spawn_as 0 "" bash -c 'exec python3 "$0" "$1" unwatch evunw "$2" "$3" >"$4" 2>&1' "$WATCH_CLIENT" "$SOCK" \
		"$ready" "$go" "$res")
	wait_until 10 test -e "$ready" || fail "the subscriber did not start: $(cat "$res")"
	pid=$(spawn_sleeper 0 "")
	python3 -c '
import os, sys, time
pid, d = sys.argv[1].encode(), sys.argv[2]
fds = [os.open("%s/f%d/cgroup.procs" % (d, i), os.O_WRONLY) for i in range(200)]
end = time.time() + 3
k = 0
while time.time() < end:
    k += 1
    os.write(fds[k % 200], pid)
' "$pid" "$d"
	end_pids "$pid"
	sleep 1
	touch "$go"
	wait_until 70 grep -q . "$res" || fail "the subscriber did not report"
	echo "measured: $(cat "$res")"
	grep -qE '^[0-9]+ events before Unwatch.s reply, 0 of watch [0-9]+ after it \(.*\)$' "$res" ||
		fail "events of an unwatched watch came after Unwatch's reply: $(cat "$res")"
	end_pids "$sub"
}

# Each event of a descendant is checked by opening every cgroup from the watched one down to it (may_list_down_to),
# once for each watch that follows it; the caps count cgroups followed, not that work. Within their caps, two users
# hold 28 subtree watches (7 on each of 4 connections: 33 cgroups each, 462 of each uid's 512) of 60001's evamp,
# under which 60001 made two chains 16 deep (a1/../a16, b1/../b16, plain mkdir on cgroup2), and 60001 moves its
# task between a16 and b16 every 5 ms: each move changes the populated flag of 32 cgroups, each checked 28 times
# at up to 17 levels. Another client's Ping, on a connection of its own (no client start in the figure), must not
# wait behind that more than the deep-tree cases allow (250 ms).
test_events_subtree_watches_of_deep_chains_do_not_stall_other_clients() {
	has_hierarchy unified || skip "no cgroup2 hierarchy here"
	delegate evamp "$TEST_UID"
	ev_cleanup evamp
	local d i u a b pid mover subs=() res=$WORK/evamp.pings p99
	d=$(sb_path unified)/evamp
	run_as "$TEST_UID" "" /usr/bin/python3 -c '
import os, sys
for c in "ab":
    p = sys.argv[1]
    for i in range(1, 17):
        p += "/%s%d" % (c, i)
        os.mkdir(p)
' "$d" || { fail "uid $TEST_UID could not make two chains 16 deep beneath evamp"; return 1; }
	chmod 777 "$WORK"
	for i in 1 2 3 4; do
		u=$TEST_UID
		[ "$i" -gt 2 ] && u=$TEST_UID2
		subs+=("$(hold_spawn "$u" evamp 7 "$WORK/evamp.ready$i" populated subtree)")
		hold_ready "$WORK/evamp.ready$i" || return 1
	done
	pid=$(spawn_sleeper "$TEST_UID" evamp)
	a=$d$(printf '/a%d' $(seq 16))
	b=$d$(printf '/b%d' $(seq 16))
	mover=$(spawn_as "$TEST_UID" "" /usr/bin/python3 -c '
import sys, time
a, b, pid = sys.argv[1], sys.argv[2], sys.argv[3]
end = time.time() + 10
while time.time() < end:
    for t in (a, b):
        with open(t + "/cgroup.procs", "w") as f:
            f.write(pid)
        time.sleep(0.005)
' "$a" "$b" "$pid")
	sleep 1
	run_as 0 "" python3 "$here/raw_client.py" "$SOCK" ping-every 300 20 60 >"$res"
	end_pids "$mover" "$pid" "${subs[@]}"
	! grep -q failed "$res" || fail "another client's ping failed: $(grep -c failed "$res") of $(wc -l <"$res")"
	p99=$(pct "$res" 99)
	echo "measured: another client's Ping (ms) while 28 subtree watches follow two chains 16 deep: p50 $(pct "$res" 50) p99 $p99 max $(pct "$res" 100)"
	# Judged in lanes host and host-asan. In the v2 VM, its emulated cpus beside CI's two other lanes, the tail is
	# the host's: p99 399 ms alone, 1061 ms in ci12 (p50 5 ms both times); under valgrind 1450 ms.
	[ "$LANE" = v2 ] || ! latency_judged || [ "$p99" -le 250 ] ||
		fail "another client's Ping took up to $(pct "$res" 100) ms (p99 $p99 ms)"
}

# A subtree watch is charged for each descendant it follows, to the subscriber's uid, and the descendants are made
# by whoever owns the watched cgroup: plain mkdir, free to the user a cgroup is delegated to. Root's account (uid
# 0: every root supervisor's connections together) is 512. Two root subscribers (a login manager's and a runtime's
# connections) watch 60001's evacc with subtree; 60001 makes 300 children in it. Root's next Watch, of evroot (a
# cgroup of root's own that no user can touch), must not be refused because of what 60001 made.
test_events_a_users_mkdirs_do_not_use_up_roots_watches() {
	has_hierarchy unified || skip "no cgroup2 hierarchy here"
	delegate evacc "$TEST_UID"
	ev_cleanup evacc
	cgm_root new evroot >/dev/null
	local d out1=$WORK/evacc1.out out2=$WORK/evacc2.out w1 w2 err=$WORK/evacc.err
	d=$(sb_path unified)/evacc
	watch_start "$out1" 0 "" evacc subtree || return 1
	w1=$WATCH_PID
	watch_start "$out2" 0 "" evacc subtree || return 1
	w2=$WATCH_PID
	run_as "$TEST_UID" "" /usr/bin/python3 -c '
import os, sys
for i in range(300):
    os.mkdir("%s/c%d" % (sys.argv[1], i))
' "$d" || { fail "uid $TEST_UID could not make 300 children of evacc"; return 1; }
	# Both watches have met their connection's cap once each says it misses events.
	wait_until 10 grep -q '"event":"lost"' "$out1" && wait_until 10 grep -q '"event":"lost"' "$out2" ||
		fail "the root watches did not reach their caps: $(tail -1 "$out1") $(tail -1 "$out2")"
	if ! run_as 0 "" timeout -k 2 2 "$CGM" --socket "$SOCK" watch evroot 2>"$err"; then
		grep -q '^watching' "$err" ||
			fail "root's Watch of its own evroot was refused after uid $TEST_UID made 300 cgroups: $(cat "$err")"
	fi
	end_pids "$w1" "$w2"
}

# watch_id UID NAME: the id a fresh `cgm watch NAME` of UID is given (its connection then ends).
watch_id() {
	local out=$WORK/evid.$RANDOM
	watch_start "$out" "$1" "" "$2" || return 1
	sed -nE 's/^watching .* \(watch ([0-9]+)\)$/\1/p' "$out.err"
	end_pids "$WATCH_PID"
}

# Ids are one counter of the whole daemon: two watches of 60002's, one after the other, with none or three of
# root's in between (a login manager's, a runtime's), are given ids whose difference is the number of watches
# anyone made meanwhile. A subscriber learns how often other users' supervisors subscribe (a login, a container
# started) by watching now and then; its ids need only be its own connection's, or not guessable.
test_events_watch_ids_do_not_count_other_users_watches() {
	cgm_root new evid >/dev/null
	local a b c e i roots=()
	a=$(watch_id "$TEST_UID2" evid) && b=$(watch_id "$TEST_UID2" evid) || return 1
	for i in 1 2 3; do
		watch_start "$WORK/evidroot$i.out" 0 "" evid || return 1
		roots+=("$WATCH_PID")
	done
	c=$(watch_id "$TEST_UID2" evid) || return 1
	e=$(watch_id "$TEST_UID2" evid) || return 1
	end_pids "${roots[@]}"
	echo "measured: uid $TEST_UID2's ids: $a, $b; then, root's three watches later, $c, $e"
	[ $((c - b)) -ne 4 ] ||
		fail "uid $TEST_UID2's watch ids $b then $c: the difference tells that 3 other watches were made in between"
}

# Ids are each connection's (the case above), so the same number names watches of two connections: Unwatch finds
# an id only among its caller's own. A watches evido twice (1, 2), B once (1): B's Unwatch of 2 (A's alone) is
# refused, B's of 1 ends its own only (A's Unwatch of 1 and 2 then succeed), and A's next id is 3: an id is not
# given again on its connection.
test_events_unwatch_finds_only_the_callers_own_ids() {
	cgm_root new evido >/dev/null
	local res
	res=$(run_as 0 "" python3 "$WATCH_CLIENT" "$SOCK" ids evido 2>&1) || true
	echo "measured: $res"
	[ "$res" = "A ids 1 2, B id 1; B unwatch 2: org.freedesktop.DBus.Error.FileNotFound; B unwatch 1: ok; A unwatch 1: ok; A unwatch 2: ok; A's next id 3" ] ||
		fail "ids and Unwatch across two connections: $res"
}

# exit_to_empty_ms H NAME OUT: a root task put into H:NAME (which a watch prints to OUT) and killed once the
# watch told populated; prints how many ms after the task's exit the daemon read the cgroup empty.
exit_to_empty_ms() {
	local h=$1 name=$2 out=$3 pid t_exit t_ev
	pid=$(spawn_sleeper 0 "")
	echo "$pid" >"$(sb_path "$h")/$name/cgroup.procs"
	expect_event "$out" populated "$name" 15 || return 1
	t_exit=$(kill_and_time "$pid")
	expect_event "$out" empty "$name" 30 || return 1
	t_ev=$(event_field "$out" empty "$name" time_us)
	echo $(((t_ev - t_exit) / 1000))
}

# v1 emptiness is checked once a second (cgmanager(8), EVENTS), but event_source_tick checks one polled cgroup per
# call (its first check leaves fewer than POPULATED_VISITS of the turn's visits, and the next waits for the next
# call, 10 ms later): at most 100 checks a second for the whole daemon. Root watches evvict, a v1 cgroup (in
# name=systemd alone, so v1 tells its emptiness); 60001, within its cap, follows 500 cgroups of its own there (two
# subtree watches, 250 children each, plain mkdir). Root's task in evvict exits: its `empty` must come within the
# documented second (2 s allowed), not after a round of every user's cgroups.
test_events_v1_emptiness_of_roots_watch_not_delayed_by_a_users_watches() {
	local h=name=systemd d out=$WORK/evvict.out ms subs=() i
	has_hierarchy "$h" || skip "no $h hierarchy here"
	cgm_root create "$h" evvict >/dev/null
	delegate evpoll "$TEST_UID" "$h"
	ev_cleanup evpoll
	d=$(sb_path "$h")/evpoll
	run_as "$TEST_UID" "" /usr/bin/python3 -c '
import os, sys
for c in "AB":
    os.mkdir("%s/%s" % (sys.argv[1], c))
    for i in range(250):
        os.mkdir("%s/%s/c%d" % (sys.argv[1], c, i))
' "$d" || { fail "uid $TEST_UID could not make its 500 cgroups"; return 1; }
	watch_start "$out" 0 "" evvict populated empty || return 1
	chmod 777 "$WORK"
	for i in A B; do
		subs+=("$(hold_spawn "$TEST_UID" "evpoll/$i" 1 "$WORK/evpoll.ready$i" removed subtree)")
		hold_ready "$WORK/evpoll.ready$i" || return 1
	done
	ms=$(exit_to_empty_ms "$h" evvict "$out") || return 1
	end_pids "${subs[@]}" "$WATCH_PID"
	echo "measured: root's empty of evvict $ms ms after its task exited, while uid $TEST_UID follows 500 v1 cgroups"
	[ "$ms" -le 2000 ] ||
		fail "root's empty of evvict came $ms ms after its last task exited (v1's check: once a second)"
}

# v1 emptiness checks are shared between accounts: 60001, within its cap, holds 30 subtree watches of populated and
# empty (one a connection), at levels 0, 17, 34, ... of a chain of its own 780 deep (plain mkdir): 510 cgroups
# followed, each with more than 256 beneath, so that each check takes a whole turn's 256 visits (a round of theirs
# takes 5 s at a turn each 10 ms). Root watches evfair (v1 alone); its task exits: its `empty` must come within the
# documented second (2 s allowed), not behind 60001's round (on h-events5 5.3 s).
test_events_v1_emptiness_checks_are_shared_fairly_between_accounts() {
	local h=name=systemd d out=$WORK/evfair.out ms subs=() i j name
	has_hierarchy "$h" || skip "no $h hierarchy here"
	# Its 30 Watches of a chain 780 deep outlast the client's 5 s under valgrind (ci12); it is a latency case, which
	# lanes host and host-asan judge.
	latency_judged || skip "a latency case: the daemon under valgrind cannot set up its 30 watches in time"
	cgm_root create "$h" evfair >/dev/null
	delegate evfairu "$TEST_UID" "$h"
	ev_cleanup evfair evfairu
	d=$(sb_path "$h")/evfairu
	run_as "$TEST_UID" "" /usr/bin/python3 -c '
import os, sys
p = sys.argv[1]
for i in range(780):
    p += "/d"
    os.mkdir(p)
' "$d" || { fail "uid $TEST_UID could not make its chain 780 deep"; return 1; }
	watch_start "$out" 0 "" evfair populated empty || return 1
	chmod 777 "$WORK"
	# Five at a time: 30 Python starts at once on a loaded host outlast the client's 5 s wait for a reply.
	for i in $(seq 0 29); do
		name=evfairu$(for _ in $(seq $((i * 17))); do printf /d; done)
		subs+=("$(hold_spawn "$TEST_UID" "$name" 1 "$WORK/evfair.ready$i" populated empty subtree)")
		[ $((i % 5)) = 4 ] || continue
		for j in $(seq $((i - 4)) "$i"); do hold_ready "$WORK/evfair.ready$j" || return 1; done
	done
	ms=$(exit_to_empty_ms "$h" evfair "$out") || return 1
	end_pids "${subs[@]}" "$WATCH_PID"
	echo "measured: root's empty of evfair $ms ms after its task exited, while uid $TEST_UID's 30 watches have 510 v1 cgroups checked for emptiness"
	[ "$ms" -le 2000 ] ||
		fail "root's empty of evfair came $ms ms after its last task exited (v1's check: once a second)"
}

# The churn case's rename: a cgroup's removal is found by its name in the parent's IN_DELETE (on_parent_event), but
# v1 lets its owner rename it first (within its parent), and nothing follows IN_MOVED_*. Root's subtree watch of
# 60001's evrc (all events: it follows evrc in the freezer hierarchy, where nothing is polled); 60001 makes c in
# freezer:/evrc, lets the daemon follow it, renames it c2 and removes c2, 100 times. Each node of a c stays, with
# its inotify watch and its unit of root's account, for as long as the watch lasts (at 256, the watch stops
# following anything new). Once nothing is beneath evrc, the daemon must hold no more inotify watches than before.
test_events_v1_renamed_then_removed_child_leaves_no_inotify_watch() {
	has_hierarchy freezer || skip "no v1 freezer hierarchy here"
	delegate evrc "$TEST_UID"
	ev_cleanup evrc
	local out=$WORK/evrc.out d=$(sb_path freezer)/evrc wds0
	watch_start "$out" 0 "" evrc subtree || return 1
	wds0=$(daemon_inotify_wds)
	run_as "$TEST_UID" "" /usr/bin/python3 -c '
import os, sys, time
d = sys.argv[1]
for i in range(100):
    os.mkdir(d + "/c")
    time.sleep(0.02)
    os.rename(d + "/c", d + "/c2")
    os.rmdir(d + "/c2")
' "$d" || { fail "uid $TEST_UID could not make, rename and remove its v1 cgroup"; return 1; }
	wait_until 5 test "$(daemon_inotify_wds)" -le "$wds0" ||
		fail "after 100 children renamed and removed the daemon holds $(daemon_inotify_wds) inotify watches, $wds0 before"
	end_pids "$WATCH_PID"
}

# A subscriber that does not read holds at most 64 events in the daemon, each with its name (cgmanager(8),
# EVENTS), and a name is up to 4 KiB: the bound is per connection, and a user may hold 128. 60001 names a cgroup of
# its own 14 levels of 250-byte names beneath evmem (3.5 KiB), watches it from 120 connections of one process that
# reads nothing, and moves its task in and out for 6 s. The daemon's RSS must not grow by more than the 16 MiB the
# hostile-load cases allow one user's attack (t_load.sh).
test_events_unread_subscribers_of_one_user_bounded_with_long_names() {
	has_hierarchy unified || skip "no cgroup2 hierarchy here"
	delegate evmem "$TEST_UID"
	ev_cleanup evmem
	local d name out=$WORK/evmem.out sub pid rss0 rss1
	d=$(sb_path unified)/evmem
	name=$(run_as "$TEST_UID" "" /usr/bin/python3 -c '
import os, sys
p, n = sys.argv[1], "evmem"
for i in range(14):
    c = ("%02d" % i) + "x" * 248
    p += "/" + c
    n += "/" + c
    os.mkdir(p)
print(n)
' "$d") || { fail "uid $TEST_UID could not make its long-named cgroups"; return 1; }
	chmod 777 "$WORK"
	sub=$(spawn_as "$TEST_UID" "" bash -c 'exec /usr/bin/python3 "$0" "$1" many "$2" 120 120 >"$3" 2>&1' "$WATCH_CLIENT" \
		"$SOCK" "$name" "$out")
	wait_until 60 grep -qE '^(error|120 ok)' "$out" || fail "the watches did not finish: $(cat "$out")"
	grep -q '^120 ok' "$out" || { fail "the watches were refused: $(cat "$out")"; return 1; }
	rss0=$(daemon_rss_kb)
	pid=$(spawn_sleeper "$TEST_UID" evmem)
	run_as "$TEST_UID" "" /usr/bin/python3 -c '
import sys, time
top, deep, pid = sys.argv[1], sys.argv[2], sys.argv[3]
end = time.time() + 6
while time.time() < end:
    for t in (deep, top):
        with open(t + "/cgroup.procs", "w") as f:
            f.write(pid)
        time.sleep(0.012)
' "$d" "$(sb_path unified)/$name" "$pid"
	sleep 1
	rss1=$(daemon_rss_kb)
	end_pids "$pid" "$sub"
	echo "measured: daemon RSS ${rss0} KiB with 120 watches of a ${#name}-byte name, ${rss1} KiB after 6 s of events"
	if [ "$LANE" = host ] || [ "$LANE" = v2 ]; then
		[ $((rss1 - rss0)) -le 16384 ] ||
			fail "the daemon grew by $(((rss1 - rss0) / 1024)) MiB for one user's subscribers that do not read (bound 16 MiB)"
	fi
}

# --max-watches is one cap for all clients, and unlike --max-connections (SERVER_ROOT_RESERVED_CONNS) it keeps
# nothing for root: accounts that each stay within their own cap (every container has one: a host of 32 containers
# fills the default 16384) fill it together, and then root's supervisors can watch nothing. A daemon of this
# test's own with --max-watches 1024 stands for that host: 60001 and 60002 each follow their 512, then root's
# Watch of a cgroup of its own must still be served.
test_events_total_watch_cap_keeps_room_for_root() {
	local sock=$WORK/evtot.sock log=$WORK/evtot.log u pids=() err=$WORK/evtot.err
	daemon_spawn "$sock" "$log" --max-watches 1024
	wait_until 10 "$CGM" --socket "$sock" ping || fail "no daemon on $sock: $(cat "$log")"
	cgm_root new evtot >/dev/null
	chmod 777 "$WORK"
	for u in "$TEST_UID" "$TEST_UID2"; do
		pids+=("$(spawn_as "$u" "" bash -c 'exec /usr/bin/python3 "$0" "$1" many evtot 600 3 >"$2" 2>&1' "$WATCH_CLIENT" \
			"$sock" "$WORK/evtot.$u")")
		wait_until 60 grep -q '^error' "$WORK/evtot.$u" || fail "uid $u's watches were not capped: $(cat "$WORK/evtot.$u")"
	done
	echo "measured: $(head -1 "$WORK/evtot.$TEST_UID") for $TEST_UID, $(head -1 "$WORK/evtot.$TEST_UID2") for $TEST_UID2"
	if ! run_as 0 "" timeout -k 2 2 "$CGM" --socket "$sock" watch evtot 2>"$err"; then
		grep -q '^watching' "$err" || fail "root's Watch was refused once two users had their own caps' worth: $(cat "$err")"
	fi
	end_pids "${pids[@]}"
	stop_pid "$SPAWNED_PID" || fail "exit status $? on SIGTERM"
}

# The rename case again, as a user would run it to take the daemon down: 60001 owns evcr (v1, no controller's
# events, so the watches' primary hierarchy). 1000 times: it makes evcr/aK, watches it on one connection, renames
# it bK, watches bK (subtree) on a second, and closes the first while a third connection asks for watches of its
# cgroups of 66 name lengths (watch_client.py rename-churn). Each round frees a node whose wd slot stays behind,
# and the allocations between the free and the kernel's IN_IGNORED land in its memory: on_inotify then takes
# whatever is there for a node. The daemon must be alive and answer afterwards.
test_events_v1_rename_unwatch_churn_does_not_crash_the_daemon() {
	multi_hierarchy || skip "cgroup2 has no rename"
	local h d out=$WORK/evcr.out
	h=$(sb_hierarchies | grep -vxE 'unified|memory|pids|freezer' | head -1)
	delegate evcr "$TEST_UID" "$h"
	ev_cleanup evcr
	d=$(sb_path "$h")/evcr
	chmod 777 "$WORK"
	run_as "$TEST_UID" "" /usr/bin/python3 "$WATCH_CLIENT" "$SOCK" rename-churn "$d" evcr 1000 >"$out" 2>&1 || true
	sleep 1
	daemon_alive || { fail "the daemon died during uid $TEST_UID's renames and unwatches ($(tail -1 "$out"))"; return 1; }
}

# A watch names its cgroup as the subscriber did, and a descendant beneath that name (cgmanager(8), EVENTS); the
# caller's own cgroup is "/" as cgm prints it and as Watch takes it. 60001, in its delegated evslash, watches "/"
# with subtree and makes job with a task: the event must name job (or /job), not //job, a name no call takes.
test_events_descendant_of_a_watch_of_slash_is_named_right() {
	delegate evslash "$TEST_UID"
	ev_cleanup evslash
	local out=$WORK/evslash.out pid
	watch_start "$out" "$TEST_UID" evslash / populated subtree || return 1
	cgm_as "$TEST_UID" evslash new job >/dev/null
	pid=$(spawn_sleeper "$TEST_UID" evslash/job)
	wait_until 5 grep -q '"event":"populated"' "$out" || fail "no populated event came: $(cat "$out" "$out.err")"
	sleep 1.2
	end_pids "$pid" "$WATCH_PID"
	! grep -q '"name":"//' "$out" || fail "the descendant's event names it with a doubled slash: $(grep '"name":"//' "$out" | head -1)"
	grep -qE '"name":"/?job","event":"populated"' "$out" || fail "no populated of job: $(cat "$out")"
}
