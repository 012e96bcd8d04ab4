# Scm clients that misbehave: one goes silent, one forges credentials. Neither delays anyone else.

# scm_raw UID MODE: the suite's C Scm client (tests/helpers/scm_client.c) misbehaving as UID.
#   MODE silent: never answers the kick; forge-requester: claims pid 1 / uid 0 as the requester;
#   forge-victim: honest requester, but claims the daemon's pid (another uid's task) as the victim.
scm_raw() {
	local client=$BUILD/tests/scm-client
	case $2 in
	silent) run_as "$1" "" "$client" "$SOCK" CreateScm memory hostile_silent --no-cred ;;
	forge-requester) run_as "$1" "" "$client" "$SOCK" CreateScm memory hostile_forged --as 1:0:0 ;;
	forge-victim) run_as "$1" "" "$client" "$SOCK" MovePidScm memory "" --second "$DAEMON_PID" ;;
	esac
}

# scm_as UID REL METHOD ARGS...: the suite's Scm client as UID in sandbox cgroup REL (what it claims, and how it
# wires its socket, as its options say).
scm_as() {
	local uid=$1 rel=$2
	shift 2
	run_as "$uid" "$rel" "$BUILD/tests/scm-client" "$SOCK" "$@"
}

# sb_state: every cgroup and file of the sandbox in every hierarchy with owner and mode, and the tasks of each
# cgroup: what a refused exchange must leave as it was.
sb_state() {
	local h d f t
	for h in $(sb_hierarchies); do
		d=$(sb_path "$h")
		find "$d" -printf "$h %P %u:%g %m\n" | sort
		while read -r f; do
			mapfile -t t <"$f"
			echo "$h ${f#"$d"} ${t[*]}"
		done < <(find "$d" -name cgroup.procs | sort)
	done
}

# ping_ms: how long one Ping from another client takes, in milliseconds.
ping_ms() {
	local t0 t1
	t0=$(date +%s%N)
	cgm_root ping
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}

test_scm_silent_client_times_out_and_delays_nobody() {
	local out ms base
	# A Ping's cost here (a process start and a round trip; seconds under emulation, as in the v2 VM) first.
	base=$(ping_ms)
	scm_raw "$TEST_UID" silent >"$WORK/silent.out" 2>&1 &
	local pid=$!
	sleep 1
	ms=$(ping_ms)
	[ "$ms" -lt $((300 + 2 * base)) ] ||
		fail "a Ping took $ms ms while a client sat silent in an Scm exchange (without it: $base ms)"
	wait "$pid" || fail "the silent client failed: $(cat "$WORK/silent.out")"
	grep -q "^nothing after 7 s" "$WORK/silent.out" || fail "silent client got: $(cat "$WORK/silent.out")"
	grep -q "CreateScm from pid .*: no credentials in time; dropped" "$WORK/daemon.log" || fail "the daemon did not drop it"
	expect_missing "$(sb_path memory)/hostile_silent"
}

test_scm_forged_requester_refused_by_kernel() {
	local out
	out=$(scm_raw "$TEST_UID" forge-requester) && fail "a forged requester was sent: $out"
	echo "$out" | grep -q "kernel refused: Operation not permitted" || fail "a forged requester was sent: $out"
	expect_missing "$(sb_path memory)/hostile_forged"
	expect_ok cgm_root ping
}

test_scm_forged_victim_refused_by_kernel() {
	local out
	out=$(scm_raw "$TEST_UID" forge-victim) && fail "a forged victim was sent: $out"
	# The honest requester credential went; the kernel refused the victim's.
	expect_eq "$out" "kernel refused: Operation not permitted" "the forged victim credential"
	grep -qx "$DAEMON_PID" "$(sb_path memory)/.cgmanager/cgroup.procs" || fail "the daemon was moved"
	expect_ok cgm_root ping
}

