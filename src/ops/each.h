/* Applying an operation to every hierarchy a controller argument names. */
#pragma once
#include "ops/target.h"

/* Called per hierarchy; returns 0 or -1 with e set. */
typedef int (*per_hierarchy_fn)(struct ops *o, const struct requester *r, const struct proc_cgroups *pc,
                                struct hierarchy *h, void *arg, struct err *e);

/*
 * Runs fn on each selected hierarchy. With several hierarchies, as in 0.42,
 * a refusal in one is skipped as long as another one succeeded, so that
 * `all` works for a requester to whom only some hierarchies are delegated;
 * any other failure ends the call. Returns the number of successes or -1.
 */
int for_each_hierarchy(struct ops *o, const struct requester *r, const struct hierarchy_set *set, per_hierarchy_fn fn,
                       void *arg, struct err *e);
