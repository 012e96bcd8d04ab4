#include "ops/each.h"

int for_each_hierarchy(struct ops *o, const struct requester *r, const char *controller, per_hierarchy_fn fn,
                       void *arg, struct err *e)
{
	struct hierarchy *sel[o->hs.n ? o->hs.n : 1];
	struct proc_cgroups pc = {0};
	struct err refusal = {0};
	int n, done = 0;

	n = hierarchies_select(&o->hs, controller, sel, e);
	if (n < 0)
		return -1;
	if (requester_cgroups(o, r, &pc, e) < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		struct err one = {0};
		if (fn(o, r, &pc, sel[i], arg, &one) == 0) {
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
