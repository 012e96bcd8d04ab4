/* SetValues and GetValues of the key API: plan every write, check them all, then write, undoing on failure. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgfs/devices_bpf.h"
#include "cgfs/refusal.h"
#include "ops/key_ctx.h"
#include "ops/subtree_tasks.h"
#include "ops/unified.h"

int kvv_push(kvv *k, const char *key, char *value_taken)
{
	struct kv *v = realloc(k->v, (k->n + 1) * sizeof(*v));
	char *dup = strdup(key);
	if (!v || !dup) {
		free(dup);
		free(value_taken);
		if (v)
			k->v = v;
		return -1;
	}
	k->v = v;
	k->v[k->n++] = (struct kv){dup, value_taken};
	return 0;
}

void kvv_free(kvv *k)
{
	for (size_t i = 0; i < k->n; i++) {
		free(k->v[i].key);
		free(k->v[i].value);
	}
	free(k->v);
	*k = (kvv){0};
}

/* One planned write, resolved to its cgroup, with what was there before. */
struct step {
	const struct key_write *w;
	const char *key;
	struct target *t;
	char *old;  /* NULL: the file cannot be read back (devices.allow) or was not read */
	bool done;
	bool enable;          /* on cgroup2, enable_ctrl must be enabled above t first */
	char enable_ctrl[64];
};

/* Device rules for cgroup2 are one program per cgroup: every rule of the request for one target together. */
struct rule_batch {
	struct target *t;
	struct dev_rule *old;
	size_t nold;
	bool applied;
};

static bool write_only(const char *file)
{
	return strcmp(file, "devices.allow") == 0 || strcmp(file, "devices.deny") == 0;
}

/* Limits are the parent owner's, as for SetValue; a device program counts as a limit of the cgroup. */
static int check_step(struct key_ctx *k, struct step *s, struct err *e)
{
	const struct requester *r = k->r;
	const char *file = s->w->file ? s->w->file : "cgroup.max.depth";
	struct owner own;
	char why[POLICY_WHY_MAX], what[WHAT_MAX + 300];

	if (!(s->t = key_ctx_target(k, s->w->controller, e)))
		return err_prefix(e, s->key);
	snprintf(what, sizeof(what), "%s %s", s->t->what, s->w->file ? s->w->file : "device program");
	if (policy_is_task_or_agent_file(file))
		return err_set(e, ERR_ACCESS, "%s: %s is a task or agent file", s->key, what);
	/* A cgroup2 controller not enabled yet: its files appear at write time, once everything is checked. */
	int enable = s->w->file ? unified_needs_enable(r, s->t, file, s->enable_ctrl, e) : 0;
	if (enable < 0)
		return err_prefix(e, s->key);
	if (enable > 0) {
		s->enable = true;
		return 0;
	}
	if (target_owner(s->t, file, &own, e) < 0) {
		if (e->kind == ERR_NOT_FOUND)
			return err_set(e, ERR_NOT_SUPPORTED, "%s: %s has no %s, so this kernel or this cgroup offers no such "
			               "setting here (a cgroup2 controller must be enabled in the parent's cgroup.subtree_control)",
			               s->key, s->t->what, file);
		return -1;
	}
	if (!s->w->file && s->t->rel[0] == '\0')
		own = (struct owner){0, 0, S_IFREG | 0644};
	if (!policy_may_set_value(&r->cred, &own, file, target_place(s->t), what, why))
		return err_set(e, ERR_ACCESS, "%s: %s", s->key, why);
	if (s->w->file && check_task_write(r, s->t->fd, s->t->what, file, s->w->value, e) < 0)
		return err_prefix(e, s->key);
	if (s->w->file && !write_only(s->w->file) && cgdir_read(s->t->fd, s->w->file, &s->old) < 0)
		s->old = NULL;
	return 0;
}

/* Writes an earlier content back, a line at a time, as cgroupfs takes it; an empty one (cpuset.cpus) as empty. */
static int restore(const struct step *s)
{
	char *copy = s->old ? strdup(s->old) : NULL, *save = NULL;
	int r = 0;
	if (!copy)
		return s->old ? -ENOMEM : 0;
	if (strspn(copy, "\n") == strlen(copy))
		r = cgdir_write(s->t->fd, s->w->file, "\n");
	for (char *line = strtok_r(copy, "\n", &save); line && r == 0; line = strtok_r(NULL, "\n", &save))
		r = cgdir_write(s->t->fd, s->w->file, line);
	free(copy);
	return r;
}

static int batch_for(struct rule_batch *b, size_t *nb, struct target *t, struct err *e)
{
	for (size_t i = 0; i < *nb; i++)
		if (b[i].t == t)
			return (int)i;
	b[*nb] = (struct rule_batch){.t = t};
	if (devices_bpf_rules(t->fd, &b[*nb].old, &b[*nb].nold, e) < 0)
		return -1;
	return (int)(*nb)++;
}

