# Misbehaving clients on raw sockets (raw_client.py): each is answered or dropped, the daemon keeps no
# descriptor of theirs, and a well-behaved client notices nothing.

# Debian's python3 (install-deps.sh), not one in root's home that the test uid cannot run.
rawc() { run_as "$TEST_UID" "" /usr/bin/python3 "$here/raw_client.py" "$SOCK" "$@"; }
daemon_fds() { ls "/proc/$DAEMON_PID/fd" | wc -l; }

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
