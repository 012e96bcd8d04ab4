# Misbehaving clients on raw sockets (raw_client.py): each is answered or dropped, the daemon keeps no
# descriptor of theirs, and a well-behaved client notices nothing.

# Debian's python3 (install-deps.sh), not one in root's home that the test uid cannot run.
rawc() { run_as "$TEST_UID" "" /usr/bin/python3 "$here/raw_client.py" "$SOCK" "$@"; }

# expect_raw EXPECTED MODE [ARG]: the mode's result line matches EXPECTED (a regex).
expect_raw() {
	local want=$1 out
	shift
	out=$(rawc "$@" 2>&1 | tail -1)
	[[ $out =~ ^$want$ ]] || fail "raw client $*: '$out', expected '$want'"
}

# Waits for the daemon's fd count to come back to what it was (it drops connections in its own turn).
expect_fds_back_to() {
	local base=$1 i
	for i in $(seq 50); do
		[ "$(daemon_fds)" -le "$base" ] && return 0
		sleep 0.1
	done
	fail "the daemon holds $(daemon_fds) fds, $base before"
}

test_protocol_garbage_and_broken_messages_are_dropped() {
	local base
	base=$(daemon_fds)
	expect_raw closed garbage
	expect_raw closed garbage-after-auth
	expect_raw closed huge-length
	for stage in connect nul auth negotiate begin-less; do
		expect_raw "hung up at $stage" midauth "$stage"
	done
	# sd-bus drops a call without a member unanswered; the Ping after it is answered.
	expect_raw "(return|error .*)" no-member
	expect_raw "error org.freedesktop.DBus.Error.(InvalidArgs|InconsistentMessage)" bad-body
	expect_raw "40 ok" many 40
	expect_fds_back_to "$base"
	expect_raw return ping
}

# sd-bus stays in the auth exchange after a BEGIN it refused; the intake must not then take what follows
# for messages, or a message hidden in another one's body would pass its size check unseen.
test_protocol_begin_before_auth_is_dropped() {
	local base rss0 rss1
	base=$(daemon_fds)
	rss0=$(awk '/^VmRSS/ {print $2}' "/proc/$DAEMON_PID/status")
	expect_raw closed begin-first
	rss1=$(awk '/^VmRSS/ {print $2}' "/proc/$DAEMON_PID/status")
	[ "$rss1" -lt $((rss0 + 8192)) ] || fail "the daemon grew from $rss0 to $rss1 KiB"
	grep -q "BEGIN before it was authenticated" "$WORK/daemon.log" || fail "the daemon did not say why it dropped it"
	expect_fds_back_to "$base"
	expect_raw return ping
}

test_protocol_fds_are_bounded_per_message_and_refused_in_auth() {
	local base i
	base=$(daemon_fds)
	for i in 1 2 3 4 5; do expect_raw closed fds-with-begin; done
	expect_fds_back_to "$base"
	# 8 fds on every byte of one message's header: refused once the message has more than 8.
	expect_raw "closed after ([1-9]|1[0-6]) bytes" fd-drip 8
	expect_fds_back_to "$base"
	expect_raw return ping
}

