# The same daemon driven by the D-Bus clients people already have: dbus-send,
# busctl and gdbus on the peer-to-peer socket, a small C Scm client
# (tests/helpers/scm_client.c, which passes the fd and the credentials), and
# a C program linked against libcgmanager.
# Every cgroup these tests make is named cli_* beneath the sandbox.

CLI_METHODS="Ping GetPidCgroup GetPidCgroupAbs Create Chown Chmod MovePid MovePidAbs GetValue SetValue Remove GetTasks
GetTasksRecursive ListChildren RemoveOnEmpty Prune ListControllers ListKeys GetPidCgroupScm GetPidCgroupAbsScm CreateScm
ChownScm ChmodScm MovePidScm MovePidAbsScm GetValueScm SetValueScm RemoveScm GetTasksScm GetTasksRecursiveScm
ListChildrenScm RemoveOnEmptyScm PruneScm ListKeysScm"

# cli_flat CMD...: CMD's output on one line, runs of blanks squeezed (for dbus-send's multi-line replies).
cli_flat() { "$@" | tr -s ' \n' '  '; }

# cli_expect_output PATTERN CMD...: CMD succeeds and its (flattened) output matches the extended regex PATTERN.
cli_expect_output() {
	local pat=$1 out
	shift
	out=$("$@" 2>&1 | tr -s ' \n' '  ') || { fail "$* failed: $out"; return 1; }
	echo "$out" | grep -qE -- "$pat" || fail "output of '$*' does not match /$pat/: $out"
}

bctl() { BUSCTL_UID=0 BUSCTL_REL= busctl_call "$@"; }
ds() { dbus_send_as 0 "" "$@"; }
gd() { gdbus_as 0 "" "$@"; }
scm() { run_as "${SCM_UID:-0}" "${SCM_REL:-}" "$BUILD/tests/scm-client" "$SOCK" "$@"; }

test_client_dbus_send_every_method() {
	local d pid
	d=$(sb_path memory)
	cli_expect_output "^method return" ds Ping int32:0
	cli_expect_output "int32 -1 $" ds Create string:memory string:cli_ds/a
	cli_expect_output "int32 1 $" ds Create string:memory string:cli_ds/a
	ds Create string:all string:cli_ds/a >/dev/null
	ds Chown string:memory string:cli_ds int32:"$TEST_UID" int32:"$TEST_UID2" >/dev/null
	expect_owner "$d/cli_ds" "$TEST_UID" "$TEST_UID2"
	ds Chmod string:memory string:cli_ds string: int32:$((0750)) >/dev/null
	expect_mode "$d/cli_ds" 750
	ds Chmod string:memory string:cli_ds string:$MSOFT int32:$((0600)) >/dev/null
	expect_mode "$d/cli_ds/$MSOFT" 600
	pid=$(spawn_sleeper 0 "")
	ds MovePid string:all string:cli_ds/a int32:"$pid" >/dev/null
	expect_in_cgroup "$pid" memory cli_ds/a
	expect_in_cgroup "$pid" unified cli_ds/a
	cli_expect_output 'string "cli_ds/a" $' ds GetPidCgroup string:memory int32:"$pid"
	cli_expect_output 'string "/cli_ds/a" $' ds GetPidCgroupAbs string:memory int32:"$pid"
	ds MovePidAbs string:memory string:/cli_ds int32:"$pid" >/dev/null
	expect_in_cgroup "$pid" memory cli_ds
	ds SetValue string:pids string:cli_ds string:pids.max string:33 >/dev/null
	cli_expect_output 'string "33" $' ds GetValue string:pids string:cli_ds string:pids.max
	cli_expect_output "array \[ int32 $pid \] $" ds GetTasks string:memory string:cli_ds
	cli_expect_output "array \[ \] $" ds GetTasks string:memory string:cli_ds/a
	cli_expect_output "array \[ int32 $pid \] $" ds GetTasksRecursive string:all string:cli_ds
	cli_expect_output 'array \[ string "a" \] $' ds ListChildren string:memory string:cli_ds
	cli_expect_output "struct \{ string \"cgroup.procs\" uint32 $TEST_UID uint32 $TEST_UID2 uint32 33188 \}" \
		ds ListKeys string:memory string:cli_ds
	cli_expect_output "struct \\{ string \"$MSOFT\" uint32 0 uint32 0 uint32 33152 \\}" \
		ds ListKeys string:memory string:cli_ds
	if has_hierarchy name=systemd; then
		cli_expect_output 'string "name=systemd"' ds ListControllers
	fi
	cli_expect_output "variant int32 10 $" ds org.freedesktop.DBus.Properties.Get string:$CGM_IFACE0 string:api_version
	ds MovePid string:memory string:cli_ds/a int32:"$pid" >/dev/null
	ds RemoveOnEmpty string:memory string:cli_ds/a >/dev/null
	end_pids "$pid"
	wait_until 3 test ! -e "$d/cli_ds/a" || fail "RemoveOnEmpty: $MH:/cli_ds/a not removed"
	ds Create string:memory string:cli_ds/p/q >/dev/null
	ds Prune string:memory string:cli_ds >/dev/null
	expect_missing "$d/cli_ds"
	# Prune took it from memory's hierarchy; where that is the only one, nothing is left to remove.
	cli_expect_output "int32 $(multi_hierarchy && echo 1 || echo -1) $" ds Remove string:all string:cli_ds int32:1
	cli_expect_output "int32 -1 $" ds Remove string:all string:cli_ds int32:0
	if multi_hierarchy; then expect_missing "$(sb_path pids)/cli_ds"; fi
}

