# Requesters in other namespaces are the containers issue's; until then they get a clear refusal.

test_namespaces_user_ns_requester_not_yet_supported() {
	expect_refused "another user namespace.*not yet supported.*NotSupported" \
		run_as 0 "" unshare -U -r "$CGM" --socket "$SOCK" create memory ns1
	expect_missing "$(sb_path memory)/ns1"
}

test_namespaces_pid_ns_requester_not_yet_supported() {
	expect_refused "another pid namespace.*not yet supported.*NotSupported" \
		run_as 0 "" unshare -p -f "$CGM" --socket "$SOCK" getpidcgroup memory 1
}
