#include "ops/watch_registry.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/list.h"

void watch_registry_init(struct watch_registry *reg)
{
	*reg = (struct watch_registry){.limits = {WATCH_DEFAULT_PER_CONN, WATCH_DEFAULT_PER_UID, WATCH_DEFAULT_TOTAL}};
}

void watch_registry_free(struct watch_registry *reg)
{
	while (reg->head)
		watch_registry_remove(reg, reg->head);
	for (int b = 0; b < WB_COUNT; b++) {
		free(reg->ledger[b].owners);
		free(reg->ledger[b].accounts);
		reg->ledger[b] = (struct watch_ledger){0};
	}
	free(reg->ids);
	reg->ids = NULL;
	reg->n_ids = 0;
}

static struct watch_account *account_find(struct watch_account *v, size_t n, uint64_t key)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].key == key)
			return &v[i];
	return NULL;
}

static unsigned account_units(const struct watch_account *v, size_t n, uint64_t key)
{
	const struct watch_account *a = account_find((struct watch_account *)v, n, key);
	return a ? a->n : 0;
}

/* Adds delta (which may be negative) to key's count; an account at 0 is dropped. -1 out of memory. */
static int account_add(struct watch_account **v, size_t *n, uint64_t key, long delta)
{
	struct watch_account *a = account_find(*v, *n, key);
	if (!a) {
		if (delta <= 0)
			return 0;
		struct watch_account *nv = realloc(*v, (*n + 1) * sizeof(**v));
		if (!nv)
			return -1;
		*v = nv;
		a = &nv[(*n)++];
		*a = (struct watch_account){.key = key};
	}
	a->n = (unsigned)((long)a->n + delta);
	if (a->n == 0)
		*a = (*v)[--*n];
	return 0;
}

/* The account for a message: "uid N", or a user namespace root made (peer_account's encoding). */
static void account_describe(uint64_t account, char *out, size_t len)
{
	if (account >> 32)
		snprintf(out, len, "the user namespace %" PRIu64 " (made by root)", account & UINT32_MAX);
	else
		snprintf(out, len, "uid %u", (unsigned)account);
}

/* How a budget's cap is named in its refusal. */
static const char *const budget_what[WB_COUNT] = {"", " that appeared beneath them after they were made"};

int watch_charge(struct watch_registry *reg, struct watch *w, enum watch_budget b, unsigned n, struct err *e)
{
	const struct watch_limits *l = &reg->limits;
	struct watch_ledger *lg = &reg->ledger[b];
	unsigned conn = account_units(lg->owners, lg->n_owners, (uintptr_t)w->owner);
	unsigned uid = account_units(lg->accounts, lg->n_accounts, w->account);
	/* Root's supervisors may always watch: the others' watches leave part of the total to it. */
	unsigned total = l->total - (b == WB_ASKED && w->account != 0 ? WATCH_ROOT_RESERVED(l->total) : 0);
	char who[64];
	if (l->per_conn && conn + n > l->per_conn)
		return err_set(e, ERR_LIMIT,
		               "this connection follows %u cgroups with its watches%s, and %u more would pass its cap of %u; "
		               "unwatch some first",
		               conn, budget_what[b], n, l->per_conn);
	if (l->per_uid && uid + n > l->per_uid) {
		account_describe(w->account, who, sizeof(who));
		return err_set(e, ERR_LIMIT,
		               "%s follows %u cgroups with its watches%s, and %u more would pass the cap of %u per uid; "
		               "unwatch some first",
		               who, uid, budget_what[b], n, l->per_uid);
	}
	if (l->total && lg->total + n > total)
		return err_set(e, ERR_LIMIT,
		               "the daemon follows %u cgroups for all watches%s, and %u more would pass its cap of %u%s",
		               lg->total, budget_what[b], n, total, total < l->total ? " (the rest is kept for root)" : "");
	if (account_add(&lg->owners, &lg->n_owners, (uintptr_t)w->owner, n) < 0)
		return err_set(e, ERR_LIMIT, "out of memory");
	if (account_add(&lg->accounts, &lg->n_accounts, w->account, n) < 0) {
		account_add(&lg->owners, &lg->n_owners, (uintptr_t)w->owner, -(long)n);
		return err_set(e, ERR_LIMIT, "out of memory");
	}
	lg->total += n;
	w->charged[b] += n;
	return 0;
}

