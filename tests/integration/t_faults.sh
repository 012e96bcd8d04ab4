# Kernel-side failures and daemon restarts: every refusal names what was refused and why, and leaves
# nothing half-done (no cgroup half removed or half made, no value half written, no task half moved);
# cgroups removed behind the daemon's back; a daemon killed (SIGTERM, SIGKILL) under connected clients
# and a cgproxy changes nothing in cgroupfs, and its clients carry on with the next daemon.
# Every cgroup these tests make is named flt_* beneath the sandbox (and c1 for the container).

# flt_each_dir REL: the sandbox cgroup REL in every hierarchy, one path a line.
flt_each_dir() { local h; for h in $(sb_hierarchies); do echo "$(sb_path "$h")/$1"; done; }

# flt_expect_everywhere REL / flt_expect_nowhere REL: REL exists in every hierarchy / in none.
flt_expect_everywhere() { local d; for d in $(flt_each_dir "$1"); do expect_exists "$d" || return 1; done; }
flt_expect_nowhere() { local d; for d in $(flt_each_dir "$1"); do expect_missing "$d" || return 1; done; }

# flt_rmdir_behind REL: removes the (empty) tree REL directly on cgroupfs in every hierarchy.
flt_rmdir_behind() { local d; for d in $(flt_each_dir "$1"); do [ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} +; done; return 0; }

# flt_cgroups PID: the task's /proc/PID/cgroup, to compare before and after a refused move.
flt_cgroups() { cat "/proc/$1/cgroup"; }

test_faults_remove_populated_removes_nothing_anywhere() {
	local pid h out
	cgm_root create all flt_rm/a/b >/dev/null
	cgm_root create all flt_rm/z >/dev/null
	pid=$(spawn_sleeper 0 flt_rm/a/b)
	# Where there are several hierarchies the task is only in memory's: the others' trees are empty, and a
	# removal that went hierarchy by hierarchy would take them before it met the task.
	if multi_hierarchy; then
		for h in $(sb_hierarchies); do [ "$h" = memory ] || cgm_root movepid "$h" "" "$pid"; done
	fi
	out=$(cgm_root remove all flt_rm 2>&1) && fail "a populated tree was removed: $out"
	echo "$out" | grep -qE "$MH:/flt_rm still has tasks \(pid $pid in $MH:/flt_rm/a/b\); nothing was removed in any hierarchy.*Error.Busy" ||
		fail "unexpected refusal: $out"
	flt_expect_everywhere flt_rm/a/b
	flt_expect_everywhere flt_rm/z
	# Not recursive: refused for the children, in every hierarchy alike.
	expect_refused "[a-z=]+:/flt_rm/a has child cgroups .*nothing was removed in any hierarchy.*Busy" cgm_root remove all flt_rm/a 0
	expect_refused "still has tasks \(pid $pid\)" cgm_root remove all flt_rm/a/b 0
	flt_expect_everywhere flt_rm/a/b
	# The key API's Delete is the same removal.
	expect_refused "still has tasks \(pid $pid in $MH:/flt_rm/a/b\).*Busy" cgm_root delete flt_rm
	flt_expect_everywhere flt_rm/z
	expect_in_cgroup "$pid" memory flt_rm/a/b
	end_pids "$pid"
	cgm_root delete flt_rm
	flt_expect_nowhere flt_rm
}

test_faults_remove_refused_in_subtree_removes_nothing() {
	local U=$TEST_UID d
	delegate flt_perm "$U"
	cgm_as "$U" flt_perm create all x/a >/dev/null
	cgm_as "$U" flt_perm create all x/r >/dev/null
	# Root makes a child in the user's x/r and takes x/r back: the user may not remove what is beneath it.
	cgm_root create all flt_perm/x/r/k >/dev/null
	cgm_root chown all flt_perm/x/r 0 0
	d=$(sb_path memory)/flt_perm/x
	# x/a sorts first: removing child by child would have taken it before meeting x/r/k.
	expect_refused "cannot remove the cgroups beneath [a-z=]+:/flt_perm/x/r: .*AccessDenied" cgm_as "$U" flt_perm remove all x
	expect_exists "$d/a"
	expect_exists "$d/r/k"
	expect_refused "cannot remove the cgroups beneath .*/flt_perm/x/r" cgm_as "$U" flt_perm delete x
	flt_expect_everywhere flt_perm/x/a
	cgm_root remove all flt_perm >/dev/null
	flt_expect_nowhere flt_perm
}

