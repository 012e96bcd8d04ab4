#include "policy.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cgfs/idmap.h"

bool policy_is_host_root(const struct cred *c)
{
	return c->uid == 0 && !c->in_userns;
}

bool policy_privileged_over(const struct cred *c, uid_t uid, gid_t gid)
{
	uint32_t ignored;
	if (policy_is_host_root(c))
		return true;
	return c->ns_root && idmap_to_ns(c->uidmap, uid, &ignored) && idmap_to_ns(c->gidmap, gid, &ignored);
}

bool policy_in_group(const struct cred *c, gid_t gid)
{
	if (c->gid == gid)
		return true;
	for (size_t i = 0; i < c->ngroups; i++)
		if (c->groups[i] == gid)
			return true;
	return false;
}

bool policy_same_cred(const struct cred *a, const struct cred *b)
{
	return a == b ||
	       (a->uid == b->uid && a->gid == b->gid && a->ngroups == b->ngroups &&
	        !memcmp(a->groups, b->groups, a->ngroups * sizeof(a->groups[0])) && a->in_userns == b->in_userns &&
	        a->ns_root == b->ns_root && a->uidmap == b->uidmap && a->gidmap == b->gidmap);
}

bool policy_may_vouch(const struct cred *peer, uid_t uid, gid_t gid, const char *which, char why[POLICY_WHY_MAX])
{
	if ((uid == peer->uid && policy_in_group(peer, gid)) || policy_privileged_over(peer, uid, gid))
		return true;
	snprintf(why, POLICY_WHY_MAX,
	         "refused the %s credential (uid %u, gid %u): you (uid %u) could not have sent it; only root, of the host "
	         "or of a user namespace that maps them, may send ids other than its own (another process, such as this "
	         "daemon, wrote it to the socket you passed)",
	         which, (unsigned)uid, (unsigned)gid, (unsigned)peer->uid);
	return false;
}

bool policy_permits(const struct cred *c, const struct owner *o, int want)
{
	int bits;
	/* Root of a user namespace has there what root has on the host: power over what it maps. */
	if (policy_privileged_over(c, o->uid, o->gid))
		return true;
	if (c->uid == o->uid)
		bits = (o->mode >> 6) & 7;
	else if (policy_in_group(c, o->gid))
		bits = (o->mode >> 3) & 7;
	else
		bits = o->mode & 7;
	return (bits & want) == want;
}

static void owner_reason(const struct cred *c, const struct owner *o, const char *what, const char *needs,
                         char why[POLICY_WHY_MAX])
{
	if (c->uid != o->uid)
		snprintf(why, POLICY_WHY_MAX, "%s is owned by uid %u (mode %03o); you are uid %u and need %s", what,
		         (unsigned)o->uid, (unsigned)(o->mode & 0777), (unsigned)c->uid, needs);
	else
		snprintf(why, POLICY_WHY_MAX, "%s has mode %03o, which does not give you (its owner) %s", what,
		         (unsigned)(o->mode & 0777), needs);
}

static bool need(const struct cred *c, const struct owner *o, int want, const char *what, const char *needs,
                 char why[POLICY_WHY_MAX])
{
	if (policy_permits(c, o, want))
		return true;
	owner_reason(c, o, what, needs, why);
	return false;
}

bool policy_may_create_in(const struct cred *c, const struct owner *parent, const char *what, char why[POLICY_WHY_MAX])
{
	return need(c, parent, WANT_WRITE | WANT_SEARCH, what, "write access to create a cgroup in it", why);
}

bool policy_may_remove(const struct cred *c, const struct owner *parent, const char *what, bool is_requesters_own,
                       char why[POLICY_WHY_MAX])
{
	if (is_requesters_own) {
		snprintf(why, POLICY_WHY_MAX, "%s is your own cgroup; only cgroups beneath it can be removed", what);
		return false;
	}
	return need(c, parent, WANT_WRITE | WANT_SEARCH, what, "write access to remove a cgroup from it", why);
}

bool policy_may_read(const struct cred *c, const struct owner *file, const char *what, char why[POLICY_WHY_MAX])
{
	return need(c, file, WANT_READ, what, "read access", why);
}

bool policy_may_list(const struct cred *c, const struct owner *dir, const char *what, char why[POLICY_WHY_MAX])
{
	return need(c, dir, WANT_READ | WANT_SEARCH, what, "read access to list it", why);
}

