#include "ops/each.h"

int for_each_hierarchy(struct ops *o, const struct requester *r, const struct hierarchy_set *set, per_hierarchy_fn fn,
                       void *arg, struct err *e)
{
	struct proc_cgroups pc = {0};
	struct err refusal = {0};
	int n = (int)set->n, done = 0;

	if (hierarchy_set_check(set, e) < 0 || requester_cgroups(o, r, &pc, e) < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		struct err one = {0};
		if (fn(o, r, &pc, set->h[i], arg, &one) == 0) {
			done++;
			continue;
		}
		if (one.kind == ERR_ACCESS && n > 1) {
			if (refusal.kind == ERR_NONE)
				refusal = one;
			continue;
		}
		*e = one;
		proc_cgroups_free(&pc);
		return -1;
	}
	proc_cgroups_free(&pc);
	if (done == 0 && refusal.kind != ERR_NONE) {
		*e = refusal;
		return -1;
	}
	return done;
}
