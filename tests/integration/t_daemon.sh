# The daemon itself: its socket, its options, its start-up and shutdown.

# extra_daemon SOCKET [WRAPPER...]: a second daemon in the sandbox root; its pid in EXTRA_PID.
extra_daemon() {
	local sock=$1
	shift
	(
		_enter "$BASHPID" "" || exit 99
		exec "$@" "$CGMANAGER" --socket "$sock" --log-level debug
	) >>"$WORK/extra.log" 2>&1 &
	EXTRA_PID=$!
	SB_PIDS+=("$!")
}

wait_for_socket() {
	local i
	for i in $(seq 100); do
		"$CGM" --socket "$1" ping 2>/dev/null && return 0
		sleep 0.05
	done
	fail "no daemon answered on $1"
}

test_daemon_help_lists_every_option() {
	local out
	out=$("$CGMANAGER" --help)
	for o in --socket --log-level --syslog --help --version; do
		echo "$out" | grep -q -- "$o" || fail "--help does not mention $o"
	done
	expect_refused "unknown|unrecognized" "$CGMANAGER" --bogus
	expect_refused "unknown log level" "$CGMANAGER" --log-level loud
}

test_daemon_socket_is_world_connectable() {
	expect_eq "$(stat -c %a "$SOCK")" 666 "socket mode"
	expect_ok cgm_as "$TEST_UID" "" ping
}

test_daemon_creates_socket_directory_and_cleans_up() {
	local sock=$WORK/deep/er/sock pid
	extra_daemon "$sock"; pid=$EXTRA_PID
	wait_for_socket "$sock"
	kill -TERM "$pid"
	wait "$pid" || fail "daemon exited with $? on SIGTERM"
	expect_missing "$sock"
	expect_exists "$WORK/deep/er"
}

test_daemon_refuses_second_live_daemon() {
	local out
	if out=$(run_as 0 "" "$CGMANAGER" --socket "$SOCK" 2>&1); then
		fail "a second daemon started on a live socket"
	fi
	echo "$out" | grep -q "already answers" || fail "unexpected refusal: $out"
	expect_ok cgm_root ping
}

test_daemon_replaces_stale_socket() {
	local sock=$WORK/stale.sock pid
	python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$sock"
	[ -S "$sock" ] || fail "could not make a stale socket"
	extra_daemon "$sock"; pid=$EXTRA_PID
	wait_for_socket "$sock"
	kill -INT "$pid"
	wait "$pid" || fail "daemon exited with $? on SIGINT"
	expect_missing "$sock"
}

test_daemon_refuses_to_replace_a_non_socket() {
	local f=$WORK/plainfile
	echo keep >"$f"
	expect_refused "not a socket" run_as 0 "" "$CGMANAGER" --socket "$f"
	expect_eq "$(cat "$f")" keep "file content"
}

test_daemon_steps_aside_into_leaf() {
	local h d
	for h in $(sb_hierarchies); do
		d=$(sb_path "$h")
		grep -qx "$DAEMON_PID" "$d/.cgmanager/cgroup.procs" || fail "daemon not in $h .cgmanager"
		[ -z "$(cat "$d/cgroup.procs")" ] || fail "sandbox root of $h still has tasks: $(cat "$d/cgroup.procs")"
	done
}

test_daemon_serves_only_its_subtree() {
	# The root the daemon serves is the sandbox: "/" from the daemon's view is the sandbox.
	local pid out
	pid=$(spawn_sleeper 0 "")
	expect_eq "$(cgm_root getpidcgroupabs memory "$pid")" / "abs path of a sandbox-root task"
	# A task outside the sandbox (this test runner itself) is out of reach, even for root.
	expect_refused "outside .* the tree this daemon manages" cgm_root getpidcgroupabs memory $$
	expect_refused "outside .* the tree this daemon manages" cgm_root movepidabs memory "" $$
	kill "$pid"
}

test_daemon_mounts_missing_hierarchy_detached() {
	# In a private mount namespace (the host's mounts are untouched) the pids
	# hierarchy (on a pure cgroup2 host, cgroup2 itself) is not mounted; the daemon must still serve it.
	sb_path pids >/dev/null || skip "no pids controller here"
	local sock=$WORK/detached.sock pid mp
	if has_hierarchy pids; then mp=$(_mount_of pids | awk '{print $1}'); else mp=$(_mount_of "" | awk '{print $1}'); fi
	extra_daemon "$sock" unshare -m --propagation private sh -c "umount '$mp' && exec \"\$@\"" sh
	pid=$EXTRA_PID
	wait_for_socket "$sock"
	"$CGM" --socket "$sock" listcontrollers | grep -qx pids || fail "pids not served"
	run_as 0 "" "$CGM" --socket "$sock" create pids detached1
	expect_exists "$(sb_path pids)/detached1"
	run_as 0 "" "$CGM" --socket "$sock" remove pids detached1
	grep -q "not mounted here; mounting it detached" "$WORK/extra.log" || fail "daemon did not report the detached mount"
	grep -q " $mp " /proc/self/mountinfo || fail "the host lost its $mp mount"
	kill -TERM "$pid"
	wait "$pid" || true
}
