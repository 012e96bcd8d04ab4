#!/usr/bin/env python3
"""Subscribers of cgmanager's events that cgm watch cannot play, on raw unix sockets (stdlib only).

  watch_client.py SOCKET MODE ARGS...

Modes:
  many NAME N CONNS       N Watch calls on NAME spread over CONNS connections, one after another; prints
                          "K ok" and, at the first refusal, "error NAME: MESSAGE"; then holds the connections
                          until killed (the watches end with them)
  hold NAME N READY [EVENT...]
                          N watches of NAME (of EVENTs: all by default) on one connection; writes READY, then
                          holds it until killed, reading nothing
  no-read NAME READY GO   one watch of the populated and empty events of NAME and its subtree; writes READY, reads
                          nothing until the
                          file GO exists, then reads until the daemon's "lost" event; prints
                          "K events then lost COUNT" ("no lost after K events" if none comes within 60 s)
  flood NAME DIR STEPS    about 10^5 flips of populated in the children of cgroup2 directory DIR (NAME to the daemon),
                          each one seen: the children are two sets of as many; one task per child of the first set
                          (forked here) goes in, then at each of STEPS steps every task moves to its twin in the other
                          set, the next step once this connection's own watch of NAME's subtree was told of every
                          child that filled and every one that emptied; prints "E events in S steps". Without the
                          pacing, the kernel's notices read after a task left show no change, and how many events
                          fire depends on the machine's speed.
  rename-churn DIR NAME N as the owner of the v1 cgroup NAME (its directory DIR), N times: makes DIR/aK, watches
                          NAME/aK on one connection, renames aK to bK, watches NAME/bK (subtree) on a second, and
                          closes the first while a third asks for watches of NAME/n* (66 name lengths, made first);
                          prints "done" (a connection the daemon drops ends it with a traceback)
  watch-on-go NAME READY GO [EVENT...]
                          connects and authenticates, writes READY, then once the file GO exists calls Watch of NAME
                          (of EVENTs: all by default); prints "ok" (or "error NAME: MESSAGE") and holds the connection
                          until killed
  unwatch NAME READY GO   one watch as no-read; once GO exists, Unwatch of it, reading what comes until its reply,
                          then for 2 s more; prints "K events before Unwatch's reply, A of watch ID after it (O others)"
  ids NAME                two connections: A watches NAME twice, B once; B unwatches 2 (A's only) and 1 (its own),
                          then A unwatches 1 and 2 and watches again; prints "A ids I J, B id K; B unwatch 2: R;
                          B unwatch 1: R; A unwatch 1: R; A unwatch 2: R; A's next id L" (R: ok or the error's name)
"""
import os
import select
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from raw_client import authenticate, connect, pad, marshal_string, method_call, read_message, recv_exact  # noqa: E402

IFACE1 = "org.linuxcontainers.cgmanager1"


def watch_body(name, events):
    body = marshal_string(b"", name)
    items = b""
    for e in events:
        items = marshal_string(items, e)
    body = pad(body, 4)
    return body + struct.pack("<I", len(items)) + items


def watch(s, name, events, serial):
    s.sendall(method_call("Watch", "sas", serial=serial, body=watch_body(name, events), iface=IFACE1))
    kind, err, text = read_message(s, with_text=True)
    return kind == 2, err, text


class Reader:
    """Whole messages from a socket: (type, body) of each."""

    def __init__(self, s):
        self.s = s

    def next(self):
        fixed = recv_exact(self.s, 16)
        body_len, _, fields_len = struct.unpack("<III", fixed[4:16])
        rest = recv_exact(self.s, fields_len + (-(16 + fields_len) % 8) + body_len)
        return fixed[1], rest[len(rest) - body_len:]


def event_of(body):
    """(id, name, event, count or None) of an Event signal's body "ussa{sv}"."""
    i = 0
    wid = struct.unpack_from("<I", body, i)[0]
    i += 4
    strings = []
    for _ in range(2):
        i += -i % 4
        n = struct.unpack_from("<I", body, i)[0]
        strings.append(body[i + 4:i + 4 + n].decode())
        i += 5 + n
    i += -i % 4
    alen = struct.unpack_from("<I", body, i)[0]
    i += 4
    i += -i % 8
    end = i + alen
    count = None
    while i < end:
        i += -i % 8
        n = struct.unpack_from("<I", body, i)[0]
        key = body[i + 4:i + 4 + n].decode()
        i += 5 + n
        slen = body[i]
        sig = body[i + 1:i + 1 + slen].decode()
        i += 2 + slen
        if sig == "t":
            i += -i % 8
            v = struct.unpack_from("<Q", body, i)[0]
            i += 8
            if key == "count":
                count = v
    return wid, strings[0], strings[1], count


