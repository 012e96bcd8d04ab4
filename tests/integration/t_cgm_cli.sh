# cgm's own surface beside the verbs' calls: --version, the key-API verb 'pid' (GetPidCgroup and
# GetPidfdCgroup of cgmanager1) and --json's numbers.

test_cgm_version_prints_the_daemons_version() {
	local want
	want=$("$CGMANAGER" -V)
	expect_eq "$("$CGM" --version)" "cgm ${want#cgmanager }" "cgm --version"
	expect_eq "$("$CGM" -V)" "cgm ${want#cgmanager }" "cgm -V"
	"$CGM" help | grep -q -- "--version" || fail "cgm help does not name --version"
}

test_cgm_pid_names_a_tasks_cgroup_relative_to_yours() {
	local top kid pid_u
	cgm_root new cli_pid/a/b
	top=$(spawn_sleeper 0 "")
	kid=$(spawn_sleeper 0 cli_pid/a/b)
	# A key-API name: "" for the requester's own cgroup, no leading slash beneath it, one for every hierarchy.
	expect_eq "$(cgm_root pid "$top")" "" "a task in root's own cgroup"
	expect_eq "$(cgm_root pid "$kid")" cli_pid/a/b "a task beneath"
	expect_eq "$(run_as 0 cli_pid "$CGM" --socket "$SOCK" pid "$kid")" a/b "from cli_pid"
	expect_eq "$(cgm_root --json pid "$kid")" "{\"pid\":$kid,\"name\":\"cli_pid/a/b\"}" "pid --json"
	# As 0.42's GetPidCgroup: a task outside the requester's subtree is refused, even for root.
	expect_refused "not beneath your cgroup.*AccessDenied" run_as 0 cli_pid/a "$CGM" --socket "$SOCK" pid "$top"
	# A user in its delegated cgroup names its own tasks, not others'.
	cgm_root new cli_pid_u
	cgm_root own cli_pid_u "$TEST_UID" "$TEST_UID"
	pid_u=$(spawn_sleeper "$TEST_UID" cli_pid_u)
	cgm_as "$TEST_UID" cli_pid_u new k
	cgm_as "$TEST_UID" cli_pid_u move k "$pid_u"
	expect_eq "$(cgm_as "$TEST_UID" cli_pid_u pid "$pid_u")" k "the user's child"
	expect_refused "not beneath your cgroup" cgm_as "$TEST_UID" cli_pid_u pid "$kid"
	# By pid over D-Bus, the same answer as by pidfd.
	expect_eq "$(busctl1_as 0 "" GetPidCgroup i "$kid")" 's "cli_pid/a/b"' "GetPidCgroup by pid"
	expect_refused "not a number" cgm_root pid notapid
	expect_refused "Usage: cgm pid PID" cgm_root pid
	expect_refused "does not exist|No such process" busctl1_as 0 "" GetPidCgroup i 999999999
	end_pids "$top" "$kid" "$pid_u"
	cgm_root delete cli_pid
	cgm_root delete cli_pid_u
}

test_cgm_pid_refuses_a_task_placed_differently_per_hierarchy() {
	local pid
	multi_hierarchy || skip "one hierarchy: a task has one cgroup"
	cgm_root new cli_split/a
	pid=$(spawn_sleeper 0 cli_split)
	# 0.42's MovePid moves it in one hierarchy only: its key-API name would differ between hierarchies.
	cgm_root movepid "$MH" cli_split/a "$pid"
	expect_refused "no one name.*NotSupported" cgm_root pid "$pid"
	end_pids "$pid"
	cgm_root delete cli_split
}

test_cgm_pid_from_another_pid_namespace_by_pidfd_only() {
	local procs=() e f out
	cgm_root new cli_pidns/in
	for e in "${SB_DIRS[@]}"; do procs_file_to f "${e#*|}/cli_pidns/in" && procs+=("$f"); done
	# Inside a new pid namespace a sleeper (numbered there) goes into cli_pidns/in: cgm names it by pidfd,
	# while a pid number from there is refused, since the daemon cannot tell which task it means.
	out=$(run_as 0 "" unshare -pf --mount-proc bash -c '
		sock=$1 cgm=$2; shift 2
		sleep 600 & p=$!
		for f in "$@"; do echo "$p" >"$f"; done
		"$cgm" --socket "$sock" pid "$p"
		busctl --address="unix:path=$sock" call org.linuxcontainers.cgmanager /org/linuxcontainers/cgmanager \
			org.linuxcontainers.cgmanager1 GetPidCgroup i "$p" 2>&1
		kill "$p"' _ "$SOCK" "$CGM" "${procs[@]}")
	expect_eq "$(echo "$out" | head -1)" cli_pidns/in "cgm pid from another pid namespace"
	echo "$out" | tail -1 | grep -q "pass a pidfd to GetPidfdCgroup" || fail "GetPidCgroup by pid from a pid namespace: $out"
	cgm_root delete cli_pidns
}

# A pidfd can be passed on: one of a task outside the requester's pid namespace is refused, though the task sits
# beneath the requester's cgroup (before, GetPidfdCgroup named it). raw_client.py sends the pidfd it opened, from
# a child in a new pid namespace, then from the daemon's.
test_cgm_pid_by_pidfd_of_a_task_outside_the_pid_namespace_refused() {
	local p out
	cgm_root new cli_pidfd/out
	p=$(spawn_sleeper 0 cli_pidfd/out)
	out=$(run_as 0 "" python3 "$here/raw_client.py" "$SOCK" pidfd-cgroup "$p" newpidns 2>&1)
	expect_eq "$out" "error org.freedesktop.DBus.Error.AccessDenied: the process the pidfd refers to is not in your pid namespace" \
		"GetPidfdCgroup of a task outside the caller's pid namespace"
	out=$(run_as 0 "" python3 "$here/raw_client.py" "$SOCK" pidfd-cgroup "$p" 2>&1)
	expect_eq "$out" "return cli_pidfd/out" "GetPidfdCgroup from the daemon's pid namespace"
	end_pids "$p"
	cgm_root delete cli_pidfd
}

test_cgm_json_prints_numbers_as_numbers() {
	local out
	cgm_root new cli_json memory.limit=64M pids.limit=max cpus_allowed=0 mems_allowed=0 cpu_share_percent=50
	out=$(cgm_root --json get cli_json memory.limit pids.limit cpus_allowed mems_allowed cpu_share_percent cpu.period \
		pids.current)
	# Numbers bare, "max" and the cpu and node lists (lists even of one) quoted.
	expect_eq "$out" '{"memory.limit":67108864,"pids.limit":"max","cpus_allowed":"0","mems_allowed":"0",'\
'"cpu_share_percent":50,"cpu.period":100000,"pids.current":0}' "get --json"
	cgm_root set cli_json pids.limit=20
	expect_eq "$(cgm_root --json get cli_json pids.limit)" '{"pids.limit":20}' "pids.limit 20 --json"
	# Parsed by a JSON reader: the types, not only the text.
	echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert type(d["memory.limit"]) is int and \
		type(d["pids.limit"]) is str and type(d["cpus_allowed"]) is str and type(d["mems_allowed"]) is str and \
		type(d["cpu.period"]) is int, d' || fail "get --json types: $out"
	cgm_root delete cli_json
}
