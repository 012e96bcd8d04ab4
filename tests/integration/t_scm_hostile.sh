# Scm clients that misbehave: one goes silent, one forges credentials. Neither delays anyone else.

# scm_raw UID MODE: a raw 0.42-style CreateScm/MovePidScm client in Debian's python3 (python3-dbus).
#   MODE silent: never answers the kick; forge-requester: claims pid 1 / uid 0 as the requester;
#   forge-victim: honest requester, but claims the daemon's pid (another uid's task) as the victim.
scm_raw() {
	run_as "$1" "" /usr/bin/python3 - "$SOCK" "$2" "$DAEMON_PID" <<'PY'
import socket, struct, sys, time, dbus, select
sock_path, mode, daemon_pid = sys.argv[1], sys.argv[2], int(sys.argv[3])
bus = dbus.connection.Connection("unix:path=" + sock_path)
obj = bus.get_object("org.linuxcontainers.cgmanager", "/org/linuxcontainers/cgmanager", introspect=False)
iface = dbus.Interface(obj, "org.linuxcontainers.cgmanager0_0")
iface.Ping(0)
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
a.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
def kick():
    r, _, _ = select.select([a], [], [], 3)
    return bool(r) and a.recv(1) == b"1"
def cred(pid, uid, gid):
    try:
        a.sendmsg([b"p"], [(socket.SOL_SOCKET, socket.SCM_CREDENTIALS, struct.pack("iII", pid, uid, gid))])
        return "sent"
    except OSError as e:
        return "kernel refused: " + e.strerror
if mode == "silent":
    iface.CreateScm("memory", "hostile_silent", dbus.types.UnixFd(b))
    kick()
    time.sleep(7)          # past the daemon's deadline
    r, _, _ = select.select([a], [], [], 0)
    print("answer after silence:", a.recv(16) if r else None)
elif mode == "forge-requester":
    iface.CreateScm("memory", "hostile_forged", dbus.types.UnixFd(b))
    kick()
    print(cred(1, 0, 0))
elif mode == "forge-victim":
    iface.MovePidScm("memory", "", dbus.types.UnixFd(b))
    kick()
    print(cred(__import__("os").getpid(), __import__("os").getuid(), __import__("os").getgid()))
    kick()
    print(cred(daemon_pid, 0, 0))
PY
}

# ping_ms: how long one Ping from another client takes, in milliseconds.
ping_ms() {
	local t0 t1
	t0=$(date +%s%N)
	cgm_root ping
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}

test_scm_silent_client_times_out_and_delays_nobody() {
	local out ms
	scm_raw "$TEST_UID" silent >"$WORK/silent.out" 2>&1 &
	local pid=$!
	sleep 1
	ms=$(ping_ms)
	[ "$ms" -lt 300 ] || fail "a Ping took $ms ms while a client sat silent in an Scm exchange"
	wait "$pid" || fail "the silent client failed: $(cat "$WORK/silent.out")"
	grep -q "answer after silence: None" "$WORK/silent.out" || fail "silent client got: $(cat "$WORK/silent.out")"
	grep -q "CreateScm from pid .*: no credentials in time; dropped" "$WORK/daemon.log" || fail "the daemon did not drop it"
	expect_missing "$(sb_path memory)/hostile_silent"
}

test_scm_forged_requester_refused_by_kernel() {
	local out
	out=$(scm_raw "$TEST_UID" forge-requester)
	echo "$out" | grep -q "kernel refused: Operation not permitted" || fail "a forged requester was sent: $out"
	expect_missing "$(sb_path memory)/hostile_forged"
	expect_ok cgm_root ping
}

test_scm_forged_victim_refused_by_kernel() {
	local out
	out=$(scm_raw "$TEST_UID" forge-victim)
	expect_eq "$(echo "$out" | head -1)" sent "the honest requester credential"
	echo "$out" | sed -n 2p | grep -q "kernel refused: Operation not permitted" || fail "a forged victim was sent: $out"
	grep -qx "$DAEMON_PID" "$(sb_path memory)/.cgmanager/cgroup.procs" || fail "the daemon was moved"
	expect_ok cgm_root ping
}
