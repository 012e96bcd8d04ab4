/* Freeze and thaw: the key freezer.state set, then done once the kernel reports the whole subtree so. */
#include <stdlib.h>
#include <string.h>

#include "ops/job.h"
#include "ops/key_ctx.h"
#include "ops/watch.h"
#include "util/cleanup.h"

#define FREEZE_DEADLINE_MS 5000

static int set_freezer_state(struct ops *o, const struct requester *r, const char *name, bool frozen, struct err *e)
{
	struct kv one = {"freezer.state", (char *)(frozen ? "frozen" : "thawed")};
	kvv values = {&one, 1};
	return ops_key_set_values(o, r, name, &values, e);
}

static int freeze_step(struct ops *o, const struct requester *r, struct ops_job *j, struct err *e)
{
	const char *want = j->frozen ? "frozen" : "thawed";
	_cleanup_free_ char *state = NULL;
	struct key_ctx k;
	int rc = -1;

	if (key_ctx_init(&k, o, r, j->name, e) == 0 && key_get(&k.host, "freezer.state", &state, e) == 0) {
		if (strcmp(state, want) == 0)
			rc = 1;
		else if (monotonic_ms() > j->deadline_ms)
			err_set(e, ERR_BUSY, "%s is still %s %d s after it was set %s", j->name, state, FREEZE_DEADLINE_MS / 1000,
			        want);
		else
			rc = 0;
	}
	key_ctx_free(&k);
	/*
	 * A v1 freezer freezes the tasks it finds when FROZEN is written; one forked meanwhile can escape it
	 * and hold the cgroup in FREEZING. Writing FROZEN again freezes those (cgroup v2 ignores a repeat).
	 */
	if (rc == 0 && j->frozen && set_freezer_state(o, r, j->name, true, e) < 0)
		rc = -1;
	/* v1's freezer.state notifies no one: the watches of the cgroup hear it from here. */
	if (rc == 1)
		ops_watch_note_freezer(o, r, j->name, j->frozen);
	return rc;
}

int ops_key_freeze_start(struct ops *o, const struct requester *r, const char *name, bool frozen, struct ops_job **job,
                      struct err *e)
{
	struct ops_job *j;
	int rr;

	*job = NULL;
	if (set_freezer_state(o, r, name, frozen, e) < 0 || !(j = ops_job_new(name, FREEZE_DEADLINE_MS, e)))
		return -1;
	j->frozen = frozen;
	j->step = freeze_step;
	if ((rr = freeze_step(o, r, j, e)) != 0) {
		ops_job_free(j);
		return rr < 0 ? -1 : 0;
	}
	*job = j;
	return 0;
}
