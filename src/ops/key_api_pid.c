/*
 * The key API's GetPidCgroup and GetPidfdCgroup: a task's cgroup as a key-API name, relative to the requester's
 * own cgroup and the same in every hierarchy. The refusals are those of 0.42's GetPidCgroup (ops/pid_cgroup.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/identity.h"
#include "ops/key_api.h"
#include "ops/victim.h"

/* One name for every hierarchy: a task placed differently per hierarchy (by 0.42 calls) has no key-API name. */
static int victim_name(struct ops *o, const struct requester *r, struct victim *v, char **out, struct err *e)
{
	struct proc_cgroups pc = {0};
	char first[CGNAME_MAX] = "", name[CGNAME_MAX];
	const char *first_in = NULL;
	int rc = -1;

	/* A pidfd can be passed on: one of a task outside the requester's pid namespace tells it nothing. */
	if (r->other_pidns && !pid_visible_in(v->pid, r->pidns))
		return err_set(e, ERR_ACCESS, "the process the pidfd refers to is not in your pid namespace");
	if (requester_cgroups(o, r, &pc, e) < 0)
		return -1;
	char vrel[CGNAME_MAX];
	for (unsigned i = 0; i < o->all.n; i++) {
		const struct hierarchy *h = o->all.h[i];
		if (victim_rel(v, h, vrel, e) < 0)
			goto out;
		if (r->names_from_root)
			memcpy(name, vrel, sizeof(name));
		else if (victim_relative_name(v, h, vrel, &pc, name, e) < 0)
			goto out;
		if (!first_in) {
			first_in = h->name;
			memcpy(first, name, sizeof(first));
		} else if (strcmp(first, name) != 0) {
			err_set(e, ERR_NOT_SUPPORTED,
			        "pid %d is in '%s' in %s but in '%s' in %s, so it has no one name; ask per controller "
			        "(cgmanager0_0's GetPidCgroup)",
			        (int)v->pid, first, first_in, name, h->name);
			goto out;
		}
	}
	if (!(*out = strdup(first)))
		err_set(e, ERR_LIMIT, "out of memory");
	else
		rc = 0;
out:
	proc_cgroups_free(&pc);
	return rc;
}

int ops_key_pid_cgroup(struct ops *o, const struct requester *r, pid_t pid, char **out, struct err *e)
{
	struct victim v;
	int rc;

	if (r->other_pidns)
		return err_set(e, ERR_NOT_SUPPORTED, "GetPidCgroup takes a pid as the daemon's pid namespace numbers it; "
		               "from another pid namespace, pass a pidfd to GetPidfdCgroup");
	rc = victim_open(pid, &v, e) < 0 ? -1 : victim_name(o, r, &v, out, e);
	victim_free(&v);
	return rc;
}

int ops_key_pidfd_cgroup(struct ops *o, const struct requester *r, int pidfd, char **out, struct err *e)
{
	struct victim v;
	int rc = victim_open_pidfd(pidfd, &v, e) < 0 ? -1 : victim_name(o, r, &v, out, e);
	victim_free(&v);
	return rc;
}