static int apply_rules(struct step *steps, size_t n, struct rule_batch *b, size_t nb, struct err *e)
{
	for (size_t i = 0; i < nb; i++) {
		size_t cnt = b[i].nold;
		struct dev_rule *all = calloc(cnt + n, sizeof(*all));
		const char *key = NULL;
		if (!all)
			return err_set(e, ERR_LIMIT, "out of memory");
		memcpy(all, b[i].old, cnt * sizeof(*all));
		for (size_t j = 0; j < n; j++)
			if (!steps[j].w->file && steps[j].t == b[i].t) {
				all[cnt++] = steps[j].w->rule;
				key = steps[j].key;
			}
		int rc = devices_bpf_apply(b[i].t->fd, all, cnt, e);
		free(all);
		if (rc < 0)
			return err_prefix(e, key);
		b[i].applied = true;
	}
	return 0;
}

/*
 * Nothing half-done: what this request wrote is written back, newest first,
 * in two passes like the writes (v1 takes memory and memory+swap limits only
 * in an order that keeps memory+swap at or above memory). What cannot be
 * written back is named in e after the reason of the failure.
 */
static void undo(struct step *steps, size_t n, struct rule_batch *b, size_t nb, struct err *e)
{
	struct err ignored;
	for (size_t i = nb; i-- > 0;)
		if (b[i].applied && devices_bpf_apply(b[i].t->fd, b[i].old, b[i].nold, &ignored) < 0)
			err_append(e, "; and the earlier device rules could not be put back");
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = n; i-- > 0;) {
			if (!steps[i].done)
				continue;
			int r = restore(&steps[i]);
			if (r == 0) {
				steps[i].done = false;
			} else if (pass == 1) {
				char msg[WHAT_MAX + 400];
				snprintf(msg, sizeof(msg), "; and %s %s could not be set back to what it was (%s)", steps[i].t->what,
				         steps[i].w->file, strerror(-r));
				err_append(e, msg);
			}
		}
}

/* Two passes: v1 refuses some orders (memory above memory+swap), which the second pass settles. */
static int write_steps(struct step *steps, size_t n, struct err *e)
{
	for (int pass = 0; pass < 2; pass++) {
		bool left = false;
		for (size_t i = 0; i < n; i++) {
			struct step *s = &steps[i];
			if (s->done || !s->w->file)
				continue;
			int r = cgdir_write(s->t->fd, s->w->file, s->w->value);
			if (r == 0) {
				s->done = true;
			} else if (pass == 1) {
				err_errno(e, -r, "%s: the kernel refused '%s' for %s %s", s->key, s->w->value, s->t->what,
				          s->w->file);
				return err_append(e, cgfs_refusal_hint(s->w->file, -r));
			} else {
				left = true;
			}
		}
		if (!left)
			break;
	}
	return 0;
}

int ops_key_set_values(struct ops *o, const struct requester *r, const char *name, const kvv *values, struct err *e)
{
	struct key_ctx k;
	key_writes writes = {0};
	struct step *steps = NULL;
	struct rule_batch batches[PROC_CGROUP_MAX];
	size_t nb = 0;
	int rc = -1;

	if (key_ctx_init(&k, o, r, name, e) < 0)
		goto out;
	k.pending = &writes;
	size_t *first = calloc(values->n + 1, sizeof(*first));
	if (!first) {
		err_set(e, ERR_LIMIT, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < values->n; i++) {
		first[i] = writes.n;
		if (key_plan_set(&k.host, values->v[i].key, values->v[i].value, &writes, e) < 0) {
			free(first);
			goto out;
		}
	}
	first[values->n] = writes.n;
	steps = calloc(writes.n ? writes.n : 1, sizeof(*steps));
	if (!steps) {
		free(first);
		err_set(e, ERR_LIMIT, "out of memory");
		goto out;
	}
	for (size_t i = 0, key = 0; i < writes.n; i++) {
		while (i >= first[key + 1])
			key++;
		steps[i] = (struct step){.w = &writes.v[i], .key = values->v[key].key};
	}
	free(first);
	/* Everything is checked before the first write, so a refusal changes nothing. */
	for (size_t i = 0; i < writes.n; i++) {
		if (check_step(&k, &steps[i], e) < 0)
			goto out;
		if (!steps[i].w->file && batch_for(batches, &nb, steps[i].t, e) < 0)
			goto out;
	}
	for (size_t i = 0; i < writes.n; i++)
		if (steps[i].enable && unified_enable(o, k.r, steps[i].t, steps[i].enable_ctrl, e) < 0)
			goto out;
	if (write_steps(steps, writes.n, e) < 0 || apply_rules(steps, writes.n, batches, nb, e) < 0) {
		undo(steps, writes.n, batches, nb, e);
		goto out;
	}
	rc = 0;
out:
	for (size_t i = 0; steps && i < writes.n; i++)
		free(steps[i].old);
	for (size_t i = 0; i < nb; i++)
		free(batches[i].old);
	free(steps);
	key_writes_free(&writes);
	key_ctx_free(&k);
	return rc;
}

int ops_key_get_values(struct ops *o, const struct requester *r, const char *name, const char *const *keys, kvv *out,
                    struct err *e)
{
	struct key_ctx k;
	int rc = -1;

	if (key_ctx_init(&k, o, r, name, e) < 0)
		goto out;
	for (size_t i = 0; keys[i]; i++) {
		char *value = NULL;
		if (key_get(&k.host, keys[i], &value, e) < 0)
			goto out;
		if (kvv_push(out, keys[i], value) < 0) {
			err_set(e, ERR_LIMIT, "out of memory");
			goto out;
		}
	}
	rc = 0;
out:
	key_ctx_free(&k);
	return rc;
}
