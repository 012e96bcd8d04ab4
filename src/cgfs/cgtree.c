#include "cgtree.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgfs/cgdir.h"
#include "util/cleanup.h"

/*
 * How many entries a walk may list again, in all, because a listing missed a child or a child went missing
 * (cgroups renamed or removed under it), before it gives up: a user who renames its cgroups without pause
 * must not hold the serving thread (about 10 ms of listing here).
 */
#define CGTREE_RELIST_ENTRIES 16384

/* Inodes, as an open-addressing set: 0 marks a free slot (no directory has inode 0). */
struct ino_set {
	ino_t *v;
	size_t cap, n; /* cap a power of 2, kept at least twice n */
};

static size_t ino_slot(ino_t ino, size_t cap)
{
	return (size_t)(((uint64_t)ino * 0x9E3779B97F4A7C15ULL) >> 17) & (cap - 1);
}

static bool ino_set_has(const struct ino_set *s, ino_t ino)
{
	for (size_t i = s->cap ? ino_slot(ino, s->cap) : 0; s->cap; i = (i + 1) & (s->cap - 1)) {
		if (s->v[i] == ino)
			return true;
		if (!s->v[i])
			break;
	}
	return false;
}

static void ino_set_put(ino_t *v, size_t cap, ino_t ino)
{
	size_t i = ino_slot(ino, cap);
	while (v[i] && v[i] != ino)
		i = (i + 1) & (cap - 1);
	v[i] = ino;
}

static int ino_set_add(struct ino_set *s, ino_t ino)
{
	if (2 * (s->n + 1) > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		ino_t *v = calloc(cap, sizeof(*v));
		if (!v)
			return -ENOMEM;
		for (size_t i = 0; i < s->cap; i++)
			if (s->v[i])
				ino_set_put(v, cap, s->v[i]);
		free(s->v);
		s->v = v;
		s->cap = cap;
	}
	if (!ino_set_has(s, ino)) {
		ino_set_put(s->v, s->cap, ino);
		s->n++;
	}
	return 0;
}

/* One level of the walk: the cgroup entered there, its children and how far through them the walk is. */
struct frame {
	strv kids;
	size_t next;    /* the next child to enter */
	size_t rel_len; /* the length of the path to this cgroup */
	struct stat st; /* who it is (also to check the way back up) */
	int mark;
	struct ino_set entered; /* the children entered so far */
};

struct walk {
	struct frame *f;
	size_t n, cap;
	char *rel;
	size_t rel_cap;
	size_t relist_budget; /* entries it may still list again (CGTREE_RELIST_ENTRIES) */
};

static void walk_free(struct walk *w)
{
	for (size_t i = 0; i < w->n; i++) {
		strv_free(&w->f[i].kids);
		free(w->f[i].entered.v);
	}
	free(w->f);
	free(w->rel);
}

/* Sets the path to rel[0..len) + "/" + name (no "/" at the top). */
static int rel_extend(struct walk *w, size_t len, const char *name)
{
	size_t need = len + 1 + strlen(name) + 1;
	if (need > w->rel_cap) {
		size_t cap = need < 2 * w->rel_cap ? 2 * w->rel_cap : need + 256;
		char *p = realloc(w->rel, cap);
		if (!p)
			return -ENOMEM;
		w->rel = p;
		w->rel_cap = cap;
	}
	if (len)
		w->rel[len++] = '/';
	strcpy(w->rel + len, name);
	return 0;
}

/* Enters the cgroup at fd: lists its children onto a new frame. */
static int ino_cmp(const void *a, const void *b)
{
	ino_t x = *(const ino_t *)a, y = *(const ino_t *)b;
	return (x > y) - (x < y);
}

/* How many different directories the names stand for (a name gone meanwhile stands for none). */
static size_t distinct_dirs(int fd, const strv *names)
{
	ino_t *inos = calloc(names->n + 1, sizeof(*inos));
	size_t n = 0, distinct = 0;
	struct stat st;
	if (!inos)
		return names->n;
	for (size_t i = 0; i < names->n; i++)
		if (fstatat(fd, names->v[i], &st, AT_SYMLINK_NOFOLLOW) == 0)
			inos[n++] = st.st_ino;
	qsort(inos, n, sizeof(*inos), ino_cmp);
	for (size_t i = 0; i < n; i++)
		distinct += i == 0 || inos[i] != inos[i - 1];
	free(inos);
	return distinct;
}

/*
 * The children of the cgroup at fd. cgroupfs lists a directory in the order of its names' hashes, so a child
 * renamed while it is listed (cgroup v1) can be missed altogether; but it counts every child directory in
 * the directory's link count (2 + children), which a rename does not change. A listing that names fewer
 * directories than that is taken again (EAGAIN when the tree keeps changing).
 */
