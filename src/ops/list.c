#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgfs/proc.h"
#include "ops/each.h"
#include "ops/subtree_tasks.h"
#include "ops/unified.h"
#include "util/cleanup.h"

static int open_listable(struct ops *o, const struct requester *r, const struct proc_cgroups *pc, struct hierarchy *h,
                         const char *name, const char *file, struct target *t, struct err *e)
{
	struct owner own;
	char why[POLICY_WHY_MAX];
	if (target_resolve(o, r, pc, h, name, true, t, e) < 0 || target_owner(t, file, &own, e) < 0)
		return -1;
	if (!(*file ? policy_may_read(&r->cred, &own, t->what, why) : policy_may_list(&r->cred, &own, t->what, why)))
		return err_set(e, ERR_ACCESS, "%s", why);
	return 0;
}

struct list_args {
	const char *name;
	strv *children;
	pidv *pids;
	bool recursive;
	bool missing_is_empty; /* a hierarchy where the cgroup does not exist adds no task, rather than failing */
};

static int children_in(struct ops *o, const struct requester *r, const struct proc_cgroups *pc, struct hierarchy *h,
                       void *arg, struct err *e)
{
	struct list_args *a = arg;
	struct target t = {.req_fd = -1, .fd = -1};
	strv kids = {0};
	int rc = open_listable(o, r, pc, h, a->name, "", &t, e);
	if (rc == 0 && (rc = cgdir_children(t.fd, &kids)) < 0)
		rc = err_errno(e, -rc, "cannot list %s", t.what);
	/*
	 * A cgroup2 task leaf is its parent's, not a child of its own; the daemon's own cgroup at its root is no
	 * one's business but host root's.
	 */
	bool hide_daemon = t.rel[0] == '\0' && !policy_is_host_root(&r->cred);
	for (size_t i = 0; rc == 0 && i < kids.n; i++) {
		if ((h->unified && unified_is_leaf(kids.v[i])) || (hide_daemon && strcmp(kids.v[i], DAEMON_LEAF) == 0))
			continue;
		if (strv_push(a->children, kids.v[i]) < 0)
			rc = err_set(e, ERR_LIMIT, "out of memory");
	}
	strv_free(&kids);
	target_close(&t);
	return rc;
}

int ops_list_children(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
                      strv *out, struct err *e)
{
	struct hierarchy *h;
	struct list_args a = {.name = cgroup, .children = out};
	if (hierarchy_set_single(set, &h, e) < 0)
		return -1;
	return for_each_hierarchy(o, r, set, children_in, &a, e) < 0 ? -1 : 0;
}

/* The tasks of the cgroup at fd (and with recursive, of its whole subtree); -errno. */
static int collect_procs(int fd, bool recursive, bool unified, pidv *out)
{
	int r;
	if (recursive)
		return subtree_tasks(fd, out);
	r = cgdir_procs(fd, out);
	if (r >= 0 && unified) {
		_cleanup_close_ int leaf = cgdir_open_beneath(fd, UNIFIED_LEAF);
		if (leaf >= 0)
			r = cgdir_procs(leaf, out);
	}
	return r == -ENOENT ? 0 : r;
}

static int tasks_in(struct ops *o, const struct requester *r, const struct proc_cgroups *pc, struct hierarchy *h,
                    void *arg, struct err *e)
{
	struct list_args *a = arg;
	struct target t = {.req_fd = -1, .fd = -1};
	int rc = open_listable(o, r, pc, h, a->name, "cgroup.procs", &t, e);
	int got = rc == 0 ? collect_procs(t.fd, a->recursive, h->unified, a->pids) : 0;
	if (got == -EAGAIN)
		rc = err_set(e, ERR_BUSY, "cannot read the tasks of %s: the cgroups beneath it were renamed or removed faster "
		             "than they could be listed (whoever owns them keeps changing them); nothing was done", t.what);
	else if (got < 0)
		rc = err_errno(e, -got, "cannot read the tasks of %s", t.what);
	target_close(&t);
	if (rc < 0 && e->kind == ERR_NOT_FOUND && a->missing_is_empty) {
		*e = (struct err){0};
		rc = 0;
	}
	return rc;
}

int ops_get_tasks(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
                  bool recursive, pidv *out, struct err *e)
{
	struct list_args a = {.name = cgroup, .pids = out, .recursive = recursive};
	struct hierarchy *h;

	/* GetTasks takes one controller; GetTasksRecursive also a list or "all" (as in 0.42). */
	if (!recursive && hierarchy_set_single(set, &h, e) < 0)
		return -1;
	/*
	 * 0.42 answers GetTasksRecursive of a list or "all" with the tasks it finds, skipping a hierarchy where the
	 * cgroup is gone (its pam_cgm asks at close_session, when the cgroup may be removed, and fails on an error);
	 * of one controller, a missing cgroup is an error there too.
	 */
	a.missing_is_empty = recursive && set->several;
	if (for_each_hierarchy(o, r, set, tasks_in, &a, e) < 0)
		return -1;
	pidv_sort_unique(out);
	return 0;
}
