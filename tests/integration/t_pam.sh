# pam_cgm.so (pam_cgm(8)) driven by pamtester, Debian's PAM client, as root in the sandbox root. Each pamtester
# runs in a private mount namespace (unshare -m) where a tmpfs over /etc/pam.d holds the test service, copies
# of /etc/passwd and /etc/group add the test users, and /dev/log leads to a listener of ours: the host's /etc
# and its syslog are never touched. The service's pam_exec line (after pam_cgm) holds open_session until the
# test releases it, so the cgroups are looked at while the session is open; its parent is pamtester.

PAM_USER1=cgm-pam-a PAM_USER2=cgm-pam-b PAM_GROUP=cgm-pam-grp PAM_GID=60010

# pam_setup: the test users, the hold script and the syslog listener; skips where pamtester or the module is missing.
pam_setup() {
	PAM_MODULE=$BUILD/src/pam/pam_cgm.so
	command -v pamtester >/dev/null || skip "pamtester is not installed (scripts/install-deps.sh)"
	[ -e "$PAM_MODULE" ] || skip "pam_cgm.so was not built (libpam0g-dev missing)"
	PW=$WORK/pam PAM_HELD=()
	# A sanitizer build's module needs the sanitizer runtime in pamtester, which is not built with it.
	PAM_PRELOAD=
	if nm -D --undefined-only "$PAM_MODULE" | grep -q __asan_init; then
		PAM_PRELOAD=$(clang -print-file-name=libclang_rt.asan-x86_64.so)
		export PAM_PRELOAD
	fi
	rm -rf "$PW" && mkdir -p "$PW" && chmod 755 "$PW"
	cp /etc/passwd "$PW/passwd" && cp /etc/group "$PW/group"
	echo "$PAM_USER1:x:$TEST_UID:$TEST_UID::/:/bin/sh" >>"$PW/passwd"
	echo "$PAM_USER2:x:$TEST_UID2:$TEST_UID2::/:/bin/sh" >>"$PW/passwd"
	echo "$PAM_GROUP:x:$PAM_GID:$PAM_USER1" >>"$PW/group"
	cat >"$PW/hold.sh" <<-HOLD
		#!/bin/sh
		# pam_exec's child: tells the test pamtester's pid, then waits (at most a minute) to be released.
		env >"$PW/env.\$1"
		echo \$PPID >"$PW/held.\$1.tmp" && mv "$PW/held.\$1.tmp" "$PW/held.\$1"
		i=0
		while [ ! -e "$PW/release.\$1" ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done
	HOLD
	cat >"$PW/ns.sh" <<-NS
		#!/bin/bash
		# In the private mount namespace: PAM service SERVICE_FILE for USER, then pamtester ARGS... as this pid.
		set -e
		svc=\$1 user=\$2
		shift 2
		mount -t tmpfs -o mode=755 pam.d /etc/pam.d
		cp "\$svc" /etc/pam.d/cgm-test
		mount --bind "$PW/passwd" /etc/passwd
		mount --bind "$PW/group" /etc/group
		mkdir -p "$PW/hostdev"
		mount --rbind /dev "$PW/hostdev"
		mount -t tmpfs -o mode=755 dev /dev
		# /dev/log is the listener's socket (\$PW/log leads there); the rest of /dev as it was.
		ln -s "$PW"/hostdev/* "$PW/log" /dev/
		# PAM_WRAP (a test that widens a race window) runs pamtester under a tracer.
		exec \${PAM_WRAP:-} \${PAM_PRELOAD:+env LD_PRELOAD="\$PAM_PRELOAD"} pamtester -v cgm-test "\$user" "\$@"
	NS
	chmod 755 "$PW/hold.sh" "$PW/ns.sh"
	ln -s "$PW/log.sock" "$PW/log"
	: >"$PW/syslog"
	/usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
open(sys.argv[2] + ".ready", "w").close()
with open(sys.argv[2], "ab", buffering=0) as f:
    while True:
        f.write(s.recv(8192).rstrip(b"\n") + b"\n")
' "$PW/log.sock" "$PW/syslog" >/dev/null 2>&1 &
	PAM_LOGGER=$!
	disown "$PAM_LOGGER" # ended by pid in pam_teardown, without bash reporting it killed
	# The test runs in a subshell of its own: its exit, failed or not, ends the listener.
	trap pam_teardown EXIT
	wait_until 5 test -e "$PW/syslog.ready" || fail "the syslog listener did not start"
}

# Ends the listener; after a failure, shows what pam_cgm logged.
pam_teardown() {
	local rc=$?
	[ "$rc" = 0 ] || [ ! -s "$PW/syslog" ] || sed 's/^/  syslog: /' "$PW/syslog" >&2
	# Sessions a failed test left held are released, so that pamtester closes them before the next test.
	local f
	for f in "$PW"/held.*; do [ -e "$f" ] && touch "$PW/release.${f##*/held.}"; done
	wait_until 10 pam_none_running || true
	[ -n "${PAM_LOGGER:-}" ] && end_pids "$PAM_LOGGER"
	PAM_LOGGER=
}