def fork_pausers(n):
    """n children that wait for a signal and die with this process."""
    import ctypes
    import signal
    libc = ctypes.CDLL(None, use_errno=True)
    pids = []
    for _ in range(n):
        pid = os.fork()
        if pid == 0:
            libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
            while True:
                signal.pause()
        pids.append(pid)
    return pids


def flood(path, name, cgdir, steps):
    children = sorted(c for c in os.listdir(cgdir) if os.path.isdir(os.path.join(cgdir, c)))
    half = len(children) // 2
    s = connect(path)
    authenticate(s)
    good, err, text = watch(s, name, ["populated", "empty", "subtree"], 1)
    if not good:
        sys.exit("error %s: %s" % (err, text))
    r = Reader(s)
    pids = fork_pausers(half)
    fds = [os.open(os.path.join(cgdir, c, "cgroup.procs"), os.O_WRONLY) for c in children]
    seen = 0

    def wait_for(filled, emptied):
        nonlocal seen
        want = {"populated": filled, "empty": emptied}
        while want["populated"] > 0 or want["empty"] > 0:
            kind, body = r.next()
            if kind != 4:
                continue
            _, ename, ev, count = event_of(body)
            if ev == "lost":
                sys.exit("the pacing subscriber lost %d events: a step is more than its queue holds" % count)
            seen += 1
            if ename != name and ev in want:
                want[ev] -= 1

    s.settimeout(60)
    try:
        for i, pid in enumerate(pids):
            os.write(fds[i], b"%d" % pid)
        wait_for(half, 0)
        for step in range(steps):
            into = half * ((step + 1) % 2)
            for i, pid in enumerate(pids):
                os.write(fds[into + i], b"%d" % pid)
            wait_for(half, half)
    finally:
        for pid in pids:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
    print("%d events in %d steps" % (seen, steps), flush=True)


