#include "ops/unified.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cleanup.h"

/* Files of cgroup2's core, which every cgroup has whatever its parent enables. */
static bool is_core_file(const char *file)
{
	static const char *const core[] = {"cgroup.", "cpu.stat", "cpu.pressure", "memory.pressure", "io.pressure",
	                                   "irq.pressure"};
	for (size_t i = 0; i < sizeof(core) / sizeof(core[0]); i++)
		if (strncmp(file, core[i], strlen(core[i])) == 0)
			return true;
	return false;
}

bool unified_is_leaf(const char *name)
{
	return strcmp(name, UNIFIED_LEAF) == 0;
}

static bool word_in(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
			return true;
	return false;
}

/*
 * The leaf stands for its cgroup: each of its files goes to whom the cgroup's file of the same name belongs
 * (cgroup.procs to the owner, who may move its tasks in and out; cgroup.kill, cgroup.freeze and the limits
 * to whom they are in the cgroup, root's staying root's), so that the tasks moved into it, root's among
 * them, are no more the owner's to kill or freeze than they were. A file the cgroup lacks goes as its limits.
 */
static int leaf_give(int fd, int leaf)
{
	struct stat dir, limits, theirs;
	strv files = {0};
	int r = cgdir_stat(fd, "", &dir);
	if (r < 0 || (r = cgdir_stat(fd, "cgroup.max.depth", &limits)) < 0 || (r = cgdir_files(leaf, &files)) < 0)
		return r;
	for (size_t i = 0; r == 0 && i < files.n; i++) {
		const struct stat *owner = cgdir_stat(fd, files.v[i], &theirs) == 0 ? &theirs : &limits;
		/* To root too: a leaf the owner made itself beforehand holds the owner's files. */
		if (fchownat(leaf, files.v[i], owner->st_uid, owner->st_gid, AT_SYMLINK_NOFOLLOW) < 0)
			r = -errno;
	}
	strv_free(&files);
	if (r == 0 && fchown(leaf, dir.st_uid, dir.st_gid) < 0)
		r = -errno;
	return r;
}

/* A leaf found already there is handed over again only if its cgroup.kill is not as its cgroup's. */
static bool leaf_given(int fd, int leaf)
{
	struct stat mine, theirs;
	return cgdir_stat(leaf, "cgroup.kill", &mine) < 0 || cgdir_stat(fd, "cgroup.kill", &theirs) < 0 ||
	       (mine.st_uid == theirs.st_uid && mine.st_gid == theirs.st_gid);
}

/* The leaf of cgroup fd, made if missing and handed over as the cgroup is. */
static int leaf_open(int fd, int *out)
{
	bool made = mkdirat(fd, UNIFIED_LEAF, 0755) == 0;
	int r = 0;
	if (!made && errno != EEXIST)
		return -errno;
	if ((*out = cgdir_open_beneath(fd, UNIFIED_LEAF)) < 0)
		return *out;
	if ((made || !leaf_given(fd, *out)) && (r = leaf_give(fd, *out)) < 0) {
		close(*out);
		*out = -1;
	}
	return r;
}

/* Moves every task of fd into its leaf; returns how many were moved, or -errno. */
static int evict_tasks(int fd)
{
	pidv pids = {0};
	_cleanup_close_ int leaf = -1;
	int r = cgdir_procs(fd, &pids), moved = 0;
	if (r < 0 || pids.n == 0) {
		pidv_free(&pids);
		return r;
	}
	if ((r = leaf_open(fd, &leaf)) < 0) {
		pidv_free(&pids);
		return r;
	}
	for (size_t i = 0; i < pids.n; i++) {
		char pid[16];
		snprintf(pid, sizeof(pid), "%d", (int)pids.v[i]);
		/* A task that exited meanwhile is no longer in the way. */
		if ((r = cgdir_write(leaf, "cgroup.procs", pid)) < 0 && r != -ESRCH)
			break;
		moved++;
		r = 0;
	}
	pidv_free(&pids);
	return r < 0 ? r : moved;
}

