/* GetPidCgroup and GetPidCgroupAbs: where a task is, relative to the requester's cgroup or the proxy's. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "ops/identity.h"
#include "ops/victim.h"

int ops_get_pid_cgroup(struct ops *o, const struct requester *r, const struct hierarchy_set *set, pid_t pid,
                       bool absolute, char **out, struct err *e)
{
	struct hierarchy *h;
	struct proc_cgroups pc = {0};
	struct victim v = {.pidfd = -1, .stat_fd = -1};
	char vrel[CGNAME_MAX], name[CGNAME_MAX];
	int rc = -1;

	if (pid_args_refused(r, e) < 0 || hierarchy_set_single(set, &h, e) < 0)
		return -1;
	if (requester_cgroups(o, r, &pc, e) < 0)
		return -1;
	if (victim_open(pid, &v, e) < 0 || victim_rel(&v, h, vrel, e) < 0)
		goto out;
	if (r->other_pidns && !pid_visible_in(pid, r->pidns)) {
		err_set(e, ERR_ACCESS, "pid %d is not in your pid namespace", (int)pid);
		goto out;
	}
	if (absolute) {
		char base[CGNAME_MAX];
		if (proxy_base(r, h, base) < 0 || !rel_is_beneath(vrel, base)) {
			err_set(e, ERR_ACCESS, "pid %d is in %s:/%s, outside the cgroup of the proxy that relayed you", (int)pid,
			        h->name, vrel);
			goto out;
		}
		const char *rest = vrel + strlen(base);
		while (*rest == '/')
			rest++;
		*out = malloc(strlen(rest) + 2);
		if (*out)
			sprintf(*out, "/%s", rest);
	} else {
		if (victim_relative_name(&v, h, vrel, &pc, name, e) < 0)
			goto out;
		*out = strdup(*name ? name : "/");
	}
	if (!*out)
		err_set(e, ERR_LIMIT, "out of memory");
	else
		rc = 0;
out:
	victim_free(&v);
	proc_cgroups_free(&pc);
	return rc;
}
