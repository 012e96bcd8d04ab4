#!/bin/bash
# runc --systemd-cgroup's life of a busybox container against cgmanager's systemd1 interface, each step
# checked in cgroupfs; run inside world.sh. SB_DIRS is the sandbox's "hierarchy|directory" per line, BUNDLE
# the container's bundle (cgroupsPath system.slice:runc:cgmtest, memory 32M, pids 64). Prints what failed.
set -u
state=$WORK_DIR/runc
scope=system.slice/runc-cgmtest.scope
failed=0
fail() { echo "  FAILED: $*" >&2; failed=1; }
runc_() { runc --root "$state" --systemd-cgroup "$@"; }
dir_of() { local e; while IFS= read -r e; do [ "${e%%|*}" = "$1" ] && { echo "${e#*|}"; return; }; done <<<"$SB_DIRS"; }
memdir() { if [ -n "$(dir_of memory)" ]; then echo "$(dir_of memory)"; else echo "$(dir_of unified)"; fi; }
pidsdir() { if [ -n "$(dir_of pids)" ]; then echo "$(dir_of pids)"; else echo "$(dir_of unified)"; fi; }
mlim() { [ -n "$(dir_of memory)" ] && echo memory.limit_in_bytes || echo memory.max; }
# in_scope PID: PID is in the scope in every hierarchy.
in_scope() {
	local e
	while IFS= read -r e; do
		grep -qx "$1" "${e#*|}/$scope/cgroup.procs" 2>/dev/null || fail "pid $1 is not in ${e%%|*}:/$scope"
	done <<<"$SB_DIRS"
}
expect() { [ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"; }

runc_ create --bundle "$BUNDLE" cgmtest || { fail "runc create failed"; exit 1; }
init=$(runc_ state cgmtest | sed -n 's/.*"pid": \([0-9]*\).*/\1/p')
in_scope "$init"
expect "$(cat "$(memdir)/$scope/$(mlim)")" 33554432 "memory limit after create"
expect "$(cat "$(pidsdir)/$scope/pids.max")" 64 "pids.max after create"
busctl call org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager GetUnit s \
	runc-cgmtest.scope >/dev/null || fail "GetUnit runc-cgmtest.scope"
runc_ start cgmtest || fail "runc start failed"
runc_ exec -d cgmtest sleep 301 || fail "runc exec failed"
for _ in $(seq 50); do pgrep -f '^sleep 301$' >/dev/null && break; sleep 0.05; done
ex=$(pgrep -f '^sleep 301$')
[ -n "$ex" ] && in_scope "$ex" || fail "the exec'd process is not there"
runc_ update --memory 50331648 --pids-limit 32 cgmtest || fail "runc update failed"
expect "$(cat "$(memdir)/$scope/$(mlim)")" 50331648 "memory limit after update"
expect "$(cat "$(pidsdir)/$scope/pids.max")" 32 "pids.max after update"
runc_ pause cgmtest || fail "runc pause failed"
expect "$(runc_ state cgmtest | sed -n 's/.*"status": "\([a-z]*\)".*/\1/p')" paused "state after pause"
runc_ resume cgmtest || fail "runc resume failed"
expect "$(runc_ state cgmtest | sed -n 's/.*"status": "\([a-z]*\)".*/\1/p')" running "state after resume"
runc_ kill cgmtest KILL || fail "runc kill failed"
for _ in $(seq 100); do runc_ state cgmtest | grep -q '"status": "stopped"' && break; sleep 0.05; done
runc_ delete cgmtest || fail "runc delete failed"
while IFS= read -r e; do
	for _ in $(seq 100); do [ -d "${e#*|}/$scope" ] || break; sleep 0.05; done
	[ ! -d "${e#*|}/$scope" ] || fail "${e%%|*}:/$scope is still there after delete"
done <<<"$SB_DIRS"
exit $failed