test_client_busctl_every_method() {
	local d pid
	d=$(sb_path memory)
	expect_eq "$(bctl Ping i 0)" "" "busctl Ping"
	expect_eq "$(bctl Create ss memory cli_bc/a)" "i -1" "busctl Create"
	expect_eq "$(bctl Create ss memory cli_bc/a)" "i 1" "busctl Create again"
	bctl Create ss all cli_bc/a >/dev/null
	bctl Chown ssii memory cli_bc "$TEST_UID" "$TEST_UID" >/dev/null
	expect_owner "$d/cli_bc" "$TEST_UID" "$TEST_UID"
	bctl Chmod sssi memory cli_bc "" $((0700)) >/dev/null
	expect_mode "$d/cli_bc" 700
	bctl Chmod sssi memory cli_bc $MSOFT $((0640)) >/dev/null
	expect_mode "$d/cli_bc/$MSOFT" 640
	pid=$(spawn_sleeper 0 "")
	bctl MovePid ssi memory,pids cli_bc/a "$pid" >/dev/null
	expect_in_cgroup "$pid" memory cli_bc/a
	expect_in_cgroup "$pid" pids cli_bc/a
	if multi_hierarchy; then expect_in_cgroup "$pid" cpu ""; fi
	expect_eq "$(bctl GetPidCgroup si pids "$pid")" 's "cli_bc/a"' "busctl GetPidCgroup"
	expect_eq "$(bctl GetPidCgroupAbs si pids "$pid")" 's "/cli_bc/a"' "busctl GetPidCgroupAbs"
	if multi_hierarchy; then expect_eq "$(bctl GetPidCgroup si cpu "$pid")" 's "/"' "busctl GetPidCgroup of the own cgroup"; fi
	bctl MovePidAbs ssi memory cli_bc "$pid" >/dev/null
	expect_in_cgroup "$pid" memory cli_bc
	bctl SetValue ssss memory cli_bc $MLIM 32M >/dev/null
	expect_eq "$(bctl GetValue sss memory cli_bc $MLIM)" 's "33554432"' "busctl GetValue"
	expect_eq "$(bctl GetTasks ss memory cli_bc)" "ai 1 $pid" "busctl GetTasks"
	expect_eq "$(bctl GetTasks ss memory cli_bc/a)" "ai 0" "busctl GetTasks of an empty cgroup"
	expect_eq "$(bctl GetTasksRecursive ss all cli_bc)" "ai 1 $pid" "busctl GetTasksRecursive"
	expect_eq "$(bctl ListChildren ss memory cli_bc)" 'as 1 "a"' "busctl ListChildren"
	cli_expect_output "^a\(suuu\) [0-9]+ .*\"cgroup.procs\" $TEST_UID $TEST_UID 33188 .*\"$MSOFT\" 0 0 33184 " \
		bctl ListKeys ss memory cli_bc
	if has_hierarchy name=systemd; then cli_expect_output '^as [0-9]+ .*"name=systemd"' bctl ListControllers; fi
	cli_expect_output '^as [0-9]+ .*"memory"' bctl ListControllers
	bctl MovePid ssi memory cli_bc/a "$pid" >/dev/null
	bctl RemoveOnEmpty ss memory cli_bc/a >/dev/null
	end_pids "$pid"
	wait_until 3 test ! -e "$d/cli_bc/a" || fail "RemoveOnEmpty: $MH:/cli_bc/a not removed"
	bctl Create ss memory cli_bc/p >/dev/null
	bctl Prune ss memory cli_bc >/dev/null
	expect_missing "$d/cli_bc"
	expect_eq "$(bctl Remove ssi all cli_bc 1)" "i $(multi_hierarchy && echo 1 || echo -1)" "busctl Remove"
	expect_eq "$(bctl Remove ssi all cli_bc 1)" "i -1" "busctl Remove again"
}

