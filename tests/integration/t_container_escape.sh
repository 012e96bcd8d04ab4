# A container three levels deep (tests/integration/t_containers.sh) tries every method of both interfaces
# on what is outside its cgroup: names that climb out, its parents' and a sibling's cgroups, the sandbox
# root, and tasks of other pid namespaces. Each must be refused with its reason, and nothing outside
# may change.

# container_sleeper NAME [REL]: a sleep as root of container NAME, in its user and pid namespaces, in
# sandbox cgroup REL (default NAME); prints its host pid.
container_sleeper() {
	local c=$1 rel=${2:-$1} np kid i
	np=$(spawn_as 0 "$rel" nsenter -t "$(host_pid "$c")" -U -p -- sleep 600)
	for i in $(seq 100); do
		kid=$(awk '{print $1}' "/proc/$np/task/$np/children" 2>/dev/null)
		[ -n "$kid" ] && [ "$(cat "/proc/$kid/comm" 2>/dev/null)" = sleep ] && { echo "$kid"; return 0; }
		sleep 0.02
	done
	fail "no sleeper in container $c"
}

# in_container_as NAME REL UID CMD...: CMD as UID of container NAME (its own numbering), in sandbox cgroup REL.
in_container_as() {
	local name=$1 rel=$2 uid=$3
	shift 3
	run_as 0 "$rel" nsenter -t "$(host_pid "$name")" -U -p -m -C -- \
		env CGMANAGER_SOCKET="$WORK/$name/sock" PATH="$PATH" \
		setpriv --reuid="$uid" --regid="$uid" --clear-groups --inh-caps=-all -- "$@"
}

# sandbox_snapshot: every file and directory of the sandbox with its owner and mode, the tasks of every
# cgroup, and the settings an attack would write, one line each, so that two snapshots compare with diff.
# The tasks of EXCEPT's subtree (the attacker's own cgroup, where its calls run) are left out.
sandbox_snapshot() {
	local except=$1 h d
	for h in $(sb_hierarchies); do
		d=$(sb_path "$h")
		(
			cd "$d" || exit 1
			find . -printf "%p %u:%g %m\n"
			# One process per kind of file, not per file: the host may be busy.
			find . -name cgroup.procs -exec grep -H '' {} + | grep -v "^\./$except/"
			find . \( -name memory.limit_in_bytes -o -name memory.max -o -name memory.high -o -name pids.max \
				-o -name cpu.shares -o -name cpu.weight -o -name freezer.state -o -name cgroup.freeze \
				-o -name notify_on_release -o -name cgroup.subtree_control -o -name cgroup.type \) -exec grep -H '' {} +
		) | sed "s|^|$h |" | sort
	done
}

# expect_unchanged BEFORE: the sandbox as sandbox_snapshot saw it then (a file), for the same EXCEPT.
expect_unchanged() {
	local now
	now=$(sandbox_snapshot "$2")
	diff <(echo "$now") "$1" >/dev/null && return 0
	fail "the sandbox changed outside $2 (< now, > before):
$(diff <(echo "$now") "$1" | head -20)"
}

# The attacker's calls, run inside the container in one go: each line of the file $1 is
# "PATTERN<TAB>COMMAND WORD...". Prints "LINE-NUMBER<TAB>rc<TAB>milliseconds<TAB>output on one line" per call.
ESCAPE_RUNNER='
n=0
while IFS="	" read -r pat cmd; do
	n=$((n + 1))
	read -r -a w <<<"$cmd"
	t0=${EPOCHREALTIME/[.,]/}
	out=$("${w[@]}" 2>&1); rc=$?
	printf "%s\t%s\t%s\t%s\n" "$n" "$rc" "$(( (${EPOCHREALTIME/[.,]/} - t0) / 1000 ))" "$(echo "$out" | tr "\n" " ")"
done <"$1"'

