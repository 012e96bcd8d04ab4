#!/bin/sh
# Runs "$@" in the private mount namespace t_systemd1 makes (unshare -m): a tmpfs over /run/systemd holding
# system/, which systemd-run and runc read as "systemd is PID 1", so that they talk to the bus in
# DBUS_SYSTEM_BUS_ADDRESS. Nothing of the host's /run/systemd is changed; where there is none (a host without
# systemd, the v2 VM), the tmpfs goes over /run itself rather than making one there.
set -e
. "$(dirname "$0")/run_systemd.sh"
exec "$@"
