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
		(cd "$d" && find . -printf "$h %p %u:%g %m\n" | sort)
		while read -r f; do
			case ${f#./} in "$except"/* | "$except"/.leaf/*) continue ;; esac
			echo "$h $f: $(sort -n "$d/$f" | tr '\n' ' ')"
		done < <(cd "$d" && find . -name cgroup.procs | sort)
		(cd "$d" && find . \( -name memory.limit_in_bytes -o -name memory.max -o -name memory.high \
			-o -name pids.max -o -name cpu.shares -o -name cpu.weight -o -name freezer.state -o -name cgroup.freeze \
			-o -name notify_on_release -o -name cgroup.subtree_control -o -name cgroup.type \) -print | sort |
			while read -r f; do echo "$h $f = $(tr '\n' ' ' <"$f")"; done)
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
# "PATTERN<TAB>COMMAND WORD...". Prints "LINE-NUMBER<TAB>rc<TAB>output on one line" per call.
ESCAPE_RUNNER='
n=0
while IFS="	" read -r pat cmd; do
	n=$((n + 1))
	read -r -a w <<<"$cmd"
	out=$("${w[@]}" 2>&1); rc=$?
	printf "%s\t%s\t%s\n" "$n" "$rc" "$(echo "$out" | tr "\n" " ")"
done <"$1"'

# escape_check CALLS RESULTS: every call was refused, with its message matching its PATTERN.
escape_check() {
	local calls=$1 results=$2 n rc out pat cmd bad=0 count=0
	while IFS=$'\t' read -r n rc out; do
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
	local name sock pid c m
	for sock in "$P" "$D"; do
		for name in .. ../.. ../../.. ../l3b sub/../../l3b //..//l3b; do
			escape_call "$ESC_NAME" "$sock" $I0.Create string:memory string:$name/x
			escape_call "$ESC_NAME|arguments from another user namespace cannot be trusted" "$sock" $I0.Chown string:memory string:$name int32:$uid int32:$uid
			escape_call "$ESC_NAME" "$sock" $I0.Chmod string:memory string:$name string: int32:511
			escape_call "$ESC_NAME" "$sock" $I0.Chmod string:memory string:$name string:cgroup.procs int32:438
			escape_call "$ESC_NAME|$ESC_PIDARG" "$sock" $I0.MovePid string:memory string:$name int32:$own
			escape_call "$ESC_NAME|$ESC_PIDARG|MovePidAbs is for root" "$sock" $I0.MovePidAbs string:memory string:$name int32:$own
			escape_call "$ESC_NAME" "$sock" $I0.GetValue string:memory string:$name string:$MLIM
			escape_call "$ESC_NAME" "$sock" $I0.SetValue string:memory string:$name string:$MLIM string:1
			escape_call "$ESC_NAME" "$sock" $I0.SetValue string:freezer string:$name string:freezer.state string:FROZEN
			escape_call "$ESC_NAME" "$sock" $I0.Remove string:memory string:$name int32:1
			escape_call "$ESC_NAME" "$sock" $I0.GetTasks string:memory string:$name
			escape_call "$ESC_NAME" "$sock" $I0.GetTasksRecursive string:memory string:$name
			escape_call "$ESC_NAME" "$sock" $I0.ListChildren string:memory string:$name
			escape_call "$ESC_NAME" "$sock" $I0.RemoveOnEmpty string:memory string:$name
			escape_call "$ESC_NAME" "$sock" $I0.Prune string:memory string:$name
			escape_call "$ESC_NAME" "$sock" $I0.ListKeys string:memory string:$name
			[ "$sock" = "$D" ] || continue
			escape_call "$ESC_NAME" "$D" $I1.Create string:$name/x array:string:memory dict:string:string:memory.limit,1M
			escape_call "$ESC_NAME" "$D" $I1.SetValues string:$name dict:string:string:memory.limit,1M
			escape_call "$ESC_NAME" "$D" $I1.SetValues string:$name dict:string:string:pids.limit,1
			escape_call "$ESC_NAME" "$D" $I1.GetValues string:$name array:string:memory.limit
			escape_call "$ESC_NAME" "$D" $I1.ListChildren string:$name
			escape_call "$ESC_NAME" "$D" $I1.ListTasks string:$name boolean:true
			escape_call "$ESC_NAME" "$D" $I1.Chown string:$name uint32:$uid uint32:$uid
			escape_call "$ESC_NAME|$ESC_KEY_PIDARG" "$D" $I1.MovePid string:$name int32:$own
			escape_call "$ESC_NAME" "$D" $I1.Delete string:$name boolean:true
			escape_call "$ESC_NAME" "$D" $I1.Kill string:$name int32:9
			escape_call "$ESC_NAME" "$D" $I1.Freeze string:$name
			escape_call "$ESC_NAME" "$D" $I1.Thaw string:$name
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

# escape_setup: containers c1, c1/l2, c1/l2/l3 and c1/l2/l3b (l3's sibling); a task of root of each outer
# level and one of host root in the sandbox root; cgroup u500 of l3 delegated to l3's uid 500. Sets ESC_PIDS
# (host pid numbers of the tasks outside l3: those, the daemon, the outer inits), ESC_PROXY_PIDS[C] (the
# same as container C's pid namespace numbers them) and ESC_PROXY_OWN[C] (l3's init as C numbers it).
escape_setup() {
	local v c p nspid inside victims=()
	containers_nested 3 || return 1
	container_up c1/l2/l3b c1/l2 l3b 112000 2000 1000 || return 1
	in_container c1/l2/l3 "$CGM" create all u500
	in_container c1/l2/l3 "$CGM" chown all u500 500 500
	victims+=("$(spawn_sleeper 0 "")" "$DAEMON_PID")
	for c in c1 c1/l2 c1/l2/l3b; do victims+=("$(container_sleeper "$c")" "$(host_pid "$c")"); done
	inside=$(in_container c1/l2/l3 ls /proc | grep -E '^[0-9]+$')
	ESC_PIDS=() ESC_PROXY_PIDS=([c1]= [c1/l2]=)
	for v in "${victims[@]}"; do
		read -r -a nspid < <(awk '/^NSpid:/ {$1 = ""; print}' "/proc/$v/status")
		grep -qx "${nspid[0]}" <<<"$inside" || ESC_PIDS+=("${nspid[0]}")
		[ "${#nspid[@]}" -lt 2 ] || ESC_PROXY_PIDS[c1]+=" ${nspid[1]}"
		[ "${#nspid[@]}" -lt 3 ] || ESC_PROXY_PIDS[c1/l2]+=" ${nspid[2]}"
	done
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
	for i in 1 2 3 4 5 6; do
		expect_refused "pid $DAEMON_PID is not a task this namespace can vouch for" \
			in_container_as c1/l2/l3 c1/l2/l3/u500 500 "$CGM" getpidcgroup memory "$DAEMON_PID"
		expect_refused "uid 5000 gid 5000 are not mapped in this namespace" \
			in_container c1/l2/l3 "$CGM" chown memory u500 5000 5000
	done
	expect_eq "$(in_container c1/l2/l3 "$CGM" getpidcgroup memory 1)" / "the container's root served at once"
	expect_owner "$(sb_path memory)/c1/l2/l3/u500" 111500 111500
}
