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
#include "ops/target.h"

#define UNIFIED_LEAF CGROUP2_TASK_LEAF

bool unified_is_leaf(const char *name);

/*
 * Whether FILE of t must first be made to exist: 1 (ctrl filled) when t is
 * on cgroup2, FILE belongs to a controller the daemon's root has, and some
 * ancestor from the root to t's parent does not enable it; 0 when nothing
 * is needed; -1 when r may not have it done: r must be allowed to set t's
 * limits, and to write cgroup.subtree_control of every ancestor it would
 * change (host root may everywhere), as the kernel asks of a delegatee.
 */
int unified_needs_enable(const struct requester *r, const struct target *t, const char *file, char ctrl[64],
                         struct err *e);
/* Enables ctrl top-down from the daemon's root to t's parent, moving tasks in the way into leaves. */
int unified_enable(struct ops *o, const struct target *t, const char *ctrl, struct err *e);
/* Both, for the calls that write one file (SetValue, Chmod). */
int unified_prepare_file(struct ops *o, const struct requester *r, const struct target *t, const char *file,
                         struct err *e);

/* Where a task moved into t goes: t itself, or its leaf when t's children have controllers. -errno. */
int unified_procs_fd(const struct target *t, int *fd);
