/*
 * Per-uid quotas on cgroup creation: how many cgroups a uid may own in a
 * hierarchy and how deep it may nest them below the first ancestor that is
 * not its own. Host root is exempt. The owners of a hierarchy's cgroups are
 * counted in one walk, for every uid at once, when the first Create there
 * is checked; the daemon's own creations, removals and chowns keep the
 * counts up since. Owners may also mkdir and rmdir on cgroupfs, behind the
 * daemon's back: a uid found at its limit makes the daemon count again, but
 * never sooner than 99 times the last walk's duration after it, so walks
 * take at most 1% of the daemon's time however many requests ask.
 */
#pragma once
#include "ops/ops.h"

#define QUOTA_DEFAULT_CGROUPS 1000
#define QUOTA_DEFAULT_DEPTH 16

/* 0 means unlimited. */
struct quotas *quotas_new(unsigned max_cgroups, unsigned max_depth);
void quotas_free(struct quotas *q);
unsigned quotas_max_cgroups(const struct quotas *q);
unsigned quotas_max_depth(const struct quotas *q);

/* May r make one more cgroup in h beneath parent_rel (relative to h's root)? */
int quota_check_create(struct quotas *q, const struct requester *r, const struct hierarchy *h, const char *parent_rel,
                       struct err *e);
void quota_note_created(struct quotas *q, const struct requester *r, const struct hierarchy *h);
/* A cgroup of h owned by owner was removed by the daemon. */
void quota_note_removed(struct quotas *q, const struct hierarchy *h, uid_t owner);
/* A cgroup of h went from one owner to another. */
void quota_note_chowned(struct quotas *q, const struct hierarchy *h, uid_t from, uid_t to);

/* On cgroup2, the kernel enforces the same limits below a delegated root: cgroup.max.descendants and .depth. */
int quota_limit_delegated(const struct quotas *q, int cgfd, struct err *e);