test_faults_removed_behind_the_daemons_back() {
	local pid out
	cgm_root create all flt_bb/kid >/dev/null
	cgm_root chown all flt_bb "$TEST_UID" "$TEST_UID"
	flt_rmdir_behind flt_bb
	pid=$(spawn_sleeper 0 "")
	# Every call that names it says it does not exist, in both APIs.
	expect_refused "$MH:/flt_bb does not exist.*FileNotFound" cgm_root getvalue memory flt_bb "$MLIM"
	expect_refused "$MH:/flt_bb does not exist.*FileNotFound" cgm_root setvalue memory flt_bb "$MLIM" 64M
	expect_refused "/flt_bb does not exist.*FileNotFound" cgm_root movepid all flt_bb "$pid"
	expect_refused "/flt_bb does not exist.*FileNotFound" cgm_root gettasks memory flt_bb
	expect_refused "/flt_bb/kid does not exist.*FileNotFound" cgm_root listchildren memory flt_bb/kid
	expect_refused "/flt_bb does not exist.*FileNotFound" cgm_root chown all flt_bb 0 0
	expect_eq "$(cgm_root remove all flt_bb)" "Path did not exist" "0.42 Remove of a cgroup removed behind its back"
	expect_refused "flt_bb does not exist.*FileNotFound" cgm_root get flt_bb memory.limit
	expect_refused "flt_bb does not exist.*FileNotFound" cgm_root set flt_bb memory.limit=64M
	expect_refused "flt_bb does not exist.*FileNotFound" cgm_root move flt_bb "$pid"
	expect_refused "flt_bb.* does not exist.*FileNotFound" cgm_root delete flt_bb
	expect_refused "flt_bb does not exist.*FileNotFound" cgm_root tasks flt_bb
	expect_in_cgroup "$pid" memory ""
	# Made again (behind its back too), it is an ordinary new cgroup.
	cgm_root create all flt_bb >/dev/null
	cgm_root movepid all flt_bb "$pid"
	expect_in_cgroup "$pid" memory flt_bb
	cgm_root movepid all "" "$pid"
	cgm_root remove all flt_bb >/dev/null
	flt_expect_nowhere flt_bb
	end_pids "$pid"
}

test_faults_remove_on_empty_mark_is_for_its_own_cgroup() {
	local pid d
	# A mark on a cgroup that has not held tasks yet waits for them to come and go.
	cgm_root create all flt_roe >/dev/null
	cgm_root removeonempty all flt_roe
	# Someone else removes it and makes a new one under the same name, which then holds a task and empties:
	# the mark was for the old cgroup, so the new one stays.
	for d in $(flt_each_dir flt_roe); do
		rmdir "$d" && mkdir "$d"
		# (a v1 cpuset made by hand has no cpus; the sleeper below needs some)
		if [ -e "$d/cpuset.cpus" ] && has_hierarchy cpuset; then
			cat "$d/../cpuset.cpus" >"$d/cpuset.cpus" && cat "$d/../cpuset.mems" >"$d/cpuset.mems"
		fi
	done
	pid=$(spawn_sleeper 0 flt_roe)
	sleep 1.5 # v1 marks are checked once a second: the old mark would have seen it populated
	end_pids "$pid"
	sleep 2.5
	flt_expect_everywhere flt_roe
	# A new mark on the new cgroup works as ever.
	pid=$(spawn_sleeper 0 flt_roe)
	cgm_root removeonempty all flt_roe
	end_pids "$pid"
	wait_until 5 flt_gone_everywhere flt_roe || fail "flt_roe was not removed once empty"
}
flt_gone_everywhere() { local d; for d in $(flt_each_dir "$1"); do [ ! -e "$d" ] || return 1; done; }

