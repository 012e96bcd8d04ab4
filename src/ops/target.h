/* Turning (requester, hierarchy, name) into open cgroup directories, contained by the kernel. */
#pragma once
#include "ops/ops.h"
#include "cgfs/proc.h"
#include "util/cgname.h"

#define WHAT_MAX (CGNAME_MAX + 64)

struct target {
	struct hierarchy *h;
	char req_rel[CGNAME_MAX]; /* the requester's cgroup, relative to the daemon's root */
	char rel[CGNAME_MAX];     /* the named cgroup, relative to the daemon's root */
	int req_fd;               /* the requester's cgroup */
	int fd;                   /* the named cgroup; -1 if it does not exist */
	char what[WHAT_MAX];      /* "memory:/a/b" for messages */
};

void target_close(struct target *t);

/* Fails if the process that connected has exited (its pid may be reused). */
int requester_still_alive(const struct requester *r, struct err *e);

/*
 * Fills t for the cgroup `name` relative to the requester's own cgroup in h.
 * pc holds the requester's /proc/PID/cgroup. With must_exist false a missing
 * cgroup gives t->fd == -1 and success.
 */
int target_resolve(const struct ops *o, const struct requester *r, const struct proc_cgroups *pc,
                   struct hierarchy *h, const char *name, bool must_exist, struct target *t, struct err *e);
/*
 * Same, but from the daemon's root, or for a relayed (Scm) request from the
 * proxy's own cgroup: the *Abs calls. t->req_rel is that base.
 */
int target_resolve_abs(const struct requester *r, struct hierarchy *h, const char *name, bool must_exist,
                       struct target *t, struct err *e);
/* The base of the *Abs calls in h: "" (the daemon's root), or the proxy's cgroup. -1 if outside the root. */
int proxy_base(const struct requester *r, const struct hierarchy *h, char rel[CGNAME_MAX]);
/* rel is base or beneath it (both relative to the daemon's root). */
bool rel_is_beneath(const char *rel, const char *base);

/* A path as the daemon's root sees it: "/" + rel. */
void display_path(const char *rel, char *out, size_t len);

/* Reads the requester's cgroups (once per request) and checks it is still the same process. */
int requester_cgroups(const struct ops *o, const struct requester *r, struct proc_cgroups *pc, struct err *e);

/* rel of an absolute cgroup path within h's root, or -1 if outside. */
int rel_within_root(const struct hierarchy *h, const char *path, char rel[CGNAME_MAX]);

/*
 * Hands t over to uid:gid as Chown does, once checked (owner.c): on cgroup2 the nesting limits first, then
 * the delegated files, the directory last.
 */
int target_chown(struct ops *o, const struct target *t, uid_t uid, gid_t gid, struct err *e);

/* The owner of a file of t ("" for the directory), for policy. */
int target_owner(const struct target *t, const char *file, struct owner *out, struct err *e);
/* Where t stands, for the rules that turn on it: the daemon's root, the requester's own cgroup. */
struct cgroup_place target_place(const struct target *t);