def main():
    path, mode = sys.argv[1], sys.argv[2]
    if mode == "many":
        name, n, conns = sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
        socks = [connect(path) for _ in range(conns)]
        for s in socks:
            authenticate(s)
        ok = 0
        for k in range(n):
            good, err, text = watch(socks[k % conns], name, [], k + 1)
            if not good:
                print("%d ok" % ok)
                print("error %s: %s" % (err, text), flush=True)
                break
            ok += 1
        else:
            print("%d ok" % ok, flush=True)
        while True:
            time.sleep(60)
    elif mode == "hold":
        name, n, ready, events = sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6:]
        s = connect(path)
        authenticate(s)
        for k in range(n):
            good, err, text = watch(s, name, events, k + 1)
            if not good:
                print("error %s: %s" % (err, text), flush=True)
                sys.exit(1)
        with open(ready, "w") as f:
            f.write("ready\n")
        while True:
            time.sleep(60)
    elif mode == "watch-on-go":
        name, ready, go, events = sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:]
        s = connect(path)
        authenticate(s)
        with open(ready, "w") as f:
            f.write("ready\n")
        while not os.path.exists(go):
            time.sleep(0.01)
        good, err, text = watch(s, name, events, 1)
        print("ok" if good else "error %s: %s" % (err, text), flush=True)
        while True:
            time.sleep(60)
    elif mode == "no-read":
        name, ready, go = sys.argv[3], sys.argv[4], sys.argv[5]
        s = connect(path)
        authenticate(s)
        good, err, text = watch(s, name, ["populated", "empty", "subtree"], 1)
        if not good:
            print("error %s: %s" % (err, text))
            sys.exit(1)
        with open(ready, "w") as f:
            f.write("ready\n")
        while not os.path.exists(go):
            time.sleep(0.05)
        s.settimeout(60)
        r = Reader(s)
        seen = 0
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if not select.select([s], [], [], max(0.0, deadline - time.monotonic()))[0]:
                break
            kind, body = r.next()
            if kind != 4:
                continue
            wid, ename, event, count = event_of(body)
            if event == "lost":
                print("%d events then lost %d" % (seen, count))
                return
            seen += 1
        print("no lost after %d events" % seen)
    elif mode == "flood":
        flood(path, sys.argv[3], sys.argv[4], int(sys.argv[5]))
    elif mode == "rename-churn":
        d, name, n = sys.argv[3], sys.argv[4], int(sys.argv[5])

        def watched(wname, events):
            s = connect(path)
            authenticate(s)
            s.sendall(method_call("Watch", "sas", serial=1, body=watch_body(wname, events), iface=IFACE1))
            Reader(s).next()
            return s

        others = []
        for length in range(1, 200, 3):
            os.mkdir("%s/n%s" % (d, "y" * length))
            others.append("%s/n%s" % (name, "y" * length))
        other, held, serial = None, [], 1
        for k in range(n):
            if k % 20 == 0:
                if other:
                    other.close()
                other = connect(path)
                authenticate(other)
            os.mkdir("%s/a%d" % (d, k))
            first = watched("%s/a%d" % (name, k), [])
            os.rename("%s/a%d" % (d, k), "%s/b%d" % (d, k))
            held.append(watched("%s/b%d" % (name, k), ["subtree"]))
            for j in range(3):
                serial += 1
                other.sendall(method_call("Watch", "sas", serial=serial, iface=IFACE1,
                                          body=watch_body(others[(k * 3 + j) % len(others)], [])))
            first.close()
            if len(held) > 50:
                held.pop(0).close()
        print("done")
    elif mode == "unwatch":
        name, ready, go = sys.argv[3], sys.argv[4], sys.argv[5]
        s = connect(path)
        authenticate(s)
        r = Reader(s)
        s.sendall(method_call("Watch", "sas", serial=1, body=watch_body(name, ["populated", "empty", "subtree"]),
                              iface=IFACE1))
        kind, body = r.next()
        if kind != 2:
            print("Watch refused")
            sys.exit(1)
        wid = struct.unpack_from("<I", body, 0)[0]
        with open(ready, "w") as f:
            f.write("ready\n")
        while not os.path.exists(go):
            time.sleep(0.05)
        s.settimeout(60)
        s.sendall(method_call("Unwatch", "u", serial=2, body=struct.pack("<I", wid), iface=IFACE1))
        before = 0
        while True:
            kind, body = r.next()
            if kind == 4:
                before += 1
            elif kind in (2, 3):
                break
        after = other = 0
        deadline = time.monotonic() + 2
        while select.select([s], [], [], max(0.0, deadline - time.monotonic()))[0]:
            kind, body = r.next()
            if kind == 4 and event_of(body)[0] == wid:
                after += 1
            elif kind == 4:
                other += 1
        print("%d events before Unwatch's reply, %d of watch %d after it (%d others)" % (before, after, wid, other))
    elif mode == "ids":
        name = sys.argv[3]
        a, b = connect(path), connect(path)
        authenticate(a)
        authenticate(b)
        serial = [0]


        def new_id(s):
            serial[0] += 1
            s.sendall(method_call("Watch", "sas", serial=serial[0], body=watch_body(name, []), iface=IFACE1))
            kind, body = Reader(s).next()
            if kind != 2:
                sys.exit("Watch refused")
            return struct.unpack_from("<I", body, 0)[0]

        def unwatch(s, wid):
            serial[0] += 1
            s.sendall(method_call("Unwatch", "u", serial=serial[0], body=struct.pack("<I", wid), iface=IFACE1))
            kind, err = read_message(s)
            return "ok" if kind == 2 else err

        i, j, k = new_id(a), new_id(a), new_id(b)
        res = [unwatch(b, j), unwatch(b, k), unwatch(a, i), unwatch(a, j)]
        print("A ids %d %d, B id %d; B unwatch %d: %s; B unwatch %d: %s; A unwatch %d: %s; A unwatch %d: %s; "
              "A's next id %d" % (i, j, k, j, res[0], k, res[1], i, res[2], j, res[3], new_id(a)))
    else:
        sys.exit("unknown mode " + mode)


if __name__ == "__main__":
    main()
