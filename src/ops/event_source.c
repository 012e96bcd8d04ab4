#include "ops/event_source.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgfs/cgdir.h"
#include "cgfs/cgtree.h"
#include "util/cgname.h"
#include "util/cleanup.h"
#include "util/list.h"
#include "util/log.h"

#define WD_BUCKETS 1024
/* What one event_source_process call serves of the notices read: a flood waits for the next turn, behind the clients. */
#define READ_BUDGET 16384
/*
 * What is read of each inotify fd ahead of serving, at most: the kernel's queue (fs.inotify.max_queued_events)
 * is every watch's, and its overflow drops every user's notices, so it is emptied in each turn.
 */
#define QUEUED_MAX (4u << 20)
#define READ_CHUNK 65536
/* Nodes read again per call after an overflow. */
#define RESYNC_NODES 256
/* How often an overflow is logged at most: a user's churn can cause them. */
#define OVERFLOW_LOG_USEC (10ULL * 1000000ULL)
#define EPOLL_BATCH 16
/* The epoll keys of the two inotify fds and of the flag of work left; an eventfd's key is its fd number. */
#define KEY_INOTIFY UINT64_MAX
#define KEY_PARENTS (UINT64_MAX - 1)
#define KEY_PENDING (UINT64_MAX - 2)
/* How often a descendant a watch does not follow is logged at most (the rest are counted): any user makes them. */
#define UNFOLLOWED_LOG_USEC (10ULL * 1000000ULL)
/*
 * v1's emptiness is a walk of the cgroup's subtree, which its owner can make as deep as it likes: one check enters
 * at most POPULATED_VISITS cgroups (past them the last answer stands), and one call into the source at most
 * TURN_VISITS, the rest left to the next turn of the serving loop.
 */
#define POPULATED_VISITS 256
#define TURN_VISITS POPULATED_VISITS
/*
 * A round of the once-a-second checks that is not over after this long (one account's many checks) gives way to
 * a new one, in which each account's checks again come in turn, those it has not had the longest first.
 */
#define ROUND_USEC 1000000ULL
/*
 * An event is told only if its subscriber may list every cgroup from the watched one down (may_list_down_to),
 * for each watch that takes it: TURN_CHECKS such checks of one cgroup per call into the source (the notices left
 * wait for the next turn). Each directory is opened once per call (LEVELS_MAX at most kept; owner and mode are
 * read again at each check), and watches whose subscribers have the same rights share one answer per event
 * (SHARED_MAX such answers per event).
 */
#define TURN_CHECKS 4096
#define LEVEL_BUCKETS 256
#define LEVELS_MAX 1024
#define SHARED_MAX 16

enum node_file { NF_DIR, NF_CGROUP_EVENTS, NF_MEMORY_EVENTS, NF_PIDS_EVENTS, NF_COUNT };
static const char *const file_name[NF_COUNT] = {"", "cgroup.events", "memory.events", "pids.events"};
static const enum event_file file_kind[NF_COUNT] = {EVF_CGROUP_EVENTS, EVF_CGROUP_EVENTS, EVF_MEMORY_EVENTS,
                                                    EVF_PIDS_EVENTS};

/* A watch's hold on a node: the events it takes there, and where its own name ends in the node's rel. */
struct ref {
	struct watch *w;
	unsigned roles;
	size_t base_len; /* the length of the watched cgroup's rel in this hierarchy */
	bool top;        /* the watched cgroup itself, not a descendant */
	bool listed;     /* the subscriber could list the way down to it when last asked (may_list_down_to) */
	unsigned listed_at; /* the watch's held.attribs then */
	bool grown;         /* it appeared after the watch was made: charged to its WB_GROWN budget */
};

struct node {
	struct hierarchy *h;
	char *rel;
	ino_t ino;
	int wd[NF_COUNT];
	int oom_efd;         /* v1 memory: the eventfd of memory.oom_control; -1 */
	bool poll_populated; /* v1: emptiness is checked once a second */
	bool poll_pids;      /* v1: pids.events too (the kernel notifies of it on cgroup2 only) */
	unsigned tick_round; /* the last round of once-a-second checks that checked it */
	unsigned fair_rank;  /* its place in the round's order (tick_schedule) */
	bool scheduled;      /* in the round's order: freed only once the round is over */
	unsigned resync_round; /* the last reading again after an overflow that read it */
	int parent_wd;       /* its parent directory's, in the parents' inotify instance; -1 */
	bool dead;           /* gone, freed by reap() */
	struct event_state st;
	struct ref *refs;
	size_t nrefs;
	struct node *prev, *next;
};

/*
 * A node's use of an inotify watch descriptor. inotify gives one descriptor per inode: v1 lets a cgroup's owner
 * rename it, and a node of its new name can be made before the rename is read, so one descriptor may have more
 * than one slot, one per node (and file), and the kernel's watch is removed with the last of them.
 */
struct wd_slot {
	int wd;
	struct node *n;
	enum node_file f;
	struct wd_slot *next;
};

/*
 * A directory whose child cgroups are followed: cgroupfs reports a cgroup's rmdir only to its parent
 * (IN_DELETE), not to the cgroup itself. A separate inotify instance, so that these watches and the nodes' own
 * (the same directory may be both) keep their own masks. Its children are its nodes' parent_wd, not names: a
 * directory renamed keeps its descriptor, and one descriptor is one directory whatever name it was first seen by.
 */
struct parent_slot {
	int wd;
	unsigned refs;
	struct hierarchy *h;
	struct parent_slot *next;
};

/* A cgroup directory opened in this call into the source, by its name, kept for the checks of the call. */
struct level {
	const struct hierarchy *h;
	char *rel;
	int fd;
	struct level *next;
};

/* Notices read from an inotify fd, not served yet: from head to len. */
struct queued {
	char *buf;
	size_t head, len, cap;
};

/* w->src: the nodes w holds, and how many changes of their directories' owner or mode it saw (IN_ATTRIB). */
struct held {
	struct node **v;
	size_t n;
	unsigned attribs;
};

struct event_source {
	struct watch_registry *reg;
	int epfd, ifd, pfd;
	int pending_efd; /* readable while notices read or nodes to read again wait for the next turn */
	bool pending_set;
	struct queued iq, pq; /* of ifd and pfd */
	bool resync_open;     /* a reading again after an overflow is under way */
	unsigned resync_round;
	struct log_limit overflows;
	struct node *nodes;
	struct wd_slot *wds[WD_BUCKETS];
	struct parent_slot *parents[WD_BUCKETS];
	event_sink_fn sink;
	void *sink_ctx;
	event_may_fn may;
	event_same_fn same;
	struct level *levels[LEVEL_BUCKETS];
	unsigned nlevels;
	unsigned checks;             /* checks of a cgroup this call into the source may still make */
	unsigned busy;               /* inside a walk of the nodes: dead ones are freed once it is over */
	struct log_limit unfollowed; /* descendants not followed, of every watch */
	unsigned visits;             /* cgroups this call into the source may still enter to check emptiness */
	unsigned tick_round;         /* the round of once-a-second checks under way */
	bool round_open;             /* it is not over: the next tick goes on with it */
	uint64_t round_start;        /* CLOCK_MONOTONIC us */
	struct node **sched;         /* the round's nodes, in the order they are checked */
	size_t sched_n, sched_at;
	bool cut;                    /* the last emptiness check ran out of the turn's visits: it is made again */
};

