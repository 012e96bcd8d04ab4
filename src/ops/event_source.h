/*
 * The kernel side of the watches (ops/watch_registry.h): one node per cgroup directory followed, shared by the
 * watches that follow it, each with what notifies of it. cgroup2 and v1 alike: the directory through inotify
 * (IN_DELETE_SELF: removed; IN_CREATE: a new child for subtree watches), cgroup.events, memory.events and
 * pids.events through inotify (IN_MODIFY: read again, compared with the last reading); v1's memory.oom_control
 * through an eventfd registered in cgroup.event_control. What no file reports is checked once a second: a v1
 * cgroup's tasks (emptiness without a release agent) and memory.oom_control's oom_kill count. Freezer v1
 * transitions come from the daemon's own Freeze and Thaw (event_source_note_freezer).
 *
 * Everything the source waits on is in one epoll set (event_source_fd), which the serving loop watches; the
 * events go to the sink, the transport's, which queues them for each subscriber.
 */
#pragma once
#include <stdint.h>
#include <sys/stat.h>

#include "cgfs/hierarchy.h"
#include "ops/event_kind.h"
#include "ops/watch_registry.h"

struct event_source;

/* One event for one watch: name as the subscriber named it (a descendant's beneath), time in CLOCK_REALTIME us. */
typedef void (*event_sink_fn)(void *ctx, const struct watch *w, const char *name, enum event_kind k, uint64_t count,
                              uint64_t time_us);

struct event_source *event_source_new(struct watch_registry *reg, struct err *e);
void event_source_free(struct event_source *es);
void event_source_set_sink(struct event_source *es, event_sink_fn fn, void *ctx);
/* What a subscriber needs over a directory or file to be told what it says. */
enum event_right {
	EVR_LIST, /* a cgroup's directory, as Watch needs */
	EVR_READ, /* a file an event's count is read from (event_counter_file), as GetValue needs */
};
/*
 * Whether w's subscriber has that right now over the directory or file of that stat ("what" names it). Asked
 * when a descendant would be followed and when an event is to be sent, of every cgroup from the watched one down
 * to the event's (a cgroup made private after it was followed is not told of, nor is anything beneath it), and
 * of the file of a counted event.
 */
typedef bool (*event_may_fn)(const struct watch *w, const struct stat *st, enum event_right right, const char *what);
/* Whether the subscribers of a and b have the same rights (every answer of event_may_fn is the same for both). */
typedef bool (*event_same_fn)(const struct watch *a, const struct watch *b);
void event_source_set_policy(struct event_source *es, event_may_fn fn, event_same_fn same);
/* Readable when something the source waits on has happened. */
int event_source_fd(const struct event_source *es);
/* Serves what is ready, at most a bounded amount per call (the rest makes the fd readable again). */
void event_source_process(struct event_source *es);
/* Whether some node needs the once-a-second check (event_source_tick). */
bool event_source_wants_tick(const struct event_source *es);
/* Checks what no file reports, a bounded amount per call: true when some is left for the next call, soon. */
bool event_source_tick(struct event_source *es);

/*
 * How many levels beneath its cgroup a subtree watch follows: as many as a user may nest through the daemon
 * (cgmanager --max-depth's default). Each level costs the daemon's thread work per event; deeper ones, which
 * only plain mkdir makes, are not followed.
 */
#define EVENT_SUBTREE_DEPTH 16

/* Where a watch follows its cgroup in one hierarchy, and the events it takes from there. */
struct event_place {
	struct hierarchy *h;
	const char *rel; /* the cgroup, relative to h's root */
	int fd;          /* the cgroup's directory */
	unsigned roles;  /* EV_BIT()s taken from this hierarchy (EV_REMOVED only from the watch's primary one) */
};
/*
 * Follows w's cgroup in each place (with w->subtree, its descendants too), each followed cgroup charged to w
 * beyond the first. All or nothing: on failure (a cap, the kernel's inotify limit) w follows nothing.
 */
int event_source_attach(struct event_source *es, struct watch *w, const struct event_place *p, size_t n, struct err *e);
/* w follows nothing any more (its units are the registry's to release). */
void event_source_detach(struct event_source *es, struct watch *w);
/* The daemon set a v1 freezer cgroup frozen or thawed, and the kernel reports it so. */
void event_source_note_freezer(struct event_source *es, const struct hierarchy *h, const char *rel, bool frozen);
