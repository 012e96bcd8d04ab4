# Requesters in other namespaces are the containers issue's; until then they get a clear refusal.

test_namespaces_user_ns_requester_not_yet_supported() {
	expect_refused "another user namespace.*not yet supported.*NotSupported" \
		run_as 0 "" unshare -U -r "$CGM" --socket "$SOCK" create memory ns1
	expect_missing "$(sb_path memory)/ns1"
}

test_namespaces_pid_ns_requester_not_yet_supported() {
	expect_refused "another pid namespace.*not yet supported.*NotSupported" \
		run_as 0 "" unshare -p -f "$CGM" --socket "$SOCK" getpidcgroup memory 1
}

test_namespaces_scm_calls_not_yet_supported() {
	# busctl cannot send fds; python3-dbus (Debian's python3) can.
	run_as 0 "" /usr/bin/python3 - "$SOCK" <<'PY'
import socket, sys, dbus
bus = dbus.connection.Connection("unix:path=" + sys.argv[1])
obj = bus.get_object("org.linuxcontainers.cgmanager", "/org/linuxcontainers/cgmanager", introspect=False)
iface = dbus.Interface(obj, "org.linuxcontainers.cgmanager0_0")
iface.Ping(0)  # libdbus finishes authenticating (and fd negotiation) on the first call
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
fd = dbus.types.UnixFd(b)
calls = {
    "GetPidCgroupScm": ("memory", fd), "GetPidCgroupAbsScm": ("memory", fd), "CreateScm": ("memory", "x", fd),
    "ChownScm": ("memory", "x", fd), "ChmodScm": ("memory", "x", "", 0o755, fd), "MovePidScm": ("memory", "x", fd),
    "MovePidAbsScm": ("memory", "x", fd), "GetValueScm": ("memory", "x", "k", fd),
    "SetValueScm": ("memory", "x", "k", "v", fd), "RemoveScm": ("memory", "x", 1, fd),
    "GetTasksScm": ("memory", "x", fd), "GetTasksRecursiveScm": ("memory", "x", fd),
    "ListChildrenScm": ("memory", "x", fd), "RemoveOnEmptyScm": ("memory", "x", fd),
    "PruneScm": ("memory", "x", fd), "ListKeysScm": ("memory", "x", fd),
}
bad = 0
for name, args in calls.items():
    try:
        getattr(iface, name)(*args)
        print(name, "succeeded"); bad += 1
    except dbus.exceptions.DBusException as e:
        if e.get_dbus_name() != "org.freedesktop.DBus.Error.NotSupported" or "not yet supported" not in str(e):
            print(name, e.get_dbus_name(), e); bad += 1
sys.exit(bad)
PY
}
