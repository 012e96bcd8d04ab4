/*
 * The watches of Watch/Unwatch as bookkeeping only: ids, whose each is (the subscriber, an opaque owner; its
 * uid and account), what it asked for, and what it costs its accounts. A watch costs one unit per cgroup
 * directory it follows (the cgroup, and with subtree each descendant, in each hierarchy), charged against its
 * connection, its user's account and the daemon as a whole, each with a cap (cgmanager(8), LIMITS). The kernel side of a watch is
 * ops/event_source.h's. No I/O: unit-tested in tests/unit/test_events.c.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/err.h"

struct cred;

#define WATCH_DEFAULT_PER_CONN 256
#define WATCH_DEFAULT_PER_UID 512
#define WATCH_DEFAULT_TOTAL 16384

struct watch_limits {
	unsigned per_conn, per_uid, total;
};

struct watch {
	uint32_t id;
	const void *owner; /* the subscriber; Event signals go there */
	uid_t uid;         /* the subscriber's, for the log */
	uint64_t account;  /* what the cap per uid counts: watch_registry_add */
	unsigned mask;     /* EV_BIT()s of ops/event_kind.h */
	bool subtree;
	char *name;              /* as the subscriber named the cgroup */
	const struct cred *cred; /* the subscriber's, for the descendants a subtree watch meets (its owner keeps it) */
	unsigned charged;        /* units charged */
	void *src;               /* ops/event_source.c's state of it */
	struct watch *prev, *next;
};

/* The count of one owner or one account. */
struct watch_account {
	uint64_t key;
	unsigned n;
};

struct watch_registry {
	struct watch_limits limits;
	struct watch *head;
	uint32_t last_id;
	unsigned total;
	struct watch_account *owners, *accounts;
	size_t n_owners, n_accounts;
};

void watch_registry_init(struct watch_registry *reg);
/* Every watch freed (the source's parts must be gone). */
void watch_registry_free(struct watch_registry *reg);
/*
 * A new watch charged one unit; ERR_LIMIT, naming the cap, when an account is full. account is the one the
 * daemon charges the subscriber's connections to (dbus/admission.h's admission_account): its uid, the uid of
 * the user who made the user namespace it is in (so that a user's subordinate uids share its cap), or, above
 * 2^32, a user namespace root made (a container).
 */
struct watch *watch_registry_add(struct watch_registry *reg, const void *owner, uid_t uid, uint64_t account,
                                 unsigned mask, bool subtree, const char *name, struct err *e);
/* n more units for w, all or none. */
int watch_charge(struct watch_registry *reg, struct watch *w, unsigned n, struct err *e);
void watch_uncharge(struct watch_registry *reg, struct watch *w, unsigned n);
/* The watch of that id, if it is owner's. */
struct watch *watch_registry_find(const struct watch_registry *reg, const void *owner, uint32_t id);
/* Unlinks, uncharges and frees w. */
void watch_registry_remove(struct watch_registry *reg, struct watch *w);
/* Units charged to an owner, to an account (for tests and the debug log). */
unsigned watch_owner_units(const struct watch_registry *reg, const void *owner);
unsigned watch_account_units(const struct watch_registry *reg, uint64_t account);
