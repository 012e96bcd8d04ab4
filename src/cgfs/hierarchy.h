/* The cgroup hierarchies this daemon serves, each opened at the daemon's own cgroup. */
#pragma once
#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"
#include "util/strv.h"

struct hierarchy {
	int id;             /* hierarchy id of /proc/PID/cgroup; 0 for cgroup2 */
	bool unified;       /* cgroup2 */
	strv controllers;   /* v1: its controllers ("name=systemd" for named ones); v2: cgroup.controllers at the root */
	char *name;         /* as requesters see it: "cpu,cpuacct", "name=systemd", "unified" */
	char *root_path;    /* the daemon's cgroup at start-up: the root it serves */
	int root_fd;        /* O_DIRECTORY fd of root_path */
};

struct hierarchies {
	struct hierarchy *h;
	size_t n;
};

/*
 * Finds every hierarchy the daemon is a member of and opens each at the
 * daemon's own cgroup. Hierarchies the host mounts are used where they are;
 * the others are mounted detached (fsmount), so the host's mount table is
 * never changed.
 */
int hierarchies_discover(struct hierarchies *hs, struct err *e);
void hierarchies_free(struct hierarchies *hs);

/*
 * Maps a 0.42 controller argument ("memory", "cpu,memory", "systemd",
 * "name=systemd", "unified", "all") onto hierarchies, each at most once.
 * out must hold hs->n entries. Returns the count, or -1 with e set.
 */
int hierarchies_select(const struct hierarchies *hs, const char *spec, struct hierarchy **out, struct err *e);
/*
 * A name hierarchies_select takes for h alone: its own name, or for cgroup2 an alias ("cgroup2") where a
 * v1 hierarchy's own name is "unified" (no kernel names a controller so, but /proc is what it is); NULL
 * where none is left.
 */
const char *hierarchy_selector(const struct hierarchies *hs, const struct hierarchy *h);

/* The child of its root, in every hierarchy, that the daemon's own process lives in. */
#define DAEMON_LEAF ".cgmanager"

/* The leaf child in which a cgroup2 cgroup whose children have controllers keeps its own tasks. */
#define CGROUP2_TASK_LEAF ".leaf"

/* Where the kernel lists the files a cgroup2 delegatee is handed. */
extern const char *cgroup2_delegate_list_path;