# pam_service TAG MODULE-ARGS...: a service file whose session stack is pam_cgm with ARGS, then the hold.
pam_none_running() { local p; for p in "${PAM_HELD[@]}"; do pid_gone "$p" || return 1; done; }

pam_service() {
	local tag=$1
	shift
	printf 'session required %s %s\nsession optional pam_exec.so type=open_session %s %s\n' \
		"$PAM_MODULE" "$*" "$PW/hold.sh" "$tag" >"$PW/svc.$tag"
	echo "$PW/svc.$tag"
}

# pam_open_in TAG USER REL MODULE-ARGS...: pamtester, started in sandbox cgroup REL, opens a session and holds
# it; PAMTESTER_PID is its pid, which is also the pid pam_cgm moved.
pam_open_in() {
	local tag=$1 user=$2 rel=$3 svc
	shift 3
	svc=$(pam_service "$tag" "$@")
	# Its own subshell execs it, so that $! is pamtester's pid.
	(_enter "$BASHPID" "$rel" && exec unshare -m --propagation private "$PW/ns.sh" "$svc" "$user" open_session \
		close_session) >"$PW/out.$tag" 2>&1 &
	PAMTESTER_PID=$!
	PAM_HELD+=("$PAMTESTER_PID")
	wait_until 10 test -e "$PW/held.$tag" ||
		{ fail "session $tag did not open: $(cat "$PW/out.$tag")"; return 1; }
	expect_eq "$(cat "$PW/held.$tag")" "$PAMTESTER_PID" "pam_exec's parent" || return 1
}

# pam_open TAG USER MODULE-ARGS...: the same from the sandbox root.
pam_open() { local tag=$1 user=$2; shift 2; pam_open_in "$tag" "$user" "" "$@"; }

# pam_close TAG PID: releases the session; pamtester closes it and must succeed.
pam_close() {
	touch "$PW/release.$1"
	wait "$2" || { fail "pamtester of session $1 failed: $(cat "$PW/out.$1")"; return 1; }
}

# pam_run TAG USER MODULE-ARGS...: a whole session that nobody holds (the hold is released beforehand);
# pamtester's status in PAM_RC, its output in $PW/out.TAG.
pam_run() {
	local tag=$1 user=$2 svc
	shift 2
	svc=$(pam_service "$tag" "$@")
	touch "$PW/release.$tag"
	PAM_RC=0
	run_as 0 "" timeout 30 unshare -m --propagation private "$PW/ns.sh" "$svc" "$user" open_session close_session \
		>"$PW/out.$tag" 2>&1 || PAM_RC=$?
}

# pam_log_lines: pam_cgm's syslog lines so far.
pam_log_lines() { grep -F 'pam_cgm(cgm-test:session)' "$PW/syslog" || true; }

# The session's cgroups in every hierarchy: user/USER and user/USER/N root's with pamtester in N (the
# application never sits in a cgroup the user owns), N/delegated the user's; on cgroup2, with controllers
# offered, they reach the delegated cgroup and pamtester is in N's task leaf.
pam_expect_session() {
	local user=$1 uid=$2 n=$3 pid=$4 h d offered
	for h in $(sb_hierarchies); do
		d=$(sb_path "$h")/user/$user
		expect_owner "$d" 0 0 || return 1
		expect_owner "$d/$n" 0 0 || return 1
		expect_owner "$d/$n/cgroup.procs" 0 0 || return 1
		expect_owner "$d/$n/delegated" "$uid" "$uid" || return 1
		expect_owner "$d/$n/delegated/cgroup.procs" "$uid" "$uid" || return 1
		expect_in_cgroup "$pid" "$h" "user/$user/$n" || return 1
		[ "$h" = unified ] || continue
		offered=$(cat "$d/$n/delegated/cgroup.controllers")
		# On a pure cgroup2 host the delegated cgroup must have controllers to hand to its children (the
		# daemon's Chown enables them down to it); on this host's cgroup2 mount none need reach it.
		if [ -z "$offered" ]; then
			! pure_v2 || { fail "no controller reaches the delegated cgroup $d/$n/delegated"; return 1; }
			continue
		fi
		expect_owner "$d/$n/delegated/cgroup.subtree_control" "$uid" "$uid" || return 1
		grep -qx "$pid" "$d/$n/.leaf/cgroup.procs" || fail "pamtester is not in the session's task leaf"
	done
}

pam_expect_gone() {
	local h
	for h in $(sb_hierarchies); do expect_missing "$(sb_path "$h")/user/$1${2:+/$2}" || return 1; done
}
pam_gone() { local h; for h in $(sb_hierarchies); do [ ! -e "$(sb_path "$h")/user/$1${2:+/$2}" ] || return 1; done; }