static uint64_t clock_us(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

static uint64_t realtime_us(void)
{
	return clock_us(CLOCK_REALTIME);
}

/* --- inotify watch descriptors, by number --- */

static struct wd_slot **wd_bucket(struct event_source *es, int wd)
{
	return &es->wds[(unsigned)wd % WD_BUCKETS];
}

static bool wd_used(struct event_source *es, int wd)
{
	for (struct wd_slot *s = *wd_bucket(es, wd); s; s = s->next)
		if (s->wd == wd)
			return true;
	return false;
}

static int wd_put(struct event_source *es, int wd, struct node *n, enum node_file f)
{
	struct wd_slot *s = malloc(sizeof(*s));
	if (!s)
		return -1;
	*s = (struct wd_slot){.wd = wd, .n = n, .f = f, .next = *wd_bucket(es, wd)};
	*wd_bucket(es, wd) = s;
	return 0;
}

/* Drops n's slot of wd: whether another node still uses the descriptor (then the kernel's watch stays). */
static bool wd_drop(struct event_source *es, int wd, const struct node *n)
{
	bool shared = false;
	for (struct wd_slot **p = wd_bucket(es, wd); *p;) {
		struct wd_slot *s = *p;
		if (s->wd == wd && s->n == n) {
			*p = s->next;
			free(s);
		} else {
			shared |= s->wd == wd;
			p = &s->next;
		}
	}
	return shared;
}

/* --- the source --- */

struct event_source *event_source_new(struct watch_registry *reg, struct err *e)
{
	struct event_source *es = calloc(1, sizeof(*es));
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = KEY_INOTIFY};
	struct epoll_event pev = {.events = EPOLLIN, .data.u64 = KEY_PARENTS};
	struct epoll_event qev = {.events = EPOLLIN, .data.u64 = KEY_PENDING};
	if (!es) {
		err_set(e, ERR_LIMIT, "out of memory");
		return NULL;
	}
	es->reg = reg;
	es->epfd = epoll_create1(EPOLL_CLOEXEC);
	es->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	es->pfd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	es->pending_efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (es->epfd < 0 || es->ifd < 0 || es->pfd < 0 || es->pending_efd < 0 ||
	    epoll_ctl(es->epfd, EPOLL_CTL_ADD, es->ifd, &ev) < 0 || epoll_ctl(es->epfd, EPOLL_CTL_ADD, es->pfd, &pev) < 0 ||
	    epoll_ctl(es->epfd, EPOLL_CTL_ADD, es->pending_efd, &qev) < 0) {
		err_errno(e, errno, "cannot set up the watch of cgroup events");
		event_source_free(es);
		return NULL;
	}
	return es;
}

static struct parent_slot **parent_bucket(struct event_source *es, int wd)
{
	return &es->parents[(unsigned)wd % WD_BUCKETS];
}

static struct parent_slot *parent_find(struct event_source *es, int wd)
{
	for (struct parent_slot *p = *parent_bucket(es, wd); p; p = p->next)
		if (p->wd == wd)
			return p;
	return NULL;
}

/* n's parent directory is watched for n's removal or renaming (not for the daemon's root, which has neither). */
static int parent_hold(struct event_source *es, struct node *n, struct err *e)
{
	char prel[CGNAME_MAX], path[64];
	char *slash;
	if (!*n->rel)
		return 0;
	snprintf(prel, sizeof(prel), "%s", n->rel);
	slash = strrchr(prel, '/');
	if (slash)
		*slash = '\0';
	else
		prel[0] = '\0';
	_cleanup_close_ int pfd = cgdir_open_beneath(n->h->root_fd, prel);
	if (pfd < 0)
		return err_errno(e, -pfd, "cannot open the parent of %s:/%s", n->h->name, n->rel);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", pfd);
	int wd = inotify_add_watch(es->pfd, path, IN_DELETE | IN_MOVED_FROM | IN_MOVE_SELF | IN_ONLYDIR);
	if (wd < 0)
		return err_set(e, errno == ENOSPC ? ERR_LIMIT : ERR_FAILED, "cannot watch the parent of %s:/%s: %s%s",
		               n->h->name, n->rel, strerror(errno),
		               errno == ENOSPC ? " (the kernel's fs.inotify.max_user_watches is reached)" : "");
	struct parent_slot *p = parent_find(es, wd);
	if (!p) {
		if (!(p = calloc(1, sizeof(*p)))) {
			inotify_rm_watch(es->pfd, wd);
			return err_set(e, ERR_LIMIT, "out of memory");
		}
		*p = (struct parent_slot){.wd = wd, .h = n->h, .next = *parent_bucket(es, wd)};
		*parent_bucket(es, wd) = p;
	}
	p->refs++;
	n->parent_wd = wd;
	return 0;
}

