#include "ops/quota.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgfs/cgtree.h"
#include "cgfs/idmap.h"
#include "util/cgname.h"
#include "util/cleanup.h"
#include "util/log.h"

/*
 * A recount walks the whole hierarchy, which any uid can make large. However often uids at their limit ask,
 * the next one waits until 99 times as long as the last took has passed: walks take at most 1% of the
 * daemon's time, and a small hierarchy is counted again at once.
 */
#define QUOTA_RECOUNT_IDLE_FACTOR 99

struct uid_count {
	uid_t uid;
	unsigned long n;
};

/* What each uid owns in one hierarchy: the last walk's count, kept up since by the daemon's own changes. */
struct tally {
	int hierarchy;      /* hierarchy id; 0 for cgroup2 */
	long long walked_us; /* when the last walk ended; 0: never */
	long long next_us;   /* no walk before then */
	struct uid_count *v; /* sorted by uid */
	size_t n;
};

struct quotas {
	unsigned max_cgroups, max_depth;
	struct tally *t;
	size_t n;
};

struct quotas *quotas_new(unsigned max_cgroups, unsigned max_depth)
{
	struct quotas *q = calloc(1, sizeof(*q));
	if (q)
		*q = (struct quotas){.max_cgroups = max_cgroups, .max_depth = max_depth};
	return q;
}

void quotas_free(struct quotas *q)
{
	if (q) {
		for (size_t i = 0; i < q->n; i++)
			free(q->t[i].v);
		free(q->t);
	}
	free(q);
}

unsigned quotas_max_cgroups(const struct quotas *q)
{
	return q->max_cgroups;
}

unsigned quotas_max_depth(const struct quotas *q)
{
	return q->max_depth;
}

static long long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static struct tally *tally_of(struct quotas *q, const struct hierarchy *h)
{
	for (size_t i = 0; i < q->n; i++)
		if (q->t[i].hierarchy == h->id)
			return &q->t[i];
	struct tally *t = realloc(q->t, (q->n + 1) * sizeof(*t));
	if (!t)
		return NULL;
	q->t = t;
	t[q->n] = (struct tally){.hierarchy = h->id};
	return &t[q->n++];
}

static int uid_cmp(const void *a, const void *b)
{
	uid_t x = *(const uid_t *)a, y = *(const uid_t *)b;
	return (x > y) - (x < y);
}

/* The entry of uid, made (count 0) if make and it is missing; NULL if missing (or out of memory). */
static struct uid_count *count_of(struct tally *t, uid_t uid, bool make)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t->v[mid].uid == uid)
			return &t->v[mid];
		if (t->v[mid].uid < uid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!make)
		return NULL;
	struct uid_count *v = realloc(t->v, (t->n + 1) * sizeof(*v));
	if (!v)
		return NULL;
	t->v = v;
	memmove(&v[lo + 1], &v[lo], (t->n - lo) * sizeof(*v));
	v[lo] = (struct uid_count){uid, 0};
	t->n++;
	return &v[lo];
}

struct owners {
	uid_t *v;
	size_t n, cap;
};

static int owner_pre(struct cgtree_node *n, void *arg)
{
	struct owners *o = arg;
	if (n->depth == 0)
		return CGTREE_DESCEND; /* the hierarchy's root is nobody's quota */
	if (o->n == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 1024;
		uid_t *v = realloc(o->v, cap * sizeof(*v));
		if (!v)
			return -1;
		o->v = v;
		o->cap = cap;
	}
	o->v[o->n++] = n->st->st_uid;
	return CGTREE_DESCEND;
}

/* Counts the owners of every cgroup of h in one walk, for every uid at once. */
static void recount(struct tally *t, const struct hierarchy *h)
{
	struct owners o = {0};
	struct cgtree_visitor v = {.pre = owner_pre, .arg = &o};
	long long t0 = now_us();
	size_t n = 0;
	int r = cgtree_walk(h->root_fd, "", &v);

	t->walked_us = now_us();
	t->next_us = t->walked_us + QUOTA_RECOUNT_IDLE_FACTOR * (t->walked_us - t0);
	if (r != 0) {
		log_warn("quota: cannot count the cgroups of %s; its counts stay as they were", h->name);
		free(o.v);
		return;
	}
	if (o.n)
		qsort(o.v, o.n, sizeof(uid_t), uid_cmp);
	/* Each run of one uid in the sorted owners is that uid's count. */
	struct uid_count *c = calloc(o.n ? o.n : 1, sizeof(*c));
	if (!c) {
		free(o.v);
		return;
	}
	for (size_t i = 0; i < o.n; i++) {
		if (n == 0 || c[n - 1].uid != o.v[i])
			c[n++] = (struct uid_count){o.v[i], 0};
		c[n - 1].n++;
	}
	free(o.v);
	free(t->v);
	t->v = c;
	t->n = n;
	log_debug("quota: counted the owners of %zu cgroups of %s in %lld us", o.n, h->name, t->walked_us - t0);
}

/*
 * Whose cgroups count against a requester: its own uid's, and for root of a user namespace every uid the
 * namespace maps, since it may hand its cgroups to any of them (which must not take them out of its count).
 */
static bool counts_against(const struct cred *c, uid_t owner)
{
	uint32_t ignored;
	return owner == c->uid || (c->ns_root && c->uidmap && idmap_to_ns(c->uidmap, owner, &ignored));
}