test_faults_quota_counts_survive_removal_behind_the_back() {
	local U=$TEST_UID sock=$WORK/flt_quota.sock qpid
	(
		_enter "$BASHPID" "" || exit 99
		exec "$CGMANAGER" --socket "$sock" --log-level debug --max-cgroups-per-uid 3
	) >>"$WORK/flt_quota.log" 2>&1 &
	qpid=$!
	SB_PIDS+=("$qpid")
	wait_for_socket "$sock"
	qcgm() { run_as "$U" flt_q "$CGM" --socket "$sock" "$@"; }
	delegate flt_q "$U"
	# flt_q itself counts: two more. ($MH names the hierarchy and, on cgroup2, no controller: a controller
	# handed over would move the requester's task into flt_q/.leaf, one more of its cgroups.)
	qcgm create "$MH" q1 >/dev/null
	qcgm create "$MH" q2 >/dev/null
	expect_refused "uid $U owns 3 cgroups in $MH, its limit.*LimitsExceeded" qcgm create "$MH" q3
	# The owner removes one directly on cgroupfs: the daemon counts again (once its last count is 99 times its
	# duration old, a few ms here) and sees room for one more.
	rmdir "$(sb_path memory)/flt_q/q1"
	# In the v2 VM a count of the hierarchy takes 10-50 times longer, and so does the wait before the next.
	local wait=5
	[ "$LANE" != v2 ] || wait=30
	wait_until "$wait" qcgm create "$MH" q3 || fail "the count did not notice the removal of q1 within $wait s"
	expect_refused "owns 3 cgroups" qcgm create "$MH" q4
	expect_missing "$(sb_path memory)/flt_q/q4"
	kill -TERM "$qpid"
	wait "$qpid" || fail "the quota daemon exited with $? on SIGTERM"
	cgm_root remove all flt_q >/dev/null
}

test_faults_move_of_an_exited_task() {
	local pid zpid parent i out
	cgm_root create all flt_mv >/dev/null
	# Exited and reaped: the pid is gone.
	pid=$(run_as 0 "" sh -c 'sleep 0 & echo $!; wait')
	expect_refused "pid $pid does not exist \(it may have exited\).*FileNotFound" cgm_root movepid all flt_mv "$pid"
	expect_refused "pid $pid does not exist \(it may have exited\)" busctl1_as 0 "" MovePid si flt_mv "$pid"
	# Exited, not reaped yet (a zombie): its pid is there and the kernel would take the write and move
	# nothing; the daemon says so instead of answering success.
	parent=$(spawn_as 0 "" sh -c 'sleep 0 & exec sleep 600')
	for i in $(seq 100); do
		zpid=$(cat "/proc/$parent/task/$parent/children" 2>/dev/null | awk '{print $1}')
		[ -n "$zpid" ] && [ "$(awk '{print $3}' "/proc/$zpid/stat" 2>/dev/null)" = Z ] && break
		zpid=
		sleep 0.02
	done
	[ -n "$zpid" ] || fail "no zombie"
	expect_refused "pid $zpid has exited \(its parent has not reaped it yet\); nothing was moved.*FileNotFound" \
		cgm_root movepid all flt_mv "$zpid"
	# The key API's Move takes a pidfd of it (cgm opens one): the same answer.
	expect_refused "pid $zpid has exited.*nothing was moved" cgm_root move flt_mv "$zpid"
	end_pids "$parent"
	# A pidfd of a task that has exited and been reaped: the key API's Move says so.
	out=$(echo "move-exited flt_mv" | run_as 0 "" "$BUILD/tests/lib-session" "$SOCK" | tail -1)
	echo "$out" | grep -q "^error org.freedesktop.DBus.Error.FileNotFound: the process the pidfd refers to has exited" ||
		fail "Move of an exited task's pidfd: $out"
	# Tasks that exit while they are moved (born in the sandbox, so only their exit can refuse them): each
	# move succeeds or says the task exited, and nothing but those tasks ever enters flt_mv.
	out=$(run_as 0 "" bash -c 'for i in $(seq 20); do
		sleep "0.0$((i % 4))" & p=$!
		if r=$("$0" --socket "$1" movepid all flt_mv $p 2>&1); then echo "o $p"; else echo "x $p $r"; fi
		echo "in $(cat "$2/cgroup.procs" | tr "\n" " ")"
		wait
	done' "$CGM" "$SOCK" "$(sb_path memory)/flt_mv")
	local line mine= answers=
	while read -r line; do
		case $line in
		"o "*) mine+=" ${line#o } "; answers+=o ;;
		"x "*) pid=${line#x }; pid=${pid%% *}; mine+=" $pid "; answers+=x
			echo "$line" | grep -qE "^x $pid .*pid $pid (does not exist|has exited|exited)" || fail "unclear refusal: $line" ;;
		"in "*) for pid in ${line#in }; do [[ $mine == *" $pid "* ]] || fail "pid $pid, not a task moved, is in flt_mv"; done ;;
		esac
	done <<<"$out"
	expect_eq "${#answers}" 20 "moves answered"
	echo "  moves of exiting tasks: $answers (o done, x refused as exited)"
	cgm_root remove all flt_mv >/dev/null
}