test_client_gdbus_every_method() {
	local d pid
	d=$(sb_path memory)
	expect_eq "$(gd Ping 0)" "()" "gdbus Ping"
	expect_eq "$(gd Create memory cli_gd/a)" "(-1,)" "gdbus Create"
	expect_eq "$(gd Create memory cli_gd/a)" "(1,)" "gdbus Create again"
	gd Create all cli_gd/a >/dev/null
	gd Chown memory cli_gd "$TEST_UID" "$TEST_UID2" >/dev/null
	expect_owner "$d/cli_gd" "$TEST_UID" "$TEST_UID2"
	gd Chmod memory cli_gd '""' $((0711)) >/dev/null
	expect_mode "$d/cli_gd" 711
	gd Chmod memory cli_gd $MSOFT $((0444)) >/dev/null
	expect_mode "$d/cli_gd/$MSOFT" 444
	pid=$(spawn_sleeper 0 "")
	gd MovePid all cli_gd/a "$pid" >/dev/null
	expect_in_cgroup "$pid" unified cli_gd/a
	expect_eq "$(gd GetPidCgroup unified "$pid")" "('cli_gd/a',)" "gdbus GetPidCgroup"
	expect_eq "$(gd GetPidCgroupAbs unified "$pid")" "('/cli_gd/a',)" "gdbus GetPidCgroupAbs"
	gd MovePidAbs unified /cli_gd "$pid" >/dev/null
	expect_in_cgroup "$pid" unified cli_gd
	gd SetValue cpu cli_gd $CPUW 256 >/dev/null
	expect_eq "$(gd GetValue cpu cli_gd $CPUW)" "('256',)" "gdbus GetValue"
	expect_eq "$(gd GetTasks unified cli_gd)" "([$pid],)" "gdbus GetTasks"
	expect_eq "$(gd GetTasks unified cli_gd/a)" "(@ai [],)" "gdbus GetTasks of an empty cgroup"
	expect_eq "$(gd GetTasksRecursive all cli_gd)" "([$pid],)" "gdbus GetTasksRecursive"
	expect_eq "$(gd ListChildren memory cli_gd)" "(['a'],)" "gdbus ListChildren"
	expect_eq "$(gd ListChildren memory cli_gd/a)" "(@as [],)" "gdbus ListChildren of a leaf"
	cli_expect_output "\('cgroup.procs', $TEST_UID, $TEST_UID2, 33188\)" gd ListKeys memory cli_gd
	cli_expect_output "\('$MSOFT', 0, 0, 33060\)" gd ListKeys memory cli_gd
	if has_hierarchy name=systemd; then cli_expect_output "'name=systemd'" gd ListControllers; fi
	gd MovePid unified cli_gd/a "$pid" >/dev/null
	gd RemoveOnEmpty unified cli_gd/a >/dev/null
	end_pids "$pid"
	wait_until 3 test ! -e "$(sb_path unified)/cli_gd/a" || fail "RemoveOnEmpty: unified:/cli_gd/a not removed"
	gd Prune memory cli_gd >/dev/null
	expect_missing "$d/cli_gd"
	expect_eq "$(gd Remove all cli_gd 1)" "($(multi_hierarchy && echo 1 || echo -1),)" "gdbus Remove"
	expect_eq "$(gd Remove all cli_gd 1)" "(-1,)" "gdbus Remove again"
}