# --max-connections-per-uid counts a user's connections from the user namespaces it made together with its
# own, whatever uids they map; a namespace root made counts on its own, whatever uids it holds.
test_protocol_connection_cap_counts_the_user_behind_a_user_namespace() {
	local dir=$WORK/cap sock=$WORK/cap/sock ns holder out
	mkdir -p "$dir"
	chmod 1777 "$dir"
	daemon_spawn "$sock" "$WORK/cap.log" --max-connections-per-uid 3
	wait_until 5 "$CGM" --socket "$sock" ping || fail "no daemon on $sock: $(cat "$WORK/cap.log")"
	capc() { /usr/bin/python3 "$here/raw_client.py" "$sock" hold "$@"; }
	# A user namespace that TEST_UID made, its ids mapped by root to 200000-200009, as newuidmap would.
	ns=$(spawn_as "$TEST_UID" "" unshare --user sleep 60)
	wait_until 5 in_own_userns "$ns" || fail "pid $ns made no user namespace"
	echo "0 200000 10" >"/proc/$ns/uid_map"
	echo "0 200000 10" >"/proc/$ns/gid_map"
	# TEST_UID holds 2; the namespace's root (host uid 200000) gets the third, not three of its own.
	run_as "$TEST_UID" "" /usr/bin/python3 "$here/raw_client.py" "$sock" hold 2 6 >"$dir/held" &
	holder=$!
	SB_PIDS+=("$holder")
	wait_until 10 grep -q admitted "$dir/held" || fail "the holder did not connect"
	expect_eq "$(cat "$dir/held")" "2 admitted" "TEST_UID's connections"
	out=$(run_as 0 "" nsenter -t "$ns" -U --setuid 0 --setgid 0 -- /usr/bin/python3 "$here/raw_client.py" "$sock" hold 3 0)
	expect_eq "$out" "1 admitted" "connections of host uid 200000 in TEST_UID's user namespace"
	# Another uid has its own three.
	out=$(run_as $((TEST_UID + 1)) "" /usr/bin/python3 "$here/raw_client.py" "$sock" hold 4 0)
	expect_eq "$out" "3 admitted" "connections of uid $((TEST_UID + 1))"
	end_pids "$holder" "$ns"
	# A namespace that root made (a container): its uids 0 and 1 (host 300000, 300001) share three.
	out=$(run_as 0 "" "$BUILD/tests/nsexec" --map "0 300000 10" -- sh -c "
		/usr/bin/python3 '$here/raw_client.py' '$sock' hold 2 6 >'$dir/c0' & h=\$!
		until grep -q admitted '$dir/c0' 2>/dev/null; do sleep 0.1; done
		setpriv --reuid=1 --regid=1 --clear-groups /usr/bin/python3 '$here/raw_client.py' '$sock' hold 3 0
		kill \$h")
	expect_eq "$(cat "$dir/c0")" "2 admitted" "connections of the container's root"
	expect_eq "$out" "1 admitted" "connections of the container's uid 1 (host 300001)"
	grep -q "the user who made its user namespace" "$WORK/cap.log" || fail "the refusals were not logged"
	stop_pid "$SPAWNED_PID" || fail "exit status $? on SIGTERM; its log ends: $(tail -40 "$WORK/cap.log")"
}
# A connection whose process is gone (reaped, its pid free for another) before the daemon takes it serves
# nothing either: it is refused, or each request is (a pidfd made of the exited task says it exited).
test_protocol_connection_of_a_process_gone_before_accept_serves_nothing() {
	local dir=$WORK/unaccepted sock=$WORK/unaccepted/sock out
	mkdir -p "$dir"
	chmod 1777 "$dir"
	daemon_spawn "$sock" "$WORK/unaccepted.log"
	wait_until 5 "$CGM" --socket "$sock" ping || fail "no daemon on $sock: $(cat "$WORK/unaccepted.log")"
	kill -STOP "$SPAWNED_PID"
	run_as "$TEST_UID" "" /usr/bin/python3 "$here/raw_client.py" "$sock" orphan-unaccepted "$dir/out" &
	SB_PIDS+=("$!")
	wait_until 10 test -e "$dir/out.ready" || { kill -CONT "$SPAWNED_PID"; fail "the client did not connect"; }
	kill -CONT "$SPAWNED_PID"
	wait_until 10 test -s "$dir/out" || fail "the orphaned client wrote nothing"
	out=$(cat "$dir/out")
	[[ $out == closed || $out == "error org.freedesktop.DBus.Error.AccessDenied: the process that opened this connection (pid "*") has exited" ]] ||
		fail "the client of a process gone before the accept got: $out"
	stop_pid "$SPAWNED_PID" || fail "exit status $? on SIGTERM; its log ends: $(tail -40 "$WORK/unaccepted.log")"
}

# A process that connected as root and is another uid by the time the daemon takes the connection. Before
# Linux 6.5 (lane v2's 6.1: not named protocol_, so that lane runs it) the daemon pins it by pid, and a
# process of another uid than the one that connected is refused: that is what a pid handed out again to
# another user looks like. From 6.5 the kernel's pidfd is of the very process that connected, which the
# connection's credentials (root's, taken at connect) then serve.
test_peer_pinned_by_pid_must_keep_the_uid_it_connected_with() {
	local dir=$WORK/setuid sock=$WORK/setuid/sock out want=return
	mkdir -p "$dir"
	chmod 1777 "$dir"
	printf '%s\n' "$(uname -r)" 6.5 | sort -VC && want=closed # before 6.5
	daemon_spawn "$sock" "$WORK/setuid.log"
	wait_until 10 "$CGM" --socket "$sock" ping || fail "no daemon on $sock: $(cat "$WORK/setuid.log")"
	kill -STOP "$SPAWNED_PID"
	run_as 0 "" /usr/bin/python3 "$here/raw_client.py" "$sock" setuid-unaccepted "$TEST_UID" "$dir/out" &
	SB_PIDS+=("$!")
	wait_until 10 test -e "$dir/out.ready" || { kill -CONT "$SPAWNED_PID"; fail "the client did not connect"; }
	kill -CONT "$SPAWNED_PID"
	wait_until 10 test -s "$dir/out" || fail "the client wrote nothing"
	out=$(cat "$dir/out")
	echo "measured: kernel $(uname -r): $out"
	expect_eq "$out" "$want" "the answer to a client that became uid $TEST_UID after connecting as root"
	stop_pid "$SPAWNED_PID" || fail "exit status $? on SIGTERM; its log ends: $(tail -40 "$WORK/setuid.log")"
}

# Out of file descriptors (RLIMIT_NOFILE 64): connections beyond what its fds allow are taken off the queue
# and closed (not left to fill it, nor to stall anyone), and once fds are free again new ones are served.
test_protocol_out_of_fds_refuses_connections_and_recovers() {
	local dir=$WORK/nofds sock=$WORK/nofds/sock holder n rc=0
	# Valgrind 3.19 keeps the top of the fd range for itself and near that limit is not consistent with the
	# kernel: with --trace-syscalls, socketpair() returns fd 53 to the daemon, then valgrind fails fcntl(53) and
	# close(53) with EBADF without entering the kernel, and sd-bus's safe_close() aborts on that EBADF
	# ("close_nointr(fd) != -EBADF"). Lanes host and host-asan run this with the kernel's own fd limit.
	[ "$LANE" != valgrind ] || skip "valgrind's fd emulation at RLIMIT_NOFILE makes sd-bus abort (see the comment)"
	mkdir -p "$dir"
	DAEMON_WRAPPER="prlimit --nofile=64:64 -- ${DAEMON_WRAPPER:-}" daemon_spawn "$sock" "$WORK/nofds.log"
	wait_until 10 "$CGM" --socket "$sock" ping || fail "no daemon on $sock: $(cat "$WORK/nofds.log")"
	# 40 connections held for 3 s (the holder exits then, which frees them).
	run_as 0 "" /usr/bin/python3 "$here/raw_client.py" "$sock" hold 40 3 >"$dir/held" &
	holder=$!
	SB_PIDS+=("$holder")
	wait_until 30 grep -q admitted "$dir/held" || fail "the holder did not finish connecting"
	n=$(cut -d' ' -f1 "$dir/held")
	echo "measured: $n of 40 connections admitted with 64 fds; the log says: $(grep -m1 -E "refused [0-9]+ connection" "$WORK/nofds.log")"
	[ "$n" -gt 0 ] && [ "$n" -lt 40 ] || fail "$n of 40 connections admitted with 64 fds"
	grep -qE "refused [0-9]+ connection.*: the daemon is out of (memory or )?file descriptors" "$WORK/nofds.log" ||
		fail "no refusal for want of fds logged: $(tail -5 "$WORK/nofds.log")"
	# Meanwhile a client is answered or refused at once, not left hanging.
	timeout 10 "$CGM" --socket "$sock" ping >/dev/null 2>&1 || rc=$?
	[ "$rc" != 124 ] || fail "a ping hung while the daemon was out of fds"
	wait "$holder" || true
	wait_until 5 "$CGM" --socket "$sock" ping || fail "no ping answered once fds were free"
	stop_pid "$SPAWNED_PID" || fail "exit status $? on SIGTERM; its log ends: $(tail -40 "$WORK/nofds.log")"
}

in_own_userns() { [ "$(readlink "/proc/$1/ns/user")" != "$(readlink /proc/self/ns/user)" ]; }

# A connection outlives the process that opened it (a child keeps it): the daemon serves no request on it,
# also while that process is an unreaped zombie, whose /proc/PID/cgroup reads as the root cgroup.
test_protocol_connection_of_an_exited_process_serves_nothing() {
	local dir=$WORK/orphan
	mkdir -p "$dir"
	chmod 1777 "$dir"
	# The shell becomes sleep, which never reaps the client that exits.
	run_as "$TEST_UID" "" sh -c "/usr/bin/python3 '$here/raw_client.py' '$SOCK' orphan '$dir/out' & exec sleep 5" >/dev/null 2>&1 &
	SB_PIDS+=("$!")
	wait_until 10 test -s "$dir/out" || fail "the orphaned client wrote nothing"
	[[ $(cat "$dir/out") == "error org.freedesktop.DBus.Error.AccessDenied: the process that opened this connection (pid "*") has exited" ]] ||
		fail "the orphaned client got: $(cat "$dir/out")"
}

# A set-uid-root program the user starts (su, sudo, here a set-uid copy of python3) connects as root but keeps
# the user's real uid, and the user may stop it: its connections count as the user's, so that a user holding
# many of them neither passes its own cap nor takes the connections kept for root (found by the review of
# pam_cgm's fixes: stopped su's held them). Its requests stay root's.
test_protocol_set_uid_root_connections_count_as_the_user_s() {
	local dir=$WORK/suidconn sock=$WORK/suidconn/sock py out
	mkdir -p "$dir/bin"
	chmod 1777 "$dir"
	chmod 755 "$dir/bin"
	py=$dir/bin/python3
	cp "$(readlink -f /usr/bin/python3)" "$py" && chown 0:0 "$py" && chmod 4755 "$py"
	daemon_spawn "$sock" "$WORK/suidconn.log" --max-connections 40 --max-connections-per-uid 3
	wait_until 5 "$CGM" --socket "$sock" ping || fail "no daemon on $sock: $(cat "$WORK/suidconn.log")"
	expect_eq "$(run_as "$TEST_UID" "" "$py" -c 'import os; print(os.geteuid(), os.getuid())')" "0 $TEST_UID" \
		"the set-uid copy's uids"
	run_as "$TEST_UID" "" "$py" "$here/raw_client.py" "$sock" hold 40 8 >"$dir/held" &
	SB_PIDS+=("$!")
	wait_until 10 grep -q admitted "$dir/held" || fail "the holder did not connect"
	expect_eq "$(cat "$dir/held")" "3 admitted" "connections of uid $TEST_UID's set-uid-root program"
	out=$("$CGM" --socket "$sock" ping 2>&1) || fail "root's ping while the user holds set-uid connections: $out"
	stop_pid "$SPAWNED_PID" || fail "exit status $? on SIGTERM; its log ends: $(tail -40 "$WORK/suidconn.log")"
}

# What a burst of connections took of the heap is given back once most of them have closed (malloc_trim when
# the connections fall to a quarter of their peak, src/dbus/server.c): glibc alone keeps it for later mallocs.
test_protocol_heap_of_a_burst_of_connections_is_given_back() {
	local sock=$WORK/burst.sock pid client anon0 anon1 anon2 i
	# malloc_trim and the one arena are glibc's: ASan and valgrind bring their own allocators.
	[ "$LANE" = host ] || [ "$LANE" = v2 ] || skip "lane $LANE's daemon does not use glibc's malloc"
	daemon_spawn "$sock" "$WORK/burst.log" --max-connections 700
	pid=$SPAWNED_PID
	trap 'stop_pid '"$pid"' 10' EXIT
	wait_until 5 "$CGM" --socket "$sock" ping || { fail "no daemon on $sock: $(cat "$WORK/burst.log")"; return 1; }
	rss_anon() { awk '/^RssAnon/ { print $2 }' "/proc/$pid/status"; }
	anon0=$(rss_anon)
	run_as 0 "" /usr/bin/python3 "$here/raw_client.py" "$sock" hold 600 1 >"$WORK/burst.out" &
	client=$!
	wait_until 30 grep -q admitted "$WORK/burst.out" || fail "the client held no connections"
	grep -qx "600 admitted" "$WORK/burst.out" || fail "connections admitted: $(cat "$WORK/burst.out")"
	anon1=$(rss_anon)
	wait "$client"
	for i in $(seq 100); do [ "$(ls "/proc/$pid/fd" | wc -l)" -le 30 ] && break; sleep 0.1; done
	sleep 0.2
	anon2=$(rss_anon)
	echo "measured: RssAnon idle $anon0 KiB, with 600 connections $anon1 KiB, after they closed $anon2 KiB"
	[ "$anon1" -gt $((anon0 + 1024)) ] || fail "600 connections took less than 1 MiB ($anon0 -> $anon1 KiB): nothing to give back"
	[ "$anon2" -le $((anon0 + 512)) ] || fail "after the connections closed the daemon keeps $anon2 KiB anonymous ($anon0 idle, $anon1 with them)"
}
