#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ops/each.h"
#include "ops/journal.h"
#include "ops/quota.h"
#include "ops/unified.h"

struct chown_args {
	const char *name;
	const struct hierarchy_set *set;
	uid_t uid;
	gid_t gid;
	struct target *t; /* every hierarchy's cgroup, checked */
	uint64_t *ctrls;  /* for each, the cgroup2 controllers to enable above it (ops/unified.h) */
	int n;
};

/*
 * Hands over the directory and the files that let the new owner run its subtree, never the limits. The
 * kernel's nesting limits come first and the directory last, so that an owner never holds a directory
 * the kernel does not bound yet.
 */
int target_chown(struct ops *o, const struct target *t, uid_t uid, gid_t gid, struct err *e)
{
	strv files = {0};
	const char *const *kernel_list = o->have_delegate_list ? (const char *const *)o->delegate_files.v : NULL;
	int r;

	/* What the daemon's quotas allow, the kernel then enforces on direct mkdir by the new owner too. */
	if (t->h->unified && uid != 0 && t->rel[0] && quota_limit_delegated(o->quotas, t->fd, e) < 0)
		return err_prefix(e, t->what);
	r = cgdir_files(t->fd, &files);
	for (size_t i = 0; r >= 0 && i < files.n; i++)
		if (policy_is_delegated_file(files.v[i], t->h->unified, kernel_list) &&
		    fchownat(t->fd, files.v[i], uid, gid, AT_SYMLINK_NOFOLLOW) < 0)
			r = -errno;
	strv_free(&files);
	if (r >= 0 && fchown(t->fd, uid, gid) < 0)
		r = -errno;
	if (r < 0)
		return err_errno(e, -r, "cannot chown %s", t->what);
	return 0;
}

/* The first pass: each hierarchy's cgroup is checked and kept, and noted in the journal. */
static int chown_in(struct ops *o, const struct requester *r, const struct proc_cgroups *pc, struct hierarchy *h,
                    void *arg, struct err *e)
{
	struct chown_args *a = arg;
	struct target t = {.req_fd = -1, .fd = -1};
	struct owner dir;
	char why[POLICY_WHY_MAX];

	if (target_resolve(o, r, pc, h, a->name, true, &t, e) < 0 || target_owner(&t, "", &dir, e) < 0)
		goto fail;
	if (!policy_may_chown(&r->cred, &dir, a->uid, a->gid, t.what, why)) {
		err_set(e, ERR_ACCESS, "%s", why);
		goto fail;
	}
	/* The new owner gets the cgroup with its controllers, to enable for its own children. */
	if (unified_delegation_plan(r, &t, a->set, &a->ctrls[a->n], e) < 0)
		goto fail;
	if (journal_note_chown(o, &t, a->uid, a->gid, e) < 0)
		goto fail;
	a->t[a->n++] = t;
	return 0;
fail:
	target_close(&t);
	return -1;
}

/*
 * Every hierarchy is checked before the first is changed, so a refusal changes nothing, and the journal
 * has the next daemon finish a chown that a kill cut short.
 */
int ops_chown_host_ids(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
                       uid_t uid, gid_t gid, struct err *e)
{
	struct chown_args a = {.name = cgroup, .set = set, .uid = uid, .gid = gid};
	int rc = -1;

	if (uid == (uid_t)-1 || gid == (gid_t)-1)
		return err_set(e, ERR_INVALID, "uid and gid must both be given (got %d, %d)", (int)uid, (int)gid);
	a.t = calloc(o->hs.n ? o->hs.n : 1, sizeof(*a.t));
	a.ctrls = calloc(o->hs.n ? o->hs.n : 1, sizeof(*a.ctrls));
	if (!a.t || !a.ctrls) {
		free(a.t);
		free(a.ctrls);
		return err_set(e, ERR_LIMIT, "out of memory");
	}
	if (for_each_hierarchy(o, r, set, chown_in, &a, e) >= 0 && journal_go(o, e) == 0) {
		rc = 0;
		for (int i = 0; rc == 0 && i < a.n; i++) {
			struct stat st;
			uid_t from = fstat(a.t[i].fd, &st) == 0 ? st.st_uid : (uid_t)-1;
			/* Enabled first, so that the controllers' new files in the cgroup are handed over with it. */
			if ((rc = unified_hand_over(o, r, &a.t[i], a.ctrls[i], e)) == 0 &&
			    (rc = target_chown(o, &a.t[i], uid, gid, e)) == 0)
				quota_note_chowned(o->quotas, a.t[i].h, from, uid);
		}
	}
	journal_end(o);
	for (int i = 0; i < a.n; i++)
		target_close(&a.t[i]);
	free(a.t);
	free(a.ctrls);
	return rc;
}

int ops_chown(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup, uid_t uid,
              gid_t gid, struct err *e)
{
	if (!r->proxy && r->cred.in_userns)
		return err_set(e, ERR_NOT_SUPPORTED,
		               "uid and gid arguments from another user namespace cannot be trusted; use ChownScm (or "
		               "cgproxy) so that the kernel translates them");
	return ops_chown_host_ids(o, r, set, cgroup, uid, gid, e);
}

struct chmod_args {
	const char *name;
	const char *file;
	int mode;
};

static int chmod_in(struct ops *o, const struct requester *r, const struct proc_cgroups *pc, struct hierarchy *h,
                    void *arg, struct err *e)
{
	struct chmod_args *a = arg;
	struct target t = {.req_fd = -1, .fd = -1};
	struct owner file;
	char why[POLICY_WHY_MAX], what[WHAT_MAX + 256];
	int rc = -1;

	if (target_resolve(o, r, pc, h, a->name, true, &t, e) < 0 ||
	    (*a->file && unified_prepare_file(o, r, &t, a->file, e) < 0) || target_owner(&t, a->file, &file, e) < 0)
		goto out;
	snprintf(what, sizeof(what), "%s%s%s", t.what, *a->file ? " " : "", a->file);
	if (!policy_may_chmod(&r->cred, &file, a->mode, what, why)) {
		err_set(e, ERR_ACCESS, "%s", why);
		goto out;
	}
	if ((*a->file ? fchmodat(t.fd, a->file, (mode_t)a->mode, 0) : fchmod(t.fd, (mode_t)a->mode)) < 0)
		err_errno(e, errno, "cannot chmod %s", what);
	else
		rc = 0;
out:
	target_close(&t);
	return rc;
}

int ops_chmod(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
              const char *file, int mode, struct err *e)
{
	struct chmod_args a = {cgroup, file, mode};
	const char *why;
	if (*file && cgfile_name_valid(file, &why) < 0)
		return err_set(e, ERR_INVALID, "file name '%s' is refused: %s", file, why);
	/* A mode beyond the permission bits is a malformed argument, whoever asks. */
	if (mode < 0 || mode > 0777)
		return err_set(e, ERR_INVALID, "mode %o is refused: only permission bits (0 to 0777) may be set", mode);
	return for_each_hierarchy(o, r, set, chmod_in, &a, e) < 0 ? -1 : 0;
}
