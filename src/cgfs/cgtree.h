/*
 * Walks of a cgroup subtree. Whoever owns a cgroup can make the tree beneath it as deep and as wide as the
 * kernel allows with plain mkdir (no daemon call involved), so no walk here recurses and none holds an fd
 * per level: it goes down by name (beneath, no symlinks) and back up by "..", which in cgroupfs always
 * leads to the parent it came from (a cgroup directory cannot move to another parent: cgroup v1 renames
 * only within one, cgroup2 not at all). Two fds are open at a time, whatever the depth.
 */
#pragma once
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "util/strv.h"

struct cgtree_node {
	int fd;               /* the cgroup's directory */
	int parent_fd;        /* its parent's; -1 for the top of a walk started at a directory itself */
	const char *name;     /* its name in the parent; "" for such a top */
	const char *rel;      /* its path from the top: "" for the top, "a/b" beneath it */
	unsigned depth;       /* 0 for the top */
	const struct stat *st; /* its directory's fstat when the walk entered it */
	const strv *children; /* its child cgroups' names, as listed before pre was called */
	int mark;             /* pre may set it; the children see it as parent_mark */
	int parent_mark;      /* the parent's mark (the walk's top_parent_mark for the top) */
};

/* What pre returns: visit the children, leave them out (post is still called), or end the walk. */
enum { CGTREE_DESCEND = 0, CGTREE_SKIP = 1, CGTREE_STOP = 2 };
/* What cgtree_walk returns when the walk itself failed (not a callback): errno says why. */
#define CGTREE_BROKEN (-2)

struct cgtree_visitor {
	/* Before the children: CGTREE_DESCEND, _SKIP or _STOP, or -1 (an error the callback recorded) to end. */
	int (*pre)(struct cgtree_node *n, void *arg);
	/* After the children (children first, as rmdir needs): 0, CGTREE_STOP, or -1. */
	int (*post)(struct cgtree_node *n, void *arg);
	void *arg;
	int top_parent_mark;
};

/*
 * Walks the cgroup name beneath parentfd (name "" for parentfd itself) depth-first. A cgroup removed while
 * the walk is under way is left out; one renamed (cgroup v1) is found under its new name. Returns 0 when
 * the walk went through, CGTREE_STOP when a callback ended it, -1 when a callback failed, CGTREE_BROKEN
 * (errno set) when the walk itself could not go on: EAGAIN when the tree kept changing faster than it
 * could be listed, ESTALE when the way back up did not lead where the walk came from.
 */
int cgtree_walk(int parentfd, const char *name, const struct cgtree_visitor *v);

/* Removes the tree at name beneath parentfd, children first; 0 or -errno (-ENOENT: it was not there). */
int cgtree_remove(int parentfd, const char *name);

/* True if the cgroup or a descendant has a task; -errno on failure. */
int cgtree_populated(int cgfd, bool unified);
/*
 * A v1 cgroup's cgtree_populated that enters at most *visits cgroups, counted down: -EAGAIN when they ran out
 * before a task was found or the subtree was all seen (the answer is not known yet).
 */
int cgtree_populated_within(int cgfd, unsigned *visits);
