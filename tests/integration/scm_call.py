#!/usr/bin/env python3
"""One cgmanager0_0 XxxScm call, done as a 0.42 client does it.

  scm_call.py SOCKET METHOD [--second PID | --second UID:GID] [--no-cred] [--stream] ARG...

ARGs are the method's arguments before the fd (strings, or integers where the
signature says i). A SOCK_DGRAM socketpair end goes as the fd; the daemon's
'1' kicks are answered with SCM_CREDENTIALS of this process (and, for the
methods that take a second credential, of --second). The result is printed:
status bytes as they come ('0', '1', '2'), strings as they are, lists one item
a line after a "count N" line, and a failure's reason as "error NAME: MESSAGE".
--no-cred never answers (the exchange is left to the daemon's deadline);
--stream passes a SOCK_STREAM socket instead, which the daemon must refuse.
Needs python3-dbus. Exit status: 0 when the daemon's D-Bus reply was a return,
2 when it was an error (printed as "dbus-error NAME: MESSAGE").
"""
import os
import select
import socket
import struct
import sys

import dbus

PATH = "/org/linuxcontainers/cgmanager"
IFACE = "org.linuxcontainers.cgmanager0_0"

# method: (argument signature before the fd, second credential, result)
METHODS = {
    "GetPidCgroupScm": ("s", "pid", "string"),
    "GetPidCgroupAbsScm": ("s", "pid", "string"),
    "CreateScm": ("ss", None, "byte"),
    "ChownScm": ("ss", "ids", "byte"),
    "ChmodScm": ("sssi", None, "byte"),
    "MovePidScm": ("ss", "pid", "byte"),
    "MovePidAbsScm": ("ss", "pid", "byte"),
    "GetValueScm": ("sss", None, "string"),
    "SetValueScm": ("ssss", None, "byte"),
    "RemoveScm": ("ssi", None, "byte"),
    "GetTasksScm": ("ss", None, "pids"),
    "GetTasksRecursiveScm": ("ss", None, "pids"),
    "ListChildrenScm": ("ss", None, "names"),
    "RemoveOnEmptyScm": ("ss", None, "byte"),
    "PruneScm": ("ss", None, "byte"),
    "ListKeysScm": ("ss", None, "keys"),
}

TIMEOUT = 5.0


def recv(sock, timeout=TIMEOUT):
    """One datagram and the credentials that came with it (None if none)."""
    r, _, _ = select.select([sock], [], [], timeout)
    if not r:
        raise TimeoutError("no datagram from the daemon within %.1f s" % timeout)
    data, anc, _, _ = sock.recvmsg(65536, socket.CMSG_SPACE(12))
    cred = None
    for level, kind, payload in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
            cred = struct.unpack("iII", payload[:12])
    return data, cred


def send_cred(sock, pid, uid, gid):
    sock.sendmsg([b"1"], [(socket.SOL_SOCKET, socket.SCM_CREDENTIALS, struct.pack("iII", pid, uid, gid))])


def reason(sock):
    """The 'E' datagram the daemon sends after a failure, if any."""
    try:
        data, _ = recv(sock, 1.0)
    except TimeoutError:
        return
    if data[:1] == b"E":
        name, msg = data[1:].split(b"\0")[:2]
        print("error %s: %s" % (name.decode(), msg.decode()))
    else:
        print("unexpected datagram %r" % data)


def main():
    args = sys.argv[1:]
    second = None
    no_cred = False
    kind = socket.SOCK_DGRAM
    sock_path, method = args[0], args[1]
    rest = []
    i = 2
    while i < len(args):
        if args[i] == "--second":
            second = args[i + 1]
            i += 2
        elif args[i] == "--stream":
            kind = socket.SOCK_STREAM
            i += 1
        elif args[i] == "--no-cred":
            no_cred = True
            i += 1
        else:
            rest.append(args[i])
            i += 1
    sig, second_kind, result = METHODS[method]
    values = [int(v) if t == "i" else v for t, v in zip(sig, rest)]

    conn = dbus.connection.Connection("unix:path=" + sock_path)
    # libdbus finishes authenticating (and negotiates fd passing) on the first call.
    conn.call_blocking(None, PATH, IFACE, "Ping", "i", (0,))
    mine, theirs = socket.socketpair(socket.AF_UNIX, kind)
    mine.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
    try:
        conn.call_blocking(None, PATH, IFACE, method, sig + "h", values + [dbus.types.UnixFd(theirs)])
    except dbus.exceptions.DBusException as e:
        print("dbus-error %s: %s" % (e.get_dbus_name(), e.get_dbus_message()))
        return 2
    theirs.close()
    kick, _ = recv(mine)
    if kick != b"1":
        print("unexpected kick %r" % kick)
        return 1
    if no_cred:
        print("kicked")
        sys.stdout.flush()
        # Hold the socket past the daemon's deadline (5 s); it must not answer.
        try:
            data, _ = recv(mine, 7.0)
            print("unexpected datagram %r" % data)
        except TimeoutError:
            print("nothing after 7 s")
        return 0
    send_cred(mine, os.getpid(), os.getuid(), os.getgid())
    if second_kind:
        kick, _ = recv(mine)
        if kick != b"1":
            print("unexpected second kick %r" % kick)
            return 1
        if second_kind == "pid":
            send_cred(mine, int(second), os.getuid(), os.getgid())
        else:
            uid, gid = second.split(":")
            send_cred(mine, os.getpid(), int(uid), int(gid))

    if result == "byte":
        data, _ = recv(mine)
        print(data.decode())
        if data == b"0":
            reason(mine)
    elif result == "string":
        data, _ = recv(mine)
        if data:
            print(data.rstrip(b"\0").decode())
        else:
            print("<failed>")
            reason(mine)
    else:
        data, _ = recv(mine)
        count = struct.unpack("i", data)[0]
        print("count %d" % count)
        if count < 0:
            reason(mine)
        elif result == "pids":
            for _ in range(count):
                _, cred = recv(mine)
                print(cred[0] if cred else "no-credentials")
        elif count > 0:
            length = struct.unpack("I", recv(mine)[0])[0]
            blob, _ = recv(mine)
            if len(blob) != length:
                print("length %d but %d bytes" % (length, len(blob)))
            if result == "names":
                for name in blob.split(b"\0")[:-1]:
                    print(name.decode())
            else:
                f = blob.decode().split("\n")
                for k in range(count):
                    name, uid, gid, mode = f[4 * k:4 * k + 4]
                    print("%s %s %s %o" % (name, uid, gid, int(mode)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
