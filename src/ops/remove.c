#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ops/each.h"
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

/* Children first; each removal needs write access to the directory it is removed from. */
static int remove_tree_checked(const struct requester *r, const char *what, int parentfd, const char *name,
                               struct err *e)
{
	_cleanup_close_ int fd = cgdir_open_beneath(parentfd, name);
	char sub[WHAT_MAX];
	strv kids = {0};
	int rc = 0;

	if (fd < 0)
		return fd == -ENOENT ? 0 : err_errno(e, -fd, "cannot open %s", what);
	if (cgdir_children(fd, &kids) < 0)
		return err_errno(e, errno, "cannot list %s", what);
	if (kids.n) {
		struct stat st;
		char why[POLICY_WHY_MAX];
		if (fstat(fd, &st) < 0) {
			strv_free(&kids);
			return err_errno(e, errno, "cannot stat %s", what);
		}
		struct owner self = {st.st_uid, st.st_gid, st.st_mode};
		if (!policy_may_remove(&r->cred, &self, what, false, why)) {
			strv_free(&kids);
			return err_set(e, ERR_ACCESS, "cannot remove the cgroups beneath %s: %s", what, why);
		}
	}
	for (size_t i = 0; rc == 0 && i < kids.n; i++) {
		snprintf(sub, sizeof(sub), "%s/%s", what, kids.v[i]);
		rc = remove_tree_checked(r, sub, fd, kids.v[i], e);
	}
	strv_free(&kids);
	if (rc < 0)
		return rc;
	if (unlinkat(parentfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT) {
		if (errno == EBUSY)
			return err_set(e, ERR_BUSY, "%s still has tasks (or child cgroups); it cannot be removed", what);
		return err_errno(e, errno, "cannot remove %s", what);
	}
	return 0;
}

struct remove_args {
	const char *name;
	bool recursive;
	bool removed_any;
};

static int remove_in(struct ops *o, const struct requester *r, const struct proc_cgroups *pc, struct hierarchy *h,
                     void *arg, struct err *e)
{
	struct remove_args *a = arg;
	struct target t = {.req_fd = -1, .fd = -1};
	_cleanup_close_ int pfd = -1;
	const char *base;
	int rc = -1;

	if (target_resolve(o, r, pc, h, a->name, false, &t, e) < 0)
		goto out;
	if (t.fd < 0) {
		rc = 0; /* 0.42: a missing cgroup is success, with existed = -1 */
		goto out;
	}
	if (check_removable(r, &t, &pfd, &base, false, e) < 0)
		goto out;
	/* An empty task leaf goes with its cgroup: it was the daemon's doing, not a child the requester made. */
	if (h->unified)
		unlinkat(t.fd, UNIFIED_LEAF, AT_REMOVEDIR);
	if (a->recursive) {
		rc = remove_tree_checked(r, t.what, pfd, base, e);
	} else if (unlinkat(pfd, base, AT_REMOVEDIR) < 0) {
		if (errno == EBUSY || errno == ENOTEMPTY)
			err_set(e, ERR_BUSY, "%s has tasks or child cgroups (remove it recursively to take the children)",
			        t.what);
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
	struct remove_args a = {.name = cgroup, .recursive = recursive};
	if (for_each_hierarchy(o, r, controller, remove_in, &a, e) < 0)
		return -1;
	*existed = a.removed_any ? 1 : -1;
	return 0;
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
