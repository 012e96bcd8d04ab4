#!/usr/bin/env bash
# Runs every integration test against one daemon started in a fresh sandbox.
#   BUILD=builddir tests/integration/run.sh [PATTERN]
# Prints "PASS lane: name" / "FAIL lane: name" per test and a final count line.
set -u
here=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${BUILD:?set BUILD to the build directory}" && pwd)
LANE=${LANE:-host}
pattern=${1:-}
. "$here/lib.sh"
for f in "$here"/t_*.sh; do . "$f"; done

[ "$(id -u)" = 0 ] || { echo "integration tests need root"; echo "0 passed, 1 failed"; exit 1; }
trap 'daemon_stop; sandbox_destroy' EXIT
trap 'exit 130' INT TERM
sandbox_create || { echo "cannot create the sandbox"; echo "0 passed, 1 failed"; exit 1; }
daemon_start || { echo "0 passed, 1 failed"; exit 1; }

# What lane v2 leaves out: the D-Bus surface, the wire protocol, load, name resolution (one openat2 path for
# every hierarchy), the Scm side channel, the socket's handling, restarts, argument checks and a task's
# lifetime (among them a task that exits or execs while it is moved), none of which looks at the hierarchy's
# version.
same_on_every_hierarchy='^test_(client_|protocol_|load_|escape_|scm_|faults_restart_|faults_move_of_an_exited_task$'
same_on_every_hierarchy+='|faults_strangers_lock|faults_daemons_started_together|chmod_modes_above_0777_refused$'
same_on_every_hierarchy+='|race_move_task_that_'
# Its files (cgroup.max.descendants, cgroup.max.depth) are cgroup2's core files, which this host's cgroup2 mount
# has too: the host lanes run it there; in the VM it took 47 s.
same_on_every_hierarchy+='|race_names_churned_cgroup2$'
same_on_every_hierarchy+='|cgm_help_and_usage$|daemon_(refuses|replaces|socket_is|help|creates_socket)'
# The walks of trees 4000 deep are one code for every hierarchy (cgfs/cgtree.c), and 4000 mkdirs take minutes
# on the VM's emulated cpus.
same_on_every_hierarchy+='|deep_tree_'
# The move-down rule is cgroup2's; the host lanes run it on this host's cgroup2 mount, lane v2 in a session.
same_on_every_hierarchy+='|move_down_into_a_delegated_child'
# cgm's completion and what meson installs do not look at hierarchies; a meson setup costs a minute there.
same_on_every_hierarchy+='|completion_|install_'
# pam_cgm's arguments, its failure policy, its layout of sessions and cgm's version and JSON typing are one code
# for every hierarchy; lane v2 keeps the PAM cases that look at cgroup2 (controllers, the leaf, limits).
same_on_every_hierarchy+='|pam_(two_sessions|controller_list|daemon_down|refusal|bad_arguments|failed_open|group_limit|su_|user_cgroup_removed)|cgm_version|cgm_json'
# Rootful runc in a session checks v1's memory and pids hierarchies, which the VM has not; lane v2 runs the
# rootless runtimes in a session (test_v2_session_*).
same_on_every_hierarchy+='|session_rootful_'
# StopUnit's signals, KillMode and timeout are one code for every hierarchy (each a Kill or a Delete-force, which
# lane v2 runs in the key cases and in KillUnit and StopUnit's own case).
same_on_every_hierarchy+='|systemd1_stop_unit_(sends_sigterm_first|sigkill_after_timeout)|systemd1_stopping_unit_is_'
same_on_every_hierarchy+='|systemd1_stop_spares_a_cgroup_made_again|systemd1_stop_slice_stops_each_unit'
# A subscriber that does not read is bounded by queues that do not look at the hierarchy, and its events come from
# cgroup2's cgroup.events in the host lanes too (the hybrid host's cgroup2 mount); its 5*10^4 moves take 164 s in
# the VM (TESTING.md, Events).
same_on_every_hierarchy+='|events_unread_subscriber_'
# The container escape matrix refuses names and pids before any hierarchy is looked at; in the VM its two
# runs take 4 minutes each, which the lane's time cannot spare.
same_on_every_hierarchy+='|container_escape_every_method_)'

