#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ops/each.h"
#include "ops/journal.h"
#include "ops/release.h"
#include "ops/unified.h"
#include "util/cleanup.h"

/* The parent of t, whose write permission governs removing t, and t's last component. */
static int open_parent(const struct target *t, int *pfd, const char **base, struct owner *parent, struct err *e)
{
	char prel[CGNAME_MAX];
	struct stat st;
	const char *slash = strrchr(t->rel, '/');
	size_t plen = slash ? (size_t)(slash - t->rel) : 0;

	memcpy(prel, t->rel, plen);
	prel[plen] = '\0';
	*base = slash ? slash + 1 : t->rel;
	*pfd = cgdir_open_beneath(t->h->root_fd, prel);
	if (*pfd < 0)
		return err_errno(e, -*pfd, "cannot open the parent of %s", t->what);
	if (fstat(*pfd, &st) < 0)
		return err_errno(e, errno, "cannot stat the parent of %s", t->what);
	*parent = (struct owner){st.st_uid, st.st_gid, st.st_mode};
	return 0;
}

static int check_removable(const struct requester *r, const struct target *t, int *pfd, const char **base,
                           bool own_allowed, struct err *e)
{
	struct owner parent;
	char why[POLICY_WHY_MAX], pwhat[WHAT_MAX];
	bool own = strcmp(t->rel, t->req_rel) == 0;

	if (t->rel[0] == '\0')
		return err_set(e, ERR_ACCESS, "%s is the root this daemon manages; it cannot be removed", t->what);
	if (open_parent(t, pfd, base, &parent, e) < 0)
		return -1;
	/* A refusal reports the parent's owner and mode, so it names the parent. */
	snprintf(pwhat, sizeof(pwhat), "%s:/%.*s", t->h->name, (int)(*base == t->rel ? 0 : *base - t->rel - 1), t->rel);
	if (!policy_may_remove(&r->cred, &parent, own && !own_allowed ? t->what : pwhat, own && !own_allowed, why))
		return err_set(e, ERR_ACCESS, "%s", why);
	return 0;
}

/*
 * Nothing half-done: before the first rmdir in any hierarchy, the cgroup of
 * every hierarchy the call names (and for a recursive removal its whole
 * subtree) is checked for the right to remove it and for tasks. A refusal
 * in one hierarchy therefore removes nothing in the others; only a task
 * that enters between the check and the rmdir still makes the kernel refuse
 * (EBUSY) halfway, and the message then says so.
 */

/* Where the tree at fd (named what) holds a task: 1 with *pid and where filled, 0 if nowhere, -errno. */
static int find_task(int fd, bool unified, const char *what, pid_t *pid, char where[WHAT_MAX])
{
	pidv pids = {0};
	strv kids = {0};
	int r;

	if (unified && cgdir_populated(fd, true) == 0)
		return 0; /* cgroup.events covers the whole subtree */
	if ((r = cgdir_procs(fd, &pids)) < 0)
		return r == -ENOENT || r == -ENODEV ? 0 : r; /* removed meanwhile: empty */
	if (pids.n) {
		*pid = pids.v[0];
		snprintf(where, WHAT_MAX, "%s", what);
		pidv_free(&pids);
		return 1;
	}
	pidv_free(&pids);
	r = cgdir_children(fd, &kids);
	for (size_t i = 0; r >= 0 && i < kids.n; i++) {
		_cleanup_close_ int kfd = cgdir_open_beneath(fd, kids.v[i]);
		char sub[WHAT_MAX];
		if (kfd < 0)
			continue;
		/* A task in cgroup2's leaf is in the leaf's parent for every answer. */
		if (unified && unified_is_leaf(kids.v[i]))
			snprintf(sub, sizeof(sub), "%s", what);
		else
			snprintf(sub, sizeof(sub), "%s/%s", what, kids.v[i]);
		r = find_task(kfd, unified, sub, pid, where);
		if (r != 0)
			break;
	}
	strv_free(&kids);
	return r;
}

