/* The words for kernel refusals (src/cgfs/refusal.h) and err_append (src/util/err.h). */
#include <errno.h>

#include "check.h"
#include "cgfs/refusal.h"
#include "util/err.h"

static void einval_says_the_value_is_not_taken(void)
{
	CHECK(strstr(cgfs_refusal_hint("pids.max", EINVAL), "not a value this file takes") != NULL);
	CHECK(strstr(cgfs_refusal_hint("cpuset.cpus", EINVAL), "cpus and memory nodes must exist") != NULL);
	CHECK(strstr(cgfs_refusal_hint("cpu.cfs_quota_us", EINVAL), "likely more cpus than the parent's") != NULL);
	CHECK(strstr(cgfs_refusal_hint("cpu.cfs_period_us", EINVAL), "likely more cpus than the parent's") != NULL);
	CHECK(strstr(cgfs_refusal_hint("cpu.max", EINVAL), "at least 1ms") != NULL);
	CHECK(strstr(cgfs_refusal_hint("memory.limit_in_bytes", EINVAL), "memory+swap") != NULL);
}

static void busy_and_nospace_depend_on_the_file(void)
{
	CHECK(strstr(cgfs_refusal_hint("memory.max", EBUSY), "could not reclaim") != NULL);
	CHECK(strstr(cgfs_refusal_hint("cpuset.mems", EBUSY), "child cgroup") != NULL);
	CHECK(strstr(cgfs_refusal_hint("cpuset.cpus", ENOSPC), "has tasks") != NULL);
	CHECK_STR(cgfs_refusal_hint("pids.max", ENOSPC), "");
	CHECK_STR(cgfs_refusal_hint("pids.max", EBUSY), "");
}

static void others_add_nothing_but_removal(void)
{
	CHECK_STR(cgfs_refusal_hint("pids.max", EPERM), "");
	CHECK(strstr(cgfs_refusal_hint("pids.max", ENOENT), "removed meanwhile") != NULL);
	CHECK(strstr(cgfs_refusal_hint("pids.max", ENODEV), "removed meanwhile") != NULL);
}

static void append_cuts_short_on_a_character(void)
{
	struct err e = {0};
	char big[2 * sizeof(e.msg)];
	CHECK(err_set(&e, ERR_INVALID, "refused") == -1);
	CHECK(err_append(&e, " (why)") == -1);
	CHECK_STR(e.msg, "refused (why)");
	CHECK(e.kind == ERR_INVALID);
	/* A message that does not fit ends before a cut multi-byte character, never inside one. */
	memset(big, 0, sizeof(big));
	for (size_t i = 0; i + 2 < sizeof(big) - 1; i += 2)
		memcpy(big + i, "\xc3\xa9", 2);
	err_append(&e, big);
	size_t n = strlen(e.msg);
	CHECK(n < sizeof(e.msg));
	CHECK(((unsigned char)e.msg[n - 1] & 0xC0) == 0x80); /* ends on a whole é */
}

int main(void)
{
	RUN(einval_says_the_value_is_not_taken);
	RUN(busy_and_nospace_depend_on_the_file);
	RUN(others_add_nothing_but_removal);
	RUN(append_cuts_short_on_a_character);
	return CHECK_EXIT();
}
