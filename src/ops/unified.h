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
int unified_enable(struct ops *o, const struct requester *r, const struct target *t, const char *ctrl, struct err *e);
/* Both, for the calls that write one file (SetValue, Chmod). */
int unified_prepare_file(struct ops *o, const struct requester *r, const struct target *t, const char *file,
                         struct err *e);

/*
 * Delegation hands over controllers: the cgroup2 controllers set names (set->v2_ctrls, or with set->v2_every
 * every one the daemon's root has) that t is to have, so that its owner can enable them for its own children.
 * unified_delegation_plan checks, changing nothing, and gives in *ctrls (bits of t->h->controllers) those that
 * some ancestor from the daemon's root to t's parent does not enable yet; -1 with e set when r may not have a
 * named one (policy_may_enable_controller) or an ancestor lacking it is threaded. Of "all", such are left out.
 */
int unified_delegation_plan(const struct requester *r, const struct target *t, const struct hierarchy_set *set,
                            uint64_t *ctrls, struct err *e);
/* Enables the planned controllers top-down from the daemon's root to t's parent (unified_enable). */
int unified_hand_over(struct ops *o, const struct requester *r, const struct target *t, uint64_t ctrls,
                      struct err *e);
/* Both, for Create, whose cgroup is the requester's own doing. */
int unified_delegate(struct ops *o, const struct requester *r, const struct target *t,
                     const struct hierarchy_set *set, struct err *e);

/*
 * Where a task moved into t goes: the directory fd whose cgroup.procs takes it, t->fd itself, or its leaf when
 * t's children have controllers, opened into *leaf for the caller to close (left -1 otherwise). -errno.
 */
int unified_procs_dir(const struct target *t, int *leaf);
