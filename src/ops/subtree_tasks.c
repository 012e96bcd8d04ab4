#include "ops/subtree_tasks.h"

#include <errno.h>
#include <string.h>

#include "cgfs/cgtree.h"
#include "cgfs/proc.h"
#include "ops/identity.h"

struct collect {
	pidv *out;
	int err;
};

static int collect_pre(struct cgtree_node *n, void *arg)
{
	struct collect *c = arg;
	int r = cgdir_procs(n->fd, c->out);
	if (r == -ENOENT || r == -ENODEV)
		return CGTREE_SKIP; /* removed meanwhile */
	c->err = r;
	return r < 0 ? -1 : CGTREE_DESCEND;
}

int subtree_tasks(int cgfd, pidv *out)
{
	struct collect c = {out, 0};
	struct cgtree_visitor v = {.pre = collect_pre, .arg = &c};
	int r = cgtree_walk(cgfd, "", &v);
	return r == CGTREE_BROKEN ? -errno : r < 0 ? c.err : 0;
}

int task_is_requesters(const struct requester *r, pid_t pid, enum task_action action, char why[POLICY_WHY_MAX])
{
	struct proc_ids ids;
	struct err ignored;
	if (proc_ids_read(pid, &ids, &ignored) < 0)
		return 2;
	struct task_facts tf = {.pid = pid, .visible = !r->other_pidns || pid_visible_in(pid, r->pidns)};
	memcpy(tf.uids, ids.uid, sizeof(tf.uids));
	return policy_owns_task(&r->cred, &tf, action, why) ? 0 : 1;
}

int check_task_write(const struct requester *r, int cgfd, const char *what, const char *file, const char *value,
                     struct err *e)
{
	enum task_action action;
	pidv pids = {0};
	char why[POLICY_WHY_MAX];
	int rc = 0, got;

	if (policy_is_host_root(&r->cred) || !policy_write_acts_on_tasks(file, value, &action))
		return 0;
	const char *refused = action == TASK_FREEZE ? "Freeze refused, nothing was frozen"
	                                            : "Kill refused, nothing was signalled";
	if ((got = subtree_tasks(cgfd, &pids)) < 0)
		return err_errno(e, -got, "%s: cannot read the tasks of %s", refused, what);
	for (size_t i = 0; rc == 0 && i < pids.n; i++)
		if (task_is_requesters(r, pids.v[i], action, why) == 1)
			rc = err_set(e, ERR_ACCESS, "%s: %s (in %s)", refused, why, what);
	pidv_free(&pids);
	return rc;
}
