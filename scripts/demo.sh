#!/usr/bin/env bash
# Quick start: installs what is needed, builds, starts cgmanager in a sandbox
# cgroup beneath this shell's own cgroups (never touching anything else),
# shows delegation to an unprivileged uid, the key API and a login session (pam_cgm with pamtester, in a
# private mount namespace), then stops and cleans up.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/install-deps.sh
scripts/build.sh build
BUILD=$top/build
. tests/integration/lib.sh
trap 'daemon_stop; sandbox_destroy' EXIT
sandbox_create
daemon_start
U=$TEST_UID
say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
show() { say "$*"; "$@" || true; }
alice() { cgm_as "$U" demo/alice "$@"; }

echo "cgmanager is serving the sandbox $(sb_path memory) on $SOCK"
show cgm_root listcontrollers
say "root creates demo/alice in every hierarchy and hands it to uid $U"
cgm_root create all demo/alice
cgm_root chown all demo/alice "$U" "$U"
say "cgm listkeys memory demo/alice  (the task files are handed over, the limits are not)"
cgm_root listkeys memory demo/alice | grep -E '^(tasks|cgroup.procs|memory.limit_in_bytes) '
say "uid $U runs a shell in demo/alice and parcels out what it was given"
show alice create all job
show alice setvalue memory job memory.limit_in_bytes 64M
show alice getvalue memory job memory.limit_in_bytes
say "... but cannot raise its own limit, escape upward, or move root's tasks"
show alice setvalue memory '' memory.limit_in_bytes 1G
show alice create memory ../escape
show alice movepid memory job "$DAEMON_PID"
say "a task of uid $U moved into job, as uid $U"
pid=$(spawn_as "$U" demo/alice sleep 60)
show alice movepid all job "$pid"
show alice getpidcgroup memory "$pid"
show cgm_root getpidcgroupabs memory "$pid"
kill "$pid"
wait "$pid" 2>/dev/null || true
show cgm_root remove all demo

say "the key API: one name in every hierarchy, keys whatever the cgroup version"
show cgm_root new demo/web memory.limit=512M pids.limit=100
show cgm_root get demo/web memory.limit pids.limit
show cgm_root --json get demo/web pids.limit
show cgm_root delete demo

. tests/integration/t_pam.sh
say "a login session: pamtester opens one for user $PAM_USER1 (uid $U) through pam_cgm.so"
if command -v pamtester >/dev/null && [ -e "$BUILD/src/pam/pam_cgm.so" ]; then
	pam_setup
	trap 'pam_teardown; daemon_stop; sandbox_destroy' EXIT
	pam_open demo "$PAM_USER1" "socket=$SOCK"
	show grep -E ':(memory|pids|name=systemd|):' "/proc/$PAMTESTER_PID/cgroup"
	show cgm_root getpidcgroup memory "$PAMTESTER_PID"
	say "the session's cgroup and user/$PAM_USER1 stay root's; the session's delegated child is the user's"
	show stat -c '%u %n' "$(sb_path memory)/user/$PAM_USER1" "$(sb_path memory)/user/$PAM_USER1/0" \
		"$(sb_path memory)/user/$PAM_USER1/0/delegated"
	say "from inside the session, uid $U runs a job in a cgroup of its own beneath delegated"
	show cgm_as "$U" "user/$PAM_USER1/0" new delegated/job memory.limit=64M
	show cgm_as "$U" "user/$PAM_USER1/0" exec delegated/job -- grep -E ':(memory|):/' /proc/self/cgroup
	say "... but cannot move root's login process (pamtester here) out of the session"
	show cgm_as "$U" "user/$PAM_USER1/0" move delegated/job "$PAMTESTER_PID"
	pam_close demo "$PAMTESTER_PID"
	say "the session closed: its cgroups are gone"
	show cgm_root ls user
	pam_teardown
else
	echo "(skipped: pamtester or pam_cgm.so is missing)"
fi
echo
echo "demo done; stopping the daemon and removing the sandbox"