# escape_check CALLS RESULTS: every call was refused, with its message matching its PATTERN.
escape_check() {
	local calls=$1 results=$2 n rc out pat cmd bad=0 count=0
	while IFS=$'\t' read -r n rc ms out; do
		count=$((count + 1))
		IFS=$'\t' read -r pat cmd < <(sed -n "${n}p" "$calls")
		if [ "$rc" = 0 ]; then
			echo "  FAILED: succeeded but should not have: $cmd -> $out" >&2; bad=1
		elif ! grep -qE -- "$pat" <<<"$out"; then
			echo "  FAILED: refusal of '$cmd' did not match /$pat/: $out" >&2; bad=1
		fi
	done <"$results"
	[ "$count" = "$(wc -l <"$calls")" ] || { fail "ran $count of $(wc -l <"$calls") calls"; return 1; }
	[ "$bad" = 0 ]
}

# ds SOCKET IFACE.METHOD ARGS...: one line of a calls file: a raw D-Bus call through dbus-send (busctl hides
# the message of an AccessDenied error).
escape_call() {
	local pat=$1 sock=$2 m=$3
	shift 3
	printf '%s\t%s\n' "$pat" "dbus-send --address=unix:path=$sock --print-reply --dest=$CGM_DEST $CGM_PATH $m $*"
}

# The refusals, by what was tried.
ESC_NAME="cgroup name '[^']*' is refused: '\.' and '\.\.' are not allowed"
ESC_UNVOUCHED="pid [0-9]+ is not a task this namespace can vouch for"
ESC_PIDARG="pid arguments from another pid namespace cannot be trusted"
ESC_KEY_PIDARG="from another pid namespace, pass a pidfd to Move"
ESC_OTHER_PIDNS="pid [0-9]+ is not in your pid namespace"