static unsigned long count_against(const struct tally *t, const struct cred *c)
{
	unsigned long n = 0;
	for (size_t i = 0; i < t->n; i++)
		if (counts_against(c, t->v[i].uid))
			n += t->v[i].n;
	return n;
}

/* How many of the parent's ancestors, counting up from it without a gap, count against c. */
static unsigned owned_run(const struct hierarchy *h, const char *parent_rel, const struct cred *c)
{
	_cleanup_close_ int cur = dup(h->root_fd);
	char path[CGNAME_MAX];
	unsigned run = 0;
	struct stat st;

	snprintf(path, sizeof(path), "%s", parent_rel);
	if (cur < 0 || fstat(cur, &st) < 0)
		return 0;
	run = counts_against(c, st.st_uid);
	char *save = NULL;
	for (char *comp = strtok_r(path, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		int next = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 || fstat(next, &st) < 0) {
			if (next >= 0)
				close(next);
			return run;
		}
		close(cur);
		cur = next;
		run = counts_against(c, st.st_uid) ? run + 1 : 0;
	}
	return run;
}

/* The first cgroup of the run is what the uid was given: its children are at depth 1. */
static int check_depth(const struct quotas *q, const struct hierarchy *h, const char *parent_rel,
                       const struct cred *c, const char *whose, struct err *e)
{
	unsigned depth;
	if (!q->max_depth || (depth = owned_run(h, parent_rel, c)) <= q->max_depth)
		return 0;
	return err_set(e, ERR_LIMIT, "%s:/%s%s...: %s may nest cgroups %u deep below what it was given; this would be "
	               "%u deep (cgmanager --max-depth)", h->name, parent_rel, *parent_rel ? "/" : "", whose,
	               q->max_depth, depth);
}

int quota_check_create(struct quotas *q, const struct requester *r, const struct hierarchy *h, const char *parent_rel,
                       struct err *e)
{
	const struct cred *c = &r->cred;
	char whose[96];
	if (!q || policy_is_host_root(c))
		return 0;
	snprintf(whose, sizeof(whose), c->ns_root ? "uid %u and the uids its user namespace maps" : "uid %u",
	         (unsigned)c->uid);
	/* The count first: it is in memory, and a uid at its limit is refused without a walk of its path. */
	if (!q->max_cgroups)
		return check_depth(q, h, parent_rel, c, whose, e);
	struct tally *t = tally_of(q, h);
	if (!t)
		return err_set(e, ERR_LIMIT, "out of memory");
	if (!t->walked_us)
		recount(t, h);
	unsigned long n = count_against(t, c);
	/* At the limit, cgroups removed behind the daemon's back may have made room: counted again, not too often. */
	if (n >= q->max_cgroups && now_us() >= t->next_us) {
		recount(t, h);
		n = count_against(t, c);
	}
	if (n >= q->max_cgroups)
		return err_set(e, ERR_LIMIT, "%s own%s %lu cgroups in %s, %s limit (cgmanager --max-cgroups-per-uid; "
		               "cgroups removed directly on cgroupfs are counted out at the next count, in %lld ms at most)",
		               whose, c->ns_root ? "" : "s", n, h->name, c->ns_root ? "their" : "its",
		               (t->next_us - now_us()) / 1000 + 1);
	return check_depth(q, h, parent_rel, c, whose, e);
}

/* Counts change only once counted: before the first walk of h there is nothing to keep up. */
static void note(struct quotas *q, const struct hierarchy *h, uid_t uid, long delta)
{
	struct tally *t;
	struct uid_count *c;
	if (!q || !q->max_cgroups || !(t = tally_of(q, h)) || !t->walked_us || !(c = count_of(t, uid, delta > 0)))
		return;
	if (delta > 0 || c->n > 0)
		c->n += (unsigned long)delta;
}

void quota_note_created(struct quotas *q, const struct requester *r, const struct hierarchy *h)
{
	note(q, h, r->cred.uid, 1);
}

void quota_note_removed(struct quotas *q, const struct hierarchy *h, uid_t owner)
{
	note(q, h, owner, -1);
}

void quota_note_chowned(struct quotas *q, const struct hierarchy *h, uid_t from, uid_t to)
{
	if (from == to)
		return;
	note(q, h, from, -1);
	note(q, h, to, 1);
}

/* Lowers a cgroup2 limit file to max unless it is lower already. */
static int lower_limit(int cgfd, const char *file, unsigned max, struct err *e)
{
	_cleanup_free_ char *cur = NULL;
	char value[16];
	int r = cgdir_read(cgfd, file, &cur);
	if (r < 0)
		return r == -ENOENT ? 0 : err_errno(e, -r, "cannot read %s", file);
	if (strncmp(cur, "max", 3) != 0 && strtoul(cur, NULL, 10) <= max)
		return 0;
	snprintf(value, sizeof(value), "%u", max);
	if ((r = cgdir_write(cgfd, file, value)) < 0)
		return err_errno(e, -r, "cannot set %s to %s", file, value);
	return 0;
}

int quota_limit_delegated(const struct quotas *q, int cgfd, struct err *e)
{
	if (!q)
		return 0;
	if (q->max_cgroups && lower_limit(cgfd, "cgroup.max.descendants", q->max_cgroups, e) < 0)
		return -1;
	if (q->max_depth && lower_limit(cgfd, "cgroup.max.depth", q->max_depth, e) < 0)
		return -1;
	return 0;
}