void watch_uncharge(struct watch_registry *reg, struct watch *w, enum watch_budget b, unsigned n)
{
	struct watch_ledger *lg = &reg->ledger[b];
	if (n > w->charged[b])
		n = w->charged[b];
	account_add(&lg->owners, &lg->n_owners, (uintptr_t)w->owner, -(long)n);
	account_add(&lg->accounts, &lg->n_accounts, w->account, -(long)n);
	lg->total -= n;
	w->charged[b] -= n;
}

struct watch *watch_registry_find(const struct watch_registry *reg, const void *owner, uint32_t id)
{
	for (struct watch *w = reg->head; w; w = w->next)
		if (w->id == id && w->owner == owner)
			return w;
	return NULL;
}

static bool id_in_use(const struct watch_registry *reg, const void *owner, uint32_t id)
{
	return watch_registry_find(reg, owner, id) != NULL;
}

/* owner's next id: 1, 2, ... for each connection, not reused while it lasts short of 2^32 watches; 0 is never one. */
static int next_id(struct watch_registry *reg, const void *owner, uint32_t *id)
{
	struct watch_account *a = account_find(reg->ids, reg->n_ids, (uintptr_t)owner);
	if (!a) {
		struct watch_account *v = realloc(reg->ids, (reg->n_ids + 1) * sizeof(*v));
		if (!v)
			return -1;
		reg->ids = v;
		a = &v[reg->n_ids++];
		*a = (struct watch_account){.key = (uintptr_t)owner};
	}
	do
		*id = ++a->n;
	while (*id == 0 || id_in_use(reg, owner, *id));
	return 0;
}

struct watch *watch_registry_add(struct watch_registry *reg, const void *owner, uid_t uid, uint64_t account,
                                 unsigned mask, bool subtree, const char *name, struct err *e)
{
	struct watch *w = calloc(1, sizeof(*w));
	if (!w || !(w->name = strdup(name))) {
		free(w);
		err_set(e, ERR_LIMIT, "out of memory");
		return NULL;
	}
	w->owner = owner;
	w->uid = uid;
	w->account = account;
	w->mask = mask;
	w->subtree = subtree;
	if (next_id(reg, owner, &w->id) < 0)
		err_set(e, ERR_LIMIT, "out of memory");
	if (!w->id || watch_charge(reg, w, WB_ASKED, 1, e) < 0) {
		free(w->name);
		free(w);
		return NULL;
	}
	LIST_PREPEND(reg->head, w, prev, next);
	return w;
}

void watch_registry_remove(struct watch_registry *reg, struct watch *w)
{
	for (int b = 0; b < WB_COUNT; b++)
		watch_uncharge(reg, w, b, w->charged[b]);
	LIST_REMOVE(reg->head, w, prev, next);
	free(w->name);
	free(w);
}

void watch_registry_forget(struct watch_registry *reg, const void *owner)
{
	struct watch_account *a = account_find(reg->ids, reg->n_ids, (uintptr_t)owner);
	if (a)
		*a = reg->ids[--reg->n_ids];
}

unsigned watch_owner_units(const struct watch_registry *reg, const void *owner)
{
	unsigned n = 0;
	for (int b = 0; b < WB_COUNT; b++)
		n += account_units(reg->ledger[b].owners, reg->ledger[b].n_owners, (uintptr_t)owner);
	return n;
}

unsigned watch_account_units(const struct watch_registry *reg, uint64_t account)
{
	unsigned n = 0;
	for (int b = 0; b < WB_COUNT; b++)
		n += account_units(reg->ledger[b].accounts, reg->ledger[b].n_accounts, account);
	return n;
}
