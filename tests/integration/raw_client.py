#!/usr/bin/env python3
"""Misbehaving D-Bus clients of cgmanager, on raw unix sockets (stdlib only).

  raw_client.py SOCKET MODE [ARG]

Modes (each prints one result line; exit 0 unless the mode itself went wrong):
  ping               authenticate, call Ping, print "return" / "error NAME"
  ping-every N MS SECONDS  one connection, up to N Pings MS ms apart for at most SECONDS s; prints each one's
                     round trip in ms ("failed" for one that failed or took past 60 s): the daemon's latency
                     without a client process's start, which dominates on a loaded machine or under ASan
  garbage            random bytes instead of the auth exchange; "closed" once the daemon hangs up
  garbage-after-auth authenticate, then random bytes as messages; "closed"
  midauth STAGE      hang up during the auth exchange: STAGE is connect, nul, auth, negotiate or begin-less
  call-close METHOD  authenticate, send METHOD (Ping, ListKeys, GetTasksRecursive), hang up at once
  no-read N          authenticate, send N ListKeys calls, never read; hold the socket for 3 s
  idle SECONDS       connect, send nothing; print "closed after S s" or "open after SECONDS s"
  idle-auth SECONDS  the same after "\\0AUTH EXTERNAL" without BEGIN
  bad-body           authenticate, Create with a body that does not match its signature
  huge-length        authenticate, a header announcing a 100 MiB body that never comes; "closed"
  no-member          authenticate, a method call without a MEMBER field, then a Ping; the first answer
  many N             N clients one after another (auth, Ping, reply), then N at once; "N ok"
  begin-first        BEGIN before AUTH (sd-bus refuses it and stays in auth), then AUTH and BEGIN hidden
                     in what looks like a message, then a header of a 100 MiB body; "closed" or "answered"
  fds-with-begin     the auth up to BEGIN in one write with 4 fds attached; "closed" or "open"
  hold N SECONDS     N connections, each authenticated and pinged; print "K admitted" (those the daemon did
                     not close at once), then hold them SECONDS
  orphan-unaccepted FILE  connect (the daemon stopped), fork, exit; once the parent is reaped the child
                     (FILE.ready) authenticates and calls ListChildren: "closed", "error ..." or "return"
  setuid-unaccepted UID FILE  connect as root (the daemon stopped), become UID, write FILE.ready; then
                     authenticate and call ListChildren: "closed", "error ..." or "return" to FILE
  orphan FILE        authenticate, fork, exit: the child waits until its parent has exited (unreaped
                     where the caller's parent does not wait), then calls ListChildren("memory", "") on the
                     connection and writes "return" or "error NAME: MESSAGE" to FILE
  fd-drip N          authenticate, then one message's header written a byte at a time, each byte with
                     N fds; "closed after K bytes" or "open"
"""
import ctypes
import os
import select
import socket
import struct
import sys
import time

PATH = "/org/linuxcontainers/cgmanager"
IFACE = "org.linuxcontainers.cgmanager0_0"
DEST = "org.linuxcontainers.cgmanager"


def pad(buf, n):
    return buf + b"\0" * (-len(buf) % n)


def marshal_string(buf, s, kind="s"):
    data = s.encode()
    if kind == "g":
        return buf + bytes([len(data)]) + data + b"\0"
    buf = pad(buf, 4)
    return buf + struct.pack("<I", len(data)) + data + b"\0"


def marshal_body(sig, args):
    body = b""
    for t, v in zip(sig, args):
        if t == "s":
            body = marshal_string(body, v)
        elif t in "ih":  # an fd travels as its index in the message's fds
            body = pad(body, 4) + struct.pack("<i", v)
    return body


def method_call(member, sig="", args=(), serial=1, body=None, fields_extra=(), body_len=None, omit_member=False,
                iface=IFACE):
    if body is None:
        body = marshal_body(sig, args)
    fields = [(1, "o", PATH), (2, "s", iface), (6, "s", DEST)]
    if not omit_member:
        fields.append((3, "s", member))
    if sig:
        fields.append((8, "g", sig))
    fields.extend(fields_extra)
    arr = b""
    for code, t, v in fields:
        arr = pad(arr, 8)
        arr += bytes([code, 1, ord(t), 0])
        arr = pad(arr, 4) + struct.pack("<I", v) if t == "u" else marshal_string(arr, v, t)
    head = b"l\x01\x00\x01" + struct.pack("<III", len(body) if body_len is None else body_len, serial, len(arr))
    return pad(head + arr, 8) + body


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(path)
    return s