static void parent_release(struct event_source *es, struct node *n)
{
	struct parent_slot *p = n->parent_wd >= 0 ? parent_find(es, n->parent_wd) : NULL;
	n->parent_wd = -1;
	if (!p || --p->refs)
		return;
	inotify_rm_watch(es->pfd, p->wd);
	for (struct parent_slot **pp = parent_bucket(es, p->wd); *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	free(p);
}

static void node_free(struct event_source *es, struct node *n)
{
	LIST_REMOVE(es->nodes, n, prev, next);
	free(n->refs);
	free(n->rel);
	free(n);
}

/* The kernel's side of n ends; n itself is freed once no walk of the nodes is under way. */
static void node_release(struct event_source *es, struct node *n)
{
	if (n->dead)
		return;
	for (int f = 0; f < NF_COUNT; f++)
		if (n->wd[f] >= 0) {
			if (!wd_drop(es, n->wd[f], n))
				inotify_rm_watch(es->ifd, n->wd[f]);
			n->wd[f] = -1;
		}
	if (n->oom_efd >= 0) {
		epoll_ctl(es->epfd, EPOLL_CTL_DEL, n->oom_efd, NULL);
		close(n->oom_efd);
		n->oom_efd = -1;
	}
	parent_release(es, n);
	n->nrefs = 0;
	n->dead = true;
}

static void reap(struct event_source *es)
{
	if (es->busy)
		return;
	for (struct node *n = es->nodes, *next; n; n = next) {
		next = n->next;
		if (n->dead && !n->scheduled)
			node_free(es, n);
	}
}

void event_source_free(struct event_source *es)
{
	if (!es)
		return;
	es->busy = 0;
	for (struct node *n = es->nodes; n; n = n->next) {
		node_release(es, n);
		n->scheduled = false;
	}
	free(es->sched);
	reap(es);
	if (es->ifd >= 0)
		close(es->ifd);
	if (es->pfd >= 0)
		close(es->pfd);
	if (es->pending_efd >= 0)
		close(es->pending_efd);
	free(es->iq.buf);
	free(es->pq.buf);
	if (es->epfd >= 0)
		close(es->epfd);
	free(es);
}

void event_source_set_sink(struct event_source *es, event_sink_fn fn, void *ctx)
{
	es->sink = fn;
	es->sink_ctx = ctx;
}

void event_source_set_policy(struct event_source *es, event_may_fn fn, event_same_fn same)
{
	es->may = fn;
	es->same = same;
}

int event_source_fd(const struct event_source *es)
{
	return es->epfd;
}

/* --- what a node reports --- */

/* The name of n for w's subscriber: the name it watched, and beneath it the descendant's path. */
static void event_name(const struct node *n, const struct ref *r, char *out, size_t len)
{
	const char *below = n->rel + r->base_len;
	if (*below == '/')
		below++;
	size_t wlen = strlen(r->w->name);
	if (!*below)
		snprintf(out, len, "%s", r->w->name);
	else if (!wlen || r->w->name[wlen - 1] == '/') /* "" or "/", the subscriber's own cgroup: no second slash */
		snprintf(out, len, "%s%s", r->w->name, below);
	else
		snprintf(out, len, "%s/%s", r->w->name, below);
}

static bool takes(const struct ref *r, enum event_kind k)
{
	return r->roles & r->w->mask & EV_BIT(k);
}

static void emit(struct event_source *es, const struct node *n, const struct ref *r, enum event_kind k, uint64_t count)
{
	char name[2 * CGNAME_MAX];
	if (!es->sink || !takes(r, k))
		return;
	event_name(n, r, name, sizeof(name));
	es->sink(es->sink_ctx, r->w, name, k, count, realtime_us());
}

static struct level **level_bucket(struct event_source *es, const struct hierarchy *h, const char *rel)
{
	uint64_t x = 1469598103934665603ULL ^ (uintptr_t)h;
	for (const char *p = rel; *p; p++)
		x = (x ^ (unsigned char)*p) * 1099511628211ULL;
	return &es->levels[x % LEVEL_BUCKETS];
}

/*
 * The directory of the cgroup rel of h, opened in this call if it was not yet: from parent (the directory above
 * it, open) by its last name, or from the root when parent < 0. *owned: the caller closes it (the call keeps
 * LEVELS_MAX at most). -errno when it is gone.
 */
static int level_open(struct event_source *es, const struct hierarchy *h, const char *rel, int parent, bool *owned)
{
	struct level **b = level_bucket(es, h, rel), *l;
	const char *name = strrchr(rel, '/');
	*owned = false;
	for (l = *b; l; l = l->next)
		if (l->h == h && strcmp(l->rel, rel) == 0)
			return l->fd;
	int fd = parent >= 0 ? cgdir_open_beneath(parent, name ? name + 1 : rel) : cgdir_open_beneath(h->root_fd, rel);
	if (fd < 0 || es->nlevels >= LEVELS_MAX || !(l = malloc(sizeof(*l))) || !(l->rel = strdup(rel))) {
		if (fd >= 0 && es->nlevels < LEVELS_MAX)
			free(l);
		*owned = fd >= 0;
		return fd;
	}
	*l = (struct level){.h = h, .rel = l->rel, .fd = fd, .next = *b};
	*b = l;
	es->nlevels++;
	return fd;
}

/* The directories opened in this call are closed: the next call opens them by their names again. */
static void levels_flush(struct event_source *es)
{
	for (size_t i = 0; i < LEVEL_BUCKETS && es->nlevels; i++)
		while (es->levels[i]) {
			struct level *l = es->levels[i];
			es->levels[i] = l->next;
			close(l->fd);
			free(l->rel);
			free(l);
			es->nlevels--;
		}
}

/* A new call into the source: its budgets, and directories opened by their names anew. */
static void turn_begin(struct event_source *es)
{
	es->visits = TURN_VISITS;
	es->checks = TURN_CHECKS;
	levels_flush(es);
}

/* Whether r's subscriber may list the cgroup rel of h, open at fd, now: 1, 0, or -1 when it is gone (fd < 0). */
static int may_list_at(struct event_source *es, const struct ref *r, const struct hierarchy *h, int fd, const char *rel)
{
	char what[CGNAME_MAX + 64];
	struct stat st;
	if (es->checks)
		es->checks--;
	if (fd < 0 || fstat(fd, &st) < 0)
		return -1;
	snprintf(what, sizeof(what), "%s:/%s", h->name, rel);
	return es->may(r->w, &st, EVR_LIST, what) ? 1 : 0;
}

/*
 * Whether r's subscriber may now list every cgroup from the one it watched down to the first len bytes of n's
 * rel (n itself when that is all of it), as a Watch of that cgroup would need; the name of each is in the
 * event, and the event tells what the last one's files say. 1, 0, or -1 when one of them is gone (n itself: or
 * made again). Each is opened from the one above it: the watched cgroup may be deep.
 */
static int may_list_down_to(struct event_source *es, const struct node *n, const struct ref *r, size_t len)
{
	char rel[CGNAME_MAX];
	size_t at = r->base_len; /* the end of the cgroup asked about */
	int fd = -1;
	bool owned = false;
	struct stat st;
	if (!es->may)
		return 1;
	snprintf(rel, sizeof(rel), "%.*s", (int)len, n->rel);
	for (;;) {
		char c = rel[at];
		rel[at] = '\0';
		bool parent_owned = owned;
		int next = level_open(es, n->h, rel, at == r->base_len ? -1 : fd, &owned);
		if (parent_owned)
			close(fd);
		fd = next;
		int v = may_list_at(es, r, n->h, fd, rel);
		rel[at] = c;
		if (v >= 0 && at == strlen(n->rel) && (fstat(fd, &st) < 0 || st.st_ino != n->ino))
			v = -1;
		if (v <= 0 || at >= len) {
			if (owned)
				close(fd);
			return v;
		}
		size_t start = at ? at + 1 : 0;
		const char *slash = strchr(rel + start, '/');
		at = slash ? (size_t)(slash - rel) : len;
	}
}

/* Whether r's subscriber may read now the file n's event k counts in (GetValue's rule); true for uncounted events. */
static bool may_read_count(struct event_source *es, const struct node *n, const struct ref *r, enum event_kind k)
{
	const char *file = event_counter_file(k, n->h->unified);
	char what[CGNAME_MAX + 128];
	struct stat st;
	bool owned;
	if (!file || !es->may)
		return true;
	int fd = level_open(es, n->h, n->rel, -1, &owned);
	int r2 = fd < 0 ? -1 : cgdir_stat(fd, file, &st);
	if (owned)
		close(fd);
	if (es->checks)
		es->checks--;
	if (r2 < 0)
		return false;
	snprintf(what, sizeof(what), "%s:/%s %s", n->h->name, n->rel, file);
	return es->may(r->w, &st, EVR_READ, what);
}

/* One answer of may_list_down_to for an event, for each watch of the same cgroup whose subscriber has the same rights. */
struct shared {
	const struct watch *w;
	size_t base_len;
	int listed;
};

static int shared_listed(struct event_source *es, const struct node *n, const struct ref *r, struct shared *seen,
                         size_t *nseen)
{
	for (size_t i = 0; i < *nseen; i++)
		if (seen[i].base_len == r->base_len && es->same && es->same(seen[i].w, r->w))
			return seen[i].listed;
	int listed = may_list_down_to(es, n, r, strlen(n->rel));
	if (*nseen < SHARED_MAX)
		seen[(*nseen)++] = (struct shared){.w = r->w, .base_len = r->base_len, .listed = listed};
	return listed;
}

/* n's files were read again into after: what changed goes to each watch that takes it and may be told of it. */
static void node_update(struct event_source *es, struct node *n, const struct event_state *after)
{
	struct event_change ch[EV_KINDS];
	struct shared seen[SHARED_MAX];
	size_t k = event_state_changes(&n->st, after, ch), nseen = 0;
	n->st = *after;
	for (size_t j = 0; j < n->nrefs && k; j++) {
		struct ref *r = &n->refs[j];
		int listed = -2; /* not asked yet: most changes are of events a watch does not take */
		for (size_t i = 0; i < k; i++) {
			if (!takes(r, ch[i].kind))
				continue;
			if (listed == -2 && (listed = shared_listed(es, n, r, seen, &nseen)) >= 0) {
				r->listed = listed;
				r->listed_at = ((const struct held *)r->w->src)->attribs;
			}
			if (listed == 1 && may_read_count(es, n, r, ch[i].kind))
				emit(es, n, r, ch[i].kind, ch[i].count);
		}
	}
}

static void read_file(int fd, enum node_file f, struct event_state *st)
{
	_cleanup_free_ char *text = NULL;
	if (cgdir_read(fd, file_name[f], &text) >= 0)
		event_state_parse(st, file_kind[f], text);
}

/* v1's memory.oom_control and freezer.state, which no inotify event announces. */
static void read_v1_files(int fd, struct node *n, struct event_state *st)
{
	_cleanup_free_ char *text = NULL, *state = NULL;
	if (n->oom_efd >= 0 && cgdir_read(fd, "memory.oom_control", &text) >= 0)
		event_state_parse(st, EVF_OOM_CONTROL, text);
	if (!n->h->unified && cgdir_read(fd, "freezer.state", &state) >= 0)
		st->frozen = strncmp(state, "FROZEN", 6) == 0;
}

/* Whether the v1 cgroup open at fd has a task beneath it, within this call's visits; -EAGAIN: not known yet. */
static int populated_now(struct event_source *es, int fd)
{
	unsigned visits = es->visits < POPULATED_VISITS ? es->visits : POPULATED_VISITS, left = visits;
	int p = cgtree_populated_within(fd, &left);
	es->visits -= visits - left;
	es->cut = p == -EAGAIN && visits < POPULATED_VISITS;
	return p;
}

/* The once-a-second state of a v1 node: its emptiness where the watches want it, its oom_kill count. */
static void read_polled(struct event_source *es, int fd, struct node *n, struct event_state *st)
{
	if (n->poll_populated) {
		int p = populated_now(es, fd);
		if (p >= 0)
			st->populated = p;
	}
	if (n->oom_efd >= 0) {
		_cleanup_free_ char *text = NULL;
		if (cgdir_read(fd, "memory.oom_control", &text) >= 0)
			event_state_parse(st, EVF_OOM_CONTROL, text);
	}
	if (n->poll_pids)
		read_file(fd, NF_PIDS_EVENTS, st);
}

/* Whether r's watch asked to be told of emptiness there: only those cost the daemon v1's walks. */
static bool wants_emptiness(const struct ref *r)
{
	return takes(r, EV_POPULATED) || takes(r, EV_EMPTY);
}

/* What a v1 node needs checked once a second. */
static bool polled(const struct node *n)
{
	return !n->dead && (n->poll_populated || n->poll_pids || n->oom_efd >= 0);
}

/* --- following a cgroup --- */

static int watch_path(struct event_source *es, int fd, const char *file, uint32_t mask, int *wd, struct err *e,
                      const char *what)
{
	char path[64 + CGNAME_MAX];
	snprintf(path, sizeof(path), "/proc/self/fd/%d%s%s", fd, *file ? "/" : "", file);
	*wd = inotify_add_watch(es->ifd, path, mask);
	if (*wd >= 0 || errno == ENOENT)
		return 0;
	if (errno == ENOSPC)
		return err_set(e, ERR_LIMIT,
		               "cannot watch %s%s%s: the kernel's limit of inotify watches "
		               "(fs.inotify.max_user_watches) is reached",
		               what, *file ? "/" : "", file);
	return err_errno(e, errno, "cannot watch %s%s%s", what, *file ? "/" : "", file);
}

/*
 * memory.oom_control's notification (v1): an eventfd the kernel signals on each OOM and when the cgroup goes.
 * *dying: refused because the cgroup is being removed (its directory may still be there).
 */
static int watch_oom_control(struct event_source *es, int fd, struct node *n, bool *dying, struct err *e,
                             const char *what)
{
	_cleanup_close_ int cfd = openat(fd, "memory.oom_control", O_RDONLY | O_CLOEXEC);
	char line[64];
	if (cfd < 0)
		return 0; /* not a memory hierarchy */
	n->oom_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (n->oom_efd < 0)
		return err_errno(e, errno, "cannot make an eventfd for %s/memory.oom_control", what);
	snprintf(line, sizeof(line), "%d %d", n->oom_efd, cfd);
	int r = cgdir_write(fd, "cgroup.event_control", line);
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = (uint64_t)n->oom_efd};
	if (r < 0 || epoll_ctl(es->epfd, EPOLL_CTL_ADD, n->oom_efd, &ev) < 0) {
		r = r < 0 ? -r : errno;
		*dying = r == ENODEV || r == ENOENT;
		close(n->oom_efd);
		n->oom_efd = -1;
		return err_errno(e, r, "cannot register for OOM notices of %s through cgroup.event_control", what);
	}
	n->st.oom = 0; /* v1 counts no OOMs: the count is of those seen since the watch began */
	return 0;
}

