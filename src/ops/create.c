#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgfs/cgtree.h"
#include "cgfs/proc.h"
#include "ops/each.h"
#include "ops/journal.h"
#include "ops/quota.h"
#include "ops/release.h"
#include "ops/unified.h"
#include "util/cleanup.h"

struct create_state {
	struct ops *o;
	const char *name;
	const struct hierarchy_set *set; /* on cgroup2, the controllers the new cgroup is to have */
	bool existed_any;
	bool made_here; /* the current hierarchy's topmost new directory is recorded */
	/* What this call made, per hierarchy, so a later failure can undo it. */
	struct {
		struct hierarchy *h;
		char rel[CGNAME_MAX];
		ino_t ino; /* which directory: another may take its name meanwhile (a rename in cgroup v1) */
	} made[PROC_CGROUP_MAX];
	int nmade;
};

/* A new v1 cpuset has no cpus or mems; a task could not be moved in. Inherit the parent's. */
static int init_cpuset(const struct hierarchy *h, int parentfd, int fd)
{
	static const char *const files[] = {"cpuset.cpus", "cpuset.mems"};
	if (h->unified || !strv_contains(&h->controllers, "cpuset"))
		return 0;
	for (size_t i = 0; i < 2; i++) {
		_cleanup_free_ char *mine = NULL, *theirs = NULL;
		int r = cgdir_read(fd, files[i], &mine);
		if (r < 0)
			return r;
		if (mine[0] != '\n' && mine[0] != '\0')
			continue;
		if ((r = cgdir_read(parentfd, files[i], &theirs)) < 0 || (r = cgdir_write(fd, files[i], theirs)) < 0)
			return r;
	}
	return 0;
}

/* Makes one component; returns the new directory's fd or -1 with e set. */
static int make_one(struct ops *o, const struct requester *r, struct hierarchy *h, int parentfd,
                    const char *parent_rel, const char *comp, struct err *e)
{
	struct stat st;
	struct owner parent;
	char why[POLICY_WHY_MAX];
	int fd, rr;

	if (fstat(parentfd, &st) < 0)
		return err_errno(e, errno, "cannot stat %s:/%s", h->name, parent_rel);
	parent = (struct owner){st.st_uid, st.st_gid, st.st_mode};
	char what[WHAT_MAX];
	snprintf(what, sizeof(what), "%s:/%s", h->name, parent_rel);
	if (!policy_may_create_in(&r->cred, &parent, what, why))
		return err_set(e, ERR_ACCESS, "%s", why);
	if (quota_check_create(o->quotas, r, h, parent_rel, e) < 0)
		return -1;
	/* The creator owns what it made, as if it had run mkdir itself: cgroupfs makes it so as it creates it. */
	if ((rr = cgdir_mkdir_as(parentfd, comp, r->cred.uid, r->cred.gid)) < 0)
		return err_errno(e, -rr, "cannot create %s:/%s%s%s", h->name, parent_rel, *parent_rel ? "/" : "", comp);
	quota_note_created(o->quotas, r, h);
	/*
	 * Opened by name, and the parent's owner may rename (cgroup v1) or remove what is there meanwhile: what
	 * is opened is set up only if it is the requester's, never a cgroup of someone else that took the name.
	 */
	fd = cgdir_open_beneath(parentfd, comp);
	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_uid != r->cred.uid || st.st_gid != r->cred.gid)) {
		close(fd);
		return err_set(e, ERR_BUSY, "%s:/%s%s%s was renamed or removed while it was being created, and another "
		               "cgroup took its name; nothing was done to that one", h->name, parent_rel,
		               *parent_rel ? "/" : "", comp);
	}
	rr = fd < 0 ? fd : init_cpuset(h, parentfd, fd);
	if (rr < 0) {
		if (fd >= 0) {
			close(fd);
			unlinkat(parentfd, comp, AT_REMOVEDIR);
		}
		return err_errno(e, -rr, "cannot set up new cgroup %s:/%s%s%s", h->name, parent_rel,
		                 *parent_rel ? "/" : "", comp);
	}
	return fd;
}

/* Removes what this call made at rel, if rel still names it; whatever took the name instead stays. */
static void undo_one(struct hierarchy *h, const char *rel, ino_t ino)
{
	char parent[CGNAME_MAX];
	const char *base = rel;
	snprintf(parent, sizeof(parent), "%s", rel);
	char *slash = strrchr(parent, '/');
	if (slash) {
		*slash = '\0';
		base = rel + (slash - parent) + 1;
	} else {
		parent[0] = '\0';
	}
	_cleanup_close_ int pfd = cgdir_open_beneath(h->root_fd, parent);
	_cleanup_close_ int fd = pfd < 0 ? -1 : cgdir_open_beneath(pfd, base);
	struct stat st;
	strv kids = {0};
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_ino != ino)
		return;
	/* Its children through the fd checked; only the last rmdir names it, in a parent the requester may write. */
	if (cgdir_children(fd, &kids) == 0)
		for (size_t i = 0; i < kids.n; i++)
			cgtree_remove(fd, kids.v[i]);
	strv_free(&kids);
	unlinkat(pfd, base, AT_REMOVEDIR);
}