/*
 * The controller's new files in each child of fd are root's, as the daemon
 * wrote subtree_control: hand them to whom the child's other files belong
 * (the delegated ones to the owner of its cgroup.procs, the limits to its
 * creator), as if the kernel had made them with the cgroup.
 */
static void give_new_files(const struct ops *o, int fd, const char *ctrl)
{
	const char *const *kernel_list = o->have_delegate_list ? (const char *const *)o->delegate_files.v : NULL;
	strv kids = {0};
	size_t n = strlen(ctrl);
	cgdir_children(fd, &kids);
	for (size_t i = 0; i < kids.n; i++) {
		_cleanup_close_ int kid = cgdir_open_beneath(fd, kids.v[i]);
		struct stat limits, procs;
		strv files = {0};
		if (kid < 0 || cgdir_stat(kid, "cgroup.max.depth", &limits) < 0 || cgdir_stat(kid, "cgroup.procs", &procs) < 0)
			continue;
		cgdir_files(kid, &files);
		for (size_t j = 0; j < files.n; j++) {
			const char *f = files.v[j];
			if (strncmp(f, ctrl, n) != 0 || f[n] != '.')
				continue;
			const struct stat *owner = policy_is_delegated_file(f, true, kernel_list) ? &procs : &limits;
			if (owner->st_uid != 0 || owner->st_gid != 0)
				fchownat(kid, f, owner->st_uid, owner->st_gid, AT_SYMLINK_NOFOLLOW);
		}
		strv_free(&files);
	}
	strv_free(&kids);
}

/*
 * -1 with e set if fd is part of a threaded subtree, where cgmanager enables nothing: "domain threaded" and
 * "threaded" are a threaded subtree's cgroups, "domain invalid" sits inside one.
 */
static int refuse_threaded(int fd, const char *what, struct err *e)
{
	_cleanup_free_ char *type = NULL;
	if (cgdir_read(fd, "cgroup.type", &type) < 0 || strcmp(type, "domain\n") == 0 || strcmp(type, "domain") == 0)
		return 0;
	return err_set(e, ERR_NOT_SUPPORTED, "%s is part of a threaded subtree (cgroup.type %.*s); cgmanager does not "
	               "manage threaded subtrees", what, (int)strcspn(type, "\n"), type);
}

/*
 * Whether r may have the daemon enable ctrl in the ancestor anc of t (open at fd), where it is not enabled:
 * 0, or -1 with e set (policy_may_enable_controller). Asked when the request is checked and again just before
 * the write, so that an owner who disabled ctrl there in between is not overruled.
 */
static int may_enable_in(const struct requester *r, const struct target *t, int fd, const char *anc, const char *ctrl,
                         struct err *e)
{
	char why[POLICY_WHY_MAX], what[WHAT_MAX];
	struct stat st;
	snprintf(what, sizeof(what), "%s:/%s", t->h->name, anc);
	if (cgdir_stat(fd, "cgroup.subtree_control", &st) < 0)
		return err_errno(e, errno, "cannot stat %s cgroup.subtree_control", what);
	struct owner sc = {st.st_uid, st.st_gid, st.st_mode};
	struct controller_place at = {.above_requesters_own = rel_is_beneath(t->req_rel, anc) && strcmp(t->req_rel, anc) != 0};
	if (!policy_may_enable_controller(&r->cred, &sc, at, ctrl, what, why))
		return err_set(e, ERR_ACCESS, "%s: %s", t->what, why);
	return 0;
}

/*
 * Enables ctrl in the subtree_control of t's ancestor rel (relative to its root) for req, moving its tasks aside
 * first.
 */