static struct node *node_find(struct event_source *es, const struct hierarchy *h, const char *rel, ino_t ino)
{
	for (struct node *n = es->nodes; n; n = n->next)
		if (!n->dead && n->h == h && n->ino == ino && strcmp(n->rel, rel) == 0)
			return n;
	return NULL;
}

/* Whether rel in h is still the directory of inode ino: not removed, nor removed and made again. */
/* The cgroup at rel, opened, if it is still the one of inode ino (not removed, nor made again); else -1. */
static int open_same(const struct hierarchy *h, const char *rel, ino_t ino)
{
	int fd = cgdir_open_beneath(h->root_fd, rel);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_ino != ino)) {
		close(fd);
		return -1;
	}
	return fd;
}

static bool still_there(const struct hierarchy *h, const char *rel, ino_t ino)
{
	_cleanup_close_ int fd = open_same(h, rel, ino);
	return fd >= 0;
}

/*
 * The node of the cgroup open at fd, made (and its files watched) if none follows it yet. NULL with *gone set
 * when the cgroup was removed before its parent was watched (no removal would ever be reported) or while its
 * watches were set up: e says only what failed then.
 */
static struct node *node_get(struct event_source *es, struct hierarchy *h, const char *rel, int fd, bool *gone,
                             struct err *e)
{
	char what[CGNAME_MAX + 64];
	struct stat st;
	struct node *n;
	int r = 0;

