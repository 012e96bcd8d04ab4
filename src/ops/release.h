/*
 * Remove-on-empty without release_agent (a hierarchy-wide setting the daemon
 * may not change): on cgroup2 the kernel's cgroup.events reports when the
 * subtree empties; on v1 the marked subtrees are checked once a second. A
 * cgroup is removed once it has held tasks and they have all left (0.42's
 * notify_on_release semantics). Marks live in memory only: a restarted
 * daemon has none, which is harmless (the cgroups stay).
 */
#pragma once
#include "cgfs/hierarchy.h"
#include "util/err.h"

struct release_watch;

struct release_watch *release_watch_new(struct err *e);
void release_watch_free(struct release_watch *rw);
/* Readable when a cgroup2 mark may have emptied. */
int release_watch_fd(const struct release_watch *rw);
/* Milliseconds until release_watch_tick wants to run, -1 for never. */
int release_watch_timeout_ms(const struct release_watch *rw);
int release_watch_add(struct release_watch *rw, struct hierarchy *h, const char *rel, int cgfd, struct err *e);
void release_watch_process(struct release_watch *rw);
/*
 * The daemon moved a task into h's REL: v1 marks on REL and its ancestors count as having held tasks, which
 * the once-a-second check misses when the task leaves again within the second.
 */
void release_watch_entered(struct release_watch *rw, const struct hierarchy *h, const char *rel);
void release_watch_tick(struct release_watch *rw);