test_client_bus_driver_calls_answered() {
	# gdbus and busctl say Hello (and AddMatch) first, as if a bus daemon were there.
	local out
	out=$(run_as 0 "" busctl --address="unix:path=$SOCK" call org.freedesktop.DBus /org/freedesktop/DBus \
		org.freedesktop.DBus Hello)
	[[ $out =~ ^s\ \":1\.[0-9]+\"$ ]] || fail "Hello answered '$out'"
	expect_eq "$(run_as 0 "" busctl --address="unix:path=$SOCK" call org.freedesktop.DBus /org/freedesktop/DBus \
		org.freedesktop.DBus AddMatch s "type='signal'")" "" "AddMatch"
	expect_eq "$(run_as 0 "" busctl --address="unix:path=$SOCK" call org.freedesktop.DBus /org/freedesktop/DBus \
		org.freedesktop.DBus RemoveMatch s "type='signal'")" "" "RemoveMatch"
	expect_eq "$(gd org.freedesktop.DBus.Peer.Ping)" "()" "gdbus Peer.Ping"
	expect_eq "$(gdbus_as "$TEST_UID" "" Ping 1)" "()" "gdbus Ping as a user"
}

test_client_properties_and_introspection() {
	local out m xml
	expect_eq "$(run_as 0 "" busctl --address="unix:path=$SOCK" get-property $CGM_DEST $CGM_PATH $CGM_IFACE0 api_version)" \
		"i 10" "busctl get-property api_version"
	expect_eq "$(run_as 0 "" busctl --address="unix:path=$SOCK" call $CGM_DEST $CGM_PATH \
		org.freedesktop.DBus.Properties GetAll s $CGM_IFACE0)" 'a{sv} 1 "api_version" i 10' "busctl GetAll"
	expect_eq "$(gd org.freedesktop.DBus.Properties.GetAll $CGM_IFACE0)" "({'api_version': <10>},)" "gdbus GetAll"
	expect_eq "$(gd org.freedesktop.DBus.Properties.Get $CGM_IFACE0 api_version)" "(<10>,)" "gdbus Get"
	cli_expect_output "array \[ dict entry\( string \"api_version\" variant int32 10 \) \]" \
		ds org.freedesktop.DBus.Properties.GetAll string:$CGM_IFACE0
	# Read-only.
	expect_refused "PropertyReadOnly" ds org.freedesktop.DBus.Properties.Set string:$CGM_IFACE0 string:api_version variant:int32:11
	expect_eq "$(gd org.freedesktop.DBus.Properties.Get $CGM_IFACE0 api_version)" "(<10>,)" "api_version after Set"
	# Introspection lists every method with its 0.42 signature.
	out=$(run_as 0 "" busctl --address="unix:path=$SOCK" introspect $CGM_DEST $CGM_PATH $CGM_IFACE0)
	for m in $CLI_METHODS; do
		echo "$out" | grep -qE "^\.$m +method " || fail "busctl introspect lacks $m"
	done
	expect_eq "$(echo "$out" | grep -c ' method ')" "$(echo $CLI_METHODS | wc -w)" "number of methods"
	echo "$out" | grep -qE '^\.api_version +property +i +10 +const' || fail "introspect lacks api_version: $out"
	echo "$out" | grep -qE '^\.Create +method +ss +i ' || fail "Create is not (ss) -> i"
	echo "$out" | grep -qE '^\.ChmodScm +method +sssih +- ' || fail "ChmodScm is not (sssih)"
	echo "$out" | grep -qE '^\.ListKeys +method +ss +a\(suuu\) ' || fail "ListKeys is not (ss) -> a(suuu)"
	xml=$(gdbus introspect --address "unix:path=$SOCK" --dest $CGM_DEST -o $CGM_PATH --xml)
	for m in $CLI_METHODS; do
		echo "$xml" | grep -q "<method name=\"$m\">" || fail "gdbus introspect --xml lacks $m"
	done
	echo "$xml" | grep -qE "<property (name=\"api_version\" type=\"i\"|type=\"i\" name=\"api_version\") access=\"read\">" || fail "XML lacks api_version"
	xml=$(ds org.freedesktop.DBus.Introspectable.Introspect)
	echo "$xml" | grep -q "<interface name=\"$CGM_IFACE0\">" || fail "dbus-send Introspect lacks the interface"
	echo "$xml" | grep -q '<method name="GetTasksRecursive">' || fail "dbus-send Introspect lacks GetTasksRecursive"
}

test_client_error_names_visible() {
	local pid
	cgm_root create all cli_err
	# FileNotFound, AccessDenied, InvalidArgs, Busy and the bus's own errors, by dbus-send and gdbus.
	expect_refused "^Error org.freedesktop.DBus.Error.FileNotFound: $MH:/cli_missing does not exist" \
		ds GetValue string:memory string:cli_missing string:$MLIM
	expect_refused "GDBus.Error:org.freedesktop.DBus.Error.FileNotFound: $MH:/cli_missing does not exist" \
		gd GetValue memory cli_missing $MLIM
	expect_refused "^Error org.freedesktop.DBus.Error.FileNotFound: controller 'nosuch' is not available" \
		ds Create string:nosuch string:cli_err
	expect_refused "^Error org.freedesktop.DBus.Error.AccessDenied: $MH:/ is owned by uid 0" \
		dbus_send_as "$TEST_UID" "" Create string:memory string:cli_err_u
	expect_refused "GDBus.Error:org.freedesktop.DBus.Error.AccessDenied: " gdbus_as "$TEST_UID" "" Create memory cli_err_u
	expect_missing "$(sb_path memory)/cli_err_u"
	expect_refused "^Error org.freedesktop.DBus.Error.AccessDenied: MovePidAbs is for root" \
		dbus_send_as "$TEST_UID" "" MovePidAbs string:memory string:cli_err int32:1
	expect_refused "^Error org.freedesktop.DBus.Error.InvalidArgs: .*'\.' and '\.\.' are not allowed" \
		ds Create string:memory string:cli_err/../x
	expect_refused "^Error org.freedesktop.DBus.Error.InvalidArgs: " ds Create string:memory int32:3
	expect_refused "^Error org.freedesktop.DBus.Error.InvalidArgs: " ds Create string:memory
	expect_refused "GDBus.Error:org.freedesktop.DBus.Error.InvalidArgs: uid -5 and gid 0 must not be negative" \
		gd Chown memory cli_err -- -5 0
	expect_refused "^Error org.freedesktop.DBus.Error.InvalidArgs: .*kernel refused" \
		ds SetValue string:pids string:cli_err string:pids.max string:many
	pid=$(spawn_sleeper 0 cli_err)
	expect_refused "^Error org.linuxcontainers.cgmanager.Error.Busy: " ds Remove string:memory string:cli_err int32:1
	expect_refused "GDBus.Error:org.linuxcontainers.cgmanager.Error.Busy: " gd Remove memory cli_err 0
	end_pids "$pid"
	expect_refused "^Error org.freedesktop.DBus.Error.UnknownMethod: " ds Frobnicate
	expect_refused "^Error org.freedesktop.DBus.Error.Unknown(Object|Method|Interface): " \
		run_as 0 "" dbus-send --address="unix:path=$SOCK" --print-reply --dest=$CGM_DEST /no/such/object $CGM_IFACE0.Ping int32:0
	# libcgmanager passes the name on: cgm shows it.
	expect_refused "\(org.freedesktop.DBus.Error.FileNotFound\)$" cgm_root getvalue memory cli_missing tasks
	cgm_root remove all cli_err
}

test_client_scm_every_method() {
	local d pid out
	d=$(sb_path memory)
	expect_eq "$(scm CreateScm memory cli_scm/a)" 1 "CreateScm of a new cgroup"
	expect_eq "$(scm CreateScm memory cli_scm/a)" 2 "CreateScm of an existing cgroup"
	expect_exists "$d/cli_scm/a"
	scm CreateScm all cli_scm/a >/dev/null
	expect_eq "$(scm ChownScm memory cli_scm --second "$TEST_UID:$TEST_UID2")" 1 "ChownScm"
	expect_owner "$d/cli_scm" "$TEST_UID" "$TEST_UID2"
	expect_owner "$d/cli_scm/cgroup.procs" "$TEST_UID" "$TEST_UID2"
	expect_eq "$(scm ChmodScm memory cli_scm "" $((0750)))" 1 "ChmodScm of the directory"
	expect_mode "$d/cli_scm" 750
	expect_eq "$(scm ChmodScm memory cli_scm $MSOFT $((0600)))" 1 "ChmodScm of a file"
	expect_mode "$d/cli_scm/$MSOFT" 600
	pid=$(spawn_sleeper 0 "")
	expect_eq "$(scm MovePidScm all cli_scm/a --second "$pid")" 1 "MovePidScm"
	expect_in_cgroup "$pid" memory cli_scm/a
	expect_in_cgroup "$pid" unified cli_scm/a
	expect_eq "$(scm GetPidCgroupScm memory --second "$pid")" cli_scm/a "GetPidCgroupScm"
	expect_eq "$(scm GetPidCgroupAbsScm memory --second "$pid")" /cli_scm/a "GetPidCgroupAbsScm"
	expect_eq "$(scm MovePidAbsScm memory /cli_scm --second "$pid")" 1 "MovePidAbsScm"
	expect_in_cgroup "$pid" memory cli_scm
	expect_eq "$(scm SetValueScm pids cli_scm pids.max 21)" 1 "SetValueScm"
	expect_eq "$(cat "$(sb_path pids)/cli_scm/pids.max")" 21 "pids.max after SetValueScm"
	expect_eq "$(scm GetValueScm pids cli_scm pids.max)" 21 "GetValueScm"
	expect_eq "$(scm GetTasksScm memory cli_scm)" "$(printf 'count 1\n%s' "$pid")" "GetTasksScm"
	expect_eq "$(scm GetTasksScm memory cli_scm/a)" "count 0" "GetTasksScm of an empty cgroup"
	expect_eq "$(scm GetTasksRecursiveScm all cli_scm)" "$(printf 'count 1\n%s' "$pid")" "GetTasksRecursiveScm"
	expect_eq "$(scm ListChildrenScm memory cli_scm)" "$(printf 'count 1\na')" "ListChildrenScm"
	expect_eq "$(scm ListChildrenScm memory cli_scm/a)" "count 0" "ListChildrenScm of a leaf"
	out=$(scm ListKeysScm memory cli_scm)
	expect_eq "$(echo "$out" | tail -n +2)" "$(cgm_root listkeys memory cli_scm)" "ListKeysScm as cgm listkeys"
	expect_eq "$(echo "$out" | head -1)" "count $(cgm_root listkeys memory cli_scm | wc -l)" "ListKeysScm count"
	expect_eq "$(scm MovePidScm memory cli_scm/a --second "$pid")" 1 "MovePidScm back"
	expect_eq "$(scm RemoveOnEmptyScm memory cli_scm/a)" 1 "RemoveOnEmptyScm"
	end_pids "$pid"
	wait_until 3 test ! -e "$d/cli_scm/a" || fail "RemoveOnEmptyScm: $MH:/cli_scm/a not removed"
	scm CreateScm memory cli_scm/p/q >/dev/null
	expect_eq "$(scm PruneScm memory cli_scm)" 2 "PruneScm of an empty tree"
	expect_missing "$d/cli_scm"
	expect_eq "$(scm RemoveScm all cli_scm 1)" "$(multi_hierarchy && echo 2 || echo 1)" "RemoveScm where Prune left it"
	expect_eq "$(scm RemoveScm all cli_scm 1)" 1 "RemoveScm of a missing cgroup"
	if multi_hierarchy; then expect_missing "$(sb_path pids)/cli_scm"; fi
}

test_client_scm_failures_and_bad_fds() {
	local out
	# A refusal: the 0.42 failure answer, then the reason.
	expect_eq "$(scm GetValueScm memory cli_scm_missing $MLIM)" \
		"$(printf '<failed>\nerror org.freedesktop.DBus.Error.FileNotFound: %s:/cli_scm_missing does not exist' "$MH")" \
		"GetValueScm of a missing cgroup"
	out=$(scm CreateScm nosuch cli_scm_x)
	expect_eq "$(echo "$out" | head -1)" 0 "CreateScm with an unknown controller"
	echo "$out" | grep -q "^error org.freedesktop.DBus.Error.FileNotFound: controller 'nosuch'" || fail "no reason: $out"
	out=$(scm GetTasksScm memory cli_scm_missing)
	expect_eq "$(echo "$out" | head -1)" "count -1" "GetTasksScm of a missing cgroup"
	out=$(SCM_UID=$TEST_UID scm CreateScm memory cli_scm_u)
	expect_eq "$(echo "$out" | head -1)" 0 "CreateScm by a user under root's cgroup"
	echo "$out" | grep -q "^error org.freedesktop.DBus.Error.AccessDenied: " || fail "no AccessDenied reason: $out"
	expect_missing "$(sb_path memory)/cli_scm_u"
	# What is passed must be a datagram socket.
	out=$(scm CreateScm memory cli_scm_x --stream) && fail "a stream socket was accepted: $out"
	echo "$out" | grep -q "^dbus-error org.freedesktop.DBus.Error.InvalidArgs: CreateScm needs an AF_UNIX SOCK_DGRAM socket" ||
		fail "unexpected answer to a stream socket: $out"
	expect_missing "$(sb_path memory)/cli_scm_x"
	# Wrong arguments before the fd.
	expect_refused "InvalidArgs" ds CreateScm string:memory string:x
}

test_client_lib_client_every_function() {
	local exe=$BUILD/tests/lib-client out
	[ -x "$exe" ] || { fail "$exe was not built"; return 1; }
	out=$(run_as 0 "" env CGMANAGER_SOCKET="$SOCK" SOFT_FILE="$MSOFT" ${PURE_V2:+PURE_V2=1} "$exe" cli_lib \
		"$(sb_path memory)" "$TEST_UID" 2>&1) ||
		{ echo "$out" | grep -v '^ok:' >&2; fail "lib-client reported the failures above"; return 1; }
	echo "$out" | grep -q '^0 failures$' || fail "lib-client did not finish: $out"
	[ "$(echo "$out" | grep -c '^ok:')" -ge 60 ] || fail "lib-client made only $(echo "$out" | grep -c '^ok:') checks"
	for h in $(sb_hierarchies); do expect_missing "$(sb_path "$h")/cli_lib"; done
	# Without $CGMANAGER_SOCKET it does not find this daemon, and says so.
	out=$(run_as 0 "" env CGMANAGER_SOCKET="$WORK/nosock" "$exe" cli_lib2 "$(sb_path memory)" "$TEST_UID" 2>&1) &&
		fail "lib-client succeeded against a missing socket"
	echo "$out" | grep -q "FAIL: cgm_connect(NULL).*$WORK/nosock" || fail "lib-client's connect failure: $out"
}

test_client_cgm_honours_cgmanager_socket() {
	expect_ok run_as 0 "" env CGMANAGER_SOCKET="$SOCK" "$CGM" ping
	expect_eq "$(run_as 0 "" env CGMANAGER_SOCKET="$SOCK" "$CGM" apiversion)" 10 "apiversion through the env"
	expect_ok run_as "$TEST_UID" "" env CGMANAGER_SOCKET="$SOCK" "$CGM" listcontrollers
	expect_refused "cannot connect to cgmanager at $WORK/nosock" run_as 0 "" env CGMANAGER_SOCKET="$WORK/nosock" "$CGM" ping
	# --socket wins over the environment.
	expect_ok run_as 0 "" env CGMANAGER_SOCKET="$WORK/nosock" "$CGM" --socket "$SOCK" ping
	expect_refused "at $WORK/nosock2" run_as 0 "" env CGMANAGER_SOCKET="$SOCK" "$CGM" --socket="$WORK/nosock2" ping
}