test_faults_move_refused_by_the_kernel_moves_nothing() {
	local pid before d
	pid=$(spawn_sleeper 0 "")
	if has_hierarchy cpuset; then
		# v1: a cpuset without cpus takes no task (ENOSPC). The move, refused there, is undone in the
		# hierarchies before it.
		cgm_root create all flt_cs >/dev/null
		d=$(sb_path cpuset)/flt_cs
		echo "" >"$d/cpuset.cpus"
		before=$(flt_cgroups "$pid")
		expect_refused "cannot move pid $pid into cpuset:/flt_cs: .*cpuset.cpus or cpuset.mems is empty.*left where it was in every hierarchy.*LimitsExceeded" \
			cgm_root movepid all flt_cs "$pid"
		expect_eq "$(flt_cgroups "$pid")" "$before" "cgroups of pid $pid after a refused move"
		expect_refused "cpuset.cpus or cpuset.mems is empty.*left where it was" cgm_root move flt_cs "$pid"
		expect_eq "$(flt_cgroups "$pid")" "$before" "cgroups of pid $pid after a refused Move"
		# Setting a cpuset empty under a task is refused too, and says why.
		cat "$(sb_path cpuset)/cpuset.cpus" >"$d/cpuset.cpus"
		cgm_root movepid cpuset flt_cs "$pid"
		expect_refused "the kernel refused ' ' for cpuset:/flt_cs cpuset.cpus: .*has tasks, which would be left without cpus" \
			cgm_root setvalue cpuset flt_cs cpuset.cpus " "
		cgm_root movepid cpuset "" "$pid"
	elif pure_v2; then
		# cgroup2: a cgroup beneath a threaded one that is not threaded itself ("domain invalid") takes no
		# task (EOPNOTSUPP).
		d=$(sb_path unified)/flt_cs
		mkdir -p "$d/t"
		echo threaded >"$d/t/cgroup.type" || skip "no threaded cgroups here"
		mkdir "$d/t/x"
		[ "$(cat "$d/t/x/cgroup.type")" = "domain invalid" ] || skip "a new cgroup beneath a threaded one is $(cat "$d/t/x/cgroup.type") here"
		before=$(flt_cgroups "$pid")
		expect_refused "cannot move pid $pid into unified:/flt_cs/t/x: .*threaded subtree.*NotSupported" \
			cgm_root movepid all flt_cs/t/x "$pid"
		expect_eq "$(flt_cgroups "$pid")" "$before" "cgroups of pid $pid after a refused move"
	else
		skip "neither a v1 cpuset hierarchy nor a pure cgroup2 host"
	fi
	end_pids "$pid"
	flt_rmdir_behind flt_cs
}