static int list_children(int fd, strv *out, size_t *budget)
{
	for (;;) {
		struct stat st;
		int r = cgdir_children(fd, out);
		if (r < 0)
			return r;
		if (fstat(fd, &st) < 0)
			return -errno;
		if (st.st_nlink < 2 || distinct_dirs(fd, out) >= st.st_nlink - 2)
			return 0;
		if (*budget < out->n)
			return -EAGAIN;
		*budget -= out->n;
		strv_free(out);
	}
}

static int push(struct walk *w, int fd, size_t rel_len)
{
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 16;
		struct frame *f = realloc(w->f, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		w->f = f;
		w->cap = cap;
	}
	struct frame *f = &w->f[w->n];
	*f = (struct frame){.rel_len = rel_len};
	if (fstat(fd, &f->st) < 0)
		return -errno;
	/* Most cgroups have no child (a link count of 2): nothing to list. */
	int r = f->st.st_nlink == 2 ? 0 : list_children(fd, &f->kids, &w->relist_budget);
	if (r < 0 && r != -ENOENT) {
		strv_free(&f->kids);
		return r;
	}
	w->n++;
	return 0;
}

static void pop(struct walk *w)
{
	strv_free(&w->f[--w->n].kids);
	free(w->f[w->n].entered.v);
}

/*
 * A child listed a moment ago is gone: removed, or on cgroup v1 renamed (within this parent: a v1 rename
 * cannot leave it), which must not hide its subtree from the walk. The children are listed again and any
 * not entered yet is added (to be tried after the others). A tree that keeps changing ends the walk
 * (EAGAIN) rather than let it report a subtree it did not see.
 */
static int relist(struct frame *f, int fd, size_t *budget)
{
	strv now = {0};
	int r;
	if (*budget < f->kids.n)
		return -EAGAIN;
	*budget -= f->kids.n;
	if ((r = list_children(fd, &now, budget)) < 0) {
		strv_free(&now);
		return r == -ENOENT ? 0 : r;
	}
	for (size_t i = 0; r == 0 && i < now.n; i++) {
		struct stat st;
		/*
		 * A name still to come may come twice: its second open finds it entered. A name gone again already
		 * is kept: trying it leads to another listing, until the names hold still.
		 */
		if (fstatat(fd, now.v[i], &st, AT_SYMLINK_NOFOLLOW) == 0 && ino_set_has(&f->entered, st.st_ino))
			continue;
		r = strv_push(&f->kids, now.v[i]);
	}
	strv_free(&now);
	return r;
}

/* The parent of the cgroup at fd, checked to be the one the walk came down from (frame up). */
static int climb(int fd, const struct frame *up)
{
	struct stat st;
	int pfd = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, &st) < 0 || st.st_dev != up->st.st_dev || st.st_ino != up->st.st_ino) {
		close(pfd);
		return -ESTALE;
	}
	return pfd;
}

static int fail(struct walk *w, int cur, int err)
{
	if (cur >= 0)
		close(cur);
	walk_free(w);
	errno = err;
	return CGTREE_BROKEN;
}

/* Calls pre for the cgroup at fd, just entered (its frame on top); 1 if the walk goes beneath it. */
static int visit_pre(const struct cgtree_visitor *v, struct walk *w, int fd, int parent_fd, const char *name,
                     int parent_mark, int *rc)
{
	struct frame *f = &w->f[w->n - 1];
	struct cgtree_node n = {fd, parent_fd, name, w->rel, (unsigned)(w->n - 1), &f->st, &f->kids, 0, parent_mark};
	int r = v->pre ? v->pre(&n, v->arg) : CGTREE_DESCEND;
	f->mark = n.mark;
	if (r < 0 || r == CGTREE_STOP) {
		*rc = r < 0 ? -1 : CGTREE_STOP;
		return 0;
	}
	if (r == CGTREE_SKIP)
		f->next = f->kids.n;
	*rc = 0;
	return 1;
}

static int visit_post(const struct cgtree_visitor *v, struct walk *w, int fd, int parent_fd, const char *name)
{
	struct frame *f = &w->f[w->n - 1];
	int parent_mark = w->n > 1 ? w->f[w->n - 2].mark : v->top_parent_mark;
	struct cgtree_node n = {fd, parent_fd, name, w->rel, (unsigned)(w->n - 1), &f->st, &f->kids, f->mark,
	                        parent_mark};
	int r = v->post ? v->post(&n, v->arg) : 0;
	return r < 0 ? -1 : r == CGTREE_STOP ? CGTREE_STOP : 0;
}