# escape_calls UID OWN: prints the calls of one requester of container c1/l2/l3 (UID as the container
# numbers it) on what is outside: names that climb out, to the parent containers' cgroups (c1/l2, c1), the
# sandbox root and the sibling container c1/l2/l3b, and pid numbers of tasks outside its pid namespace, through
# its cgproxy (the 0.42 interface as Scm calls), straight to the daemon (the 0.42 interface, plain, and the key
# API) and through its parent containers' cgproxies, whose sockets it can reach.
escape_calls() {
	local uid=$1 own=$2 P=$WORK/c1/l2/l3/sock D=$SOCK I0=$CGM_IFACE0 I1=org.linuxcontainers.cgmanager1
	local names=(.. ../.. ../../.. ../l3b sub/../../l3b //..//l3b) sock pid c t pat k=0 freeze
	# The freezer's hierarchy and file: v1's freezer, or cgroup2's core file on a pure cgroup2 host.
	if pure_v2; then freeze="string:unified string:@ string:cgroup.freeze string:1"
	else freeze="string:freezer string:@ string:freezer.state string:FROZEN"; fi
	# Each method with two of the names (in turn, so that every name reaches every method of some socket):
	# the names are refused before anything is looked up, the same way for every method.
	local plain=(
		"$I0.Create string:memory string:@/x"
		"$I0.Chown string:memory string:@ int32:$uid int32:$uid"
		"$I0.Chmod string:memory string:@ string: int32:511"
		"$I0.Chmod string:memory string:@ string:cgroup.procs int32:438"
		"$I0.MovePid string:memory string:@ int32:$own"
		"$I0.MovePidAbs string:memory string:@ int32:$own"
		"$I0.GetValue string:memory string:@ string:$MLIM"
		"$I0.SetValue string:memory string:@ string:$MLIM string:1"
		"$I0.SetValue $freeze"
		"$I0.Remove string:memory string:@ int32:1"
		"$I0.GetTasks string:memory string:@"
		"$I0.GetTasksRecursive string:memory string:@"
		"$I0.ListChildren string:memory string:@"
		"$I0.RemoveOnEmpty string:memory string:@"
		"$I0.Prune string:memory string:@"
		"$I0.ListKeys string:memory string:@")
	local keyapi=(
		"$I1.Create string:@/x array:string:memory dict:string:string:memory.limit,1M"
		"$I1.SetValues string:@ dict:string:string:memory.limit,1M"
		"$I1.SetValues string:@ dict:string:string:pids.limit,1"
		"$I1.GetValues string:@ array:string:memory.limit"
		"$I1.ListChildren string:@"
		"$I1.ListTasks string:@ boolean:true"
		"$I1.Chown string:@ uint32:$uid uint32:$uid"
		"$I1.MovePid string:@ int32:$own"
		"$I1.Delete string:@ boolean:true"
		"$I1.Kill string:@ int32:9"
		"$I1.Freeze string:@"
		"$I1.Thaw string:@")
	for sock in "$P" "$D"; do
		for t in "${plain[@]}" "${keyapi[@]}"; do
			[[ $t == "$I1".* && $sock = "$P" ]] && continue # cgproxy does not serve the key API
			# Straight to the daemon, pid and id arguments of the 0.42 interface are refused before the name.
			case $sock:${t%% *} in
			*.MovePidAbs) pat="MovePidAbs is for root" ;;
			"$D:$I0.MovePid") pat=$ESC_PIDARG ;;
			"$D:$I0.Chown") pat="uid and gid arguments from another user namespace cannot be trusted" ;;
			"$D:$I1.MovePid") pat=$ESC_KEY_PIDARG ;;
			*) pat=$ESC_NAME ;;
			esac
			# Through its cgproxy, its root's MovePidAbs reaches the name.
			[[ $sock:$uid:$t == "$P:0:$I0.MovePidAbs "* ]] && pat=$ESC_NAME
			for c in $((k % 6)) $(((k + 3) % 6)); do
				escape_call "$pat" "$sock" ${t//@/${names[c]}}
			done
			k=$((k + 1))
		done
	done
	# Tasks outside: pid numbers as the host and each outer pid namespace see them (none is in this one).
	for pid in "${ESC_PIDS[@]}"; do
		escape_call "$ESC_UNVOUCHED" "$P" $I0.GetPidCgroup string:memory int32:$pid
		escape_call "$ESC_UNVOUCHED" "$P" $I0.GetPidCgroupAbs string:memory int32:$pid
		escape_call "$ESC_UNVOUCHED" "$P" $I0.MovePid string:memory string: int32:$pid
		escape_call "$ESC_UNVOUCHED|MovePidAbs is for root" "$P" $I0.MovePidAbs string:memory string:/ int32:$pid
		escape_call "$ESC_PIDARG" "$D" $I0.GetPidCgroup string:memory int32:$pid
		escape_call "$ESC_PIDARG" "$D" $I0.GetPidCgroupAbs string:memory int32:$pid
		escape_call "$ESC_PIDARG" "$D" $I0.MovePid string:memory string: int32:$pid
		escape_call "$ESC_PIDARG|MovePidAbs is for root" "$D" $I0.MovePidAbs string:memory string:/ int32:$pid
		escape_call "$ESC_KEY_PIDARG" "$D" $I1.MovePid string: int32:$pid
	done
	# Through the parent containers' cgproxies: their pid numbers name their own tasks, which the daemon
	# refuses as outside this requester's pid namespace; MovePidAbs of its own task to the top of the
	# proxy's cgroup (the parent container's) needs write access there, which this container does not map.
	for c in c1 c1/l2; do
		for pid in ${ESC_PROXY_PIDS[$c]}; do
			escape_call "$ESC_OTHER_PIDNS" "$WORK/$c/sock" $I0.GetPidCgroup string:memory int32:$pid
			escape_call "$ESC_OTHER_PIDNS" "$WORK/$c/sock" $I0.GetPidCgroupAbs string:memory int32:$pid
			escape_call "$ESC_OTHER_PIDNS" "$WORK/$c/sock" $I0.MovePid string:memory string: int32:$pid
			escape_call "$ESC_OTHER_PIDNS|MovePidAbs is for root" "$WORK/$c/sock" $I0.MovePidAbs string:memory string:/ int32:$pid
		done
		escape_call "owned by uid 1[01]0000.*need write access|MovePidAbs is for root" "$WORK/$c/sock" \
			$I0.MovePidAbs string:memory string:/ int32:"${ESC_PROXY_OWN[$c]}"
	done
}

declare -A ESC_PROXY_PIDS ESC_PROXY_OWN
ESC_PIDS=()

