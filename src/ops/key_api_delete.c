/* Delete of the key API: the tree removed; with force, Kill(SIGKILL) first, then the removal once it is empty. */
#include <signal.h>

#include "ops/job.h"

static int remove_tree(struct ops *o, const struct requester *r, const char *name, struct err *e)
{
	int existed;
	if (ops_remove(o, r, &o->all, name, true, &existed, e) < 0)
		return -1;
	if (existed < 0)
		return err_set(e, ERR_NOT_FOUND, "cgroup '%s' does not exist", name);
	return 0;
}

/* Delete with force: the kill's steps, then the removal. */
static int delete_step(struct ops *o, const struct requester *r, struct ops_job *j, struct err *e)
{
	int rr = j->then_remove ? kill_job_step(o, r, j, e) : 1;
	if (rr != 1)
		return rr;
	return remove_tree(o, r, j->name, e) < 0 ? -1 : 1;
}

int ops_key_delete_start(struct ops *o, const struct requester *r, const char *name, bool force, struct ops_job **job,
                      struct err *e)
{
	*job = NULL;
	if (!force)
		return remove_tree(o, r, name, e);
	if (ops_key_kill_start(o, r, name, SIGKILL, job, e) < 0)
		return -1;
	if (!*job)
		return remove_tree(o, r, name, e);
	(*job)->then_remove = true;
	(*job)->step = delete_step;
	return 0;
}
