/* The cgroup hierarchies this daemon serves, each opened at the daemon's own cgroup. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgfs/proc.h"
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
 * Some of the daemon's hierarchies, each once, in the order a request named them: what a controller argument
 * means once the front end has parsed it. Every operation takes this, never the text.
 */
struct hierarchy_set {
	unsigned n;
	struct hierarchy *h[PROC_CGROUP_MAX];
	bool several;        /* written as "all" or a comma list: 0.42 answers some calls of such differently */
	const char *written; /* the argument as the request wrote it, for messages only; NULL for a set built */
	/*
	 * Set (kind not ERR_NONE) when the argument named no hierarchy. An operation reports it where it looks
	 * its hierarchies up (hierarchy_set_check), after its checks of the other arguments, as 0.42 did.
	 */
	struct err invalid;
	/*
	 * The cgroup2 controllers it names, which Create and Chown hand over with the cgroup: bits of the cgroup2
	 * hierarchy's controllers (bit i: controllers.v[i]); v2_every for "all", every controller there is.
	 */
	uint64_t v2_ctrls;
	bool v2_every;
};

/*
 * Parses a 0.42 controller argument ("memory", "cpu,memory", "systemd", "name=systemd", "unified", "all") into
 * the hierarchies it names. 0, or -1 with e set (a name no hierarchy has, an empty list).
 */
int hierarchies_select(const struct hierarchies *hs, const char *spec, struct hierarchy_set *out, struct err *e);
/* The same for a request's argument: a failure is kept in out->invalid for the operation to report. */
void hierarchies_parse(const struct hierarchies *hs, const char *spec, struct hierarchy_set *out);
/* 0, or -1 with e set when the set's argument named no hierarchy or it holds none. */
int hierarchy_set_check(const struct hierarchy_set *s, struct err *e);
/* Every hierarchy: the argument "all", and what the key API's calls act on. */
void hierarchies_all(const struct hierarchies *hs, struct hierarchy_set *out);
/* Adds h unless the set has it already. */
void hierarchy_set_add(struct hierarchy_set *s, struct hierarchy *h);
/* Adds h, and on cgroup2 its controller ctrl (one of h's controllers; else nothing more), to the set. */
void hierarchy_set_add_controller(struct hierarchy_set *s, struct hierarchy *h, const char *ctrl);
/* The one hierarchy of a call that takes exactly one controller; -1 with e set naming them otherwise. */
int hierarchy_set_single(const struct hierarchy_set *s, struct hierarchy **out, struct err *e);
/* The child of its root, in every hierarchy, that the daemon's own process lives in. */
#define DAEMON_LEAF ".cgmanager"

/* The leaf child in which a cgroup2 cgroup whose children have controllers keeps its own tasks. */
#define CGROUP2_TASK_LEAF ".leaf"

/* Where the kernel lists the files a cgroup2 delegatee is handed. */
extern const char *cgroup2_delegate_list_path;
