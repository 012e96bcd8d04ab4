#!/bin/sh
# Runs "$@" in the private mount namespace t_systemd1 makes (unshare -m): a tmpfs over /run/systemd holding
# system/, which systemd-run and runc read as "systemd is PID 1", so that they talk to the bus in
# DBUS_SYSTEM_BUS_ADDRESS. Nothing of the host's /run/systemd is changed.
set -e
mount -t tmpfs -o mode=0755 tmpfs /run/systemd
mkdir /run/systemd/system
exec "$@"
