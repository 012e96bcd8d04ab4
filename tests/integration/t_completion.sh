# The bash completion of cgm (data/bash-completion/cgm): sourced in a bash of its own, its function called
# with COMP_WORDS/COMP_CWORD as readline sets them, against the suite's daemon; the candidates checked.

CGM_COMPLETION=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/data/bash-completion/cgm

# completions UID REL WORD...: the candidates _cgm offers for the last WORD (cgm --socket $SOCK WORD...), one
# per line, sorted; run as UID from sandbox cgroup REL, so that names are those that requester sees.
completions() {
	local uid=$1 rel=$2
	shift 2
	run_as "$uid" "$rel" bash -c '
		. "$1"; shift
		complete -p cgm >/dev/null || exit 3
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_cgm
		printf "%s\n" "${COMPREPLY[@]}"' _ "$CGM_COMPLETION" "$CGM" --socket "$SOCK" "$@" | sort
}

# expect_has GOT WANT...: every WANT is among the candidates GOT (a newline-separated list).
expect_has() {
	local got=$1 w
	shift
	for w in "$@"; do grep -qxF -- "$w" <<<"$got" || fail "'$w' is not a candidate: $(tr '\n' ' ' <<<"$got")"; done
}

test_completion_verbs_options_and_help() {
	local got
	got=$(completions 0 "" "")
	expect_has "$got" new set get ls tasks pid own move exec delete kill freeze thaw watch keys controllers \
		create chown getpidcgroup movepid getvalue setvalue listcontrollers listkeys help ping
	expect_eq "$(completions 0 "" ge)" "$(printf '%s\n' get getpidcgroup getpidcgroupabs gettasks gettasksrecursive getvalue)" "ge"
	expect_eq "$(completions 0 "" --v)" --version "--v"
	expect_eq "$(completions 0 "" help fre)" freeze "help fre"
	# Options before the verb are skipped; after it, each verb's own.
	expect_eq "$(completions 0 "" --json ls -)" "$(printf '%s\n' --recursive -r)" "ls -"
	expect_eq "$(completions 0 "" delete --f)" --force "delete --f"
	# watch: its event words after the name.
	expect_eq "$(completions 0 "" watch web oo)" "$(printf '%s\n' oom oom_kill)" "watch web oo"
	expect_eq "$(completions 0 "" watch web sub)" subtree "watch web sub"
}

test_completion_controllers_from_the_daemon() {
	local got want c
	# The 0.42 verbs' CONTROLLER: every hierarchy listcontrollers names, and all.
	got=$(completions 0 "" create "")
	for c in $("$CGM" --socket "$SOCK" listcontrollers) all; do expect_has "$got" "$c"; done
	expect_has "$got" memory pids
	expect_eq "$(completions 0 "" gettasks al)" all "gettasks al"
	# new -c: the key API's controllers, also after a comma.
	want=$("$CGM" --socket "$SOCK" controllers | cut -d' ' -f1 | sort)
	expect_eq "$(completions 0 "" new cmp_x -c "")" "$want" "new -c"
	expect_eq "$(completions 0 "" new cmp_x -c memory,pi)" memory,pids "new -c memory,pi"
}

test_completion_keys_from_cgm_keys() {
	local got
	got=$(completions 0 "" set cmp_x "")
	expect_has "$got" memory.limit= pids.limit= cpus_allowed= cpu_share_percent=
	grep -q '<' <<<"$got" && fail "templates offered as keys: $got"
	expect_eq "$(completions 0 "" set cmp_x pids.l)" pids.limit= "set pids.l"
	expect_eq "$(completions 0 "" new cmp_x -c pids pids.l)" pids.limit= "new -c pids pids.l"
	expect_eq "$(completions 0 "" get cmp_x pids.)" "$(printf '%s\n' pids.current pids.limit)" "get pids."
	# Every key of 'cgm keys' but the templates, and nothing else.
	expect_eq "$(completions 0 "" get cmp_x "")" "$("$CGM" --socket "$SOCK" keys | awk 'NR > 1 && $1 !~ /</ {print $1}' | sort)" \
		"get's keys"
}

test_completion_cgroup_names_from_cgm_ls() {
	cgm_root new cmp_tree/a/deep
	cgm_root new cmp_tree/b
	cgm_root new cmp_top
	expect_has "$(completions 0 "" ls "")" cmp_tree cmp_top
	expect_eq "$(completions 0 "" get cmp_t)" "$(printf '%s\n' cmp_top cmp_tree)" "get cmp_t"
	# One level at a time, beneath the name typed so far.
	expect_eq "$(completions 0 "" delete -f cmp_tree/)" "$(printf '%s\n' cmp_tree/a cmp_tree/b)" "delete cmp_tree/"
	expect_eq "$(completions 0 "" move cmp_tree/a/d)" cmp_tree/a/deep "move cmp_tree/a/d"
	expect_eq "$(completions 0 "" movepid memory cmp_tree/)" "$(printf '%s\n' cmp_tree/a cmp_tree/b)" "movepid's CGROUP"
	# The names are the requester's: a user sees those beneath its own cgroup.
	cgm_root own cmp_tree "$TEST_UID" "$TEST_UID"
	expect_eq "$(completions "$TEST_UID" cmp_tree freeze "")" "$(printf '%s\n' a b)" "a user's names"
	# getvalue's third argument: the cgroupfs files of that cgroup.
	expect_has "$(completions 0 "" getvalue pids cmp_top pids.)" pids.max pids.current
	# No daemon: no candidates, no error on the terminal.
	expect_eq "$(run_as 0 "" bash -c '. "$1"; COMP_WORDS=("$2" --socket "$3" ls ""); COMP_CWORD=4; _cgm 2>&1
		echo "${#COMPREPLY[@]}"' _ "$CGM_COMPLETION" "$CGM" "$WORK/nosock")" 0 "without a daemon"
	cgm_root delete cmp_tree
	cgm_root delete cmp_top
}

test_completion_signals_and_pids() {
	expect_eq "$(completions 0 "" kill cmp_x SIGKI)" SIGKILL "kill's signal"
	expect_has "$(completions 0 "" pid 1)" 1
}