test_pam_session_cgroup_root_s_with_a_delegated_child() {
	pam_setup
	pam_open one "$PAM_USER1" "socket=$SOCK" "config=$PW/none.conf"
	local pid=$PAMTESTER_PID s=user/$PAM_USER1/0 job
	pam_expect_session "$PAM_USER1" "$TEST_UID" 0 "$pid"
	grep -qx "CGMANAGER_SOCKET=$SOCK" "$PW/env.one" || fail "the session's environment lacks CGMANAGER_SOCKET=$SOCK"
	# From inside the session the user names its delegated cgroup, and parcels it out; the session's own
	# cgroup, where root's application is, stays root's.
	cgm_as "$TEST_UID" "$s" create all delegated/sub >/dev/null
	expect_owner "$(sb_path "$MH")/$s/delegated/sub" "$TEST_UID" "$TEST_UID"
	cgm_as "$TEST_UID" "$s" new delegated/job -c memory memory.limit=64M >/dev/null
	expect_eq "$(cat "$(sb_path "$MH")/$s/delegated/job/$MLIM")" 67108864 "the limit the user set on its own child"
	expect_refused 'denied|Access|not permitted|owned' cgm_as "$TEST_UID" "$s" create all mine
	expect_eq "$(cgm_as "$TEST_UID" "$s" getpidcgroup "$MH" "$pid")" / "the session's process, seen from the session"
	# The user's own tasks go into the delegated cgroup through the daemon, which checks that they are theirs.
	job=$(cgm_as "$TEST_UID" "$s" exec delegated/shell -- cat /proc/self/cgroup | grep -E "$MEMLINE")
	[[ "$job" == */$s/delegated/shell ]] || fail "cgm exec delegated/shell ran in ${job#*:*:}"
	expect_refused 'denied|Access|not permitted|uid 0' cgm_as "$TEST_UID" "$s" move delegated/sub "$pid"
	expect_in_cgroup "$pid" "$MH" "$s"
	pam_close one "$pid"
	wait_until 5 pam_gone "$PAM_USER1" || pam_expect_gone "$PAM_USER1"
	expect_eq "$(pam_log_lines)" "" "pam_cgm's syslog lines"
	pam_teardown
}

# On cgroup2 the owner of a cgroup.procs may move any task beneath it (the kernel checks no credentials), then
# freeze or kill it: root's application must never be beneath a cgroup the user owns (found by a review of an
# earlier layout, which delegated the session's own cgroup).
test_pam_user_cannot_move_or_freeze_the_root_application() {
	pam_setup
	pam_open rk "$PAM_USER1" "socket=$SOCK"
	local pid=$PAMTESTER_PID h d bad=
	expect_eq "$(stat -c %u "/proc/$pid")" 0 "pamtester's uid"
	for h in $(sb_hierarchies); do
		# As the user, directly on cgroupfs, into a cgroup of its own beneath each one it owns.
		for d in $(find "$(sb_path "$h")/user/$PAM_USER1" -maxdepth 2 -type d -user "$TEST_UID"); do
			run_as "$TEST_UID" "user/$PAM_USER1/0" sh -c "mkdir '$d/trap' && echo $pid >'$d/trap/cgroup.procs'" \
				>/dev/null 2>&1 || true
			grep -qx "$pid" "$d/trap/cgroup.procs" 2>/dev/null &&
				bad+=" $h: uid $TEST_UID moved root's pamtester (pid $pid) into $d/trap;"
			rmdir "$d/trap" 2>/dev/null || echo "$pid" >"$(procs_file "$(sb_path "$h")/user/$PAM_USER1/0")"
			rmdir "$d/trap" 2>/dev/null || true
		done
	done
	expect_refused 'denied|Access|not permitted|uid 0' cgm_as "$TEST_UID" "user/$PAM_USER1/0" freeze ""
	expect_refused 'denied|Access|not permitted|uid 0' cgm_as "$TEST_UID" "user/$PAM_USER1/0" kill "" KILL
	pid_gone "$pid" && bad+=" pamtester was killed;"
	grep -q '^State:.*T' "/proc/$pid/status" && bad+=" pamtester is stopped;"
	pam_close rk "$pid"
	pam_teardown
	[ -z "$bad" ] || fail "$bad"
}

# A session that fails part way (not strict) leaves the application where it was, with its limits: not in the
# daemon's root, where 0.42's module left it (its requests were made from there).
test_pam_failed_open_leaves_the_application_where_it_was() {
	pam_setup
	local h pid
	cgm_root create all pamsvc >/dev/null
	echo "* pids.limit lots" >"$PW/bad-value.conf"
	pam_open_in fo "$PAM_USER1" pamsvc "socket=$SOCK" "config=$PW/bad-value.conf"
	pid=$PAMTESTER_PID
	for h in $(sb_hierarchies); do expect_in_cgroup "$pid" "$h" pamsvc; done
	pam_log_lines | grep -q "cannot set the limits of pam.conf on the user's cgroup" || fail "syslog: $(pam_log_lines)"
	pam_close fo "$pid"
	pam_expect_gone "$PAM_USER1"
	cgm_root remove all pamsvc >/dev/null
	pam_teardown
}

