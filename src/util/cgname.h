/* Validation of names that requesters send: cgroup paths and cgroupfs file names. */
#pragma once
#include <stddef.h>

#define CGNAME_MAX 4096

/*
 * Turns a requester's cgroup name into a clean relative path ("" for the
 * requester's own cgroup). Leading and repeated slashes are folded, as
 * cgmanager 0.42 joined names onto the requester's cgroup; "." and ".."
 * components, over-long components and control characters are refused.
 * Returns 0, or -1 with *why set to a static sentence.
 */
int cgname_normalize(const char *name, char out[CGNAME_MAX], const char **why);

/* A single cgroupfs file name: one component, no "/", "." or "..". */
int cgfile_name_valid(const char *file, const char **why);

/* Joins two clean relative paths into out (either may be ""). */
int cgpath_join(const char *a, const char *b, char out[CGNAME_MAX]);