static int refuse_tasks(struct err *e, const char *what, pid_t pid, const char *where)
{
	if (strcmp(what, where) == 0)
		return err_set(e, ERR_BUSY, "%s still has tasks (pid %d); nothing was removed in any hierarchy: move or kill "
		               "them first", what, (int)pid);
	return err_set(e, ERR_BUSY, "%s still has tasks (pid %d in %s); nothing was removed in any hierarchy: move or "
	               "kill them first", what, (int)pid, where);
}

/* A directory with children must let r remove them (write access to it). */
static int may_remove_children(const struct requester *r, int fd, const char *what, struct err *e)
{
	struct stat st;
	char why[POLICY_WHY_MAX];
	if (fstat(fd, &st) < 0)
		return err_errno(e, errno, "cannot stat %s", what);
	if (!policy_may_remove(&r->cred, &(struct owner){st.st_uid, st.st_gid, st.st_mode}, what, false, why))
		return err_set(e, ERR_ACCESS, "cannot remove the cgroups beneath %s: %s", what, why);
	return 0;
}

/* Every directory of the tree that has children must let r remove them. */
static int check_tree(const struct requester *r, int fd, const char *what, struct err *e)
{
	strv kids = {0};
	char sub[WHAT_MAX];
	int rc = 0;

	if (cgdir_children(fd, &kids) < 0)
		return err_errno(e, errno, "cannot list %s", what);
	if (kids.n)
		rc = may_remove_children(r, fd, what, e);
	for (size_t i = 0; rc == 0 && i < kids.n; i++) {
		_cleanup_close_ int kfd = cgdir_open_beneath(fd, kids.v[i]);
		if (kfd < 0)
			continue; /* removed meanwhile */
		snprintf(sub, sizeof(sub), "%s/%s", what, kids.v[i]);
		rc = check_tree(r, kfd, sub, e);
	}
	strv_free(&kids);
	return rc;
}

/* Children a non-recursive removal would be refused for; cgroup2's task leaf is not one. */
static bool has_children(const struct target *t)
{
	strv kids = {0};
	bool any = false;
	if (cgdir_children(t->fd, &kids) == 0)
		for (size_t i = 0; i < kids.n && !any; i++)
			any = !(t->h->unified && unified_is_leaf(kids.v[i]));
	strv_free(&kids);
	return any;
}

/*
 * Children first, as checked already; a failure here is a task or cgroup that came meanwhile. The right to
 * remove children is checked again where there are any: one made since the check (by whoever owns a
 * directory of the tree) is removed only by who may remove it.
 */
