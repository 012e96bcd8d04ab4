#include "cgfs/refusal.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

static bool starts(const char *file, const char *prefix)
{
	return strncmp(file, prefix, strlen(prefix)) == 0;
}

const char *cgfs_refusal_hint(const char *file, int errnum)
{
	switch (errnum) {
	case EINVAL:
		if (starts(file, "cpuset."))
			return " (not a value this file takes: cpus and memory nodes must exist and, on cgroup v1, be in the "
			       "parent's)";
		/* On v1 the likely reason is the hierarchy's bound, which the quota and the period each move. */
		if (starts(file, "cpu.cfs_quota") || starts(file, "cpu.cfs_period"))
			return " (likely more cpus than the parent's quota over its period, or fewer than a child's, which "
			       "cgroup v1 refuses; else a quota below 1ms or a period outside 1ms to 1s)";
		if (starts(file, "cpu.max"))
			return " (not a value this file takes: a quota is at least 1ms and a period 1ms to 1s)";
		if (starts(file, "memory.memsw") || starts(file, "memory.limit"))
			return " (not a value this file takes: on cgroup v1 the memory+swap limit must also stay at or above the "
			       "memory limit)";
		return " (not a value this file takes)";
	case ERANGE:
		return " (out of the range this file takes)";
	case EBUSY:
		if (starts(file, "memory."))
			return " (the cgroup uses more than that, and the kernel could not reclaim enough)";
		if (starts(file, "cpuset."))
			return " (a child cgroup has cpus or memory nodes this would take away)";
		return "";
	case ENOSPC:
		if (starts(file, "cpuset."))
			return " (the cgroup has tasks, which would be left without cpus or memory nodes)";
		return "";
	case ENOENT:
	case ENODEV:
		return " (the cgroup or the file was removed meanwhile)";
	default:
		return "";
	}
}