test_faults_bad_values_refused_and_nothing_half_written() {
	local d pids_before mem_before
	cgm_root create all flt_v >/dev/null
	d=$(sb_path memory)/flt_v
	cgm_root setvalue memory flt_v "$MLIM" 64M
	# 0.42: the kernel refuses, the message says what and why, the file keeps its value.
	expect_refused "the kernel refused 'abc' for $MH:/flt_v $MLIM: Invalid argument \(not a value this file takes.*InvalidArgs" \
		cgm_root setvalue memory flt_v "$MLIM" abc
	expect_eq "$(cat "$d/$MLIM")" 67108864 "$MLIM after a refused value"
	# Key API: cpu 4000 passes the syntax check, the kernel refuses it (no such cpu). The values written
	# before it in the same call are written back.
	cgm_root set flt_v pids.limit=50
	pids_before=$(cgm_root get flt_v pids.limit)
	mem_before=$(cgm_root get flt_v memory.limit)
	expect_refused "cpus_allowed: the kernel refused '4000' for [a-z]+:/flt_v cpuset.cpus" \
		cgm_root set flt_v pids.limit=7 memory.limit=32M cpus_allowed=4000
	expect_eq "$(cgm_root get flt_v pids.limit)" "$pids_before" "pids.limit after a refused SetValues"
	expect_eq "$(cgm_root get flt_v memory.limit)" "$mem_before" "memory.limit after a refused SetValues"
	expect_eq "$(cat "$(sb_path pids)/flt_v/pids.max")" 50 "pids.max in cgroupfs after a refused SetValues"
	# Create with such a value leaves no cgroup in any hierarchy.
	expect_refused "cpus_allowed: the kernel refused '4000'" cgm_root new flt_v/new pids.limit=7 cpus_allowed=4000
	flt_expect_nowhere flt_v/new
	expect_refused "cpus_allowed: the kernel refused '4000'" cgm_root new flt_vnew/deep memory.limit=32M cpus_allowed=4000
	flt_expect_nowhere flt_vnew
	cgm_root remove all flt_v >/dev/null
}

test_faults_daemons_started_together_one_serves() {
	local sock=$WORK/flt_two/sock i p1 p2 live rc
	mkdir -p "$WORK/flt_two"
	for i in 1 2 3; do
		# Over a stale socket file, as a SIGKILL leaves one, so that both see it stale at once.
		python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$sock"
		daemon_spawn "$sock" "$WORK/flt_two/$i.a.log"; p1=$SPAWNED_PID
		daemon_spawn "$sock" "$WORK/flt_two/$i.b.log"; p2=$SPAWNED_PID
		wait_for_socket "$sock"
		wait_until 5 flt_one_gone "$p1" "$p2" || fail "round $i: both daemons run"
		if kill -0 "$p1" 2>/dev/null; then live=$p1; rc=0; wait "$p2" || rc=$?; else live=$p2; rc=0; wait "$p1" || rc=$?; fi
		expect_eq "$rc" 1 "round $i: exit status of the daemon that did not start"
		grep -hq "a daemon already answers on $sock" "$WORK/flt_two/$i".*.log || fail "round $i: $(cat "$WORK/flt_two/$i".*.log)"
		"$CGM" --socket "$sock" ping || fail "round $i: the daemon left does not answer"
		# The one left is the one that answers: stopping it removes the socket it made.
		kill -TERM "$live"
		wait "$live" || fail "round $i: exit status $? on SIGTERM"
		expect_missing "$sock"
	done
}
# Anyone who can open the socket's directory can flock it; such a lock delays a start (by at most 2 s),
# it never stops one.
test_faults_strangers_lock_on_the_socket_dir_does_not_stop_a_start() {
	local dir=$WORK/flt_lock holder t0 took
	mkdir -p "$dir"
	chmod 755 "$dir"
	holder=$(spawn_as "$TEST_UID" "" /usr/bin/python3 -c \
		'import fcntl, os, sys, time; fcntl.flock(os.open(sys.argv[1], os.O_RDONLY), fcntl.LOCK_EX); time.sleep(30)' "$dir")
	wait_until 5 flt_dir_locked "$dir" || fail "uid $TEST_UID did not get the lock of $dir"
	t0=$(now_ms)
	daemon_spawn "$dir/sock" "$WORK/flt_lock.log"
	wait_until 10 "$CGM" --socket "$dir/sock" ping || fail "no daemon answers on $dir/sock: $(cat "$WORK/flt_lock.log")"
	took=$(( $(now_ms) - t0 ))
	grep -q "stayed locked by another process" "$WORK/flt_lock.log" || fail "the daemon did not say why it waited"
	[ "$took" -ge 1500 ] || fail "the daemon answered after $took ms: it did not wait for the lock"
	echo "measured: started in $took ms under a stranger's lock"
	stop_pid "$SPAWNED_PID" || fail "exit status $? on SIGTERM; its log ends: $(tail -40 "$WORK/flt_lock.log")"
	end_pids "$holder"
}
flt_dir_locked() { ! flock -n "$1" true; }
flt_one_gone() { ! kill -0 "$1" 2>/dev/null || ! kill -0 "$2" 2>/dev/null; }

