/* The key API's cgroup operations: each a 0.42 operation applied to every hierarchy the name exists in. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgfs/idmap.h"
#include "cgfs/proc.h"
#include "ops/identity.h"
#include "ops/key_api.h"

int ops_key_create(struct ops *o, const struct requester *r, const char *name, const char *const *ctrls,
                const kvv *values, bool *created, struct err *e)
{
	struct create_state *rec = NULL;
	struct hierarchy_set set;
	int existed;

	if (ops_key_hierarchies(o, ctrls, values, &set, e) < 0 ||
	    ops_create_recorded(o, r, &set, name, &existed, &rec, e) < 0)
		return -1;
	if (values && values->n && ops_key_set_values(o, r, name, values, e) < 0) {
		create_record_undo(rec);
		return -1;
	}
	create_record_free(rec);
	*created = existed == -1;
	return 0;
}

/*
 * Calls fn for the name in every hierarchy, as one answer: hierarchies where
 * the name is missing or closed to the requester are skipped, as long as one
 * answered.
 */
typedef int (*each_fn)(struct ops *o, const struct requester *r, struct hierarchy *h, const char *name,
                       void *arg, struct err *e);

static int each_existing(struct ops *o, const struct requester *r, const char *name, each_fn fn, void *arg,
                         struct err *e)
{
	struct err first = {0};
	bool any = false;
	for (size_t i = 0; i < o->hs.n; i++) {
		struct err one = {0};
		if (fn(o, r, &o->hs.h[i], name, arg, &one) == 0) {
			any = true;
		} else if (one.kind == ERR_NOT_FOUND || one.kind == ERR_ACCESS) {
			if (first.kind == ERR_NONE || (first.kind == ERR_NOT_FOUND && one.kind == ERR_ACCESS))
				first = one;
		} else {
			*e = one;
			return -1;
		}
	}
	if (!any) {
		if (first.kind == ERR_NONE)
			return err_set(e, ERR_NOT_FOUND, "this daemon serves no hierarchy");
		*e = first;
		return -1;
	}
	return 0;
}

static int children_of(struct ops *o, const struct requester *r, struct hierarchy *h, const char *name,
                       void *arg, struct err *e)
{
	struct hierarchy_set one = {.n = 1, .h = {h}};
	return ops_list_children(o, r, &one, name, arg, e);
}

int ops_key_list_children(struct ops *o, const struct requester *r, const char *name, strv *out, struct err *e)
{
	strv all = {0};
	if (each_existing(o, r, name, children_of, &all, e) < 0) {
		strv_free(&all);
		return -1;
	}
	if (all.n)
		qsort(all.v, all.n, sizeof(char *), strv_sort_cmp);
	for (size_t i = 0; i < all.n; i++)
		if ((i == 0 || strcmp(all.v[i], all.v[i - 1]) != 0) && strv_push(out, all.v[i]) < 0) {
			strv_free(&all);
			return err_set(e, ERR_LIMIT, "out of memory");
		}
	strv_free(&all);
	return 0;
}

struct tasks_arg {
	pidv *out;
	bool recursive;
};

static int tasks_of(struct ops *o, const struct requester *r, struct hierarchy *h, const char *name, void *arg,
                    struct err *e)
{
	struct tasks_arg *a = arg;
	struct hierarchy_set one = {.n = 1, .h = {h}};
	return ops_get_tasks(o, r, &one, name, a->recursive, a->out, e);
}

int ops_key_tasks_host(struct ops *o, const struct requester *r, const char *name, bool recursive, pidv *out,
                    struct err *e)
{
	struct tasks_arg a = {out, recursive};
	if (each_existing(o, r, name, tasks_of, &a, e) < 0)
		return -1;
	pidv_sort_unique(out);
	return 0;
}

int ops_key_list_tasks(struct ops *o, const struct requester *r, const char *name, bool recursive, pidv *out,
                    struct err *e)
{
	pid_t mine[PROC_NSPID_MAX];
	int level;
	size_t n = 0;

	if (ops_key_tasks_host(o, r, name, recursive, out, e) < 0)
		return -1;
	if (!r->other_pidns)
		return 0;
	/* The requester's pid namespace is `level` below the daemon's; a task's pid there is that entry of its NSpid. */
	if ((level = proc_nspid_read(r->pid, mine, PROC_NSPID_MAX)) < 0)
		return err_errno(e, -level, "cannot read the pid namespaces of pid %d", (int)r->pid);
	level--;
	for (size_t i = 0; i < out->n; i++) {
		pid_t theirs[PROC_NSPID_MAX];
		int depth = proc_nspid_read(out->v[i], theirs, PROC_NSPID_MAX);
		if (depth > level && pid_visible_in(out->v[i], r->pidns))
			out->v[n++] = theirs[level];
	}
	out->n = n;
	pidv_sort_unique(out);
	return 0;
}

int ops_key_chown(struct ops *o, const struct requester *r, const char *name, uid_t uid, gid_t gid, struct err *e)
{
	uint32_t host_uid = uid, host_gid = gid;
	if (r->cred.in_userns) {
		if (!r->cred.uidmap || !idmap_to_host(r->cred.uidmap, uid, &host_uid))
			return err_set(e, ERR_INVALID, "uid %u is not mapped in your user namespace", (unsigned)uid);
		if (!r->cred.gidmap || !idmap_to_host(r->cred.gidmap, gid, &host_gid))
			return err_set(e, ERR_INVALID, "gid %u is not mapped in your user namespace", (unsigned)gid);
	}
	return ops_chown_host_ids(o, r, &o->all, name, host_uid, host_gid, e);
}

int ops_key_move(struct ops *o, const struct requester *r, const char *name, int pidfd, struct err *e)
{
	return ops_move_pidfd(o, r, &o->all, name, pidfd, e);
}

int ops_key_move_pid(struct ops *o, const struct requester *r, const char *name, pid_t pid, struct err *e)
{
	if (r->other_pidns)
		return err_set(e, ERR_NOT_SUPPORTED, "MovePid takes a pid as the daemon's pid namespace numbers it; from "
		               "another pid namespace, pass a pidfd to Move");
	return ops_move_pid(o, r, &o->all, name, pid, false, e);
}
