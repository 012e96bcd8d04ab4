#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgfs/cgtree.h"
#include "ops/each.h"
#include "ops/journal.h"
#include "ops/quota.h"
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

/* "memory:/a/b" for a cgroup of a walk from the cgroup top_what names; cgroup2's task leaf is its parent's. */
static void node_what(char out[WHAT_MAX], const char *top_what, const struct cgtree_node *n, bool unified)
{
	size_t len = strlen(n->rel);
	if (unified && unified_is_leaf(n->name))
		len = n->depth > 1 ? len - strlen(n->name) - 1 : 0;
	snprintf(out, WHAT_MAX, "%s%s%.*s", top_what, len ? "/" : "", (int)len, n->rel);
}

struct find_task {
	bool unified;
	const char *what;
	pid_t pid;
	char where[WHAT_MAX];
	int err;
};

static int find_task_pre(struct cgtree_node *n, void *arg)
{
	struct find_task *c = arg;
	pidv pids = {0};
	int r;

	if (c->unified && cgtree_populated(n->fd, true) == 0)
		return CGTREE_SKIP; /* cgroup.events covers the whole subtree */
	if ((r = cgdir_procs(n->fd, &pids)) < 0) {
		c->err = r;
		return r == -ENOENT || r == -ENODEV ? CGTREE_SKIP : -1; /* removed meanwhile: empty */
	}
	if (!pids.n)
		return CGTREE_DESCEND;
	c->pid = pids.v[0];
	node_what(c->where, c->what, n, c->unified);
	pidv_free(&pids);
	return CGTREE_STOP;
}