def read_line(s):
    buf = b""
    while not buf.endswith(b"\r\n"):
        c = s.recv(1)
        if not c:
            raise ConnectionError("closed during auth")
        buf += c
    return buf


def authenticate(s):
    s.sendall(b"\0AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\n")
    line = read_line(s)
    if not line.startswith(b"OK "):
        raise ConnectionError("auth answered %r" % line)
    s.sendall(b"BEGIN\r\n")


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        c = s.recv(n - len(buf))
        if not c:
            raise ConnectionError("closed")
        buf += c
    return buf


def read_message(s, with_text=False):
    """(type, error name or None) of the next message; with_text, also its first string argument."""
    fixed = recv_exact(s, 16)
    body_len, _, fields_len = struct.unpack("<III", fixed[4:16])
    rest = recv_exact(s, fields_len + (-(16 + fields_len) % 8) + body_len)
    name = None
    if fixed[1] == 3:
        # The ERROR_NAME field (code 4), a string.
        i = 0
        fields = rest[:fields_len]
        while i < len(fields):
            i += -i % 8
            code, slen = fields[i], fields[i + 1]
            t = chr(fields[i + 2])
            i += 3 + slen
            if t in "so":
                i += -(i + 16) % 4
                n = struct.unpack("<I", fields[i:i + 4])[0]
                v = fields[i + 4:i + 4 + n].decode()
                i += 5 + n
            elif t == "g":
                n = fields[i]
                v = fields[i + 1:i + 1 + n].decode()
                i += 2 + n
            else:
                i += 4
                v = None
            if code == 4:
                name = v
    if with_text:
        body = rest[len(rest) - body_len:]
        text = body[4:4 + struct.unpack("<I", body[:4])[0]].decode() if body_len >= 4 else None
        return fixed[1], name, text
    return fixed[1], name