int cgtree_walk(int parentfd, const char *name, const struct cgtree_visitor *v)
{
	struct walk w = {.relist_budget = CGTREE_RELIST_ENTRIES};
	int cur = cgdir_open_beneath(parentfd, name);
	int top_parent = *name ? parentfd : -1, r, rc;

	if (cur < 0) {
		errno = -cur;
		return CGTREE_BROKEN;
	}
	if ((r = rel_extend(&w, 0, "")) < 0 || (r = push(&w, cur, 0)) < 0)
		return fail(&w, cur, -r);
	if (!visit_pre(v, &w, cur, top_parent, name, v->top_parent_mark, &rc))
		goto out;
	for (;;) {
		struct frame *f = &w.f[w.n - 1];
		if (f->next < f->kids.n) {
			const char *kid = f->kids.v[f->next++];
			int parent_mark = f->mark, kfd = cgdir_open_beneath(cur, kid);
			if (kfd == -ENOENT && (r = relist(f, cur, &w.relist_budget)) < 0)
				return fail(&w, cur, -r);
			if (kfd == -ENOENT)
				continue;
			if (kfd < 0)
				return fail(&w, cur, -kfd);
			/* Listed twice, under its name before and after a rename: entered once. */
			struct stat kst;
			if (fstat(kfd, &kst) == 0 && ino_set_has(&f->entered, kst.st_ino)) {
				close(kfd);
				continue;
			}
			if ((r = rel_extend(&w, f->rel_len, kid)) < 0 || (r = push(&w, kfd, strlen(w.rel))) < 0 ||
			    (r = ino_set_add(&w.f[w.n - 2].entered, w.f[w.n - 1].st.st_ino)) < 0) {
				close(kfd);
				return fail(&w, cur, -r);
			}
			if (!visit_pre(v, &w, kfd, cur, kid, parent_mark, &rc)) {
				close(kfd);
				goto out;
			}
			close(cur);
			cur = kfd;
			continue;
		}
		/* Every child done: post for this cgroup, from its parent, then up. */
		if (w.n == 1) {
			rc = visit_post(v, &w, cur, top_parent, name);
			break;
		}
		const struct frame *up = &w.f[w.n - 2];
		int pfd = climb(cur, up);
		if (pfd < 0)
			return fail(&w, cur, -pfd);
		rc = visit_post(v, &w, cur, pfd, up->kids.v[up->next - 1]);
		close(cur);
		cur = pfd;
		pop(&w);
		w.rel[w.f[w.n - 1].rel_len] = '\0';
		if (rc != 0)
			break;
	}
out:
	close(cur);
	walk_free(&w);
	return rc;
}

static int remove_post(struct cgtree_node *n, void *arg)
{
	int *err = arg;
	if (n->parent_fd >= 0 && unlinkat(n->parent_fd, n->name, AT_REMOVEDIR) < 0 && errno != ENOENT) {
		*err = -errno;
		return -1;
	}
	return 0;
}

int cgtree_remove(int parentfd, const char *name)
{
	int err = 0;
	struct cgtree_visitor v = {.post = remove_post, .arg = &err};
	int r = cgtree_walk(parentfd, name, &v);
	return r == CGTREE_BROKEN ? -errno : err;
}

/* A v1 search for a task: visits counts down the cgroups it may still enter. */
struct populated_walk {
	int found;
	unsigned *visits;
};

/* v1 has no cgroup.events: a task anywhere in the subtree ends the walk, and so does the end of its visits. */
static int populated_pre(struct cgtree_node *n, void *arg)
{
	struct populated_walk *pw = arg;
	pidv pids = {0};
	if (pw->visits && !*pw->visits) {
		pw->found = -EAGAIN;
		return CGTREE_STOP;
	}
	if (pw->visits)
		(*pw->visits)--;
	int r = cgdir_procs(n->fd, &pids);
	size_t tasks = pids.n;
	pidv_free(&pids);
	if (r == -ENOENT || r == -ENODEV)
		return CGTREE_SKIP; /* removed meanwhile: empty */
	if (r < 0 || tasks) {
		pw->found = r < 0 ? r : 1;
		return CGTREE_STOP;
	}
	return CGTREE_DESCEND;
}

static int populated_v1(int cgfd, unsigned *visits)
{
	struct populated_walk pw = {.visits = visits};
	struct cgtree_visitor v = {.pre = populated_pre, .arg = &pw};
	int r = cgtree_walk(cgfd, "", &v);
	return r == CGTREE_BROKEN ? -errno : pw.found;
}

int cgtree_populated(int cgfd, bool unified)
{
	_cleanup_free_ char *events = NULL;
	const char *p;
	int r;

	if (!unified)
		return populated_v1(cgfd, NULL);
	r = cgdir_read(cgfd, "cgroup.events", &events);
	if (r < 0)
		return r;
	p = strstr(events, "populated ");
	return p ? p[10] == '1' : -EIO;
}

int cgtree_populated_within(int cgfd, unsigned *visits)
{
	return populated_v1(cgfd, visits);
}
