# The daemon SIGKILLed in the middle of each multi-step operation (Create with values, Chown, Delete force,
# Kill, Freeze), step by step: after a restart every cgroup the operation touched is either done (exactly
# as an uninterrupted run leaves it) or untouched (exactly as before), across every hierarchy: nothing is
# left half-made, half-delegated or half-removed, and the daemon serves again. The daemon is stopped by
# strace, attached to its serving thread, which sends it SIGKILL on entering the Nth call of one system
# call (mkdirat, fchownat, fchown, write, unlinkat, pidfd_send_signal), N looped over every such call the
# operation makes (over an even spread from the first to the last where there are many: a fchownat per
# file). The journal (src/ops/journal.h) is what makes the next daemon finish or undo the operation.
# Every cgroup these tests make is named rs_* beneath the sandbox.

RS_SOCK=
RS_PID=

# rs_daemon_start: a daemon of the test's own on its own socket (the suite's daemon keeps serving the
# other tests), answering a ping. The first call sets the test up to end it, its tracer and its sleepers
# and to remove its tree TREE (RS_TREE) however it ends.
rs_daemon_start() {
	if [ -z "$RS_SOCK" ]; then
		RS_SOCK=$WORK/rs-$RS_TREE.sock RS_SLEEPERS=() RS_KILLS=0 RS_AFTER= RS_TRACER=
		trap rs_cleanup EXIT
	fi
	DAEMON_LOG_LEVEL=info daemon_spawn "$RS_SOCK" "$WORK/rs.log"
	RS_PID=$SPAWNED_PID
	local i
	for i in $(seq 200); do
		"$CGM" --socket "$RS_SOCK" ping 2>/dev/null && return 0
		kill -0 "$RS_PID" 2>/dev/null || break
		sleep 0.02
	done
	fail "no daemon answered on $RS_SOCK: $(tail -20 "$WORK/rs.log")"
}

rs_cleanup() {
	local f
	[ -z "$RS_TRACER" ] || end_pids "$RS_TRACER"
	# A frozen task does not die until thawed.
	for f in $(find "$(sb_path freezer 2>/dev/null)/$RS_TREE" -name freezer.state 2>/dev/null); do echo THAWED >"$f"; done
	end_pids "${RS_SLEEPERS[@]}"
	[ -z "$RS_PID" ] || ! kill -0 "$RS_PID" 2>/dev/null || end_pids "$RS_PID"
	flt_rmdir_behind "$RS_TREE" || true
}

rs_daemon_stop() {
	[ -n "$RS_PID" ] || return 0
	stop_pid "$RS_PID" 5 || fail "the daemon exited with $? on SIGTERM: $(tail -20 "$WORK/rs.log")"
	RS_PID=
	! grep -E "runtime error|AddressSanitizer|LeakSanitizer" "$WORK/rs.log" || fail "a sanitizer reported the above"
}

rs_cgm() { local uid=$1 rel=$2; shift 2; run_as "$uid" "$rel" "$CGM" --socket "$RS_SOCK" "$@"; }

# rs_user_tree REL: root makes REL and hands it to the test user.
rs_user_tree() { rs_cgm 0 "" create all "$1" >/dev/null && rs_cgm 0 "" chown all "$1" "$TEST_UID" "$TEST_UID"; }

# rs_crash_lane: strace, and a daemon whose system calls are its own. valgrind makes calls of its own on
# the daemon's thread (writes to its scheduler's pipe), so that the Nth call is no step of the daemon's,
# and a restart there costs seconds: the host lanes run the loops; the journal's replay runs under
# valgrind too (test_faults_restart_mid_op_journal_forged_is_ignored).
rs_crash_lane() {
	command -v strace >/dev/null || skip "strace is not installed"
	[ "$LANE" != valgrind ] || skip "valgrind's own system calls on the daemon's thread make a count of its steps meaningless"
}