	*gone = false;
	if (fstat(fd, &st) < 0) {
		err_errno(e, errno, "cannot stat %s:/%s", h->name, rel);
		return NULL;
	}
	if ((n = node_find(es, h, rel, st.st_ino)))
		return n;
	if (!(n = calloc(1, sizeof(*n))) || !(n->rel = strdup(rel))) {
		free(n);
		err_set(e, ERR_LIMIT, "out of memory");
		return NULL;
	}
	n->h = h;
	n->ino = st.st_ino;
	n->oom_efd = -1;
	n->parent_wd = -1;
	event_state_init(&n->st);
	for (int f = 0; f < NF_COUNT; f++)
		n->wd[f] = -1;
	LIST_PREPEND(es->nodes, n, prev, next);
	snprintf(what, sizeof(what), "%s:/%s", h->name, rel);
	for (int f = 0; f < NF_COUNT && r == 0; f++) {
		uint32_t mask =
		    f == NF_DIR ? IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ATTRIB | IN_ONLYDIR : IN_MODIFY;
		r = watch_path(es, fd, file_name[f], mask, &n->wd[f], e, what);
		if (r == 0 && n->wd[f] >= 0 && wd_put(es, n->wd[f], n, f) < 0) {
			if (!wd_used(es, n->wd[f]))
				inotify_rm_watch(es->ifd, n->wd[f]);
			n->wd[f] = -1;
			r = err_set(e, ERR_LIMIT, "out of memory");
		}
		if (r == 0 && f != NF_DIR)
			read_file(fd, f, &n->st);
	}
	if (r == 0)
		r = parent_hold(es, n, e);
	/* Its removal from here on is reported (IN_DELETE to the parent); one before, only seen here. */
	*gone = r == 0 && !still_there(h, rel, n->ino);
	if (*gone) {
		node_release(es, n);
		return NULL;
	}
	bool dying = false;
	if (r == 0 && !h->unified)
		r = watch_oom_control(es, fd, n, &dying, e, what);
	if (r == 0)
		read_v1_files(fd, n, &n->st);
	n->poll_pids = !h->unified && n->wd[NF_PIDS_EVENTS] >= 0;
	if (r < 0) {
		/* Removed while its watches were set up (its parent, its cgroup.event_control gone): nothing to follow. */
		*gone = dying || !still_there(h, rel, n->ino);
		node_release(es, n);
		return NULL;
	}
	return n;
}

static int held_push(struct watch *w, struct node *n)
{
	struct held *hd = w->src;
	struct node **v = realloc(hd->v, (hd->n + 1) * sizeof(*v));
	if (!v)
		return -1;
	hd->v = v;
	v[hd->n++] = n;
	return 0;
}

static bool holds(const struct node *n, const struct watch *w)
{
	for (size_t i = 0; i < n->nrefs; i++)
		if (n->refs[i].w == w)
			return true;
	return false;
}

/* w follows the cgroup open at fd, charged one unit. 1 if it already did or may not, 0, or -1. */
static int follow(struct event_source *es, struct watch *w, struct hierarchy *h, const char *rel, int fd,
                  const struct ref *tmpl, struct err *e)
{
	char what[CGNAME_MAX + 64];
	snprintf(what, sizeof(what), "%s:/%s", h->name, rel);
	/* Watch checked the watched cgroup itself; a descendant the subscriber may not list is left out. */
	struct stat st;
	if (!tmpl->top && es->may && (fstat(fd, &st) < 0 || !es->may(w, &st, EVR_LIST, what)))
		return 1;
	bool gone;
	struct node *n = node_get(es, h, rel, fd, &gone, e);
	if (!n && gone && tmpl->top)
		return err_set(e, ERR_NOT_FOUND, "%s was removed while the watch was being set up", what);
	if (!n)
		return gone ? 1 : -1;
	if (holds(n, w))
		return 1;
	struct ref *refs = realloc(n->refs, (n->nrefs + 1) * sizeof(*refs));
	if (refs)
		n->refs = refs;
	if (!refs || held_push(w, n) < 0) {
		if (!n->nrefs)
			node_release(es, n);
		return err_set(e, ERR_LIMIT, "out of memory");
	}
	if (watch_charge(es->reg, w, tmpl->grown ? WB_GROWN : WB_ASKED, 1, e) < 0) {
		((struct held *)w->src)->n--;
		if (!n->nrefs)
			node_release(es, n);
		return -1;
	}
	n->refs[n->nrefs++] = *tmpl;
	n->refs[n->nrefs - 1].w = w;
	n->refs[n->nrefs - 1].listed = true;
	n->refs[n->nrefs - 1].listed_at = ((const struct held *)w->src)->attribs;
	if (!h->unified && wants_emptiness(&n->refs[n->nrefs - 1]) && !n->poll_populated) {
		n->poll_populated = true;
		int p = populated_now(es, fd);
		n->st.populated = p < 0 ? -1 : p; /* not known yet: the next check finds it, untold */
	}
	return 0;
}

static bool skipped_child(const char *name)
{
	return strcmp(name, CGROUP2_TASK_LEAF) == 0 || strcmp(name, DAEMON_LEAF) == 0;
}

/* How many levels rel is beneath the watched cgroup, whose rel is its first base_len bytes. */
static unsigned levels_below(const char *rel, size_t base_len)
{
	unsigned d = base_len == 0 && *rel;
	for (const char *p = rel + base_len; *p; p++)
		d += *p == '/';
	return d;
}

/* w follows every descendant of rel (already followed) in h: a walk by names, one directory open at a time. */
static int follow_descendants(struct event_source *es, struct watch *w, struct hierarchy *h, const char *rel,
                              const struct ref *tmpl, struct err *e)
{
	strv todo = {0};
	int rc = strv_push(&todo, rel) < 0 ? err_set(e, ERR_LIMIT, "out of memory") : 0;
	for (size_t i = 0; rc == 0 && i < todo.n; i++) {
		_cleanup_close_ int fd = cgdir_open_beneath(h->root_fd, todo.v[i]);
		strv kids = {0};
		if (fd < 0)
			continue; /* gone meanwhile */
		if (i > 0 && (rc = follow(es, w, h, todo.v[i], fd, tmpl, e)) != 0) {
			rc = rc > 0 ? 0 : rc;
			if (rc == 0)
				continue; /* followed already, with its descendants */
			break;
		}
		if (cgdir_children(fd, &kids) < 0)
			continue;
		for (size_t k = 0; rc == 0 && k < kids.n; k++) {
			char child[CGNAME_MAX];
			if (skipped_child(kids.v[k]))
				continue;
			if ((size_t)snprintf(child, sizeof(child), "%s%s%s", todo.v[i], *todo.v[i] ? "/" : "", kids.v[k]) >=
			        sizeof(child) ||
			    levels_below(child, tmpl->base_len) > EVENT_SUBTREE_DEPTH)
				continue;
			if (strv_push(&todo, child) < 0)
				rc = err_set(e, ERR_LIMIT, "out of memory");
		}
		strv_free(&kids);
	}
	strv_free(&todo);
	return rc;
}

