/*
 * Per-uid quotas on cgroup creation: how many cgroups a uid may own in a
 * hierarchy and how deep it may nest them below the first ancestor that is
 * not its own. Host root is exempt. Counts are cached and only recounted
 * (by walking the tree) when a uid reaches its limit, since owners may
 * remove their cgroups directly on cgroupfs, behind the daemon's back.
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

/* On cgroup2, the kernel enforces the same limits below a delegated root: cgroup.max.descendants and .depth. */
int quota_limit_delegated(const struct quotas *q, int cgfd, struct err *e);