# A group line applies to every member, also of a group whose entry is larger than a first guess of its size.
test_pam_group_limit_of_a_large_group_applies() {
	has_hierarchy pids || pure_v2 || skip "no pids hierarchy"
	pam_setup
	local members=$PAM_USER1 i pid got
	for i in $(seq 600); do members+=",pambigmember$i"; done
	echo "pambig:x:60011:$members" >>"$PW/group"
	printf '*        pids.limit 100\n@pambig  pids.limit 20\n' >"$PW/big.conf"
	pam_open bg "$PAM_USER1" "socket=$SOCK" "config=$PW/big.conf"
	pid=$PAMTESTER_PID
	got=$(cat "$(sb_path "$PH")/user/$PAM_USER1/pids.max")
	pam_close bg "$pid"
	wait_until 5 pam_gone "$PAM_USER1" || true
	expect_eq "$got" 20 "pids.max of user/$PAM_USER1 (its group pambig's line; syslog: '$(pam_log_lines)')"
	pam_teardown
}

test_pam_two_sessions_share_the_user_cgroup() {
	pam_setup
	pam_open a "$PAM_USER1" "socket=$SOCK"
	local p1=$PAMTESTER_PID
	pam_open b "$PAM_USER1" "socket=$SOCK"
	local p2=$PAMTESTER_PID
	pam_expect_session "$PAM_USER1" "$TEST_UID" 0 "$p1"
	pam_expect_session "$PAM_USER1" "$TEST_UID" 1 "$p2"
	pam_close a "$p1"
	wait_until 5 pam_gone "$PAM_USER1" 0 || pam_expect_gone "$PAM_USER1" 0
	pam_expect_session "$PAM_USER1" "$TEST_UID" 1 "$p2"
	pam_close b "$p2"
	wait_until 5 pam_gone "$PAM_USER1" || pam_expect_gone "$PAM_USER1"
	pam_teardown
}

test_pam_controller_list_names_the_hierarchies() {
	multi_hierarchy || skip "one hierarchy: every controller names it"
	has_hierarchy freezer && has_hierarchy memory && has_hierarchy pids || skip "needs v1 freezer, memory and pids"
	pam_setup
	pam_open c "$PAM_USER1" "socket=$SOCK" -c freezer,memory
	local pid=$PAMTESTER_PID h
	for h in freezer memory; do
		expect_owner "$(sb_path "$h")/user/$PAM_USER1/0/delegated" "$TEST_UID" "$TEST_UID"
		expect_in_cgroup "$pid" "$h" "user/$PAM_USER1/0"
	done
	expect_missing "$(sb_path pids)/user/$PAM_USER1"
	expect_in_cgroup "$pid" pids ""
	pam_close c "$pid"
	pam_teardown
}

test_pam_limits_from_config_hold_and_the_user_cannot_raise_them() {
	has_hierarchy memory || pure_v2 || skip "no memory hierarchy"
	pam_setup
	cat >"$PW/limits.conf" <<-CONF
		# defaults, then a group's and a user's own
		*           memory.limit  256M
		*           pids.limit    100
		@$PAM_GROUP memory.limit  512M
		$PAM_USER2  pids.limit    50
	CONF
	pam_open l1 "$PAM_USER1" "socket=$SOCK" "config=$PW/limits.conf"
	local p1=$PAMTESTER_PID
	pam_open l2 "$PAM_USER2" "socket=$SOCK" "config=$PW/limits.conf"
	local p2=$PAMTESTER_PID
	local m1 m2
	m1=$(sb_path "$MH")/user/$PAM_USER1 m2=$(sb_path "$MH")/user/$PAM_USER2
	expect_eq "$(cat "$m1/$MLIM")" 536870912 "$PAM_USER1's memory limit (its group's)"
	expect_eq "$(cat "$m2/$MLIM")" 268435456 "$PAM_USER2's memory limit (the default)"
	expect_eq "$(cat "$(sb_path "$PH")/user/$PAM_USER1/pids.max")" 100 "$PAM_USER1's pids limit (the default)"
	expect_eq "$(cat "$(sb_path "$PH")/user/$PAM_USER2/pids.max")" 50 "$PAM_USER2's pids limit (its own)"
	expect_owner "$m1/$MLIM" 0 0
	# Neither from inside the session (the user cgroup is its parent, which it cannot name; the session's
	# own limit files stay root's) nor from a cgroup that sees it does the user raise them.
	expect_refused 'denied|Access|not permitted' cgm_as "$TEST_UID" "user/$PAM_USER1/0" set "" memory.limit=1G
	expect_refused 'denied|Access|not permitted' cgm_as "$TEST_UID" "" set "user/$PAM_USER1" memory.limit=1G
	expect_refused 'denied|Access|not permitted' cgm_as "$TEST_UID" "" setvalue "$MH" "user/$PAM_USER1" "$MLIM" 1073741824
	expect_refused 'denied|Access|not permitted' cgm_as "$TEST_UID" "" set "user/$PAM_USER1" pids.limit=max
	expect_eq "$(cat "$m1/$MLIM")" 536870912 "$PAM_USER1's memory limit after the user's attempts"
	expect_eq "$(cat "$(sb_path "$PH")/user/$PAM_USER1/pids.max")" 100 "$PAM_USER1's pids limit after the attempts"
	pam_close l1 "$p1"
	pam_close l2 "$p2"
	wait_until 5 pam_gone "$PAM_USER1" || pam_expect_gone "$PAM_USER1"
	pam_teardown
}