int event_source_attach(struct event_source *es, struct watch *w, const struct event_place *p, size_t np, struct err *e)
{
	int rc = 0;
	if (!(w->src = calloc(1, sizeof(struct held))))
		return err_set(e, ERR_LIMIT, "out of memory");
	/* The unit Watch charged stands for the first cgroup followed: each is charged here. */
	watch_uncharge(es->reg, w, WB_ASKED, w->charged[WB_ASKED]);
	turn_begin(es);
	es->busy++;
	for (size_t i = 0; rc == 0 && i < np; i++) {
		struct ref tmpl = {.roles = p[i].roles, .base_len = strlen(p[i].rel), .top = true};
		rc = follow(es, w, p[i].h, p[i].rel, p[i].fd, &tmpl, e) < 0 ? -1 : 0;
		tmpl.top = false;
		if (rc == 0 && w->subtree)
			rc = follow_descendants(es, w, p[i].h, p[i].rel, &tmpl, e);
	}
	levels_flush(es);
	es->busy--;
	if (rc < 0)
		event_source_detach(es, w);
	reap(es);
	return rc;
}

static void unhold(struct event_source *es, struct node *n, const struct watch *w)
{
	for (size_t i = 0; i < n->nrefs; i++)
		if (n->refs[i].w == w) {
			n->refs[i] = n->refs[--n->nrefs];
			break;
		}
	if (!n->nrefs) {
		node_release(es, n);
		return;
	}
	/* The emptiness of a cgroup no watch left wants told is checked no more. */
	bool wanted = false;
	for (size_t i = 0; i < n->nrefs && !wanted; i++)
		wanted = wants_emptiness(&n->refs[i]);
	n->poll_populated = n->poll_populated && wanted;
}

void event_source_detach(struct event_source *es, struct watch *w)
{
	struct held *hd = w->src;
	if (!hd)
		return;
	for (size_t i = 0; i < hd->n; i++)
		unhold(es, hd->v[i], w);
	free(hd->v);
	free(hd);
	w->src = NULL;
	reap(es);
}

/* --- what the kernel says --- */

/*
 * Whether r's subscriber may hear that the descendant n was removed: whether it may list its parent, in which
 * its name was, and the way down to it. Where that is gone too (a tree removed at once), what was found the last
 * time it was asked, if no directory the watch follows changed its owner or mode since (else the answer may be
 * stale: not told). The watched cgroup's own removal is always told: the watch ends with it.
 */
static bool may_tell_removed(struct event_source *es, const struct node *n, const struct ref *r)
{
	if (r->top || !takes(r, EV_REMOVED))
		return true;
	const char *slash = strrchr(n->rel, '/');
	int v = may_list_down_to(es, n, r, slash ? (size_t)(slash - n->rel) : 0);
	return v < 0 ? r->listed && r->listed_at == ((const struct held *)r->w->src)->attribs : v == 1;
}

/* n is gone: each watch hears `removed` where it takes it; a watch whose own cgroup it was ends. */
static void node_gone(struct event_source *es, struct node *n)
{
	size_t k = n->nrefs;
	struct ref *refs = k ? malloc(k * sizeof(*refs)) : NULL;
	if (k && !refs)
		k = 0; /* out of memory: the watches keep a dead node, and end with their connection */
	if (refs)
		memcpy(refs, n->refs, k * sizeof(*refs));
	/* What was opened by its name may be gone with it: the checks open their directories anew. */
	levels_flush(es);
	es->busy++;
	node_release(es, n);
	for (size_t i = 0; i < k; i++) {
		struct watch *w = refs[i].w;
		struct held *hd = w->src;
		if (may_tell_removed(es, n, &refs[i]))
			emit(es, n, &refs[i], EV_REMOVED, 0);
		for (size_t j = 0; j < hd->n; j++)
			if (hd->v[j] == n) {
				hd->v[j] = hd->v[--hd->n];
				break;
			}
		watch_uncharge(es->reg, w, refs[i].grown ? WB_GROWN : WB_ASKED, 1);
	}
	/* A watch ends with the cgroup it watched, in the hierarchy that reports its removal. */
	for (size_t i = 0; i < k; i++)
		if (refs[i].top && (refs[i].roles & EV_BIT(EV_REMOVED))) {
			event_source_detach(es, refs[i].w);
			watch_registry_remove(es->reg, refs[i].w);
		}
	free(refs);
	es->busy--;
}

/* A new child cgroup of n: the subtree watches of n follow it and whatever is already beneath it. */
static void node_child(struct event_source *es, struct node *n, const char *name)
{
	char rel[CGNAME_MAX];
	if (skipped_child(name) ||
	    (size_t)snprintf(rel, sizeof(rel), "%s%s%s", n->rel, *n->rel ? "/" : "", name) >= sizeof(rel))
		return;
	_cleanup_close_ int fd = cgdir_open_beneath(n->h->root_fd, rel);
	if (fd < 0)
		return;
	size_t k = n->nrefs;
	for (size_t i = 0; i < k && i < n->nrefs && !n->dead; i++) {
		struct ref tmpl = n->refs[i];
		struct err e = {0};
		/* Nothing beneath a cgroup the subscriber may not list now is followed: its names would be told. */
		if (!tmpl.w->subtree || levels_below(rel, tmpl.base_len) > EVENT_SUBTREE_DEPTH ||
		    may_list_down_to(es, n, &n->refs[i], strlen(n->rel)) != 1)
			continue;
		tmpl.top = false;
		tmpl.grown = true; /* made by whoever may, not asked for by the subscriber: it must not cost its Watches */
		int r = follow(es, tmpl.w, n->h, rel, fd, &tmpl, &e);
		if (r < 0 || (r == 0 && follow_descendants(es, tmpl.w, n->h, rel, &tmpl, &e) < 0)) {
			unsigned times;
			if (log_limit_pass(&es->unfollowed, clock_us(CLOCK_MONOTONIC), UNFOLLOWED_LOG_USEC, &times))
				log_info("watch %u of uid %u does not follow %s:/%s: %s (%u descendant(s) not followed by "
				         "watches since the last such line)",
				         tmpl.w->id, (unsigned)tmpl.w->uid, n->h->name, rel, e.msg, times);
			/* The subscriber hears that it misses events there. */
			if (es->sink)
				es->sink(es->sink_ctx, tmpl.w, tmpl.w->name, EV_LOST, 0, realtime_us());
		}
	}
}

/*
 * The kernel's inotify queue overflowed: what it dropped is read again from every node (RESYNC_NODES per call,
 * resync_step), and a node whose cgroup went meanwhile is gone.
 */
static void resync(struct event_source *es)
{
	unsigned times;
	if (log_limit_pass(&es->overflows, clock_us(CLOCK_MONOTONIC), OVERFLOW_LOG_USEC, &times))
		log_warn("the kernel dropped cgroup events (inotify queue overflow, %u time(s) since the last such line); "
		         "every watched cgroup is read again",
		         times);
	es->resync_round++;
	es->resync_open = true;
}

static void resync_step(struct event_source *es)
{
	unsigned done = 0;
	for (struct node *n = es->nodes; n && es->resync_open; n = n->next) {
		if (n->dead || n->resync_round == es->resync_round)
			continue;
		if (done++ == RESYNC_NODES)
			return;
		n->resync_round = es->resync_round;
		_cleanup_close_ int fd = open_same(n->h, n->rel, n->ino);
		if (fd < 0) {
			node_gone(es, n);
			continue;
		}
		struct event_state after = n->st;
		for (int f = NF_CGROUP_EVENTS; f < NF_COUNT; f++)
			if (n->wd[f] >= 0)
				read_file(fd, f, &after);
		read_polled(es, fd, n, &after);
		node_update(es, n, &after);
	}
	es->resync_open = false;
}