static int enable_in(const struct ops *o, const struct requester *req, const struct target *t, const char *rel,
                     const char *ctrl, struct err *e)
{
	const struct hierarchy *h = t->h;
	_cleanup_close_ int fd = cgdir_open_beneath(h->root_fd, rel);
	_cleanup_free_ char *have = NULL;
	char plus[64], what[WHAT_MAX];
	int r;

	snprintf(what, sizeof(what), "%s:/%s", h->name, rel);
	if (fd < 0)
		return err_errno(e, -fd, "cannot open %s", what);
	if ((r = cgdir_read(fd, "cgroup.subtree_control", &have)) < 0)
		return err_errno(e, -r, "cannot read %s cgroup.subtree_control", what);
	if (word_in(have, ctrl))
		return 0;
	if (may_enable_in(req, t, fd, rel, ctrl, e) < 0 || refuse_threaded(fd, what, e) < 0)
		return -1;
	snprintf(plus, sizeof(plus), "+%s", ctrl);
	/* A task may arrive between the move and the write: the kernel says EBUSY, and the tasks move again. */
	for (int attempt = 0; attempt < 5; attempt++) {
		bool is_root = strcmp(h->root_path, "/") == 0 && rel[0] == '\0'; /* cgroup2's root may hold tasks */
		if (!is_root && (r = evict_tasks(fd)) < 0)
			return err_errno(e, -r, "cannot move the tasks of %s into its leaf %s", what, UNIFIED_LEAF);
		if ((r = cgdir_write(fd, "cgroup.subtree_control", plus)) == 0) {
			give_new_files(o, fd, ctrl);
			return 0;
		}
		if (r != -EBUSY)
			break;
	}
	return err_errno(e, -r, "cannot enable %s in %s cgroup.subtree_control", ctrl, what);
}

/* The ancestors of t from the daemon's root to t's parent, as paths relative to the root; returns the count. */
static int ancestors_of(const struct target *t, char out[][CGNAME_MAX], int max)
{
	int n = 0;
	const char *rest = t->rel;
	out[n++][0] = '\0';
	for (;;) {
		size_t len = strcspn(rest, "/");
		if (rest[len] == '\0' || n == max)
			return n;
		snprintf(out[n], CGNAME_MAX, "%s%s%.*s", out[n - 1], out[n - 1][0] ? "/" : "", (int)len, rest);
		n++;
		rest += len + 1;
	}
}

#define MAX_ANCESTORS 64

/*
 * Whether t can have ctrl: 0 when every ancestor from the daemon's root to t's parent enables it already, 1 when
 * some do not and r may have the daemon enable it there (policy_may_enable_controller), -1 with e set when not
 * (ERR_ACCESS), or when an ancestor lacking it is in a threaded subtree (ERR_NOT_SUPPORTED).
 */
static int may_have(const struct requester *r, const struct target *t, const char *ctrl, struct err *e)
{
	char what[WHAT_MAX], (*anc)[CGNAME_MAX];
	int rc = 0;

	if (!(anc = calloc(MAX_ANCESTORS, sizeof(*anc))))
		return err_set(e, ERR_LIMIT, "out of memory");
	int na = ancestors_of(t, anc, MAX_ANCESTORS);
	for (int i = 0; i < na && rc >= 0; i++) {
		_cleanup_close_ int fd = cgdir_open_beneath(t->h->root_fd, anc[i]);
		_cleanup_free_ char *have = NULL;
		snprintf(what, sizeof(what), "%s:/%s", t->h->name, anc[i]);
		if (fd < 0 || cgdir_read(fd, "cgroup.subtree_control", &have) < 0)
			rc = err_set(e, ERR_FAILED, "cannot read %s cgroup.subtree_control", what);
		else if (word_in(have, ctrl))
			continue;
		else if (may_enable_in(r, t, fd, anc[i], ctrl, e) < 0 || refuse_threaded(fd, what, e) < 0)
			rc = -1;
		else
			rc = 1;
	}
	free(anc);
	return rc;
}

int unified_needs_enable(const struct requester *r, const struct target *t, const char *file, char ctrl[64],
                         struct err *e)
{
	char why[POLICY_WHY_MAX];
	struct stat st;
	struct owner limits;
	size_t n = strcspn(file, ".");