# The cap on Scm exchanges under way is per account: all users of one container (a user namespace that root
# made: one account, as for the connection caps) share 32, of which they leave 4 to the container's root (its
# cgproxy: test_container_proxy_root_served_while_a_user_holds_the_accounts_exchanges). 33 of them each start
# one and go silent: 28 are admitted.
test_scm_exchanges_capped_per_account_not_per_uid() {
	local out n
	out=$(run_as 0 "" "$BUILD/tests/nsexec" --map "0 100000 65536" -- sh -c "
		for u in \$(seq 1 33); do
			setpriv --reuid=\$u --regid=\$u --clear-groups '$BUILD/tests/scm-client' '$SOCK' CreateScm memory capped_\$u --no-cred &
		done
		wait" 2>&1)
	n=$(grep -c "^dbus-error org.freedesktop.DBus.Error.LimitsExceeded: 28 Scm exchanges are under way" <<<"$out") || true
	echo "measured: $n of 33 refused; $(grep -c "^nothing after" <<<"$out") went silent"
	expect_eq "$n" 5 "exchanges refused to the 33 users of one container"
	expect_eq "$(grep -c "^nothing after" <<<"$out")" 28 "silent exchanges admitted: $(sort <<<"$out" | uniq -c)"
	expect_ok cgm_root ping
}

# --- Credentials the kernel vouched for, but for another sender than the caller ---
#
# SCM_CREDENTIALS proves who *sent* a datagram, not who passed the socket. The daemon sends on every Scm
# socket too, as root: its kicks and answers carry its own credentials (SO_PASSCRED attaches the sender's
# when none is given), and GetTasksScm's answers carry each task's pid with uid 0. A caller who wires a socket
# so that the daemon reads what it wrote itself must not borrow root's credentials.

# scm_vouch_refusal WHICH UID GID PEER_UID: the reason the daemon gives for a credential the caller could not send.
scm_vouch_refusal() {
	echo "error org.freedesktop.DBus.Error.AccessDenied: refused the $1 credential (uid $2, gid $3): you (uid $4)" \
		"could not have sent it; only root, of the host or of a user namespace that maps them, may send ids other" \
		"than its own (another process, such as this daemon, wrote it to the socket you passed)"
}

# The daemon's kick comes back to a socket connected to itself: read as a credential, it is the daemon's own
# (host root). From the sandbox root (an ancestor of the daemon's own cgroup) root could create beneath it.
test_scm_self_connected_socket_lends_no_root() {
	local out d; d=$(sb_path memory)
	out=$(scm_as "$TEST_UID" "" CreateScm memory scm_selfwired --self-connected 2>&1) || true
	expect_missing "$d/scm_selfwired"
	expect_missing "$d/.cgmanager/scm_selfwired"
	expect_eq "$out" "0
$(scm_vouch_refusal requester\'s 0 0 "$TEST_UID")" "the answer to a self-connected socket"
	expect_ok cgm_root ping
}

# Two exchanges on the two ends of one socketpair: each reads the other's kick (root's credentials).
test_scm_crosswired_exchanges_lend_no_root() {
	local out d; d=$(sb_path memory)
	out=$(scm_as "$TEST_UID" "" CreateScm memory scm_crosswired --crosswire 2>&1) || true
	expect_missing "$d/scm_crosswired"
	expect_missing "$d/.cgmanager/scm_crosswired"
	expect_eq "$out" "0
$(scm_vouch_refusal requester\'s 0 0 "$TEST_UID")" "the answer to crosswired exchanges"
	grep -q "ListChildrenScm for pid .*: refused the requester's credential" "$WORK/daemon.log" ||
		fail "the ListChildrenScm exchange took the other's kick: $(grep ListChildrenScm "$WORK/daemon.log" | tail -2)"
	expect_ok cgm_root ping
}

# GetTasksScm's answers name each task with uid 0; left on the socket and passed to the next call, they would
# make a user host root in its own cgroup: it raises the memory limit root set on it. From a delegated cgroup,
# so this needs no particular place.
test_scm_replayed_task_answers_make_no_root() {
	local out d; d=$(sb_path memory)/scm_rp
	delegate scm_rp "$TEST_UID"
	cgm_root setvalue memory scm_rp "$MLIM" 64M >/dev/null
	spawn_sleeper "$TEST_UID" scm_rp >/dev/null
	out=$(scm_as "$TEST_UID" scm_rp SetValueScm memory "" "$MLIM" 1G --replay-tasks "" 2>&1) || true
	expect_eq "$(cat "$d/$MLIM")" 67108864 "the limit root set on the user's cgroup"
	expect_eq "$(sed 1d <<<"$out")" "0
$(scm_vouch_refusal requester\'s 0 0 "$TEST_UID")" "the answer to replayed task credentials"
	# The victim's credential the same way: MovePidScm of root's task (pid 0's uids) in the user's cgroup.
	local rootpid; rootpid=$(spawn_sleeper 0 scm_rp)
	cgm_root create all scm_rp/sub >/dev/null
	out=$(scm_as "$TEST_UID" scm_rp MovePidScm memory sub --replay-tasks "" 2>&1) || true
	expect_in_cgroup "$rootpid" memory scm_rp
	expect_eq "$(sed 1d <<<"$out")" "0
$(scm_vouch_refusal requester\'s 0 0 "$TEST_UID")" "the answer to replayed task credentials (MovePidScm)"
	expect_eq "$(cat "$d/sub/cgroup.procs")" "" "tasks in scm_rp/sub"
}

# --- What the kernel itself refuses at sendmsg ---
#
# A user may send only its own pid, uid and gid. Each claim below is refused by the kernel before the daemon
# sees it (scm-client exits 3), and the sandbox is as it was.

# A user in its delegated cgroup claims, as the requester: another user's pid, its other task's pid, another
# uid, root's gid, root.
test_scm_user_claims_another_requester_refused_by_kernel() {
	local other own2 before out claim
	delegate scm_ur "$TEST_UID"
	other=$(spawn_sleeper "$TEST_UID2" "")
	own2=$(spawn_sleeper "$TEST_UID" scm_ur)
	before=$(sb_state)
	for claim in "$other:$TEST_UID:$TEST_UID" "$own2:$TEST_UID:$TEST_UID" "self:$TEST_UID2:$TEST_UID" \
		"self:$TEST_UID:0" "self:0:0"; do
		out=$(scm_as "$TEST_UID" scm_ur CreateScm memory x --as "$claim" 2>&1) && fail "the claim $claim was sent: $out"
		expect_eq "$out" "kernel refused: Operation not permitted" "the requester claim $claim"
	done
	expect_eq "$(sb_state)" "$before" "the sandbox after the refused claims"
}

# The same for the second credential: another user's task, its own other task (only its own pid may be sent)
# as MovePidScm's victim; another user's ids, root's gid, root as ChownScm's new owner.
test_scm_user_claims_another_victim_refused_by_kernel() {
	local other own2 before out v
	delegate scm_uv "$TEST_UID"
	cgm_as "$TEST_UID" scm_uv create all sub >/dev/null
	other=$(spawn_sleeper "$TEST_UID2" "")
	own2=$(spawn_sleeper "$TEST_UID" scm_uv)
	before=$(sb_state)
	for v in "$other" "$own2"; do
		out=$(scm_as "$TEST_UID" scm_uv MovePidScm all sub --second "$v" 2>&1) && fail "the victim $v was sent: $out"
		expect_eq "$out" "kernel refused: Operation not permitted" "the victim claim $v"
	done
	for v in "$TEST_UID2:$TEST_UID2" "$TEST_UID:0" "0:0"; do
		out=$(scm_as "$TEST_UID" scm_uv ChownScm all sub --second "$v" 2>&1) && fail "the owner $v was sent: $out"
		expect_eq "$out" "kernel refused: Operation not permitted" "the new owner claim $v"
	done
	expect_eq "$(sb_state)" "$before" "the sandbox after the refused claims"
	expect_in_cgroup "$other" memory ""
	expect_in_cgroup "$own2" memory scm_uv
	expect_owner "$(sb_path memory)/scm_uv/sub" "$TEST_UID" "$TEST_UID"
}

# Root of a user namespace of its own (unshare -U -r, which maps only the user's uid) but in the host's pid
# namespace: it may claim its mapped ids, not a pid other than its own, nor an id it does not map.
test_scm_user_namespace_root_claims_refused_by_kernel() {
	local own2 before out
	delegate scm_un "$TEST_UID"
	cgm_as "$TEST_UID" scm_un create all sub >/dev/null
	own2=$(spawn_sleeper "$TEST_UID" scm_un)
	before=$(sb_state)
	out=$(run_as "$TEST_UID" scm_un unshare -U -r sh -c "
		c='$BUILD/tests/scm-client' s='$SOCK'
		echo \"its other task: \$(\$c \$s CreateScm memory x --as '$own2:0:0' 2>&1)\"
		echo \"an unmapped uid: \$(\$c \$s CreateScm memory x --as self:1:0 2>&1)\"
		echo \"an unmapped gid: \$(\$c \$s CreateScm memory x --as self:0:1 2>&1)\"
		echo \"victim its other task: \$(\$c \$s MovePidScm all sub --second '$own2' 2>&1)\"
		echo \"new owner unmapped: \$(\$c \$s ChownScm all sub --second 1:1 2>&1)\"" 2>&1)
	expect_eq "$out" "its other task: kernel refused: Operation not permitted
an unmapped uid: kernel refused: Invalid argument
an unmapped gid: kernel refused: Invalid argument
victim its other task: kernel refused: Operation not permitted
new owner unmapped: kernel refused: Invalid argument" "the claims of a user namespace's root"
	expect_eq "$(sb_state)" "$before" "the sandbox after the refused claims"
	# What it maps is its own uid: that claim goes, and acts as the user.
	out=$(run_as "$TEST_UID" scm_un unshare -U -r "$BUILD/tests/scm-client" "$SOCK" CreateScm memory x --as self:0:0 2>&1)
	expect_eq "$out" 1 "CreateScm as its mapped root"
	expect_owner "$(sb_path memory)/scm_un/x" "$TEST_UID" "$TEST_UID"
}

# A container (user, pid, mount namespaces; 0 -> host 100000, 65536 ids) in its delegated cgroup claims: a pid
# outside its pid namespace (a host task of its own host uid, a task of another container), ids it does not
# map, as requester, victim and new owner. Requester and victims are in different user and pid namespaces.
test_scm_container_claims_outside_refused_by_kernel() {
	local host100k other before out
	delegate scm_ct 100000
	cgm_root create all scm_ct/sub >/dev/null
	cgm_root chown all scm_ct/sub 100000 100000 >/dev/null
	host100k=$(spawn_sleeper 100000 "")
	spawn_as 0 "" "$BUILD/tests/nsexec" --map "0 200000 65536" --pidfile "$WORK/scm_other.pid" -- sleep 600 >/dev/null
	wait_until 5 test -s "$WORK/scm_other.pid" || fail "the other container did not start"
	other=$(cat "$WORK/scm_other.pid")
	before=$(sb_state)
	out=$(run_as 0 scm_ct "$BUILD/tests/nsexec" --map "0 100000 65536" -- sh -c "
		c='$BUILD/tests/scm-client' s='$SOCK'
		echo \"requester a host task: \$(\$c \$s CreateScm memory x --as '$host100k:0:0' 2>&1)\"
		echo \"requester another container's: \$(\$c \$s CreateScm memory x --as '$other:0:0' 2>&1)\"
		echo \"requester unmapped uid: \$(\$c \$s CreateScm memory x --as self:70000:0 2>&1)\"
		echo \"requester unmapped gid: \$(\$c \$s CreateScm memory x --as self:0:70000 2>&1)\"
		echo \"victim a host task: \$(\$c \$s MovePidScm all sub --second '$host100k' 2>&1)\"
		echo \"victim another container's: \$(\$c \$s MovePidScm all sub --second '$other' 2>&1)\"
		echo \"victim's uid unmapped: \$(\$c \$s MovePidScm all sub --second-as self:70000:0 2>&1)\"
		echo \"cgroup of a host task: \$(\$c \$s GetPidCgroupScm memory --second '$host100k' 2>&1)\"
		echo \"new owner unmapped: \$(\$c \$s ChownScm all sub --second 70000:70000 2>&1)\"
		echo \"new owner gid unmapped: \$(\$c \$s ChownScm all sub --second-as self:0:70000 2>&1)\"" 2>&1)
	expect_eq "$out" "requester a host task: kernel refused: No such process
requester another container's: kernel refused: No such process
requester unmapped uid: kernel refused: Invalid argument
requester unmapped gid: kernel refused: Invalid argument
victim a host task: kernel refused: No such process
victim another container's: kernel refused: No such process
victim's uid unmapped: kernel refused: Invalid argument
cgroup of a host task: kernel refused: No such process
new owner unmapped: kernel refused: Invalid argument
new owner gid unmapped: kernel refused: Invalid argument" "the claims of a container's root"
	expect_eq "$(sb_state)" "$before" "the sandbox after the refused claims"
	expect_in_cgroup "$host100k" memory ""
	expect_owner "$(sb_path memory)/scm_ct/sub" 100000 100000
	end_pids "$host100k" "$other"
}

# A container's root replays GetTasksScm's answers for its own cgroup, as the user above did. The cgroup also
# holds its runtime's task (nsexec, host root): uid 0 is not an id the container maps. A container whose map
# includes host root may send uid 0; but the runtime's task is outside its pid namespace, so it could not have
# sent that pid. Either way the limit root set stays.
test_scm_container_replayed_task_answers_make_no_root() {
	local out d=$(sb_path memory)
	delegate scm_crp 100000
	cgm_root setvalue memory scm_crp "$MLIM" 64M >/dev/null
	out=$(run_as 0 scm_crp "$BUILD/tests/nsexec" --map "0 100000 65536" -- \
		"$BUILD/tests/scm-client" "$SOCK" SetValueScm memory "" "$MLIM" 1G --replay-tasks "" 2>&1) || true
	expect_eq "$(cat "$d/scm_crp/$MLIM")" 67108864 "the limit root set on the container's cgroup"
	expect_eq "$(sed 1d <<<"$out")" "0
$(scm_vouch_refusal requester\'s 0 0 100000)" "the answer to replayed task credentials in a container"
	cgm_root create all scm_crp0 >/dev/null
	cgm_root setvalue memory scm_crp0 "$MLIM" 64M >/dev/null
	out=$(run_as 0 scm_crp0 "$BUILD/tests/nsexec" --map "0 0 65536" -- \
		"$BUILD/tests/scm-client" "$SOCK" SetValueScm memory "" "$MLIM" 1G --replay-tasks "" 2>&1) || true
	expect_eq "$(cat "$d/scm_crp0/$MLIM")" 67108864 "the limit root set on the cgroup of a container that maps root"
	grep -qxE "error org.freedesktop.DBus.Error.AccessDenied: refused the requester's credential \(pid [0-9]+\): that task is not in your pid namespace, so you could not have sent it \(another process, such as this daemon, wrote it to the socket you passed\)" <<<"$out" ||
		fail "the answer to replayed task credentials in a container that maps root: $out"
}

# --- The exchange's own rules: other sockets, steps out of order, credentials nobody asked for ---

# Credentials sent on a socket other than the one passed reach nobody: the exchange ends at its deadline.
test_scm_credentials_on_another_socket_do_nothing() {
	local out d; d=$(sb_path memory)
	out=$(scm_as "$TEST_UID" "" CreateScm memory scm_elsewhere --other-fd 2>&1)
	expect_eq "$out" "sent on another socket
nothing after 7 s" "the client that sent its credential elsewhere"
	grep -q "CreateScm from pid .*: no credentials in time; dropped" "$WORK/daemon.log" || fail "the daemon did not drop it"
	expect_missing "$d/scm_elsewhere"
}

# A datagram socket connected to nothing: the daemon cannot kick it, and says so at once.
test_scm_unconnected_socket_refused() {
	local out
	out=$(scm_as "$TEST_UID" "" CreateScm memory scm_unconnected --unconnected 2>&1) && fail "accepted: $out"
	expect_eq "$out" "dbus-error org.freedesktop.DBus.Error.InvalidArgs: CreateScm needs an AF_UNIX SOCK_DGRAM socket: Transport endpoint is not connected" "the answer to an unconnected socket"
	expect_missing "$(sb_path memory)/scm_unconnected"
}

# The second credential before the daemon asked for it, and credentials nobody asked for after: each exchange
# takes what it needs in order, answers once, and a later exchange on another socket never sees the extra ones.
test_scm_early_and_extra_credentials_answered_once() {
	local out d; d=$(sb_path memory)
	delegate scm_ex "$TEST_UID"
	cgm_as "$TEST_UID" scm_ex create all sub >/dev/null
	# MovePidScm of itself, its own credential sent as requester and victim at once.
	out=$(scm_as "$TEST_UID" scm_ex MovePidScm all sub --second-as "self:$TEST_UID:$TEST_UID" --early --extra 3 2>&1) || true
	expect_eq "$out" 1 "MovePidScm with the second credential early and three extra"
	out=$(scm_as "$TEST_UID" scm_ex CreateScm memory x --early --extra 3 2>&1) || true
	expect_eq "$out" 1 "CreateScm with three extra credentials"
	expect_owner "$d/scm_ex/x" "$TEST_UID" "$TEST_UID"
	out=$(scm_as "$TEST_UID" scm_ex ChownScm memory x --second "$TEST_UID:$TEST_UID" --early --extra 2 2>&1) || true
	expect_eq "$out" 1 "ChownScm with the second credential early and two extra"
	expect_ok cgm_root ping
}

# A task in a container's pid namespace but not in its user namespace nor its cgroup: host root entered only
# the container's pid namespace (nsenter -p). The container's root may name it (the kernel lets root of a
# pid namespace's owner claim any of its pids), as victim and as requester; the daemon must not let it reach
# that task nor act from that task's cgroup.
test_scm_container_names_a_host_task_in_its_pid_namespace() {
	local init nsent hostpid nspid before out exp
	delegate scm_pn 100000
	cgm_root create all scm_pn/sub >/dev/null
	cgm_root chown all scm_pn/sub 100000 100000 >/dev/null
	spawn_as 0 scm_pn "$NSEXEC" --map "0 100000 65536" --pidfile "$WORK/scm_pn.pid" -- sleep 600 >/dev/null
	wait_until 5 test -s "$WORK/scm_pn.pid" || fail "the container did not start"
	init=$(cat "$WORK/scm_pn.pid")
	wait_until 5 grep -qx sleep "/proc/$init/comm" || fail "the container's init did not start"
	nsent=$(spawn_as 0 "" nsenter -t "$init" -p -- sleep 600)
	wait_until 5 grep -q . "/proc/$nsent/task/$nsent/children" || fail "nsenter did not fork"
	hostpid=$(cat "/proc/$nsent/task/$nsent/children"); hostpid=${hostpid// /}
	wait_until 5 grep -qx sleep "/proc/$hostpid/comm" || fail "the task nsenter started is not running"
	SB_PIDS+=("$hostpid")
	nspid=$(awk '/^NSpid:/ { print $NF }' "/proc/$hostpid/status")
	before=$(sb_state)
	out=$(run_as 0 scm_pn nsenter -t "$init" -U -p -m -- sh -c "
		c='$BUILD/tests/scm-client' s='$SOCK'
		echo \"cgroup: \$(\$c \$s GetPidCgroupScm memory --second $nspid 2>&1)\"
		echo \"cgroup abs: \$(\$c \$s GetPidCgroupAbsScm memory --second $nspid 2>&1)\"
		echo \"move: \$(\$c \$s MovePidScm all sub --second $nspid 2>&1)\"
		echo \"move abs: \$(\$c \$s MovePidAbsScm all sub --second $nspid 2>&1)\"
		echo \"as requester: \$(\$c \$s CreateScm memory x --as $nspid:0:0 2>&1)\"" 2>&1)
	exp="cgroup: <failed>
error org.freedesktop.DBus.Error.AccessDenied: pid $hostpid is in $MH:/, which is not beneath your cgroup $MH:/scm_pn
cgroup abs: <failed>
error org.freedesktop.DBus.Error.AccessDenied: pid $hostpid is in $MH:/, outside the cgroup of the proxy that relayed you
move: 0
error org.freedesktop.DBus.Error.AccessDenied: pid $hostpid runs as host uid 0, which your user namespace does not map
move abs: 0
error org.freedesktop.DBus.Error.AccessDenied: pid $hostpid runs as host uid 0, which your user namespace does not map
as requester: 0
error org.freedesktop.DBus.Error.AccessDenied: your cgroup $MH:/ is outside $MH:/scm_pn, the cgroup of the proxy that relayed you"
	expect_eq "$out" "$exp" "what the container's root got for the host task in its pid namespace"
	expect_eq "$(sb_state)" "$before" "the sandbox after the container named the host task"
	expect_in_cgroup "$hostpid" memory ""
	end_pids "$hostpid" "$nsent" "$init"
}
