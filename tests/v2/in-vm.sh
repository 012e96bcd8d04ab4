#!/usr/bin/env bash
# Runs inside the pure cgroup v2 VM of ../shared/v2vm/run-in-v2vm.sh: the lane "v2" of the integration suite.
#   tests/v2/in-vm.sh BUILD [PATTERN]
# The VM is ours alone and thrown away afterwards. Its root cgroup plays the part of a host's init: it
# enables every controller it has for its children, as a boot would, so that the sandbox the suite makes
# beneath it (and the daemon serving that sandbox) has them. Nothing else is written outside the sandbox.
set -u
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
# Loop devices give the io tests a block device of their own (the VM's disks are 9p and tmpfs).
modprobe loop 2>/dev/null || busybox modprobe loop || echo "v2 lane: no loop devices" >&2
root=/sys/fs/cgroup
for c in $(cat "$root/cgroup.controllers"); do echo "+$c" >"$root/cgroup.subtree_control" || exit 1; done
cd "$(dirname "$0")/../.."
LANE=v2 BUILD=$1 exec bash tests/integration/run.sh "${2:-}"