# --- daemon restarts under clients ---

# flt_snapshot REL...: what of the trees REL a restart must not change, in every hierarchy: each
# directory and file with owner and mode, every task's placement, and the settings.
FLT_SETTINGS='memory.limit_in_bytes memory.memsw.limit_in_bytes memory.soft_limit_in_bytes memory.max memory.low memory.high
pids.max cpu.shares cpu.weight cpu.max cpu.cfs_quota_us cpu.cfs_period_us cpuset.cpus cpuset.mems cgroup.subtree_control
cgroup.max.descendants cgroup.max.depth cgroup.freeze freezer.state devices.list notify_on_release cgroup.type'
flt_snapshot() {
	local h d rel f s files=()
	for h in $(sb_hierarchies); do
		for rel in "$@"; do
			d=$(sb_path "$h")/$rel
			[ -d "$d" ] || { echo "$h:$rel missing"; continue; }
			(cd "$d" && find . -printf "$h:$rel/%P %y %u %g %m\n" | LC_ALL=C sort)
			while read -r f; do
				files+=("$d/$f/cgroup.procs")
				for s in $FLT_SETTINGS; do
					[ -r "$d/$f/$s" ] && files+=("$d/$f/$s")
				done
			done < <(cd "$d" && find . -type d -printf '%P\n' | LC_ALL=C sort)
		done
	done
	# Every file's content on one line (tasks sorted) in one process: a fork per file is slow in the v2 VM.
	[ ${#files[@]} = 0 ] || awk 'BEGIN {
		for (i = 1; i < ARGC; i++) {
			n = 0
			while ((getline line < ARGV[i]) > 0)
				v[++n] = line
			close(ARGV[i])
			if (ARGV[i] ~ /cgroup\.procs$/)
				for (j = 2; j <= n; j++)
					for (k = j; k > 1 && v[k - 1] + 0 > v[k] + 0; k--) { t = v[k]; v[k] = v[k - 1]; v[k - 1] = t }
			out = ""
			for (j = 1; j <= n; j++)
				out = out v[j] " "
			print ARGV[i] ": " out
		}
	}' "${files[@]}"
}

# flt_session_start SOCK: a libcgmanager client (tests/helpers/lib_session.c) connected once, in the
# sandbox root; flt_session CMD sends it a line and prints its answer.
flt_session_start() {
	local line
	coproc FLT_LS { run_as 0 "" "$BUILD/tests/lib-session" "$1" 2>>"$WORK/flt_session.log"; }
	SB_PIDS+=("$FLT_LS_PID")
	read -r -t 10 line <&"${FLT_LS[0]}" || { fail "lib-session did not start"; return 1; }
	expect_eq "$line" connected "lib-session"
}
flt_session() {
	local line
	echo "$*" >&"${FLT_LS[1]}"
	read -r -t 20 line <&"${FLT_LS[0]}" || { fail "lib-session did not answer '$*'"; return 1; }
	echo "$line"
}

flt_restart_daemon_start() {
	DAEMON_LOG_LEVEL=debug daemon_spawn "$FLT_RS_SOCK" "$WORK/flt_restart.log"
	FLT_RS_PID=$SPAWNED_PID
	wait_for_socket "$FLT_RS_SOCK"
}

# A daemon of the test's own on its own socket (the suite's daemon keeps serving the other tests), a
# tree with limits, owners, modes and tasks, a libcgmanager client connected and a container's cgproxy
# relaying to it; the daemon killed with SIGNAL and started again.
flt_restart_under_clients() {
	local sig=$1 U=$TEST_UID before after root_pid user_pid out rc
	FLT_RS_SOCK=$WORK/flt_rs.sock
	flt_restart_daemon_start
	rsc() { run_as 0 "" "$CGM" --socket "$FLT_RS_SOCK" "$@"; }
	rsu() { run_as "$U" flt_rs/a "$CGM" --socket "$FLT_RS_SOCK" "$@"; }
	rsc create all flt_rs/a/b >/dev/null
	rsc chown all flt_rs/a "$U" "$U"
	rsc chmod memory flt_rs/a 750
	rsc setvalue memory flt_rs/a "$MLIM" 64M
	rsc set flt_rs/a/b memory.limit=32M pids.limit=20 cpus_allowed=0
	rsu create all u >/dev/null
	rsu chmodfile memory u "$MSOFT" 640
	root_pid=$(spawn_sleeper 0 "")
	rsc movepid all flt_rs/a/b "$root_pid"
	user_pid=$(spawn_sleeper "$U" flt_rs/a)
	rsu movepid all u "$user_pid"
	UPSTREAM=$FLT_RS_SOCK containers_nested 1
	in_container c1 "$CGM" create memory job
	in_container c1 "$CGM" setvalue memory job "$MLIM" 16M
	flt_session_start "$FLT_RS_SOCK"
	expect_eq "$(flt_session ping)" ok "ping of the connected client"
	before=$(flt_snapshot flt_rs c1)
	grep -q "flt_rs/a/b/cgroup.procs: $root_pid $" <<<"$before" || fail "the snapshot misses pid $root_pid in flt_rs/a/b: $before"

	kill "-$sig" "$FLT_RS_PID"
	rc=0
	wait "$FLT_RS_PID" || rc=$?
	if [ "$sig" = TERM ]; then
		expect_eq "$rc" 0 "exit status on SIGTERM"
		expect_missing "$FLT_RS_SOCK"
	else
		expect_eq "$rc" 137 "exit status on SIGKILL"
		[ -S "$FLT_RS_SOCK" ] || fail "SIGKILL left no socket file behind (the test wants a stale one)"
	fi
	after=$(flt_snapshot flt_rs c1)
	[ "$after" = "$before" ] || fail "cgroupfs changed when the daemon died: $(diff <(echo "$before") <(echo "$after"))"
	# While it is down the clients say so, and nothing changes.
	out=$(flt_session ping)
	echo "$out" | grep -q "^error org.freedesktop.DBus.Error.NoServer: cannot reach cgmanager at $FLT_RS_SOCK: it closed the connection" ||
		fail "the client's answer while the daemon is down: $out"
	expect_refused "cannot reach cgmanager" in_container c1 "$CGM" getvalue memory job "$MLIM"

	# A new daemon starts on the same socket (over the stale socket file SIGKILL left) ...
	flt_restart_daemon_start
	after=$(flt_snapshot flt_rs c1)
	[ "$after" = "$before" ] || fail "cgroupfs changed when the daemon started again: $(diff <(echo "$before") <(echo "$after"))"
	# ... and a second one does not, while it answers there.
	expect_refused "a daemon already answers on $FLT_RS_SOCK" run_as 0 "" "$CGMANAGER" --socket "$FLT_RS_SOCK"
	# The client that stayed connected goes on, through a new connection, with both APIs.
	expect_eq "$(flt_session ping)" ok "ping of the client after the restart"
	expect_eq "$(flt_session get memory flt_rs/a "$MLIM")" "ok 67108864" "0.42 GetValue after the restart"
	expect_eq "$(flt_session kget flt_rs/a/b memory.limit)" "ok 33554432" "key API GetValues after the restart"
	expect_eq "$(flt_session tasks memory flt_rs/a/b)" "ok $root_pid" "GetTasks after the restart"
	# The container's cgproxy reconnects upstream, for the 0.42 calls it relays and the key API alike.
	expect_eq "$(in_container c1 "$CGM" getvalue memory job "$MLIM")" 16777216 "a container's request after the restart"
	expect_eq "$(in_container c1 "$CGM" get job memory.limit)" 16777216 "a container's key API request after the restart"
	# The owners' rights are in cgroupfs, so they hold as before.
	expect_refused "AccessDenied" rsu setvalue memory "" "$MLIM" 1G
	expect_ok rsu create all u/v
	expect_owner "$(sb_path memory)/flt_rs/a/u/v" "$U" "$U"

	# The client ends at the end of its input; what a sanitizer build says of it and of the daemons is checked.
	local ls_pid=$FLT_LS_PID
	eval "exec ${FLT_LS[1]}>&-"
	wait "$ls_pid" 2>/dev/null || true
	end_pids "$root_pid" "$user_pid"
	containers_cleanup
	kill -TERM "$FLT_RS_PID"
	wait "$FLT_RS_PID" || fail "the restarted daemon exited with $? on SIGTERM"
	if grep -E "runtime error|AddressSanitizer|LeakSanitizer" "$WORK/flt_session.log" "$WORK/flt_restart.log"; then
		fail "a sanitizer reported the above"
	fi
	cgm_root remove all flt_rs >/dev/null
	flt_expect_nowhere flt_rs
}

test_faults_restart_sigterm_under_clients() { flt_restart_under_clients TERM; }
test_faults_restart_sigkill_under_clients() { flt_restart_under_clients KILL; }

# A uid at its --max-cgroups-per-uid limit used to make the daemon walk the whole hierarchy on each refused
# Create (issue 13: four such loops raised another user's Ping p99 fivefold). Now a count walks it at most
# after 99 times the last count's duration: 30 refusals in a row walk a hierarchy of 2000 cgroups a few times
# at most, counted by the directory reads (getdents64) the daemon makes meanwhile, as strace sees them.
test_faults_quota_refusals_walk_the_hierarchy_seldom() {
	local U=$TEST_UID sock=$WORK/flt_qw.sock qpid qh many tracer reads i
	if pure_v2; then qh=unified; else qh=name=systemd; fi
	has_hierarchy "$qh" || skip "no $qh hierarchy here"
	(
		_enter "$BASHPID" "" || exit 99
		exec ${DAEMON_WRAPPER:-} "$CGMANAGER" --socket "$sock" --log-level debug --max-cgroups-per-uid 50
	) >>"$WORK/flt_qw.log" 2>&1 &
	qpid=$!
	SB_PIDS+=("$qpid")
	wait_for_socket "$sock"
	delegate flt_qw "$U" "$qh"
	# 2000 cgroups of the user's beside it, as its own mkdir in a cgroup v1 it owns would leave them.
	many=$(sb_path "$qh")/flt_qw_many
	mkdir "$many"
	python3 -c 'import os, sys
for i in range(2000):
    p = os.path.join(sys.argv[1], str(i)); os.mkdir(p); os.chown(p, int(sys.argv[2]), int(sys.argv[2]))' "$many" "$U"
	qcgm() { run_as "$U" "" "$CGM" --socket "$sock" "$@"; }
	expect_refused "uid $U owns [0-9]+ cgroups in $qh, its limit" qcgm create "$qh" flt_qw/x0
	strace -f -qq -e trace=getdents64 -o "$WORK/flt_qw.trace" -p "$qpid" 2>/dev/null &
	tracer=$!
	wait_until 5 grep -q TracerPid:.*[1-9] "/proc/$qpid/status" || fail "strace did not attach"
	for i in $(seq 30); do
		expect_refused "uid $U owns [0-9]+ cgroups in $qh, its limit" qcgm create "$qh" "flt_qw/x$i" || break
	done
	kill -INT "$tracer"
	wait "$tracer" 2>/dev/null || true
	# A walk of 2000 cgroups reads at least 2000 directories; 30 walks would be 60,000 reads and more.
	reads=$(grep -c getdents64 "$WORK/flt_qw.trace" || true)
	echo "measured: 30 refused Creates at the limit made $reads directory reads (a walk of the hierarchy: 2000 and more)"
	[ "$reads" -lt 10000 ] || fail "30 refused Creates made $reads directory reads: the hierarchy was walked for each"
	find "$many" -depth -type d -delete
	cgm_root remove "$qh" flt_qw 1 >/dev/null
	kill -TERM "$qpid"
	wait "$qpid" || fail "the quota daemon exited with $? on SIGTERM"
}