def wait_closed(s, timeout=5.0):
    """True once the peer hung up (EOF or reset) within timeout; drains what comes."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        r, _, _ = select.select([s], [], [], left)
        if not r:
            return False
        try:
            if not s.recv(65536):
                return True
        except (ConnectionResetError, BrokenPipeError):
            return True



def list_children_to(s, out, authenticated=False):
    """Authenticates (unless done), calls ListChildren("memory", "") and writes to the file out what came
    back: "return", "error NAME: MESSAGE", or "closed" when the daemon hung up."""
    try:
        if not authenticated:
            authenticate(s)
        s.sendall(method_call("ListChildren", "ss", ("memory", "")))
        kind, name, text = read_message(s, with_text=True)
        result = "return\n" if kind == 2 else "error %s: %s\n" % (name, text)
    except (ConnectionError, OSError):
        result = "closed\n"
    with open(out, "w") as f:
        f.write(result)

def ping(path):
    s = connect(path)
    authenticate(s)
    s.sendall(method_call("Ping", "i", (0,)))
    kind, name = read_message(s)
    s.close()
    return "return" if kind == 2 else "error %s" % name


def main():
    path, mode = sys.argv[1], sys.argv[2]
    arg = sys.argv[3] if len(sys.argv) > 3 else None
    if mode == "ping":
        print(ping(path))
    elif mode == "ping-every":
        n, gap, seconds = int(sys.argv[3]), int(sys.argv[4]) / 1000, float(sys.argv[5])
        s = connect(path)
        authenticate(s)
        s.settimeout(60)
        end = time.monotonic() + seconds
        for k in range(n):
            t0 = time.monotonic()
            try:
                s.sendall(method_call("Ping", "i", (0,), serial=k + 1))
                kind, _ = read_message(s)
                print("%d" % ((time.monotonic() - t0) * 1000) if kind == 2 else "failed", flush=True)
            except OSError:
                print("failed", flush=True)
                s = connect(path)
                authenticate(s)
                s.settimeout(60)
            if time.monotonic() >= end:
                break
            time.sleep(gap)
    elif mode == "garbage":
        s = connect(path)
        try:
            s.sendall(os.urandom(8192) + b"\r\n" + b"\0AUTH BOGUS\r\n" * 10)
        except (BrokenPipeError, ConnectionResetError):
            pass
        print("closed" if wait_closed(s) else "open")
    elif mode == "garbage-after-auth":
        s = connect(path)
        authenticate(s)
        try:
            s.sendall(b"l\x01\x00\x01" + os.urandom(65536))
        except (BrokenPipeError, ConnectionResetError):
            pass
        print("closed" if wait_closed(s) else "open")
    elif mode == "midauth":
        s = connect(path)
        if arg in ("nul", "auth", "negotiate", "begin-less"):
            s.sendall(b"\0")
        if arg in ("auth", "negotiate", "begin-less"):
            s.sendall(b"AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\n")
        if arg in ("negotiate", "begin-less"):
            read_line(s)
            s.sendall(b"NEGOTIATE_UNIX_FD\r\n")
        if arg == "begin-less":
            read_line(s)
            s.sendall(method_call("Ping", "i", (0,)))  # a message before BEGIN
        s.close()
        print("hung up at " + arg)
    elif mode == "call-close":
        s = connect(path)
        authenticate(s)
        calls = {
            "Ping": ("i", (0,)),
            "ListKeys": ("ss", ("memory", "")),
            "GetTasksRecursive": ("ss", ("all", "")),
            "ListControllers": ("", ()),
        }
        sig, args = calls[arg]
        s.sendall(method_call(arg, sig, args))
        s.close()
        print("sent %s and hung up" % arg)
    elif mode == "no-read":
        s = connect(path)
        authenticate(s)
        s.setblocking(False)
        sent = 0
        stuck = 0
        buf = b"".join(method_call("ListKeys", "ss", ("memory", ""), serial=k + 1) for k in range(int(arg)))
        deadline = time.monotonic() + 3
        while buf and time.monotonic() < deadline:
            try:
                n = s.send(buf)
                buf = buf[n:]
                sent += n
            except BlockingIOError:
                stuck += 1
                time.sleep(0.01)
            except (BrokenPipeError, ConnectionResetError):
                break
        time.sleep(max(0, deadline - time.monotonic()))
        print("sent %d bytes, %s" % (sent, "all" if not buf else "daemon stopped reading"))
    elif mode in ("idle", "idle-auth"):
        s = connect(path)
        if mode == "idle-auth":
            s.sendall(b"\0AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\n")
            read_line(s)
        t0 = time.monotonic()
        print("connected", flush=True)
        if wait_closed(s, float(arg)):
            print("closed after %.1f s" % (time.monotonic() - t0))
        else:
            print("open after %s s" % arg)
    elif mode == "bad-body":
        s = connect(path)
        authenticate(s)
        body = struct.pack("<I", 0x00FFFFFF) + b"memory"  # a string longer than the body
        s.sendall(method_call("Create", "ss", body=body))
        try:
            kind, name = read_message(s)
            print("error %s" % name if kind == 3 else "type %d" % kind)
        except ConnectionError:
            print("closed")
        except socket.timeout:
            print("no answer")
    elif mode == "huge-length":
        s = connect(path)
        authenticate(s)
        s.sendall(method_call("Ping", "i", (0,), body_len=100 << 20)[:-4])
        print("closed" if wait_closed(s) else "open")
    elif mode == "no-member":
        # An invalid message, then a valid Ping on the same connection: what became of each.
        s = connect(path)
        authenticate(s)
        s.sendall(method_call("Ping", "i", (0,), omit_member=True, serial=1))
        s.sendall(method_call("Ping", "i", (0,), serial=2))
        try:
            kind, name = read_message(s)
            print("error %s" % name if kind == 3 else "return" if kind == 2 else "type %d" % kind)
        except ConnectionError:
            print("closed")
        except socket.timeout:
            print("no answer")
    elif mode == "many":
        n = int(arg)
        good = sum(ping(path) == "return" for _ in range(n))
        socks = [connect(path) for _ in range(n)]
        for k, s in enumerate(socks):
            if k % 2:
                s.sendall(b"\0AUTH EXTERNAL 30\r\n")
        for s in socks:
            s.close()
        print("%d ok" % good)
    elif mode == "hold":
        held = []
        for _ in range(int(arg)):
            s = connect(path)
            try:
                authenticate(s)
                s.sendall(method_call("Ping", "i", (0,)))
                read_message(s)
                held.append(s)
            except (ConnectionError, OSError):
                s.close()
        print("%d admitted" % len(held), flush=True)
        time.sleep(float(sys.argv[4]))
    elif mode == "orphan":
        s = connect(path)
        authenticate(s)
        parent = os.getpid()
        if os.fork() != 0:
            os._exit(0)
        while True:
            try:
                if open("/proc/%d/stat" % parent).read().rsplit(") ", 1)[1][0] in "ZX":
                    break
            except FileNotFoundError:
                break
            time.sleep(0.02)
        list_children_to(s, arg, authenticated=True)
    elif mode == "setuid-unaccepted":
        # Connected as root while the daemon is stopped, then the same process becomes another uid
        # (what a pid handed out again to another user looks like) before the daemon takes the connection.
        uid, out = int(arg), sys.argv[4]
        s = connect(path)
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        open(out + ".ready", "w").close()
        list_children_to(s, out)
    elif mode == "orphan-unaccepted":
        # Connected while the daemon is stopped; the process that connected is gone (reaped) before the
        # daemon takes the connection; its child, which keeps it, then asks.
        s = connect(path)
        parent = os.getpid()
        if os.fork() != 0:
            os._exit(0)
        while os.path.exists("/proc/%d" % parent):
            time.sleep(0.02)
        open(arg + ".ready", "w").close()
        list_children_to(s, arg)
    elif mode == "begin-first":
        # The intake and sd-bus must agree where messages start: a BEGIN that sd-bus refused must not
        # make the intake take what follows for messages (and so pass a huge one unchecked).
        s = connect(path)
        smuggled = b"\r\nAUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\nBEGIN\r\n"
        fake = method_call("Ping", "i", (0,), body=smuggled)
        try:
            s.sendall(b"\0BEGIN\r\n")
            time.sleep(0.2)  # read alone, so that what follows meets the daemon's check of it
            s.sendall(fake + method_call("Ping", "i", (0,), body_len=100 << 20)[:-4])
            s.sendall(b"l\1\0\1" + b"\0" * 12 * 4096)
        except (BrokenPipeError, ConnectionResetError):
            pass
        print("closed" if wait_closed(s) else "answered")
    elif mode == "fds-with-begin":
        s = connect(path)
        r, w = os.pipe()
        auth = b"\0AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\nNEGOTIATE_UNIX_FD\r\nBEGIN\r\n"
        socket.send_fds(s, [auth], [r, w, r, w])
        print("closed" if wait_closed(s, 2.0) else "open")
    elif mode == "fd-drip":
        n = int(arg)
        s = connect(path)
        s.sendall(b"\0AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\nNEGOTIATE_UNIX_FD\r\n")
        read_line(s)
        read_line(s)
        s.sendall(b"BEGIN\r\n")
        r, w = os.pipe()
        msg = method_call("Ping", "i", (0,), body_len=4096)
        sent = 0
        try:
            for b in msg[:16]:
                socket.send_fds(s, [bytes([b])], [r, w] * (n // 2) + [r] * (n % 2))
                sent += 1
                time.sleep(0.01)
        except (BrokenPipeError, ConnectionResetError):
            pass
        print("closed after %d bytes" % sent if wait_closed(s, 2.0) else "open")
    elif mode == "pidfd-cgroup":
        # cgmanager1.GetPidfdCgroup with a pidfd of pid ARG opened here; with "newpidns", asked from a child in a
        # pid namespace of its own (the pidfd inherited), whose task ARG is not.
        fd = os.pidfd_open(int(arg))
        if len(sys.argv) > 4 and sys.argv[4] == "newpidns":
            if ctypes.CDLL(None, use_errno=True).unshare(0x20000000) != 0:  # CLONE_NEWPID
                raise OSError(ctypes.get_errno(), "unshare")
            child = os.fork()
            if child:
                return os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])
        s = connect(path)
        s.sendall(b"\0AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\nNEGOTIATE_UNIX_FD\r\n")
        read_line(s)
        read_line(s)
        s.sendall(b"BEGIN\r\n")
        msg = method_call("GetPidfdCgroup", "h", (0,), fields_extra=[(9, "u", 1)],
                          iface="org.linuxcontainers.cgmanager1")
        socket.send_fds(s, [msg], [fd])
        kind, name, text = read_message(s, with_text=True)
        print("return %s" % text if kind == 2 else "error %s: %s" % (name, text))
    else:
        print("unknown mode " + mode)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
