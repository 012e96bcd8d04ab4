#include "ops/watch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgfs/cgdir.h"
#include "ops/key_api.h"
#include "ops/target.h"

struct watches {
	struct watch_registry reg;
	struct event_source *src;
};

/*
 * A descendant is followed, and an event told, under the rule of Watch itself (the subscriber may list the cgroup
 * now), and a count under GetValue's (it may read the file now).
 */
static bool may(const struct watch *w, const struct stat *st, enum event_right right, const char *what)
{
	char why[POLICY_WHY_MAX];
	struct owner own = {.uid = st->st_uid, .gid = st->st_gid, .mode = st->st_mode};
	if (!w->cred)
		return false;
	return right == EVR_LIST ? policy_may_list(w->cred, &own, what, why) : policy_may_read(w->cred, &own, what, why);
}

static bool same_rights(const struct watch *a, const struct watch *b)
{
	return a->cred && b->cred && policy_same_cred(a->cred, b->cred);
}

struct watches *watches_new(struct err *e)
{
	struct watches *ws = calloc(1, sizeof(*ws));
	if (!ws) {
		err_set(e, ERR_LIMIT, "out of memory");
		return NULL;
	}
	watch_registry_init(&ws->reg);
	if (!(ws->src = event_source_new(&ws->reg, e))) {
		free(ws);
		return NULL;
	}
	event_source_set_policy(ws->src, may, same_rights);
	return ws;
}

void watches_free(struct watches *ws)
{
	if (!ws)
		return;
	for (struct watch *w = ws->reg.head; w; w = w->next)
		event_source_detach(ws->src, w);
	watch_registry_free(&ws->reg);
	event_source_free(ws->src);
	free(ws);
}

void watches_set_limits(struct watches *ws, const struct watch_limits *l)
{
	if (l->per_conn)
		ws->reg.limits.per_conn = l->per_conn;
	if (l->per_uid)
		ws->reg.limits.per_uid = l->per_uid;
	if (l->total)
		ws->reg.limits.total = l->total;
}

struct event_source *watches_source(struct watches *ws)
{
	return ws->src;
}

const struct watch_registry *watches_registry(const struct watches *ws)
{
	return &ws->reg;
}

#define EV_MEMORY (EV_BIT(EV_OOM) | EV_BIT(EV_OOM_KILL) | EV_BIT(EV_HIGH) | EV_BIT(EV_MAX))
#define EV_FREEZER (EV_BIT(EV_FROZEN) | EV_BIT(EV_THAWED))
#define EV_PRIMARY (EV_BIT(EV_POPULATED) | EV_BIT(EV_EMPTY) | EV_BIT(EV_REMOVED))

/*
 * Which events a watch takes from h. Emptiness and removal come from its primary hierarchy (cgroup2 where the
 * cgroup is there, whose cgroup.events reports emptiness at once; else the first it is in), the others from
 * the hierarchy of their controller.
 */
static unsigned roles_in(struct ops *o, const struct hierarchy *h, const struct hierarchy *primary)
{
	int version;
	unsigned roles = h == primary ? EV_PRIMARY : 0;
	if (hierarchy_for_controller(o, "memory", &version) == h)
		roles |= EV_MEMORY;
	if (hierarchy_for_controller(o, "pids", &version) == h)
		roles |= EV_BIT(EV_PIDS_MAX);
	if (hierarchy_for_controller(o, "freezer", &version) == h)
		roles |= EV_FREEZER;
	return roles;
}

/* The named cgroup in each hierarchy it is in, each readable by r. */
static int resolve_all(struct ops *o, const struct requester *r, const char *name, struct target *t, size_t *found,
                       struct err *e)
{
	struct proc_cgroups pc;
	int rc = 0;
	*found = 0;
	if (requester_cgroups(o, r, &pc, e) < 0)
		return -1;
	for (size_t i = 0; rc == 0 && i < o->hs.n; i++) {
		struct owner own;
		char why[POLICY_WHY_MAX];
		t[i] = (struct target){.req_fd = -1, .fd = -1};
		if (target_resolve(o, r, &pc, &o->hs.h[i], name, false, &t[i], e) < 0 ||
		    (t[i].fd >= 0 && target_owner(&t[i], "", &own, e) < 0))
			rc = -1;
		else if (t[i].fd < 0)
			continue;
		/* Events tell what the cgroup's files tell: who may not read it may not watch it. */
		else if (!policy_may_list(&r->cred, &own, t[i].what, why))
			rc = err_set(e, ERR_ACCESS, "%s; so you may not watch it", why);
		else
			(*found)++;
	}
	proc_cgroups_free(&pc);
	if (rc < 0)
		return -1;
	if (!*found)
		return err_set(e, ERR_NOT_FOUND, "cgroup '%s' does not exist in any hierarchy beneath yours", name);
	return 0;
}

