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
	free(reg->owners);
	free(reg->accounts);
	reg->owners = reg->accounts = NULL;
	reg->n_owners = reg->n_accounts = 0;
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

int watch_charge(struct watch_registry *reg, struct watch *w, unsigned n, struct err *e)
{
	const struct watch_limits *l = &reg->limits;
	unsigned conn = account_units(reg->owners, reg->n_owners, (uintptr_t)w->owner);
	unsigned uid = account_units(reg->accounts, reg->n_accounts, w->account);
	char who[64];
	if (l->per_conn && conn + n > l->per_conn)
		return err_set(e, ERR_LIMIT,
		               "this connection follows %u cgroups with its watches, and %u more would pass its cap of %u; "
		               "unwatch some first",
		               conn, n, l->per_conn);
	if (l->per_uid && uid + n > l->per_uid) {
		account_describe(w->account, who, sizeof(who));
		return err_set(e, ERR_LIMIT,
		               "%s follows %u cgroups with its watches, and %u more would pass the cap of %u per uid; "
		               "unwatch some first",
		               who, uid, n, l->per_uid);
	}
	if (l->total && reg->total + n > l->total)
		return err_set(e, ERR_LIMIT,
		               "the daemon follows %u cgroups for all watches, and %u more would pass its cap of %u",
		               reg->total, n, l->total);
	if (account_add(&reg->owners, &reg->n_owners, (uintptr_t)w->owner, n) < 0)
		return err_set(e, ERR_LIMIT, "out of memory");
	if (account_add(&reg->accounts, &reg->n_accounts, w->account, n) < 0) {
		account_add(&reg->owners, &reg->n_owners, (uintptr_t)w->owner, -(long)n);
		return err_set(e, ERR_LIMIT, "out of memory");
	}
	reg->total += n;
	w->charged += n;
	return 0;
}

void watch_uncharge(struct watch_registry *reg, struct watch *w, unsigned n)
{
	if (n > w->charged)
		n = w->charged;
	account_add(&reg->owners, &reg->n_owners, (uintptr_t)w->owner, -(long)n);
	account_add(&reg->accounts, &reg->n_accounts, w->account, -(long)n);
	reg->total -= n;
	w->charged -= n;
}

struct watch *watch_registry_find(const struct watch_registry *reg, const void *owner, uint32_t id)
{
	for (struct watch *w = reg->head; w; w = w->next)
		if (w->id == id && w->owner == owner)
			return w;
	return NULL;
}

static bool id_in_use(const struct watch_registry *reg, uint32_t id)
{
	for (struct watch *w = reg->head; w; w = w->next)
		if (w->id == id)
			return true;
	return false;
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
	if (watch_charge(reg, w, 1, e) < 0) {
		free(w->name);
		free(w);
		return NULL;
	}
	/* Ids are not reused while the daemon runs, short of 2^32 watches; 0 is never one. */
	do
		w->id = ++reg->last_id;
	while (w->id == 0 || id_in_use(reg, w->id));
	LIST_PREPEND(reg->head, w, prev, next);
	return w;
}

void watch_registry_remove(struct watch_registry *reg, struct watch *w)
{
	watch_uncharge(reg, w, w->charged);
	LIST_REMOVE(reg->head, w, prev, next);
	free(w->name);
	free(w);
}

unsigned watch_owner_units(const struct watch_registry *reg, const void *owner)
{
	return account_units(reg->owners, reg->n_owners, (uintptr_t)owner);
}

unsigned watch_account_units(const struct watch_registry *reg, uint64_t account)
{
	return account_units(reg->accounts, reg->n_accounts, account);
}