test_pam_daemon_down_opens_the_session_with_one_syslog_line() {
	pam_setup
	pam_run down "$PAM_USER1" "socket=$PW/no-daemon.sock"
	expect_eq "$PAM_RC" 0 "pamtester's status (daemon down, not strict): $(cat "$PW/out.down")"
	wait_until 5 test -n "$(pam_log_lines)" || true
	expect_eq "$(pam_log_lines | wc -l)" 1 "pam_cgm's syslog lines: $(pam_log_lines)"
	pam_log_lines | grep -q "cannot reach cgmanager at $PW/no-daemon.sock: .*; the session opens without a cgroup" ||
		fail "syslog line: $(pam_log_lines)"
	: >"$PW/syslog"
	pam_run strict "$PAM_USER1" "socket=$PW/no-daemon.sock" strict
	[ "$PAM_RC" != 0 ] || fail "pamtester succeeded with strict and no daemon: $(cat "$PW/out.strict")"
	grep -q 'open_session' "$PW/out.strict" || fail "pamtester's output: $(cat "$PW/out.strict")"
	wait_until 5 test -n "$(pam_log_lines)" || true
	expect_eq "$(pam_log_lines | wc -l)" 1 "pam_cgm's syslog lines (strict): $(pam_log_lines)"
	pam_log_lines | grep -q "the session is refused without a cgroup" || fail "syslog line: $(pam_log_lines)"
	pam_teardown
}

test_pam_refusal_opens_the_session_with_one_syslog_line() {
	pam_setup
	# The daemon refuses a limit value it cannot parse: the session opens without a cgroup and nothing is left.
	echo "* pids.limit lots" >"$PW/bad-value.conf"
	pam_run refused "$PAM_USER1" "socket=$SOCK" "config=$PW/bad-value.conf"
	expect_eq "$PAM_RC" 0 "pamtester's status: $(cat "$PW/out.refused")"
	wait_until 5 test -n "$(pam_log_lines)" || true
	expect_eq "$(pam_log_lines | wc -l)" 1 "pam_cgm's syslog lines: $(pam_log_lines)"
	pam_log_lines | grep -q "cannot set the limits of pam.conf on the user's cgroup: .*lots.* for user $PAM_USER1; the session opens" ||
		fail "syslog line: $(pam_log_lines)"
	pam_expect_gone "$PAM_USER1"
	: >"$PW/syslog"
	pam_run refused-strict "$PAM_USER1" "socket=$SOCK" "config=$PW/bad-value.conf" strict
	[ "$PAM_RC" != 0 ] || fail "pamtester succeeded with strict and a refusal"
	pam_log_lines | grep -q "the session is refused without a cgroup" || fail "syslog line: $(pam_log_lines)"
	pam_expect_gone "$PAM_USER1"
	pam_teardown
}

test_pam_bad_arguments_and_config_lines_are_logged() {
	pam_setup
	cat >"$PW/bad.conf" <<-CONF
		* memory.limit
		* nosuch.key 5
		@ pids.limit 5
		* pids.limit 5 extra
		* pids.limit 77
	CONF
	pam_open bad "$PAM_USER1" "socket=$SOCK" "config=$PW/bad.conf" bogus socket=relative.sock -c 'a,,b' --controllers
	local pid=$PAMTESTER_PID
	local log
	log=$(pam_log_lines)
	for want in "bad argument 'bogus': unknown argument" "bad argument 'socket=relative.sock': the path must be absolute" \
		"bad argument 'a,,b': not a comma-separated list" "bad argument '--controllers': -c needs a controller list" \
		"bad.conf:1: expected DOMAIN KEY VALUE" "bad.conf:2: unknown key" "bad.conf:3: no group name after '@'" \
		"bad.conf:4: more than DOMAIN KEY VALUE"; do
		grep -qF "$want" <<<"$log" || fail "no syslog line '$want' in: $log"
	done
	expect_eq "$(wc -l <<<"$log")" 8 "pam_cgm's syslog lines: $log"
	# The good line still applies, and the session opened with its cgroup.
	expect_eq "$(cat "$(sb_path "$PH")/user/$PAM_USER1/pids.max")" 77 "the pids limit of the good line"
	pam_expect_session "$PAM_USER1" "$TEST_UID" 0 "$pid"
	pam_close bad "$pid"
	: >"$PW/syslog"
	pam_run bad-strict "$PAM_USER1" "socket=$SOCK" "config=$PW/bad.conf" strict
	[ "$PAM_RC" != 0 ] || fail "pamtester succeeded with strict and bad config lines"
	pam_log_lines | grep -qF "strict: the session is refused for the errors above" || fail "syslog: $(pam_log_lines)"
	wait_until 5 pam_gone "$PAM_USER1" || pam_expect_gone "$PAM_USER1"
	pam_teardown
}