/*
 * A counted event asked for by name whose count is in a file of t the requester may not read is refused, as
 * GetValue of that file is. Asked for by no name (every event), it is only not sent: the source asks each time.
 */
static int may_read_counts(const struct requester *r, const struct target *t, const struct hierarchy *h, unsigned roles,
                           struct err *e)
{
	for (enum event_kind k = 0; k < EV_LOST; k++) {
		const char *file = event_counter_file(k, h->unified);
		char what[WHAT_MAX + 64], why[POLICY_WHY_MAX];
		struct stat st;
		if (!file || !(roles & EV_BIT(k)) || cgdir_stat(t->fd, file, &st) < 0)
			continue;
		struct owner own = {.uid = st.st_uid, .gid = st.st_gid, .mode = st.st_mode};
		snprintf(what, sizeof(what), "%s %s", t->what, file);
		if (!policy_may_read(&r->cred, &own, what, why))
			return err_set(e, ERR_ACCESS, "%s; so you may not watch %s, which tells its count", why, event_word(k));
	}
	return 0;
}

int ops_watch(struct ops *o, const struct requester *r, const void *owner, uint64_t account, const char *name,
              const struct watch_wants *want, uint32_t *id, struct err *e)
{
	struct target *t = calloc(o->hs.n ? o->hs.n : 1, sizeof(*t));
	struct event_place places[PROC_CGROUP_MAX];
	const struct hierarchy *primary = NULL;
	size_t np = 0, found;
	int rc = -1;

	if (!t)
		return err_set(e, ERR_LIMIT, "out of memory");
	for (size_t i = 0; i < o->hs.n; i++)
		t[i] = (struct target){.req_fd = -1, .fd = -1};
	if (resolve_all(o, r, name, t, &found, e) < 0)
		goto out;
	for (size_t i = 0; i < o->hs.n; i++)
		if (t[i].fd >= 0 && (!primary || o->hs.h[i].unified))
			primary = &o->hs.h[i];
	for (size_t i = 0; i < o->hs.n; i++) {
		unsigned roles = roles_in(o, &o->hs.h[i], primary);
		/* The primary one always: it tells when the watch ends. */
		if (t[i].fd < 0 || (&o->hs.h[i] != primary && !(roles & want->mask)))
			continue;
		if (want->named && may_read_counts(r, &t[i], &o->hs.h[i], roles & want->mask, e) < 0)
			goto out;
		places[np++] = (struct event_place){.h = &o->hs.h[i], .rel = t[i].rel, .fd = t[i].fd, .roles = roles};
	}
	struct watch *w =
	    watch_registry_add(&o->watches->reg, owner, r->cred.uid, account, want->mask, want->subtree, name, e);
	if (!w)
		goto out;
	w->cred = &r->cred; /* the connection's, which outlives its watches */
	if (event_source_attach(o->watches->src, w, places, np, e) < 0) {
		watch_registry_remove(&o->watches->reg, w);
		goto out;
	}
	*id = w->id;
	rc = 0;
out:
	for (size_t i = 0; i < o->hs.n; i++)
		target_close(&t[i]);
	free(t);
	return rc;
}

int ops_unwatch(struct ops *o, const void *owner, uint32_t id, struct err *e)
{
	struct watch *w = watch_registry_find(&o->watches->reg, owner, id);
	if (!w)
		return err_set(e, ERR_NOT_FOUND, "you have no watch %u (it may have ended with its cgroup's removal)", id);
	event_source_detach(o->watches->src, w);
	watch_registry_remove(&o->watches->reg, w);
	return 0;
}

unsigned ops_unwatch_owner(struct ops *o, const void *owner)
{
	unsigned n = 0;
	for (struct watch *w = o->watches->reg.head, *next; w; w = next) {
		next = w->next;
		if (w->owner != owner)
			continue;
		event_source_detach(o->watches->src, w);
		watch_registry_remove(&o->watches->reg, w);
		n++;
	}
	watch_registry_forget(&o->watches->reg, owner);
	return n;
}

void ops_watch_note_freezer(struct ops *o, const struct requester *r, const char *name, bool frozen)
{
	struct proc_cgroups pc;
	struct target t = {.req_fd = -1, .fd = -1};
	struct err e;
	int version;
	struct hierarchy *h = hierarchy_for_controller(o, "freezer", &version);
	if (!h || version != 1 || !o->watches->reg.head || requester_cgroups(o, r, &pc, &e) < 0)
		return;
	if (target_resolve(o, r, &pc, h, name, false, &t, &e) == 0 && t.fd >= 0)
		event_source_note_freezer(o->watches->src, h, t.rel, frozen);
	target_close(&t);
	proc_cgroups_free(&pc);
}