/*
 * The cgroup named rel in h was renamed, or a directory above it was (v1 lets a cgroup's owner rename it within
 * its parent): a watch follows a name, so each node at that name or beneath it that is no longer there is gone,
 * its watches told `removed` of the name they knew; a subtree watch of the parent follows the new name as new.
 */
static void renamed(struct event_source *es, const struct hierarchy *h, const char *name)
{
	char rel[CGNAME_MAX];
	size_t len = (size_t)snprintf(rel, sizeof(rel), "%s", name); /* name may be a node's, and that node end here */
	if (!len)
		return; /* the daemon's root is not renamed */
	for (struct node *m = es->nodes; m; m = m->next)
		if (!m->dead && m->h == h && strncmp(m->rel, rel, len) == 0 && (!m->rel[len] || m->rel[len] == '/') &&
		    !still_there(h, m->rel, m->ino))
			node_gone(es, m);
}

/* A notice of one of n's files (f), or of its directory. */
static void on_node_notice(struct event_source *es, struct node *n, enum node_file f, const struct inotify_event *ev)
{
	if (f == NF_DIR && (ev->mask & (IN_DELETE_SELF | IN_IGNORED))) {
		node_gone(es, n);
	} else if (ev->mask & IN_IGNORED) {
		wd_drop(es, ev->wd, n); /* a file went with its controller; the directory reports the rest */
		n->wd[f] = -1;
	} else if (f == NF_DIR && (ev->mask & IN_MOVE_SELF)) {
		if (!still_there(n->h, n->rel, n->ino))
			renamed(es, n->h, n->rel);
	} else if (f == NF_DIR && (ev->mask & (IN_CREATE | IN_MOVED_TO)) && (ev->mask & IN_ISDIR) && ev->len) {
		node_child(es, n, ev->name);
	} else if (f == NF_DIR && (ev->mask & IN_ATTRIB) && !ev->len) {
		/* Its owner or mode changed: what its watches last found their subscribers may list is stale. */
		for (size_t i = 0; i < n->nrefs; i++)
			((struct held *)n->refs[i].w->src)->attribs++;
	} else if (ev->mask & IN_MODIFY) {
		_cleanup_close_ int fd = cgdir_open_beneath(n->h->root_fd, n->rel);
		struct event_state after = n->st;
		if (fd < 0)
			return; /* its removal (or renaming) is reported by the directory */
		read_file(fd, f, &after);
		node_update(es, n, &after);
	}
}

/* A notice goes to every node whose descriptor it names (more than one: a renamed cgroup, see struct wd_slot). */
static void on_inotify(struct event_source *es, const struct inotify_event *ev)
{
	struct wd_slot few[4], *users = few;
	size_t k = 0, i = 0;
	if (ev->mask & IN_Q_OVERFLOW) {
		resync(es);
		return;
	}
	for (struct wd_slot *s = *wd_bucket(es, ev->wd); s; s = s->next)
		k += s->wd == ev->wd;
	if (k > sizeof(few) / sizeof(*few) && !(users = malloc(k * sizeof(*users)))) {
		users = few; /* out of memory: the first nodes hear it, the others are read again */
		k = sizeof(few) / sizeof(*few);
		resync(es);
	}
	/* Copied first: serving one may drop the slots (the nodes stay until reap). */
	for (struct wd_slot *s = *wd_bucket(es, ev->wd); s && i < k; s = s->next)
		if (s->wd == ev->wd)
			users[i++] = *s;
	for (i = 0; i < k; i++)
		if (!users[i].n->dead)
			on_node_notice(es, users[i].n, users[i].f, ev);
	if (users != few)
		free(users);
}

/* The last component of rel. */
static const char *base_name(const char *rel)
{
	const char *slash = strrchr(rel, '/');
	return slash ? slash + 1 : rel;
}

/*
 * A child of a watched parent was removed, or renamed away: every node of that name beneath that directory (its
 * descriptor, whatever name the nodes know it by) that is not the directory there now is gone. More than one may
 * be: a child removed and made again faster than the notices are read leaves a node of each generation followed,
 * and one left behind would hold its inotify watches until the watch ends. The parent itself renamed: the nodes
 * beneath its old name are (renamed()).
 */
static void on_parent_event(struct event_source *es, const struct inotify_event *ev)
{
	if (ev->mask & IN_Q_OVERFLOW) {
		resync(es);
		return;
	}
	if (!parent_find(es, ev->wd))
		return;
	if (ev->mask & IN_MOVE_SELF) {
		for (struct node *n = es->nodes; n; n = n->next)
			if (!n->dead && n->parent_wd == ev->wd && !still_there(n->h, n->rel, n->ino)) {
				char prel[CGNAME_MAX];
				snprintf(prel, sizeof(prel), "%.*s", (int)(base_name(n->rel) - n->rel), n->rel);
				if (*prel)
					prel[strlen(prel) - 1] = '\0'; /* the slash before n's own name */
				renamed(es, n->h, prel);
			}
		return;
	}
	if (!(ev->mask & (IN_DELETE | IN_MOVED_FROM)) || !ev->len)
		return;
	/* The slot goes with its last node: the descriptor is compared, not the slot. */
	for (struct node *n = es->nodes; n; n = n->next)
		if (!n->dead && n->parent_wd == ev->wd && strcmp(base_name(n->rel), ev->name) == 0 &&
		    !still_there(n->h, n->rel, n->ino))
			node_gone(es, n);
}

/* Reads n's polled files again, oom_notices more OOMs counted; a cgroup removed (or made again) ends n. */
static void refresh_polled(struct event_source *es, struct node *n, uint64_t oom_notices)
{
	_cleanup_close_ int fd = open_same(n->h, n->rel, n->ino);
	if (fd < 0) {
		node_gone(es, n);
		return;
	}
	struct event_state after = n->st;
	if (oom_notices)
		after.oom = (n->st.oom == EVENT_UNKNOWN ? 0 : n->st.oom) + oom_notices;
	read_polled(es, fd, n, &after);
	node_update(es, n, &after);
}

static void on_oom_eventfd(struct event_source *es, int efd)
{
	uint64_t count;
	struct node *n = es->nodes;
	while (n && (n->dead || n->oom_efd != efd))
		n = n->next;
	if (!n || read(efd, &count, sizeof(count)) != sizeof(count))
		return;
	/* The kernel also signals the eventfd when the cgroup is removed: refresh finds it gone. */
	refresh_polled(es, n, count);
}

/* Reads what fd has, as far as q holds (what is left stays in the kernel's queue). */
static void drain(int fd, struct queued *q)
{
	if (q->head) {
		memmove(q->buf, q->buf + q->head, q->len - q->head);
		q->len -= q->head;
		q->head = 0;
	}
	for (;;) {
		if (q->cap - q->len < READ_CHUNK && q->cap < QUEUED_MAX) {
			size_t cap = q->cap ? q->cap * 2 : READ_CHUNK * 2;
			char *buf = realloc(q->buf, cap < QUEUED_MAX ? cap : QUEUED_MAX);
			if (!buf)
				return;
			q->buf = buf;
			q->cap = cap < QUEUED_MAX ? cap : QUEUED_MAX;
		}
		if (q->cap - q->len < sizeof(struct inotify_event) + NAME_MAX + 1)
			return;
		ssize_t len = read(fd, q->buf + q->len, q->cap - q->len);
		if (len <= 0)
			return;
		q->len += (size_t)len;
	}
}