static int remove_tree(const struct requester *r, const char *what, int parentfd, const char *name, struct err *e)
{
	_cleanup_close_ int fd = cgdir_open_beneath(parentfd, name);
	char sub[WHAT_MAX];
	strv kids = {0};
	int rc = 0;

	if (fd < 0)
		return fd == -ENOENT ? 0 : err_errno(e, -fd, "cannot open %s", what);
	if (cgdir_children(fd, &kids) < 0)
		return err_errno(e, errno, "cannot list %s", what);
	if (kids.n)
		rc = may_remove_children(r, fd, what, e);
	for (size_t i = 0; rc == 0 && i < kids.n; i++) {
		snprintf(sub, sizeof(sub), "%s/%s", what, kids.v[i]);
		rc = remove_tree(r, sub, fd, kids.v[i], e);
	}
	strv_free(&kids);
	if (rc < 0)
		return rc;
	if (unlinkat(parentfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT) {
		if (errno == EBUSY || errno == ENOTEMPTY)
			return err_set(e, ERR_BUSY, "%s gained a task or a child cgroup while it was being removed; it stays "
			               "(and what was removed before it is gone)", what);
		return err_errno(e, errno, "cannot remove %s", what);
	}
	return 0;
}

struct remove_args {
	const char *name;
	bool recursive;
	bool checking;                  /* the first pass: check only */
	bool ready[PROC_CGROUP_MAX];    /* by index in o->hs: checked, to be removed in the second pass */
	bool removed_any;
};

static int remove_in(struct ops *o, const struct requester *r, const struct proc_cgroups *pc, struct hierarchy *h,
                     void *arg, struct err *e)
{
	struct remove_args *a = arg;
	struct target t = {.req_fd = -1, .fd = -1};
	_cleanup_close_ int pfd = -1;
	const char *base;
	char where[WHAT_MAX];
	pid_t pid;
	int rc = -1, found;
	size_t idx = (size_t)(h - o->hs.h);

	if (!a->checking && !a->ready[idx])
		return 0; /* missing, or refused and skipped, in the first pass */
	if (target_resolve(o, r, pc, h, a->name, false, &t, e) < 0)
		goto out;
	if (t.fd < 0) {
		rc = 0; /* 0.42: a missing cgroup is success, with existed = -1 */
		goto out;
	}
	if (check_removable(r, &t, &pfd, &base, false, e) < 0)
		goto out;
	if (a->checking) {
		if (!a->recursive && has_children(&t)) {
			err_set(e, ERR_BUSY, "%s has child cgroups (remove it recursively to take the children); nothing was "
			        "removed in any hierarchy", t.what);
			goto out;
		}
		if ((found = find_task(t.fd, h->unified, t.what, &pid, where)) < 0) {
			err_errno(e, -found, "cannot tell whether %s has tasks", t.what);
			goto out;
		}
		if (found) {
			refuse_tasks(e, t.what, pid, where);
			goto out;
		}
		if (a->recursive && check_tree(r, t.fd, t.what, e) < 0)
			goto out;
		if (journal_note_rmdir(o, &t, e) < 0)
			goto out;
		a->ready[idx] = true;
		rc = 0;
		goto out;
	}
	/* An empty task leaf goes with its cgroup: it was the daemon's doing, not a child the requester made. */
	if (h->unified)
		unlinkat(t.fd, UNIFIED_LEAF, AT_REMOVEDIR);
	if (a->recursive) {
		rc = remove_tree(r, t.what, pfd, base, e);
	} else if (unlinkat(pfd, base, AT_REMOVEDIR) < 0 && errno != ENOENT) {
		if (errno == EBUSY || errno == ENOTEMPTY)
			err_set(e, ERR_BUSY, "%s gained a task or a child cgroup while it was being removed; it stays", t.what);
		else
			err_errno(e, errno, "cannot remove %s", t.what);
	} else {
		rc = 0;
	}
	if (rc == 0)
		a->removed_any = true;
out:
	target_close(&t);
	return rc;
}

int ops_remove(struct ops *o, const struct requester *r, const char *controller, const char *cgroup, bool recursive,
               int *existed, struct err *e)
{
	struct remove_args a = {.name = cgroup, .recursive = recursive, .checking = true};
	int rc = -1;
	/* The journal has the next daemon finish a removal that a kill cut short once every check passed. */
	if (for_each_hierarchy(o, r, controller, remove_in, &a, e) >= 0 && journal_go(o, e) == 0) {
		a.checking = false;
		rc = for_each_hierarchy(o, r, controller, remove_in, &a, e) < 0 ? -1 : 0;
	}
	journal_end(o);
	if (rc == 0)
		*existed = a.removed_any ? 1 : -1;
	return rc;
}

struct prune_ctx {
	struct ops *o;
	const struct requester *r;
	struct hierarchy *h;
};

/*
 * 0.42's Prune: every empty cgroup of the subtree goes (children first);
 * populated ones stay and are marked remove-on-empty. Returns 1 if name was
 * removed.
 */
static int prune_tree(struct prune_ctx *c, int parentfd, const char *rel, const char *name, bool may_remove_self)
{
	_cleanup_close_ int fd = cgdir_open_beneath(parentfd, name);
	strv kids = {0};
	struct stat st;
	char why[POLICY_WHY_MAX], sub[CGNAME_MAX];
	bool may_remove_kids;
	struct err ignored;

	if (fd < 0 || fstat(fd, &st) < 0)
		return 0;
	may_remove_kids = policy_may_remove(&c->r->cred, &(struct owner){st.st_uid, st.st_gid, st.st_mode}, rel, false,
	                                    why);
	if (cgdir_children(fd, &kids) == 0)
		for (size_t i = 0; i < kids.n; i++)
			if (cgpath_join(rel, kids.v[i], sub) == 0)
				prune_tree(c, fd, sub, kids.v[i], may_remove_kids);
	strv_free(&kids);
	if (!may_remove_self)
		return 0;
	if (unlinkat(parentfd, name, AT_REMOVEDIR) == 0)
		return 1;
	if (errno == EBUSY)
		release_watch_add(c->o->release, c->h, rel, fd, &ignored);
	return 0;
}

struct prune_args {
	const char *name;
	bool removed_any;
};

static int prune_in(struct ops *o, const struct requester *r, const struct proc_cgroups *pc, struct hierarchy *h,
                    void *arg, struct err *e)
{
	struct prune_args *a = arg;
	struct prune_ctx c = {o, r, h};
	struct target t = {.req_fd = -1, .fd = -1};
	_cleanup_close_ int pfd = -1;
	const char *base;
	int rc = -1;

	if (target_resolve(o, r, pc, h, a->name, true, &t, e) < 0)
		goto out;
	if (strcmp(t.rel, t.req_rel) == 0) {
		/* One's own cgroup stays; what is beneath it is pruned. */
		struct owner dir;
		char why[POLICY_WHY_MAX];
		if (target_owner(&t, "", &dir, e) < 0)
			goto out;
		if (!policy_may_remove(&r->cred, &dir, t.what, false, why)) {
			err_set(e, ERR_ACCESS, "cannot prune beneath %s: %s", t.what, why);
			goto out;
		}
		strv kids = {0};
		char sub[CGNAME_MAX];
		if (cgdir_children(t.fd, &kids) == 0)
			for (size_t i = 0; i < kids.n; i++)
				if (cgpath_join(t.rel, kids.v[i], sub) == 0)
					prune_tree(&c, t.fd, sub, kids.v[i], true);
		strv_free(&kids);
		rc = 0;
		goto out;
	}
	if (check_removable(r, &t, &pfd, &base, false, e) < 0)
		goto out;
	a->removed_any |= prune_tree(&c, pfd, t.rel, base, true) == 1;
	rc = 0;
out:
	target_close(&t);
	return rc;
}

int ops_prune(struct ops *o, const struct requester *r, const char *controller, const char *cgroup, int *existed,
              struct err *e)
{
	struct prune_args a = {.name = cgroup};
	if (for_each_hierarchy(o, r, controller, prune_in, &a, e) < 0)
		return -1;
	*existed = a.removed_any ? 1 : -1;
	return 0;
}

static int remove_on_empty_in(struct ops *o, const struct requester *r, const struct proc_cgroups *pc,
                              struct hierarchy *h, void *arg, struct err *e)
{
	struct target t = {.req_fd = -1, .fd = -1};
	_cleanup_close_ int pfd = -1;
	const char *base;
	int rc = -1;

	/* Marking one's own cgroup is fine ("remove it when I am done"); it still needs the right to remove it. */
	if (target_resolve(o, r, pc, h, arg, true, &t, e) < 0 || check_removable(r, &t, &pfd, &base, true, e) < 0)
		goto out;
	rc = release_watch_add(o->release, h, t.rel, t.fd, e);
out:
	target_close(&t);
	return rc;
}

int ops_remove_on_empty(struct ops *o, const struct requester *r, const char *controller, const char *cgroup,
                        struct err *e)
{
	return for_each_hierarchy(o, r, controller, remove_on_empty_in, (void *)cgroup, e) < 0 ? -1 : 0;
}