	if (!t->h->unified || t->rel[0] == '\0' || is_core_file(file) || n == 0 || n >= 64 || !file[n])
		return 0;
	memcpy(ctrl, file, n);
	ctrl[n] = '\0';
	if (!strv_contains(&t->h->controllers, ctrl) || cgdir_stat(t->fd, file, &st) == 0)
		return 0;
	/* Only one who may set t's limits makes their files appear ... */
	if (target_owner(t, "cgroup.max.depth", &limits, e) < 0)
		return -1;
	if (!policy_may_set_value(&r->cred, &limits, file,
	                          (struct cgroup_place){.requesters_own = strcmp(t->rel, t->req_rel) == 0}, t->what, why))
		return err_set(e, ERR_ACCESS, "%s", why);
	/* ... and only where it may enable the controller itself: the kernel's delegation rule. */
	return may_have(r, t, ctrl, e);
}

int unified_enable(struct ops *o, const struct requester *r, const struct target *t, const char *ctrl, struct err *e)
{
	char (*anc)[CGNAME_MAX] = calloc(MAX_ANCESTORS, sizeof(*anc));
	int rc = 0;
	if (!anc)
		return err_set(e, ERR_LIMIT, "out of memory");
	/* Top-down: the daemon's root first, t's parent last. */
	int na = ancestors_of(t, anc, MAX_ANCESTORS);
	for (int i = 0; i < na && rc == 0; i++)
		rc = enable_in(o, r, t, anc[i], ctrl, e);
	free(anc);
	return rc;
}

int unified_prepare_file(struct ops *o, const struct requester *r, const struct target *t, const char *file,
                         struct err *e)
{
	char ctrl[64];
	int rc = unified_needs_enable(r, t, file, ctrl, e);
	return rc <= 0 ? rc : unified_enable(o, r, t, ctrl, e);
}

int unified_delegation_plan(const struct requester *r, const struct target *t, const struct hierarchy_set *set,
                            uint64_t *ctrls, struct err *e)
{
	const strv *have = &t->h->controllers;
	*ctrls = 0;
	if (!t->h->unified || t->rel[0] == '\0')
		return 0;
	for (size_t i = 0; i < have->n && i < 64; i++) {
		uint64_t bit = UINT64_C(1) << i;
		struct err one = {0};
		if (!set->v2_every && !(set->v2_ctrls & bit))
			continue;
		int rc = may_have(r, t, have->v[i], &one);
		if (rc > 0)
			*ctrls |= bit;
		/*
		 * "all" is every controller r can have: one it may not have, or not here, is left out. So is a
		 * controller a 0.42 argument names (set->written): there it names the one cgroup2 hierarchy, and a
		 * 0.42 client's Create or Chown must not fail for a controller it could not have asked the kernel for.
		 * The key API's controller list (no written text) asks for each: a refusal is the call's.
		 */
		bool best_effort = set->v2_every || set->written;
		if (rc < 0 && !(best_effort && (one.kind == ERR_ACCESS || one.kind == ERR_NOT_SUPPORTED))) {
			*e = one;
			return -1;
		}
	}
	return 0;
}

int unified_hand_over(struct ops *o, const struct requester *r, const struct target *t, uint64_t ctrls,
                      struct err *e)
{
	for (size_t i = 0; i < t->h->controllers.n && i < 64; i++)
		if ((ctrls & (UINT64_C(1) << i)) && unified_enable(o, r, t, t->h->controllers.v[i], e) < 0)
			return -1;
	return 0;
}

int unified_delegate(struct ops *o, const struct requester *r, const struct target *t,
                     const struct hierarchy_set *set, struct err *e)
{
	uint64_t ctrls;
	return unified_delegation_plan(r, t, set, &ctrls, e) < 0 ? -1 : unified_hand_over(o, r, t, ctrls, e);
}

int unified_procs_dir(const struct target *t, int *leaf)
{
	_cleanup_free_ char *sub = NULL;
	bool is_root = strcmp(t->h->root_path, "/") == 0 && t->rel[0] == '\0'; /* cgroup2's root may hold tasks */
	int r;
	if (t->h->unified && !is_root && cgdir_read(t->fd, "cgroup.subtree_control", &sub) == 0 && sub[0] &&
	    sub[0] != '\n')
		return (r = leaf_open(t->fd, leaf)) < 0 ? r : *leaf;
	return t->fd;
}
