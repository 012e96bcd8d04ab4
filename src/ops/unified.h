/*
 * cgroup2's two rules that a cgroup v1 client never met, kept for it by the
 * daemon. A controller's files exist in a cgroup only once its parent
 * enables the controller in cgroup.subtree_control, so the daemon enables it
 * top-down, from its root to where a request needs it. A cgroup whose
 * children have controllers may hold no task of its own (no internal
 * processes), so its tasks live in a leaf child, UNIFIED_LEAF, which the
 * daemon makes and names for no one: a task there is, in every path the
 * daemon answers and every name a requester gives, in the leaf's parent.
 */
#pragma once
#include "ops/resolve.h"

#define UNIFIED_LEAF CGROUP2_TASK_LEAF

/* rel without a last component UNIFIED_LEAF ("a/.leaf" -> "a", ".leaf" -> ""). */
void unified_strip_leaf(char *rel);
bool unified_is_leaf(const char *name);

/*
 * Before FILE of t is written: when t is on cgroup2 and FILE belongs to a
 * controller the daemon's root has but t's parent does not enable, checks
 * that r may set t's limits and enables the controller down to t's parent.
 */
int unified_prepare_file(struct ops *o, const struct requester *r, const struct target *t, const char *file,
                         struct err *e);

/* Where a task moved into t goes: t itself, or its leaf when t's children have controllers. -errno. */
int unified_procs_fd(const struct target *t, int *fd);
