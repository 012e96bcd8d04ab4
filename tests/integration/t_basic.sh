# Smoke: the daemon answers and serves every hierarchy of the sandbox.

test_ping() {
	cgm_root ping
}

test_apiversion_is_10() {
	expect_eq "$(cgm_root apiversion)" 10 "api_version"
}

test_create_and_remove_memory() {
	local d; d=$(sb_path memory)
	expect_eq "$(cgm_root create memory basic1)" "" "create output"
	expect_exists "$d/basic1"
	expect_eq "$(cgm_root create memory basic1)" "Path existed" "second create"
	cgm_root remove memory basic1
	expect_missing "$d/basic1"
	expect_eq "$(cgm_root remove memory basic1)" "Path did not exist" "second remove"
}