passed=0 failed=0 skipped=0
for t in $(declare -F | awk '{print $3}' | grep '^test_' | sort); do
	[ -n "$pattern" ] && ! [[ $t == *$pattern* ]] && continue
	# The tests of pure cgroup v2 need a host whose only hierarchy is cgroup2 (the v2 lane).
	if [[ $t == test_v2_* ]] && ! pure_v2; then
		skipped=$((skipped + 1)); echo "SKIP $LANE: ${t#test_} (needs a pure cgroup v2 host: the v2 lane)"
		continue
	fi
	# The v2 VM's cpus are emulated (its lane is the longest): it leaves out what does not depend on the
	# hierarchy's version, which the host lanes run (on this host's cgroup2 mount too).
	if [ "$LANE" = v2 ] && [[ $t =~ $same_on_every_hierarchy ]]; then
		skipped=$((skipped + 1)); echo "SKIP $LANE: ${t#test_} (the same on every hierarchy: run in the host lanes)"
		continue
	fi
	: >"$WORK/err.trace"
	t0=$(now_ms)
	# The ERR trap records where a test stopped, for failures that print nothing themselves.
	out=$( (
		set -eE
		trap 'echo "${BASH_SOURCE[0]##*/}:$LINENO: $BASH_COMMAND (status $?)" >>"$WORK/err.trace"' ERR
		"$t"
	) 2>&1 )
	rc=$?
	end_test_pids
	took=$(( $(now_ms) - t0 ))
	took="$((took / 1000)).$((took % 1000 / 100)) s"
	if [ $rc = 77 ] && daemon_alive; then
		skipped=$((skipped + 1)); echo "SKIP $LANE: ${t#test_} (${out##*skipped: })"
	elif [ $rc = 0 ] && daemon_alive; then
		passed=$((passed + 1)); echo "PASS $LANE: ${t#test_} ($took)"
		# What a test measured (t_load.sh) is worth reading also when it passes.
		grep '^measured: ' <<<"$out" | sed 's/^measured: /    /' || true
	else
		failed=$((failed + 1)); echo "FAIL $LANE: ${t#test_} ($took)"
		echo "$out" | sed 's/^/    /'
		[ -s "$WORK/err.trace" ] && tail -3 "$WORK/err.trace" | sed 's/^/    stopped at /'
		if ! daemon_alive; then
			echo "    the daemon died; its log:"; tail -20 "$WORK/daemon.log" | sed 's/^/    /'
			daemon_start || break
		fi
	fi
done
if ! daemon_stop; then
	failed=$((failed + 1)); echo "FAIL $LANE: daemon_clean_shutdown"
else
	passed=$((passed + 1)); echo "PASS $LANE: daemon_clean_shutdown"
fi
# Reports of the sanitizers, and of valgrind (its lines start "==PID==" and, with -q, are errors, but for
# its note of the first use of an ioctl it has no model of, the nsfs ones here, whose 3 lines are left out:
# an error that such an ioctl caused would be reported on its own).
reports="runtime error|AddressSanitizer|LeakSanitizer|^==[0-9]+== "
unmodelled_ioctl="== (Warning: noted but unhandled ioctl|   This could cause spurious value errors|   See README_MISSING_SYSCALL_OR_IOCTL)"
if grep -vE "$unmodelled_ioctl" "$WORK/daemon.log" | grep -qE "$reports"; then
	failed=$((failed + 1)); echo "FAIL $LANE: daemon_sanitizer_clean"
	grep -vE "$unmodelled_ioctl" "$WORK/daemon.log" | grep -E -A5 "$reports" | head -60 | sed "s/^/    /"
fi
if [ "$skipped" -gt 0 ]; then echo "$passed passed, $failed failed, $skipped skipped"; else echo "$passed passed, $failed failed"; fi
[ "$failed" = 0 ]
