# Plain calls from other namespaces: allowed where nothing in them needs translating, refused clearly where it would.

test_namespaces_pid_args_from_another_pid_ns_refused() {
	expect_refused "another pid namespace.*Scm call.*NotSupported" \
		run_as 0 "" unshare -p -f "$CGM" --socket "$SOCK" getpidcgroup memory 1
	expect_refused "another pid namespace.*Scm call.*NotSupported" \
		run_as 0 "" unshare -p -f "$CGM" --socket "$SOCK" movepid memory "" 1
}

test_namespaces_chown_args_from_another_user_ns_refused() {
	cgm_root create memory ns_chown
	expect_refused "another user namespace.*ChownScm.*NotSupported" \
		run_as 0 "" unshare -U -r "$CGM" --socket "$SOCK" chown memory ns_chown 0 0
}

test_namespaces_user_ns_root_of_an_unprivileged_user_is_no_root() {
	# Root of a user namespace that maps only uid 60001 has no power over host root's cgroups.
	expect_refused "owned by uid 0.*AccessDenied" \
		run_as "$TEST_UID" "" unshare -U -r "$CGM" --socket "$SOCK" create memory ns_nope
	expect_missing "$(sb_path memory)/ns_nope"
	# ... but it may parcel out a cgroup delegated to its host uid.
	delegate ns_deleg "$TEST_UID" memory
	run_as 0 "" sh -c "echo \$\$ > '$(sb_path memory)/ns_deleg/cgroup.procs'; exec setpriv --reuid=$TEST_UID --regid=$TEST_UID --clear-groups unshare -U -r '$CGM' --socket '$SOCK' create memory child"
	expect_exists "$(sb_path memory)/ns_deleg/child"
	expect_owner "$(sb_path memory)/ns_deleg/child" "$TEST_UID" "$TEST_UID"
}
