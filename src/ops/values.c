#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgfs/idmap.h"
#include "cgfs/proc.h"
#include "cgfs/refusal.h"
#include "ops/target.h"
#include "ops/subtree_tasks.h"
#include "ops/unified.h"
#include "util/cleanup.h"

/* The one cgroup a single-controller call names, opened, with the requester's cgroups read. */
static int open_single(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
                       struct target *t, struct err *e)
{
	struct hierarchy *h;
	struct proc_cgroups pc = {0};
	int rc;

	*t = (struct target){.req_fd = -1, .fd = -1};
	if (hierarchy_set_single(set, &h, e) < 0 || requester_cgroups(o, r, &pc, e) < 0)
		return -1;
	rc = target_resolve(o, r, &pc, h, cgroup, true, t, e);
	proc_cgroups_free(&pc);
	return rc;
}

static int check_key(const char *key, struct err *e)
{
	const char *why;
	if (cgfile_name_valid(key, &why) < 0)
		return err_set(e, ERR_INVALID, "key '%s' is refused: %s", key, why);
	return 0;
}

int ops_get_value(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
                  const char *key, char **out, struct err *e)
{
	struct target t = {.req_fd = -1, .fd = -1};
	struct owner file;
	char why[POLICY_WHY_MAX], what[WHAT_MAX + 256];
	int rc = -1, rr;

	if (check_key(key, e) < 0 || open_single(o, r, set, cgroup, &t, e) < 0 ||
	    target_owner(&t, key, &file, e) < 0)
		goto out;
	snprintf(what, sizeof(what), "%s %s", t.what, key);
	if (!S_ISREG(file.mode)) {
		err_set(e, ERR_INVALID, "%s is not a file", what);
		goto out;
	}
	if (!policy_may_read(&r->cred, &file, what, why)) {
		err_set(e, ERR_ACCESS, "%s", why);
		goto out;
	}
	rr = cgdir_read(t.fd, key, out);
	if (rr < 0) {
		err_errno(e, -rr, "cannot read %s", what);
		goto out;
	}
	/* 0.42 answers without the trailing newlines. */
	for (size_t len = strlen(*out); len > 0 && (*out)[len - 1] == '\n'; len--)
		(*out)[len - 1] = '\0';
	rc = 0;
out:
	target_close(&t);
	return rc;
}

int ops_set_value(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
                  const char *key, const char *value, struct err *e)
{
	struct target t = {.req_fd = -1, .fd = -1};
	struct owner file;
	char why[POLICY_WHY_MAX], what[WHAT_MAX + 256];
	int rc = -1, rr;

	if (check_key(key, e) < 0 || open_single(o, r, set, cgroup, &t, e) < 0)
		goto out;
	snprintf(what, sizeof(what), "%s %s", t.what, key);
	/* Refuse task and agent files by name before looking, so the answer does not depend on the hierarchy. */
	if (policy_is_task_or_agent_file(key)) {
		policy_may_set_value(&r->cred, NULL, key, (struct cgroup_place){0}, what, why);
		err_set(e, ERR_ACCESS, "%s", why);
		goto out;
	}
	if (unified_prepare_file(o, r, &t, key, e) < 0 || target_owner(&t, key, &file, e) < 0)
		goto out;
	if (!S_ISREG(file.mode)) {
		err_set(e, ERR_INVALID, "%s is not a file", what);
		goto out;
	}
	if (!policy_may_set_value(&r->cred, &file, key, target_place(&t), what, why)) {
		err_set(e, ERR_ACCESS, "%s", why);
		goto out;
	}
	if (check_task_write(r, t.fd, t.what, key, value, e) < 0)
		goto out;
	rr = cgdir_write(t.fd, key, value);
	if (rr < 0) {
		err_errno(e, -rr, "the kernel refused '%s' for %s", value, what);
		err_append(e, cgfs_refusal_hint(key, -rr));
		goto out;
	}
	rc = 0;
out:
	target_close(&t);
	return rc;
}

/* Owners as the requester's user namespace names them; the kernel's overflow id where it cannot. */
static uint32_t id_as_seen(const struct idmap *map, uint32_t host_id)
{
	uint32_t ns_id;
	if (!map)
		return host_id;
	return idmap_to_ns(map, host_id, &ns_id) ? ns_id : 65534;
}

void keyv_free(keyv *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i].name);
	free(k->v);
	*k = (keyv){0};
}

int ops_list_keys(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
                  keyv *out, struct err *e)
{
	struct target t = {.req_fd = -1, .fd = -1};
	struct owner dir;
	strv files = {0};
	char why[POLICY_WHY_MAX];
	int rc = -1, rr;

	if (open_single(o, r, set, cgroup, &t, e) < 0 || target_owner(&t, "", &dir, e) < 0)
		goto out;
	if (!policy_may_list(&r->cred, &dir, t.what, why)) {
		err_set(e, ERR_ACCESS, "%s", why);
		goto out;
	}
	if ((rr = cgdir_files(t.fd, &files)) < 0) {
		err_errno(e, -rr, "cannot list %s", t.what);
		goto out;
	}
	out->v = calloc(files.n ? files.n : 1, sizeof(*out->v));
	if (!out->v) {
		err_set(e, ERR_LIMIT, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < files.n; i++) {
		struct stat st;
		if (cgdir_stat(t.fd, files.v[i], &st) < 0)
			continue; /* vanished meanwhile */
		out->v[out->n++] = (struct key_info){take_ptr(&files.v[i]), id_as_seen(r->cred.uidmap, st.st_uid),
		                                     id_as_seen(r->cred.gidmap, st.st_gid), st.st_mode};
	}
	rc = 0;
out:
	strv_free(&files);
	target_close(&t);
	return rc;
}