# rs_snap REL: each file and directory of REL in every hierarchy, with type, owner, group and mode, and
# the content of each setting (FLT_SETTINGS, t_faults.sh); "missing" where REL is not. Three processes
# whatever the tree: a fork costs much on a busy host, and the loops below take many snapshots.
rs_snap() {
	local e d dirs=()
	for e in "${SB_DIRS[@]}"; do
		d=${e#*|}/$1
		if [ -d "$d" ]; then dirs+=("$d"); else echo "${e%%|*}:$1 missing"; fi
	done
	[ ${#dirs[@]} = 0 ] || find "${dirs[@]}" -printf '%p %y %u %g %m\n' 2>/dev/null | LC_ALL=C sort |
		awk -v settings="$FLT_SETTINGS" 'BEGIN { n = split(settings, s); for (i = 1; i <= n; i++) want[s[i]] = 1 }
		{ print; f = $1; sub(/.*\//, "", f); if ($2 != "f" || !(f in want)) next
		  v = ""; while ((getline line < $1) > 0) v = v line " "; close($1); print "  = " v }'
}

# rs_attach ARGS...: strace ARGS attached to the daemon's serving thread (its main thread, which runs
# every operation); returns once it is attached, its pid in RS_TRACER.
rs_attach() {
	local i k v
	strace -qq -p "$RS_PID" "$@" 2>"$WORK/rs.strace" &
	RS_TRACER=$!
	SB_PIDS+=("$RS_TRACER")
	for i in $(seq 250); do
		while read -r k v; do
			[ "$k" = TracerPid: ] && [ "$v" = "$RS_TRACER" ] && return 0
		done <"/proc/$RS_PID/status"
		sleep 0.02
	done
	fail "strace did not attach to the daemon: $(cat "$WORK/rs.strace")"
}

# rs_count SYSCALLS CMD...: CMD run with the daemon's calls of SYSCALLS (one, or several split by commas)
# traced; their count in RS_COUNT.
rs_count() {
	local sys=$1
	shift
	rs_attach -o "$WORK/rs.calls" -e trace="$sys" || return 1
	"$@" >/dev/null || { fail "$* failed under strace"; return 1; }
	stop_pid "$RS_TRACER" 5
	RS_TRACER=
	RS_COUNT=$(grep -cE "^(${sys//,/|})\(" "$WORK/rs.calls") || true
}

# rs_crash_loop SYSCALL MAX SNAPSHOT RESET CMD...: counts the calls of SYSCALL that CMD makes the daemon
# do; then for N over them (every one, or MAX of them spread evenly from the first to the last): the
# state RESET makes, which must be RS_BEFORE (SNAPSHOT's output), CMD run against a daemon that strace
# SIGKILLs on entering its Nth SYSCALL (which therefore is not made), and a restart; the state must then
# be RS_BEFORE or RS_DONE, the daemon must answer, and RS_AFTER (if set) must pass. RS_KILLS counts them.
# SYSCALL may be a set of two that the daemon uses one or the other of (pidfd_send_signal,kill: it signals
# by pid where the kernel, or valgrind, has no pidfds).
rs_crash_loop() {
	local sys=$1 max=$2 snap=$3 reset=$4 i n last=0 rc now
	shift 4
	"$reset" || return 1
	rs_count "$sys" "$@" || return 1
	[ "$("$snap")" = "$RS_DONE" ] || { fail "$* under strace did not end as it does alone"; return 1; }
	[ "$RS_COUNT" -gt 0 ] || { fail "$* made no $sys call"; return 1; }
	# Calls past RS_NMAX (if set) are left out: their number depends on timing (Kill's later rounds).
	local count=$RS_COUNT
	[ -z "${RS_NMAX:-}" ] || [ "$count" -le "$RS_NMAX" ] || count=$RS_NMAX
	for ((i = 0; i < max && i < count; i++)); do
		if [ "$count" -le "$max" ]; then n=$((i + 1)); else n=$((1 + i * (count - 1) / (max - 1))); fi
		[ "$n" -gt "$last" ] || continue
		last=$n
		"$reset" || return 1
		[ "$("$snap")" = "$RS_BEFORE" ] || { fail "$reset did not restore the state before"; return 1; }
		rs_attach -o /dev/null -e trace="$sys" -e inject="$sys:signal=SIGKILL:when=$n" || return 1
		"$@" >/dev/null 2>&1 && { fail "$* succeeded, but the daemon was to be killed at $sys call $n of $RS_COUNT"; return 1; }
		rc=0
		# (bash would say "Killed" for its job)
		{ wait "$RS_PID"; } 2>/dev/null || rc=$?
		wait "$RS_TRACER" 2>/dev/null || true
		RS_TRACER=
		[ "$rc" = 137 ] || { fail "the daemon exited with $rc, not of SIGKILL, at $sys call $n"; return 1; }
		RS_KILLS=$((RS_KILLS + 1))
		rs_daemon_start || return 1
		now=$("$snap")
		if [ "$now" != "$RS_BEFORE" ] && [ "$now" != "$RS_DONE" ]; then
			fail "killed at $sys call $n of $RS_COUNT, then restarted: neither done nor untouched. Against done:
$(diff <(echo "$RS_DONE") <(echo "$now") | head -16)
against before:
$(diff <(echo "$RS_BEFORE") <(echo "$now") | head -16)"
			return 1
		fi
		"$CGM" --socket "$RS_SOCK" ping >/dev/null || { fail "no ping after the restart at $sys call $n"; return 1; }
		if [ -n "$RS_AFTER" ]; then "$RS_AFTER" || { fail "(killed at $sys call $n)"; return 1; }; fi
	done
	echo "measured: $sys: $RS_COUNT calls, killed at $i of them"
}

# --- Create with values, by a user in its delegated cgroup ---

rs_cv_snap() { rs_snap rs_cv; }
rs_cv_reset() { local d; for d in "${SB_DIRS[@]}"; do d=${d#*|}/rs_cv/u/job; [ ! -d "$d" ] || rmdir "$d"; done; }
rs_cv_op() { rs_cgm "$TEST_UID" rs_cv/u new job memory.limit=32M pids.limit=20; }

# Create makes the cgroup in every hierarchy (mkdirat, as its creator: cgroupfs makes its files the creator's
# as it makes them, so there is no chown to cut short) and sets the values (write): all or nothing.
test_faults_restart_mid_create_with_values() {
	rs_crash_lane
	RS_TREE=rs_cv
	rs_daemon_start
	rs_user_tree rs_cv/u
	RS_BEFORE=$(rs_cv_snap)
	rs_cv_op
	RS_DONE=$(rs_cv_snap)
	rs_crash_loop mkdirat 5 rs_cv_snap rs_cv_reset rs_cv_op
	rs_crash_loop write 20 rs_cv_snap rs_cv_reset rs_cv_op
	rs_daemon_stop
}

# --- Chown, by root, of a cgroup it made, to a user ---

rs_ch_snap() { rs_snap rs_ch; }
rs_ch_reset() {
	local e d
	for e in "${SB_DIRS[@]}"; do
		d=${e#*|}/rs_ch/c
		chown -R 0:0 "$d" || return 1
		# The chown's quota limits (cgroup2) are undone too: a fresh cgroup has none of its own.
		if [ -e "$d/cgroup.max.descendants" ]; then echo max >"$d/cgroup.max.descendants"; echo max >"$d/cgroup.max.depth"; fi
	done
}
rs_ch_op() { rs_cgm 0 "" chown all rs_ch/c "$TEST_UID" "$TEST_UID"; }

# Chown hands the delegated files (fchownat), then the directory (fchown) of every hierarchy, and limits
# how much the new owner may nest on cgroup2 (write).
test_faults_restart_mid_chown() {
	rs_crash_lane
	RS_TREE=rs_ch
	rs_daemon_start
	rs_cgm 0 "" create all rs_ch/c >/dev/null
	RS_BEFORE=$(rs_ch_snap)
	rs_ch_op
	RS_DONE=$(rs_ch_snap)
	rs_crash_loop fchownat 8 rs_ch_snap rs_ch_reset rs_ch_op
	rs_crash_loop fchown 20 rs_ch_snap rs_ch_reset rs_ch_op
	rs_crash_loop write 20 rs_ch_snap rs_ch_reset rs_ch_op
	rs_daemon_stop
}

# --- Delete force, Kill and Freeze, by a user of its own tree with its own tasks ---

# rs_sleepers_reset REL NAME...: the user's cgroups REL/NAME (made through the daemon, as the user would,
# where missing), with one new sleeper of the user in each; their pids in RS_SLEEPERS. A kill cannot be
# undone: the snapshots of these trees leave tasks out, and each test checks on its own what became of them.
rs_sleepers_reset() {
	local rel=$1 n p e i c
	shift
	end_pids "${RS_SLEEPERS[@]}"
	RS_SLEEPERS=()
	for n in "$@"; do
		for e in "${SB_DIRS[@]}"; do
			[ -d "${e#*|}/$rel/$n" ] && continue
			rs_cgm "$TEST_UID" "$rel" new "$n" >/dev/null || return 1
			break
		done
		p=$(spawn_as "$TEST_UID" "$rel/$n" sleep 600)
		RS_SLEEPERS+=("$p")
	done
	# Each one's uid and cgroups are final once it runs sleep (read, not cat: a fork costs much here).
	for p in "${RS_SLEEPERS[@]}"; do
		for i in $(seq 250); do
			c=
			read -r c <"/proc/$p/comm" 2>/dev/null || true
			[ "$c" = sleep ] && break
			sleep 0.02
		done
		[ "$c" = sleep ] || { fail "sleeper $p did not start"; return 1; }
	done
}

rs_del_snap() { rs_snap rs_del; }
rs_del_reset() { rs_sleepers_reset rs_del/u t t/a t/b; }
rs_del_op() { rs_cgm "$TEST_UID" rs_del/u delete -f t; }
# The restarted daemon's Delete force finishes what is left, if anything is.
rs_del_after() {
	local out p
	out=$(rs_del_op 2>&1) || grep -q "does not exist" <<<"$out" || { fail "delete -f after the restart: $out"; return 1; }
	[ "$(rs_del_snap)" = "$RS_DONE" ] || { fail "delete -f after the restart did not finish the job"; return 1; }
	for p in "${RS_SLEEPERS[@]}"; do pid_gone "$p" || { fail "pid $p survived"; return 1; }; done
}

# Delete force signals every task (pidfd_send_signal), then removes every cgroup of the tree in every
# hierarchy, children first (unlinkat).
test_faults_restart_mid_delete_force() {
	rs_crash_lane
	RS_TREE=rs_del
	rs_daemon_start
	rs_user_tree rs_del/u
	rs_del_reset
	RS_BEFORE=$(rs_del_snap)
	rs_del_op
	RS_DONE=$(rs_del_snap)
	! grep -q "/rs_del/u/t d " <<<"$RS_DONE" || fail "delete -f left rs_del/u/t"
	RS_AFTER=rs_del_after
	# SIGKILL goes to each task in a first round, and again to those still there in the next rounds, as
	# many as it takes them to die: the first round is the same every time.
	RS_NMAX=3 rs_crash_loop pidfd_send_signal,kill 20 rs_del_snap rs_del_reset rs_del_op
	rs_crash_loop unlinkat 8 rs_del_snap rs_del_reset rs_del_op
	rs_daemon_stop
}

# Kill writes no cgroup file: the tree stays as it was, each task is signalled or not, and the restarted
# daemon's Kill reaches the rest.
rs_kill_snap() { rs_snap rs_kill; }
rs_kill_reset() { rs_sleepers_reset rs_kill/u t t/a t/b; }
rs_kill_op() { rs_cgm "$TEST_UID" rs_kill/u kill t TERM; }
rs_kill_after() {
	local p alive=0
	for p in "${RS_SLEEPERS[@]}"; do pid_gone "$p" || alive=$((alive + 1)); done
	[ "$alive" -gt 0 ] || { fail "every task was signalled before the daemon was killed"; return 1; }
	expect_ok rs_kill_op || return 1
	for p in "${RS_SLEEPERS[@]}"; do wait_until 5 pid_gone "$p" || { fail "pid $p survived the restarted daemon's Kill"; return 1; }; done
}

test_faults_restart_mid_kill() {
	rs_crash_lane
	RS_TREE=rs_kill
	rs_daemon_start
	rs_user_tree rs_kill/u
	rs_kill_reset
	RS_BEFORE=$(rs_kill_snap) RS_DONE=$(rs_kill_snap) RS_AFTER=rs_kill_after
	rs_crash_loop pidfd_send_signal,kill 20 rs_kill_snap rs_kill_reset rs_kill_op
	expect_eq "$RS_KILLS" 3 "restarts (one before each task's signal)"
	rs_daemon_stop
}

# Freeze writes one freezer.state, which the kernel carries through by itself: after a restart the tree
# is frozen or not, never midway, and the restarted daemon thaws it.
rs_fz_snap() {
	local f=$(sb_path freezer)/rs_fz/u/t/freezer.state i st
	for i in $(seq 100); do read -r st <"$f" 2>/dev/null; [ "$st" = FREEZING ] || break; sleep 0.02; done
	rs_snap rs_fz
}
rs_fz_reset() {
	echo THAWED >"$(sb_path freezer)/rs_fz/u/t/freezer.state" 2>/dev/null || true
	rs_sleepers_reset rs_fz/u t t/a
}
rs_fz_op() { rs_cgm "$TEST_UID" rs_fz/u freeze t; }
rs_fz_after() {
	expect_ok rs_cgm "$TEST_UID" rs_fz/u thaw t || return 1
	expect_eq "$(rs_cgm "$TEST_UID" rs_fz/u get t freezer.state)" thawed "freezer.state after the restarted daemon's Thaw"
}

test_faults_restart_mid_freeze() {
	rs_crash_lane
	RS_TREE=rs_fz
	has_hierarchy freezer || skip "no v1 freezer hierarchy: cgroup2's cgroup.freeze is the same one write"
	rs_daemon_start
	rs_user_tree rs_fz/u
	rs_fz_reset
	RS_BEFORE=$(rs_fz_snap)
	rs_fz_op
	RS_DONE=$(rs_fz_snap)
	[ "$RS_DONE" != "$RS_BEFORE" ] || fail "the Freeze changed nothing the snapshot shows"
	RS_AFTER=rs_fz_after
	rs_crash_loop write 20 rs_fz_snap rs_fz_reset rs_fz_op
	rs_daemon_stop
}

# --- The journal itself: only root's, and only for the daemon's own tree ---

# rs_restart_with CMD: the daemon stopped, its journal made anew by CMD (one of rs_journal_*, which write
# $RS_SOCK.journal), the daemon started again with an empty log; it must serve.
rs_restart_with() {
	rs_daemon_stop || return 1
	rm -f "$RS_SOCK.journal"
	: >"$WORK/rs.log"
	"$@" || return 1
	rs_daemon_start
}
rs_journal_note() { printf 'chown\t%s\t%s\t%s\t%s\t%s\t%s\n' "$RS_JH" "$1" "$2" "$RS_JINO" "$TEST_UID" "$TEST_UID"; }
rs_journal_user() { { rs_journal_note "$RS_JROOT" rs_j/c; echo go; } >"$RS_SOCK.journal" && chown "$TEST_UID" "$RS_SOCK.journal"; }
rs_journal_groupw() { { rs_journal_note "$RS_JROOT" rs_j/c; echo go; } >"$RS_SOCK.journal" && chmod 620 "$RS_SOCK.journal"; }
rs_journal_link() { { rs_journal_note "$RS_JROOT" rs_j/c; echo go; } >"$WORK/rs_elsewhere" && ln -s "$WORK/rs_elsewhere" "$RS_SOCK.journal"; }
rs_journal_outside() { { rs_journal_note "${RS_JROOT%/*}" "${RS_JROOT##*/}/rs_j/c"; echo go; } >"$RS_SOCK.journal"; }
rs_journal_nogo() { rs_journal_note "$RS_JROOT" rs_j/c >"$RS_SOCK.journal"; }
rs_journal_go() {
	{
		printf 'mkdir\t%s\t%s\t%s\t0\t0\n' "$RS_JH" "$RS_JROOT" rs_j/m
		printf 'mkdir\t%s\t%s\t%s\t0\t0\n' "$RS_JH" "$RS_JROOT" rs_j/n
		rs_journal_note "$RS_JROOT" rs_j/c
		printf 'rmdir\t%s\t%s\t%s\t%s\n' "$RS_JH" "$RS_JROOT" rs_j/r "$(stat -c %i "$(sb_path "$RS_JH")/rs_j/r")"
		printf 'rmdir\t%s\t%s\t%s\t%s\n' "$RS_JH" "$RS_JROOT" rs_j/s 1
		echo go
	} >"$RS_SOCK.journal"
}

# A journal has the next daemon change cgroups with no request to check: one that root alone did not
# write, a note for a cgroup outside the daemon's tree and a note without its "go" are not acted on.
test_faults_restart_mid_op_journal_forged_is_ignored() {
	local d
	RS_TREE=rs_j
	rs_daemon_start
	rs_cgm 0 "" create "$MH" rs_j/c >/dev/null
	d=$(sb_path "$MH")/rs_j/c
	RS_JH=$MH RS_JINO=$(stat -c %i "$d")
	RS_JROOT=$(sed -n "s/^.*serving $MH:\(.*\)$/\1/p" "$WORK/rs.log" | tail -1)
	[ -n "$RS_JROOT" ] || fail "the daemon's log names no root of $MH"
	rs_restart_with rs_journal_user
	grep -q "$RS_SOCK.journal is not a file that only root may write; it is not used" "$WORK/rs.log" || fail "a user's journal: $(cat "$WORK/rs.log")"
	expect_owner "$d" 0 0
	rs_restart_with rs_journal_groupw
	grep -q "$RS_SOCK.journal is not a file that only root may write" "$WORK/rs.log" || fail "a group-writable journal was not refused"
	expect_owner "$d" 0 0
	rs_restart_with rs_journal_link
	grep -q "cannot open the journal $RS_SOCK.journal: Too many levels of symbolic links" "$WORK/rs.log" || fail "a symbolic link was not refused"
	[ -s "$WORK/rs_elsewhere" ] || fail "the file the link names was emptied"
	expect_owner "$d" 0 0
	rs_restart_with rs_journal_outside
	grep -q "is not in a tree this daemon serves; left as it is" "$WORK/rs.log" || fail "a note outside the tree: $(cat "$WORK/rs.log")"
	expect_owner "$d" 0 0
	rs_restart_with rs_journal_nogo
	expect_owner "$d" 0 0
	! grep -q journal: "$WORK/rs.log" || fail "a note without its go was acted on: $(cat "$WORK/rs.log")"
	[ ! -s "$RS_SOCK.journal" ] || fail "the journal was not emptied"
	# The same notes as root writes them, with their "go": carried through, and a Create cut short undone
	# (m), a Remove finished (r), but not for a cgroup that is no longer the one noted (s, another inode).
	rs_cgm 0 "" create "$MH" rs_j/m/a >/dev/null
	rs_cgm 0 "" create "$MH" rs_j/r/a >/dev/null
	rs_cgm 0 "" create "$MH" rs_j/s >/dev/null
	# n took the name of what a Create of root's was making, but it is another uid's (on v1 the parent's
	# owner may rename its own cgroup into the name): the undo leaves it.
	rs_cgm 0 "" create "$MH" rs_j/n >/dev/null
	chown "$TEST_UID:$TEST_UID" "$(sb_path "$MH")/rs_j/n"
	rs_restart_with rs_journal_go
	expect_owner "$d" "$TEST_UID" "$TEST_UID"
	expect_owner "$d/cgroup.procs" "$TEST_UID" "$TEST_UID"
	grep -q "journal: finished the chown of $MH:/rs_j/c to $TEST_UID:$TEST_UID" "$WORK/rs.log" || fail "no log of the chown carried through"
	expect_missing "$(sb_path "$MH")/rs_j/m"
	grep -q "journal: undid the creation of $MH:/rs_j/m" "$WORK/rs.log" || fail "no log of the creation undone"
	expect_missing "$(sb_path "$MH")/rs_j/r"
	grep -q "journal: finished removing $MH:/rs_j/r" "$WORK/rs.log" || fail "no log of the removal finished"
	expect_exists "$(sb_path "$MH")/rs_j/n"
	grep -q "journal: $MH:/rs_j/n is not what the daemon before was making (it is uid $TEST_UID's, not uid 0's)" "$WORK/rs.log" ||
		fail "no log of the cgroup of another uid's left: $(grep journal: "$WORK/rs.log")"
	expect_exists "$(sb_path "$MH")/rs_j/s"
	grep -q "journal: $MH:/rs_j/s was removed or replaced since it was noted; left as it is" "$WORK/rs.log" || fail "no log of the replaced cgroup"
	rs_daemon_stop
}