/* Where the tree at fd (named what) holds a task: 1 with *pid and where filled, 0 if nowhere, -errno. */
static int find_task(int fd, bool unified, const char *what, pid_t *pid, char where[WHAT_MAX])
{
	struct find_task c = {.unified = unified, .what = what};
	struct cgtree_visitor v = {.pre = find_task_pre, .arg = &c};
	int r = cgtree_walk(fd, "", &v);
	if (r == CGTREE_BROKEN)
		return -errno;
	if (r < 0)
		return c.err;
	if (r == CGTREE_STOP) {
		*pid = c.pid;
		snprintf(where, WHAT_MAX, "%s", c.where);
		return 1;
	}
	return 0;
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

struct tree_removal {
	struct ops *o;
	const struct hierarchy *h;
	const struct requester *r;
	const char *what; /* of the walk's top */
	struct err *e;
};

/* Every directory of the tree that has children must let r remove them. */
static int removable_pre(struct cgtree_node *n, void *arg)
{
	struct tree_removal *c = arg;
	char what[WHAT_MAX];
	if (!n->children->n)
		return CGTREE_DESCEND;
	node_what(what, c->what, n, false);
	return may_remove_children(c->r, n->fd, what, c->e) < 0 ? -1 : CGTREE_DESCEND;
}

static int walk_failed(struct err *e, int r, const char *what)
{
	return r == CGTREE_BROKEN ? err_errno(e, errno, "cannot walk the cgroups beneath %s", what) : -1;
}

static int check_tree(const struct requester *r, int fd, const char *what, struct err *e)
{
	struct tree_removal c = {.r = r, .what = what, .e = e};
	struct cgtree_visitor v = {.pre = removable_pre, .arg = &c};
	int rc = cgtree_walk(fd, "", &v);
	return rc < 0 ? walk_failed(e, rc, what) : 0;
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

/* Children first, as checked already; a failure here is a task or cgroup that came meanwhile. */
static int remove_post(struct cgtree_node *n, void *arg)
{
	struct tree_removal *c = arg;
	char what[WHAT_MAX];
	if (unlinkat(n->parent_fd, n->name, AT_REMOVEDIR) == 0) {
		quota_note_removed(c->o->quotas, c->h, n->st->st_uid);
		return 0;
	}
	if (errno == ENOENT)
		return 0;
	node_what(what, c->what, n, false);
	if (errno == EBUSY || errno == ENOTEMPTY)
		return err_set(c->e, ERR_BUSY, "%s gained a task or a child cgroup while it was being removed; it stays (and "
		               "what was removed before it is gone)", what);
	return err_errno(c->e, errno, "cannot remove %s", what);
}

/*
 * The right to remove children is checked again where there are any: one made since the check (by whoever
 * owns a directory of the tree) is removed only by who may remove it.
 */
static int remove_tree(struct ops *o, const struct hierarchy *h, const struct requester *r, const char *what,
                       int parentfd, const char *name, struct err *e)
{
	struct tree_removal c = {o, h, r, what, e};
	struct cgtree_visitor v = {.pre = removable_pre, .post = remove_post, .arg = &c};
	int rc = cgtree_walk(parentfd, name, &v);
	if (rc == CGTREE_BROKEN && errno == ENOENT)
		return 0;
	return rc < 0 ? walk_failed(e, rc, what) : 0;
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
	pid_t pid = 0;
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
		rc = remove_tree(o, h, r, t.what, pfd, base, e);
	} else {
		struct stat st;
		uid_t owner = fstat(t.fd, &st) == 0 ? st.st_uid : (uid_t)-1; /* -1: nobody's count */
		if (unlinkat(pfd, base, AT_REMOVEDIR) == 0) {
			quota_note_removed(o->quotas, h, owner);
			rc = 0;
		} else if (errno == ENOENT) {
			rc = 0; /* removed meanwhile, behind the daemon's back: the next count sees it */
		} else if (errno == EBUSY || errno == ENOTEMPTY) {
			err_set(e, ERR_BUSY, "%s gained a task or a child cgroup while it was being removed; it stays", t.what);
		} else {
			err_errno(e, errno, "cannot remove %s", t.what);
		}
	}
	if (rc == 0)
		a->removed_any = true;
out:
	target_close(&t);
	return rc;
}

int ops_remove(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
               bool recursive, int *existed, struct err *e)
{
	struct remove_args a = {.name = cgroup, .recursive = recursive, .checking = true};
	int rc = -1;
	/* The journal has the next daemon finish a removal that a kill cut short once every check passed. */
	if (for_each_hierarchy(o, r, set, remove_in, &a, e) >= 0 && journal_go(o, e) == 0) {
		a.checking = false;
		rc = for_each_hierarchy(o, r, set, remove_in, &a, e) < 0 ? -1 : 0;
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
	const char *top_rel; /* of the walk's top, relative to h's root */
	bool removed_top;
};

/* 0.42's Prune: every empty cgroup of the subtree goes (children first); populated ones are marked. */
static int prune_pre(struct cgtree_node *n, void *arg)
{
	struct prune_ctx *c = arg;
	const struct stat *st = n->st;
	char why[POLICY_WHY_MAX];
	/* mark: the requester may remove the children of this cgroup. */
	n->mark = policy_may_remove(&c->r->cred, &(struct owner){st->st_uid, st->st_gid, st->st_mode}, "", false, why);
	return CGTREE_DESCEND;
}

static int prune_post(struct cgtree_node *n, void *arg)
{
	struct prune_ctx *c = arg;
	char rel[CGNAME_MAX];
	struct err ignored;

	if (!n->parent_mark || n->parent_fd < 0)
		return 0;
	if (unlinkat(n->parent_fd, n->name, AT_REMOVEDIR) == 0) {
		quota_note_removed(c->o->quotas, c->h, n->st->st_uid);
		c->removed_top |= n->depth == 0;
		return 0;
	}
	/* Populated: removed when its last task leaves (a name too long to mark stays as it is). */
	if (errno == EBUSY && cgpath_join(c->top_rel, n->rel, rel) == 0)
		release_watch_add(c->o->release, c->h, rel, n->fd, &ignored);
	return 0;
}

/* Prunes the tree at name beneath parentfd; may_remove_top: the requester may remove it. */
static int prune_tree(struct prune_ctx *c, int parentfd, const char *name, bool may_remove_top, const char *what,
                      struct err *e)
{
	struct cgtree_visitor v = {.pre = prune_pre, .post = prune_post, .arg = c, .top_parent_mark = may_remove_top};
	int rc = cgtree_walk(parentfd, name, &v);
	if (rc == CGTREE_BROKEN && errno == ENOENT)
		return 0;
	return rc < 0 ? walk_failed(e, rc, what) : 0;
}

struct prune_args {
	const char *name;
	bool removed_any;
};

static int prune_in(struct ops *o, const struct requester *r, const struct proc_cgroups *pc, struct hierarchy *h,
                    void *arg, struct err *e)
{
	struct prune_args *a = arg;
	struct target t = {.req_fd = -1, .fd = -1};
	struct prune_ctx c = {o, r, h, NULL, false};
	_cleanup_close_ int pfd = -1;
	const char *base;
	int rc = -1;

	if (target_resolve(o, r, pc, h, a->name, true, &t, e) < 0)
		goto out;
	c.top_rel = t.rel;
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
		rc = prune_tree(&c, t.fd, "", false, t.what, e);
		goto out;
	}
	if (check_removable(r, &t, &pfd, &base, false, e) < 0)
		goto out;
	rc = prune_tree(&c, pfd, base, true, t.what, e);
	a->removed_any |= c.removed_top;
out:
	target_close(&t);
	return rc;
}

int ops_prune(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
              int *existed, struct err *e)
{
	struct prune_args a = {.name = cgroup};
	if (for_each_hierarchy(o, r, set, prune_in, &a, e) < 0)
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

int ops_remove_on_empty(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
                        struct err *e)
{
	return for_each_hierarchy(o, r, set, remove_on_empty_in, (void *)cgroup, e) < 0 ? -1 : 0;
}
