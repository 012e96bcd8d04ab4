/*
 * The text hierarchy discovery reads, parsed apart from the reading: lines of
 * /proc/self/cgroup and /proc/self/mountinfo, and a cgroup2 cgroup.controllers.
 * Pure functions, so that they can be tested and fuzzed on any text.
 */
#pragma once
#include <stdbool.h>

#include "cgfs/hierarchy.h"
#include "util/strv.h"

struct mount_entry {
	char *root;       /* the cgroup the mount shows as its root */
	char *mountpoint;
	bool unified;
	strv options;     /* super options: controllers, name=..., others */
};

/*
 * One line of mountinfo: 1 for a cgroup or cgroup2 mount with absolute root and mount point (m filled), 0 for
 * any other line, -ENOMEM.
 */
int mountinfo_parse_line(const char *line, struct mount_entry *m);
void mount_entry_free(struct mount_entry *m);

/*
 * One line of /proc/self/cgroup ("ID:CONTROLLERS:PATH", "0::PATH") becomes a
 * hierarchy not yet opened (root_fd -1): id, version, controllers (v1), name
 * and root_path. 0, -EINVAL for a line of another form, -ENOMEM. On failure h
 * holds nothing to free.
 */
int hierarchy_parse_self_line(struct hierarchy *h, const char *line);

/* The first line of a cgroup2 cgroup.controllers, space-separated, appended to h->controllers; 0 or -ENOMEM. */
int hierarchy_parse_controllers(struct hierarchy *h, const char *text);

/* Frees what the parsers above put in h (not root_fd). */
void hierarchy_clear(struct hierarchy *h);

/* A cgroup2 path without a last component CGROUP2_TASK_LEAF: "a/.leaf" -> "a", ".leaf" -> "", "/.leaf" -> "/". */
void cgroup2_strip_leaf(char *path);