# pidns_hand_out_past NAME PID...: makes the pid namespace of container NAME hand out its next pids just past
# one of PIDs, at the start of the longest run of numbers that holds none of them (to pid_max, then on from
# 300, where the kernel starts again), by writing its ns_last_pid as the container's root. With n PIDs that
# run is at least (pid_max - 300) / n long: thousands, more than the container's processes of a test.
pidns_hand_out_past() {
	local name=$1 max last
	shift
	max=$(in_container "$name" cat /proc/sys/kernel/pid_max)
	last=$(printf '%s\n' "$@" | sort -nu | awk -v max="$max" '
		{ v[NR] = $1 }
		END {
			best = v[NR]; run = max - v[NR] + (v[1] > 300 ? v[1] - 300 : 0)
			for (i = 1; i < NR; i++) if (v[i + 1] - v[i] > run) { best = v[i]; run = v[i + 1] - v[i] }
			print best
		}')
	in_container "$name" sh -c 'echo "$1" >/proc/sys/kernel/ns_last_pid' sh "$last"
}

# escape_setup: containers c1, c1/l2, c1/l2/l3 and c1/l2/l3b (l3's sibling); a task of root of each outer
# level and one of host root in the sandbox root; cgroup u500 of l3 delegated to l3's uid 500. Sets ESC_PIDS
# (host pid numbers of the tasks outside l3: those and the daemon), ESC_PROXY_PIDS[C] (those and the outer
# containers' inits as container C's pid namespace numbers them) and ESC_PROXY_OWN[C] (l3's init as C numbers it).
escape_setup() {
	local v c p nspid inside victims=() host=()
	containers_nested 3 || return 1
	container_up c1/l2/l3b c1/l2 l3b 112000 2000 1000 || return 1
	in_container c1/l2/l3 "$CGM" create all u500
	in_container c1/l2/l3 "$CGM" chown all u500 500 500
	victims+=("$(spawn_sleeper 0 "")" "$DAEMON_PID")
	# The host task sits in the sandbox root, where nothing else ends it: the test's exit does.
	trap "end_pids ${victims[0]}; containers_cleanup" EXIT
	for c in c1 c1/l2 c1/l2/l3b; do victims+=("$(container_sleeper "$c")"); done
	ESC_PIDS=() ESC_PROXY_PIDS=([c1]= [c1/l2]=)
	for v in "${victims[@]}" "$(host_pid c1)" "$(host_pid c1/l2)" "$(host_pid c1/l2/l3b)"; do
		read -r -a nspid < <(awk '/^NSpid:/ {$1 = ""; print}' "/proc/$v/status")
		[[ " ${victims[*]} " != *" $v "* ]] || host+=("${nspid[0]}")
		[ "${#nspid[@]}" -lt 2 ] || ESC_PROXY_PIDS[c1]+=" ${nspid[1]}"
		[ "${#nspid[@]}" -lt 3 ] || ESC_PROXY_PIDS[c1/l2]+=" ${nspid[2]}"
	done
	# A host pid number that also names a task in l3 is that task to l3's cgproxy, and a call about it is
	# served. Checking l3's tasks once is not enough: l3 hands out numbers all the time (a dbus-send per call),
	# and one that reached a host number asked about itself. So the tasks l3 starts from here on get numbers
	# that are none of the host numbers, and those of l3's tasks now are left out.
	pidns_hand_out_past c1/l2/l3 "${host[@]}"
	inside=$(in_container c1/l2/l3 ls /proc | grep -E '^[0-9]+$')
	for p in "${host[@]}"; do grep -qx "$p" <<<"$inside" || ESC_PIDS+=("$p"); done
	read -r -a nspid < <(awk '/^NSpid:/ {$1 = ""; print}' "/proc/$(host_pid c1/l2/l3)/status")
	ESC_PROXY_OWN[c1]=${nspid[1]} ESC_PROXY_OWN[c1/l2]=${nspid[2]}
}

# escape_run UID: runs the calls as the root (UID 0) or uid UID of l3 and checks the refusals and the sandbox.
escape_run() {
	local uid=$1 calls=$WORK/escape.calls before=$WORK/escape.before results=$WORK/escape.results
	local as=(in_container c1/l2/l3)
	[ "$uid" = 0 ] || as=(in_container_as c1/l2/l3 c1/l2/l3/u500 "$uid")
	escape_calls "$uid" 1 >"$calls"
	"${as[@]}" "$CGM" ping
	sandbox_snapshot c1/l2/l3 >"$before"
	"${as[@]}" bash -c "$ESCAPE_RUNNER" runner "$calls" >"$results"
	escape_check "$calls" "$results" || return 1
	expect_unchanged "$before" c1/l2/l3
}

test_container_escape_every_method_as_root() {
	escape_setup
	escape_run 0
}

test_container_escape_every_method_as_a_user() {
	escape_setup
	escape_run 500
}

# A refused pid or id leaves nothing waiting in the daemon: before, cgproxy left each such exchange for the
# daemon to drop after 5 s, and the fifth refusal in that time made the container's proxy answer "4 Scm
# exchanges are under way" to everyone in it, root too.
test_container_proxy_serves_on_after_refusals() {
	local i
	containers_nested 3
	in_container c1/l2/l3 "$CGM" create all u500
	in_container c1/l2/l3 "$CGM" chown all u500 500 500
	# As in escape_setup: no task l3 starts (a cgm among them) may take the daemon's number.
	pidns_hand_out_past c1/l2/l3 "$DAEMON_PID"
	for i in 1 2 3 4 5 6; do
		expect_refused "pid $DAEMON_PID is not a task this namespace can vouch for" \
			in_container_as c1/l2/l3 c1/l2/l3/u500 500 "$CGM" getpidcgroup memory "$DAEMON_PID"
		expect_refused "uid 5000 gid 5000 are not mapped in this namespace" \
			in_container c1/l2/l3 "$CGM" chown memory u500 5000 5000
	done
	expect_eq "$(in_container c1/l2/l3 "$CGM" getpidcgroup memory 1)" / "the container's root served at once"
	expect_owner "$(sb_path memory)/c1/l2/l3/u500" 111500 111500
}

# Key API Chown from a container's root takes ids as the container numbers them: the daemon translates them
# through the container's map, and refuses an id the map does not cover. The 0.42 Chown through cgproxy
# (the kernel translates) does the same.
test_container_chown_translates_ids_through_the_map() {
	local d
	containers_nested 3
	d=$(sb_path memory)
	# c1 maps 0-65535 to host 100000-165535.
	in_container c1 "$CGM" new own1
	in_container c1 "$CGM" own own1 1000 1000
	expect_owner "$d/c1/own1" 101000 101000
	expect_refused "uid 70000 is not mapped in your user namespace" in_container c1 "$CGM" own own1 70000 70000
	expect_refused "gid 70000 is not mapped in your user namespace" in_container c1 "$CGM" own own1 1000 70000
	expect_refused "uid 70000 gid 70000 are not mapped in this namespace" in_container c1 "$CGM" chown memory own1 70000 70000
	expect_owner "$d/c1/own1" 101000 101000
	in_container c1 "$CGM" chown memory own1 2000 2000
	expect_owner "$d/c1/own1" 102000 102000
	# l3, three levels down, maps 0-999 to host 111000-111999.
	in_container c1/l2/l3 "$CGM" new own3
	in_container c1/l2/l3 "$CGM" own own3 999 999
	expect_owner "$d/c1/l2/l3/own3" 111999 111999
	expect_refused "uid 1000 is not mapped in your user namespace" in_container c1/l2/l3 "$CGM" own own3 1000 1000
	expect_refused "uid 70000 is not mapped in your user namespace" in_container c1/l2/l3 "$CGM" own own3 70000 70000
	expect_refused "uid 1000 gid 1000 are not mapped in this namespace" in_container c1/l2/l3 "$CGM" chown memory own3 1000 1000
	expect_owner "$d/c1/l2/l3/own3" 111999 111999
	# A non-root uid of l3 may not hand its cgroup to another id, mapped or not.
	in_container c1/l2/l3 "$CGM" own own3 500 500
	expect_refused "only root may chown" in_container_as c1/l2/l3 c1/l2/l3 500 "$CGM" own own3 501 501
	expect_refused "not mapped in your user namespace" in_container_as c1/l2/l3 c1/l2/l3 500 "$CGM" own own3 70000 70000
	expect_owner "$d/c1/l2/l3/own3" 111500 111500
}