static void undo(struct create_state *s)
{
	for (int i = s->nmade - 1; i >= 0; i--)
		undo_one(s->made[i].h, s->made[i].rel, s->made[i].ino);
	s->nmade = 0;
}

/* A refused hierarchy may be skipped; what it half-made must not stay, nor its note (the journal's last). */
static int fail_here(struct create_state *s, struct hierarchy *h)
{
	if (s->made_here && s->nmade > 0 && s->made[s->nmade - 1].h == h) {
		s->nmade--;
		undo_one(h, s->made[s->nmade].rel, s->made[s->nmade].ino);
		journal_drop_last(s->o);
	}
	s->made_here = false;
	return -1;
}

static int create_in(struct ops *o, const struct requester *r, const struct proc_cgroups *pc, struct hierarchy *h,
                     void *arg, struct err *e)
{
	struct create_state *s = arg;
	struct target t = {.req_fd = -1, .fd = -1};
	char rel[CGNAME_MAX];
	_cleanup_close_ int cur = -1;
	const char *p;

	if (target_resolve(o, r, pc, h, s->name, false, &t, e) < 0) {
		target_close(&t);
		return -1;
	}
	if (t.fd >= 0) {
		s->existed_any = true;
		target_close(&t);
		return unified_delegate(o, r, &t, s->set, e);
	}
	/* Walk down from the requester's cgroup, making what is missing. */
	cur = take_fd(&t.req_fd);
	snprintf(rel, sizeof(rel), "%s", t.req_rel);
	p = t.rel + strlen(t.req_rel);
	target_close(&t);
	while (*p) {
		char comp[NAME_MAX + 1];
		size_t len;
		int fd;

		while (*p == '/')
			p++;
		len = strcspn(p, "/");
		memcpy(comp, p, len);
		comp[len] = '\0';
		p += len;
		fd = cgdir_open_beneath(cur, comp);
		if (fd == -ENOENT) {
			bool top = !s->made_here;
			char path[CGNAME_MAX];
			cgpath_join(rel, comp, path);
			/* Noted before it is made: a daemon killed from here on leaves it to the next one to remove. */
			if (top && journal_note_mkdir(o, h, path, r->cred.uid, r->cred.gid, e) < 0)
				return fail_here(s, h);
			fd = make_one(o, r, h, cur, rel, comp, e);
			if (fd < 0) {
				if (top)
					journal_drop_last(o); /* nothing was made, or it was removed already */
				return fail_here(s, h);
			}
			if (top) {
				/* One entry per hierarchy: nmade never passes hs.n. */
				struct stat st;
				s->made[s->nmade].h = h;
				memcpy(s->made[s->nmade].rel, path, sizeof(path));
				s->made[s->nmade].ino = fstat(fd, &st) == 0 ? st.st_ino : 0;
				s->nmade++;
				s->made_here = true;
			}
		} else if (fd < 0) {
			err_errno(e, -fd, "cannot open %s:/%s%s%s", h->name, rel, *rel ? "/" : "", comp);
			return fail_here(s, h);
		}
		close(cur);
		cur = fd;
		char next[CGNAME_MAX];
		cgpath_join(rel, comp, next);
		memcpy(rel, next, sizeof(rel));
	}
	/* Its controllers are enabled above it once it is there: a refusal takes back what was made. */
	if (unified_delegate(o, r, &t, s->set, e) < 0)
		return fail_here(s, h);
	s->made_here = false;
	return 0;
}

int ops_create_recorded(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
                        int *existed, struct create_state **rec, struct err *e)
{
	struct create_state *s = calloc(1, sizeof(*s));
	if (!s)
		return err_set(e, ERR_LIMIT, "out of memory");
	s->o = o;
	s->name = cgroup;
	s->set = set;
	if (for_each_hierarchy(o, r, set, create_in, s, e) < 0) {
		undo(s);
		journal_end(o);
		free(s);
		return -1;
	}
	*existed = s->existed_any ? 1 : -1;
	*rec = s;
	return 0;
}

/* Until one of these two, the journal has the next daemon remove what the call made. */
void create_record_undo(struct create_state *rec)
{
	if (rec) {
		undo(rec);
		journal_end(rec->o);
	}
	free(rec);
}

void create_record_free(struct create_state *rec)
{
	if (rec)
		journal_end(rec->o);
	free(rec);
}

int ops_create(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
               int *existed, struct err *e)
{
	struct create_state *rec;
	if (ops_create_recorded(o, r, set, cgroup, existed, &rec, e) < 0)
		return -1;
	create_record_free(rec);
	return 0;
}