# A user cgroup that goes (remove-on-empty: the last task of the user's other sessions exits) while a new session
# is being set up must come back with the limits of pam.conf before the application enters it. The window is
# between the Creates and the application's move: a Create after the removal makes missing parents (user/NAME
# included, without limits). strace widens it to seconds by delaying the helper's 7th sendmsg (1 auth,
# 2 MovePidAbs, 3 Create user/NAME, 4 ListChildren, 5 Create N, 6 Create N/delegated, 7 Chown, 8 SetValues),
# which otherwise the user hits by timing its own task's exit (found by the review of 44a5b17). The test waits
# for N/delegated, so the helper is held at the Chown: waiting for N alone raced a slow helper's Create of
# N/delegated, which remade user/NAME after the removal (ci5).
test_pam_user_cgroup_removed_during_open_keeps_its_limits() {
	has_hierarchy pids || pure_v2 || skip "no pids hierarchy"
	command -v strace >/dev/null || skip "strace is not installed"
	pam_setup
	local ud pa pb left svc got
	ud=$(sb_path "$PH")/user/$PAM_USER1
	echo "* pids.limit 50" >"$PW/race.conf"
	# Session A leaves one of the user's tasks behind: user/NAME stays, marked remove-on-empty.
	pam_open ra "$PAM_USER1" "socket=$SOCK" "config=$PW/race.conf"
	pa=$PAMTESTER_PID
	left=$(spawn_sleeper "$TEST_UID" "user/$PAM_USER1/0/delegated")
	pam_close ra "$pa"
	expect_eq "$(cat "$ud/pids.max")" 50 "pids.max of user/$PAM_USER1 after session A"
	# Session B, its helper held just before it creates N/delegated.
	svc=$(pam_service rb "socket=$SOCK" "config=$PW/race.conf")
	(_enter "$BASHPID" "" && PAM_WRAP="strace -f -qq -o /dev/null -e trace=sendmsg \
		--inject=sendmsg:delay_enter=12000000:when=7 --" exec unshare -m --propagation private "$PW/ns.sh" "$svc" \
		"$PAM_USER1" open_session close_session) >"$PW/out.rb" 2>&1 &
	PAM_HELD+=("$!")
	wait_until 10 test -d "$ud/1/delegated" || {
		fail "session B made no user/$PAM_USER1/1/delegated: $(cat "$PW/out.rb")"
		end_pids "$left"
		return 1
	}
	# The user's last task elsewhere exits: the daemon removes user/NAME, with B's empty N.
	end_pids "$left"
	wait_until 10 test ! -e "$ud" || fail "user/$PAM_USER1 was not removed when its last task left"
	wait_until 30 test -e "$PW/held.rb" || { fail "session B did not open: $(cat "$PW/out.rb")"; return 1; }
	pb=$(cat "$PW/held.rb")
	got=$(cat "$ud/pids.max" 2>/dev/null || echo "(no user cgroup)")
	local where; where=$(grep -E "$([ "$PH" = unified ] && echo '^0::' || echo '^[0-9]+:pids:')" "/proc/$pb/cgroup")
	touch "$PW/release.rb"
	wait_until 10 pam_none_running || true
	wait_until 5 pam_gone "$PAM_USER1" || true
	expect_eq "$got" 50 "pids.max of user/$PAM_USER1 that session B's pamtester (${where#*:*:}) entered (syslog: '$(pam_log_lines)')"
	pam_teardown
}

# pam_su_script SOCK DELAY_US WHEN CMD...: $PW/su-ns.sh, which in a private mount namespace (PAM service su: auth
# by pam_permit, then pam_cgm on SOCK) runs CMD as the user under strace, which holds the WHEN-th sendmsg of each
# process DELAY_US; CMD runs su itself, or a program that does.
pam_su_script() {
	local sock=$1 delay=$2 when=$3
	shift 3
	printf 'auth sufficient pam_permit.so\naccount required pam_permit.so\nsession required %s socket=%s\n' \
		"$PAM_MODULE" "$sock" >"$PW/svc.su"
	cat >"$PW/su-ns.sh" <<-NS
		#!/bin/bash
		set -e
		mount -t tmpfs -o mode=755 pam.d /etc/pam.d
		cp "$PW/svc.su" /etc/pam.d/su
		mount --bind "$PW/passwd" /etc/passwd
		mount --bind "$PW/group" /etc/group
		exec strace -f -qq -o /dev/null -e trace=sendmsg --inject=sendmsg:delay_enter=$delay:when=$when -- \\
			setpriv --reuid=$TEST_UID --regid=$TEST_UID --clear-groups -- $*
	NS
	chmod 755 "$PW/su-ns.sh"
}