/* Serves the notices in q while *budget lasts. */
static void serve(struct event_source *es, struct queued *q, bool parents, size_t *budget)
{
	while (q->head < q->len && *budget && es->checks) {
		/* The buffer moves (drain): each notice is copied out, aligned. */
		char one[sizeof(struct inotify_event) + NAME_MAX + 1]
		    __attribute__((aligned(__alignof__(struct inotify_event))));
		struct inotify_event *whole = (struct inotify_event *)one;
		memcpy(whole, q->buf + q->head, sizeof(*whole));
		size_t size = sizeof(*whole) + whole->len;
		if (size > sizeof(one) || q->head + size > q->len) {
			q->head = q->len; /* not a notice inotify makes */
			break;
		}
		memcpy(one, q->buf + q->head, size);
		q->head += size;
		*budget = *budget > size ? *budget - size : 0;
		if (parents)
			on_parent_event(es, whole);
		else
			on_inotify(es, whole);
	}
	if (q->head == q->len) {
		q->head = q->len = 0;
		/* What a burst grew (up to QUEUED_MAX) goes back once served; the first size stays, for the next turn. */
		if (q->cap > READ_CHUNK * 2) {
			free(q->buf);
			q->buf = NULL;
			q->cap = 0;
		}
	}
}

/* The pending eventfd is readable exactly while work is left for the next call. */
static void set_pending(struct event_source *es, bool pending)
{
	uint64_t one = 1;
	if (pending == es->pending_set)
		return;
	if (pending ? write(es->pending_efd, &one, sizeof(one)) == sizeof(one)
	            : read(es->pending_efd, &one, sizeof(one)) == sizeof(one))
		es->pending_set = pending;
}

void event_source_process(struct event_source *es)
{
	struct epoll_event evs[EPOLL_BATCH];
	size_t budget = READ_BUDGET;
	int k = epoll_wait(es->epfd, evs, EPOLL_BATCH, 0);
	turn_begin(es);
	es->busy++;
	for (int i = 0; i < k; i++) {
		uint64_t key = evs[i].data.u64;
		if (key != KEY_INOTIFY && key != KEY_PARENTS && key != KEY_PENDING)
			on_oom_eventfd(es, (int)key);
	}
	/* Whatever the kernel holds, read now: served or not, it no longer fills the queue every watch shares. */
	drain(es->ifd, &es->iq);
	drain(es->pfd, &es->pq);
	serve(es, &es->iq, false, &budget);
	serve(es, &es->pq, true, &budget);
	if (es->resync_open)
		resync_step(es);
	set_pending(es, es->iq.len || es->pq.len || es->resync_open);
	levels_flush(es);
	es->busy--;
	reap(es);
}

bool event_source_wants_tick(const struct event_source *es)
{
	for (const struct node *n = es->nodes; n; n = n->next)
		if (polled(n))
			return true;
	return false;
}

/* The round's order is dropped: the dead nodes in it may be freed. */
static void tick_unschedule(struct event_source *es)
{
	for (size_t i = 0; i < es->sched_n; i++)
		es->sched[i]->scheduled = false;
	free(es->sched);
	es->sched = NULL;
	es->sched_n = es->sched_at = 0;
}

/* One account's hold on a polled node, for the round's order. */
struct claim {
	uint64_t account;
	unsigned last; /* the round that last checked the node */
	size_t seq;    /* the node's place in the list */
	struct node *n;
};

static int claim_cmp(const void *a, const void *b)
{
	const struct claim *x = a, *y = b;
	if (x->account != y->account)
		return x->account < y->account ? -1 : 1;
	if (x->last != y->last)
		return x->last < y->last ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int rank_cmp(const void *a, const void *b)
{
	const struct node *x = *(struct node *const *)a, *y = *(struct node *const *)b;
	return x->fair_rank < y->fair_rank ? -1 : x->fair_rank > y->fair_rank;
}

/*
 * The order of a new round: each account's polled nodes (those its watches hold), the ones checked the longest
 * ago first, and the accounts in turn (every account's k-th check before any's k+1-th), so that one account's
 * many watches delay another's check by at most one check of each account.
 */
static void tick_schedule(struct event_source *es)
{
	size_t nn = 0, nc = 0, k = 0, m = 0, seq = 0;
	tick_unschedule(es);
	for (struct node *n = es->nodes; n; n = n->next)
		if (polled(n)) {
			nn++;
			nc += n->nrefs;
		}
	if (!nn)
		return;
	struct claim *c = malloc(nc * sizeof(*c));
	if (!(es->sched = malloc(nn * sizeof(*es->sched)))) {
		free(c);
		return; /* out of memory: the next tick tries again */
	}
	for (struct node *n = es->nodes; n; n = n->next, seq++) {
		if (!polled(n))
			continue;
		n->fair_rank = UINT_MAX;
		n->scheduled = true;
		es->sched[k++] = n;
		for (size_t i = 0; c && i < n->nrefs; i++)
			c[m++] = (struct claim){.account = n->refs[i].w->account, .last = n->tick_round, .seq = seq, .n = n};
	}
	es->sched_n = k;
	if (!c)
		return; /* out of memory: the list's order */
	qsort(c, m, sizeof(*c), claim_cmp);
	for (size_t i = 0, rank = 0; i < m; i++) {
		if (i && c[i].account == c[i - 1].account && c[i].n == c[i - 1].n)
			continue; /* two watches of one account */
		rank = i && c[i].account == c[i - 1].account ? rank + 1 : 0;
		if (rank < c[i].n->fair_rank)
			c[i].n->fair_rank = (unsigned)rank;
	}
	free(c);
	qsort(es->sched, es->sched_n, sizeof(*es->sched), rank_cmp);
}

bool event_source_tick(struct event_source *es)
{
	uint64_t now = clock_us(CLOCK_MONOTONIC);
	turn_begin(es);
	if (!es->round_open || now - es->round_start >= ROUND_USEC) {
		es->tick_round++;
		es->round_start = now;
		tick_schedule(es);
	}
	es->busy++;
	while (es->sched_at < es->sched_n) {
		struct node *n = es->sched[es->sched_at];
		if (polled(n)) {
			if (n->poll_populated && !es->visits)
				break;
			es->cut = false;
			refresh_polled(es, n, 0);
			/* A check cut short by the turn's visits is made again in the next turn, with all of its own. */
			if (es->cut)
				break;
			n->tick_round = es->tick_round;
		}
		es->sched_at++;
	}
	es->round_open = es->sched_at < es->sched_n;
	if (!es->round_open)
		tick_unschedule(es);
	levels_flush(es);
	es->busy--;
	reap(es);
	return es->round_open;
}

void event_source_note_freezer(struct event_source *es, const struct hierarchy *h, const char *rel, bool frozen)
{
	turn_begin(es);
	es->busy++;
	for (struct node *n = es->nodes; n; n = n->next) {
		if (n->dead || n->h != h || strcmp(n->rel, rel) != 0)
			continue;
		struct event_state after = n->st;
		after.frozen = frozen;
		node_update(es, n, &after);
	}
	levels_flush(es);
	es->busy--;
	reap(es);
}