bool policy_is_task_or_agent_file(const char *key)
{
	static const char *const refused[] = {
		"tasks", "cgroup.procs", "cgroup.threads", "release_agent", "notify_on_release",
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (strcmp(key, refused[i]) == 0)
			return true;
	return false;
}

bool policy_may_set_value(const struct cred *c, const struct owner *file, const char *key, struct cgroup_place at,
                          const char *what, char why[POLICY_WHY_MAX])
{
	if (policy_is_task_or_agent_file(key)) {
		snprintf(why, POLICY_WHY_MAX,
		         "%s cannot be set as a value: it moves tasks or names a program run as root (use MovePid)", what);
		return false;
	}
	if (at.daemon_root && !policy_is_host_root(c)) {
		snprintf(why, POLICY_WHY_MAX, "%s is a setting of the root cgroup, which only host root may change", what);
		return false;
	}
	/* A container's own limits were set from outside; it parcels out only what is beneath. */
	if (at.requesters_own && c->in_userns) {
		snprintf(why, POLICY_WHY_MAX,
		         "%s is a setting of your own cgroup; from inside a user namespace only the cgroups beneath yours "
		         "can be set",
		         what);
		return false;
	}
	return need(c, file, WANT_WRITE, what, "write access", why);
}

bool policy_may_enable_controller(const struct cred *c, const struct owner *subtree_control, struct controller_place at,
                                  const char *ctrl, const char *what, char why[POLICY_WHY_MAX])
{
	if (at.enabled || policy_is_host_root(c))
		return true;
	if (c->in_userns && at.above_requesters_own) {
		snprintf(why, POLICY_WHY_MAX, "%s must be enabled in %s cgroup.subtree_control, above your own cgroup, "
		         "which a requester in a user namespace cannot change: ask the host to enable +%s there", ctrl, what,
		         ctrl);
		return false;
	}
	/* Root of a user namespace writes what its namespace maps (policy_permits), as the kernel lets it. */
	if (policy_permits(c, subtree_control, WANT_WRITE))
		return true;
	snprintf(why, POLICY_WHY_MAX, "%s must be enabled in %s cgroup.subtree_control, which is owned by uid %u (mode "
	         "%03o), above what was delegated to you (uid %u): ask its owner to enable +%s there", ctrl, what,
	         (unsigned)subtree_control->uid, (unsigned)(subtree_control->mode & 0777), (unsigned)c->uid, ctrl);
	return false;
}

bool policy_may_chown(const struct cred *c, const struct owner *dir, uid_t new_uid, gid_t new_gid, const char *what,
                      char why[POLICY_WHY_MAX])
{
	if (policy_is_host_root(c))
		return true;
	if (c->ns_root) {
		/* Root of a user namespace hands out what it maps, to ids it maps. */
		if (!policy_privileged_over(c, dir->uid, dir->gid)) {
			snprintf(why, POLICY_WHY_MAX, "%s is owned by uid %u gid %u, which your user namespace does not map",
			         what, (unsigned)dir->uid, (unsigned)dir->gid);
			return false;
		}
		if (!policy_privileged_over(c, new_uid, new_gid)) {
			snprintf(why, POLICY_WHY_MAX, "uid %u gid %u (host ids) are not mapped into your user namespace",
			         (unsigned)new_uid, (unsigned)new_gid);
			return false;
		}
		return true;
	}
	if (dir->uid != c->uid) {
		snprintf(why, POLICY_WHY_MAX, "%s is owned by uid %u; you are uid %u, and only its owner or root may chown it",
		         what, (unsigned)dir->uid, (unsigned)c->uid);
		return false;
	}
	/* Handing a cgroup to someone else needs privilege over both uids. */
	if (new_uid != c->uid || !policy_in_group(c, new_gid)) {
		snprintf(why, POLICY_WHY_MAX,
		         "only root may chown %s to uid %u gid %u; you may only change its group to one of your own groups",
		         what, (unsigned)new_uid, (unsigned)new_gid);
		return false;
	}
	return true;
}

bool policy_may_chmod(const struct cred *c, const struct owner *file, int mode, const char *what,
                      char why[POLICY_WHY_MAX])
{
	if (mode < 0 || mode > 0777) {
		snprintf(why, POLICY_WHY_MAX, "mode %o for %s is refused: only permission bits (0 to 0777) may be set", mode,
		         what);
		return false;
	}
	if (file->uid == c->uid || policy_privileged_over(c, file->uid, file->gid))
		return true;
	snprintf(why, POLICY_WHY_MAX, "%s is owned by uid %u; you are uid %u, and only its owner or root may chmod it",
	         what, (unsigned)file->uid, (unsigned)c->uid);
	return false;
}

static const char *task_verb(enum task_action action)
{
	switch (action) {
	case TASK_SIGNAL:
		return "signal";
	case TASK_FREEZE:
		return "freeze";
	case TASK_MOVE:
		break;
	}
	return "move";
}

bool policy_owns_task(const struct cred *c, const struct task_facts *t, enum task_action action,
                      char why[POLICY_WHY_MAX])
{
	uint32_t ignored;
	if (policy_is_host_root(c))
		return true;
	if (!t->visible) {
		snprintf(why, POLICY_WHY_MAX, "pid %d is not in your pid namespace", (int)t->pid);
		return false;
	}
	if (c->ns_root) {
		for (int i = 0; i < 4; i++) {
			if (!idmap_to_ns(c->uidmap, t->uids[i], &ignored)) {
				snprintf(why, POLICY_WHY_MAX, "pid %d runs as host uid %u, which your user namespace does not map",
				         (int)t->pid, (unsigned)t->uids[i]);
				return false;
			}
		}
		return true;
	}
	for (int i = 0; i < 4; i++) {
		if (t->uids[i] != c->uid) {
			snprintf(why, POLICY_WHY_MAX, "pid %d runs as uid %u; you are uid %u and may %s only your own tasks",
			         (int)t->pid, (unsigned)t->uids[i], (unsigned)c->uid, task_verb(action));
			return false;
		}
	}
	return true;
}

bool policy_may_move(const struct cred *c, const struct task_facts *t, const struct owner *dest_procs,
                     const struct owner *common_ancestor_procs, const char *what, char why[POLICY_WHY_MAX])
{
	if (policy_is_host_root(c))
		return true;
	if (!policy_owns_task(c, t, TASK_MOVE, why))
		return false;
	if (!need(c, dest_procs, WANT_WRITE, what, "write access to its task file", why))
		return false;
	if (common_ancestor_procs &&
	    !policy_permits(c, common_ancestor_procs, WANT_WRITE)) {
		snprintf(why, POLICY_WHY_MAX,
		         "moving pid %d into %s needs write access to cgroup.procs of the common ancestor of both cgroups "
		         "(the cgroup2 delegation rule); that file is owned by uid %u",
		         (int)t->pid, what, (unsigned)common_ancestor_procs->uid);
		return false;
	}
	return true;
}

bool policy_move_needs_common_ancestor(bool unified, bool destination_beneath_task, bool task_cgroup_plain_domain)
{
	return unified && !(destination_beneath_task && task_cgroup_plain_domain);
}

bool policy_is_delegated_file(const char *file, bool unified, const char *const *kernel_delegate_list)
{
	if (strcmp(file, "cgroup.procs") == 0)
		return true;
	if (!unified)
		return strcmp(file, "tasks") == 0;
	if (kernel_delegate_list) {
		for (size_t i = 0; kernel_delegate_list[i]; i++)
			if (strcmp(file, kernel_delegate_list[i]) == 0)
				return true;
		return false;
	}
	return strcmp(file, "cgroup.threads") == 0 || strcmp(file, "cgroup.subtree_control") == 0;
}

/* Whatever the kernel would take for a freeze or a kill is one: it trims blanks and parses numbers itself. */
bool policy_write_acts_on_tasks(const char *file, const char *value, enum task_action *action)
{
	size_t len;
	while (isspace((unsigned char)*value))
		value++;
	len = strlen(value);
	while (len && isspace((unsigned char)value[len - 1]))
		len--;
	*action = TASK_FREEZE;
	if (strcmp(file, "freezer.state") == 0)
		return !(len == 6 && strncmp(value, "THAWED", 6) == 0);
	if (strcmp(file, "cgroup.freeze") == 0)
		return !(len == 1 && value[0] == '0');
	*action = TASK_SIGNAL;
	return strcmp(file, "cgroup.kill") == 0;
}