# su and sudo keep the invoker's real uid, so the invoker may signal them, and would have signalled a helper
# that kept it too. Before the review of 44a5b17 the helper moved the application by its pid number: a user who
# stopped the helper and killed su had root's next process with that pid moved into its session. Now the
# application moves itself (MovePidAbs of its own pid), the helper's every uid is root's, and a helper whose
# application is gone undoes what it made. Real su (util-linux, PAM service su in the private /etc/pam.d, auth by
# pam_permit) as the user; strace holds the helper at its last request (the 9th sendmsg: auth, the helper's own
# move, Create user/NAME, ListChildren, Create N, Create N/delegated, Chown, two RemoveOnEmpty); the user kills su;
# root's next process takes su's pid (clone3 set_tid stands for pid reuse).
test_pam_su_killed_mid_open_moves_no_other_process() {
	command -v su >/dev/null && [ -u "$(command -v su)" ] || skip "no setuid su"
	command -v strace >/dev/null || skip "strace is not installed"
	pam_setup
	# A setuid program ignores LD_PRELOAD, so it cannot load a module built with ASan (lane host-asan).
	[ -z "$PAM_PRELOAD" ] || skip "su is setuid: it cannot preload ASan's runtime for the instrumented module"
	local su_pid helper victim where ud=$(sb_path "$MH")/user/$PAM_USER1
	pam_su_script "$SOCK" 6000000 9 su "$PAM_USER1" -c "'exec sleep 600'"
	(_enter "$BASHPID" "" && exec unshare -m --propagation private "$PW/su-ns.sh") >"$PW/out.su" 2>&1 &
	PAM_HELD+=("$!")
	local tracer=$!
	wait_until 10 sh -c "[ \"\$(stat -c %u '$ud/0/delegated' 2>/dev/null)\" = $TEST_UID ]" ||
		{ fail "su's session made no delegated cgroup: $(cat "$PW/out.su")"; return 1; }
	# The subshell became strace (through unshare and the script); its child became su.
	su_pid=$(pgrep -P "$tracer" -x su | head -1)
	helper=$(pgrep -P "$su_pid" | head -1)
	[ -n "$su_pid" ] && [ -n "$helper" ] || { fail "no su ($su_pid) with a helper ($helper)"; return 1; }
	! run_as "$TEST_UID" "" kill -0 "$helper" 2>/dev/null || fail "uid $TEST_UID may signal pam_cgm's helper $helper"
	run_as "$TEST_UID" "" kill -KILL "$su_pid" || fail "uid $TEST_UID may not kill its su $su_pid"
	wait_until 5 test ! -e "/proc/$su_pid" || fail "su $su_pid was not reaped"
	victim=$(run_as 0 "" /usr/bin/python3 -c '
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
tid = (ctypes.c_int * 1)(int(sys.argv[1]))
args = ctypes.create_string_buffer(struct.pack("11Q", 0, 0, 0, 0, 17, 0, 0, 0, ctypes.addressof(tid), 1, 0))
r = libc.syscall(435, args, 88)
if r == 0:
    null = os.open("/dev/null", os.O_RDWR)
    os.dup2(null, 1), os.dup2(null, 2)
    os.execv("/bin/sleep", ["sleep", "600"])
print(r if r > 0 else "clone3: " + os.strerror(ctypes.get_errno()), flush=True)
' "$su_pid")
	[ "$victim" = "$su_pid" ] || { fail "root's process did not get pid $su_pid: $victim"; return 1; }
	SB_PIDS+=("$victim")
	wait_until 10 pid_gone "$helper" || true
	where=$(grep -E "$MEMLINE" "/proc/$victim/cgroup")
	end_pids "$victim"
	wait_until 10 pam_none_running || true
	# The helper, its application gone, undid the session: nothing is left to count against the user's sessions.
	wait_until 5 pam_gone "$PAM_USER1" || pam_expect_gone "$PAM_USER1"
	cgm_root delete -f "user/$PAM_USER1" >/dev/null 2>&1 || true
	pam_teardown
	[[ "$where" != */user/$PAM_USER1/* ]] || fail "root's process $victim, which took the pid of the user's killed su, was moved into ${where#*:*:}"
}

# A user cannot signal the root helper, but the terminal can: su run from a terminal is in its foreground process
# group, and so is the helper it forks, which a ^C, a ^Z or a hangup reaches whatever its uids. Here the user's own
# pty (python's pty.fork, su its session leader) and the user killing su, which hangs the terminal up: the kernel
# sends SIGHUP to the foreground group. strace holds the helper after the Chown (at its 8th sendmsg, the first
# RemoveOnEmpty), so the session it made is the user's delegated cgroup, unmarked and entered by nothing: it must
# not be left behind to count against the user's sessions (found by the review of 33eb357).
test_pam_su_on_a_terminal_hung_up_mid_open_leaves_no_session() {
	command -v su >/dev/null && [ -u "$(command -v su)" ] || skip "no setuid su"
	command -v strace >/dev/null || skip "strace is not installed"
	pam_setup
	# su is setuid: the loader ignores LD_PRELOAD, so it cannot load a sanitizer build's module (lane host-asan).
	[ -z "$PAM_PRELOAD" ] || skip "setuid su cannot load the sanitizer build's pam_cgm.so"
	local su_pid helper ud=$(sb_path "$MH")/user/$PAM_USER1
	cat >"$PW/su-pty.py" <<-'PY'
		import os, pty, sys
		pid, fd = pty.fork()
		if pid == 0:
		    os.execvp("su", ["su", sys.argv[2], "-c", "exec sleep 600"])
		with open(sys.argv[1] + ".tmp", "w") as f:
		    f.write(str(pid))
		os.rename(sys.argv[1] + ".tmp", sys.argv[1])
		while True:
		    try:
		        if not os.read(fd, 1024):
		            break
		    except OSError:
		        break
		os.waitpid(pid, 0)
	PY
	pam_su_script "$SOCK" 6000000 8 /usr/bin/python3 "$PW/su-pty.py" "$PW/su/pid" "$PAM_USER1"
	chmod 644 "$PW/su-pty.py"
	mkdir "$PW/su" && chown "$TEST_UID" "$PW/su"
	(_enter "$BASHPID" "" && exec unshare -m --propagation private "$PW/su-ns.sh") >"$PW/out.su" 2>&1 &
	PAM_HELD+=("$!")
	wait_until 10 sh -c "[ \"\$(stat -c %u '$ud/0/delegated' 2>/dev/null)\" = $TEST_UID ]" ||
		{ fail "su's session made no delegated cgroup: $(cat "$PW/out.su")"; return 1; }
	su_pid=$(cat "$PW/su/pid")
	helper=$(pgrep -P "$su_pid" | head -1)
	[ -n "$su_pid" ] && [ -n "$helper" ] || { fail "no su ($su_pid) with a helper ($helper)"; return 1; }
	run_as "$TEST_UID" "" kill -KILL "$su_pid" || fail "uid $TEST_UID may not kill its su $su_pid"
	wait_until 15 pid_gone "$helper" || true
	local helper_gone; helper_gone=$(pid_gone "$helper" && echo yes || echo no)
	wait_until 10 pam_none_running || true
	local left; left=$(pam_gone "$PAM_USER1" || find "$ud" -mindepth 1 -type d -printf '%P/ ')
	cgm_root delete -f "user/$PAM_USER1" >/dev/null 2>&1 || true
	pam_teardown
	[ -z "$left" ] || fail "the hang-up of su's terminal (helper ended: $helper_gone) left user/$PAM_USER1 and" \
		"in it $left behind (syslog: '$(pam_log_lines)')"
}

# The helper keeps its connection (root's: every uid of it is) while it waits for the application's word, and
# waits for as long as the application lives. su keeps the invoker's real uid, so the user may stop su once the
# helper is under way (strace holds the helper at its 3rd sendmsg meanwhile): each stopped su then holds one root
# connection for good, counted against no user's --max-connections-per-uid and taking the slots kept for root.
# A daemon of the test's own with --max-connections 2; two su's stopped so must still leave root's ping answered,
# and the user's next session (a root application's) in its cgroup, not opened without one as for a daemon out of
# reach (found by the review of 33eb357).
test_pam_su_stopped_mid_open_holds_no_root_connection() {
	command -v su >/dev/null && [ -u "$(command -v su)" ] || skip "no setuid su"
	command -v strace >/dev/null || skip "strace is not installed"
	pam_setup
	# su is setuid: the loader ignores LD_PRELOAD, so it cannot load a sanitizer build's module (lane host-asan).
	[ -z "$PAM_PRELOAD" ] || skip "setuid su cannot load the sanitizer build's pam_cgm.so"
	local dir=$WORK/stopped sock=$WORK/stopped/sock daemon i tracers=() sus=() ping=answered
	mkdir -p "$dir" && chmod 1777 "$dir"
	daemon_spawn "$sock" "$WORK/stopped.log" --max-connections 2
	daemon=$SPAWNED_PID
	wait_until 5 "$CGM" --socket "$sock" ping ||
		{ fail "no daemon on $sock: $(cat "$WORK/stopped.log")"; return 1; }
	pam_su_script "$sock" 2000000 3 su "$PAM_USER1" -c "'exec sleep 600'"
	for i in 1 2; do
		(_enter "$BASHPID" "" && exec unshare -m --propagation private "$PW/su-ns.sh") >"$PW/out.su$i" 2>&1 &
		PAM_HELD+=("$!")
		tracers+=("$!")
		disown "$!" # ended by pid below, without bash reporting it killed
		wait_until 10 sh -c "pgrep -P \$(pgrep -P $! -x su) >/dev/null" ||
			{ fail "su $i started no helper: $(cat "$PW/out.su$i")"; break; }
		sus+=("$(pgrep -P "$!" -x su)")
		# The user stops its su while the helper is held; the helper goes on, reports, and waits.
		run_as "$TEST_UID" "" kill -STOP "${sus[-1]}" || fail "uid $TEST_UID may not stop its su ${sus[-1]}"
	done
	sleep 3
	"$CGM" --socket "$sock" ping >/dev/null 2>&1 || ping="refused: $("$CGM" --socket "$sock" ping 2>&1 || true)"
	# Meanwhile a session of a root application (pamtester, as sshd would be) opens for the user: without a cgroup
	# when the daemon is out of reach, outside user/NAME's limits.
	pam_run esc "$PAM_USER1" "socket=$sock"
	local escaped; escaped=$(pam_log_lines | grep -F "opens without a cgroup" || true)
	# Continued and killed, each su's helper sees its application gone and undoes its session.
	for i in "${sus[@]}"; do kill -CONT "$i"; kill -KILL "$i"; done
	wait_until 15 pam_none_running || true
	for i in "${tracers[@]}"; do end_pids "$i"; done
	stop_pid "$daemon"
	cgm_root delete -f "user/$PAM_USER1" >/dev/null 2>&1 || true
	pam_teardown
	local ok=0; expect_eq "$ping" answered "root's ping with uid $TEST_UID's two su's stopped mid-open" || ok=1
	[ -z "$escaped" ] || fail "the user's next session opened without a cgroup: $escaped" || ok=1
	return $ok
}
