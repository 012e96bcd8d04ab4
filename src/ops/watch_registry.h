/*
 * The watches of Watch/Unwatch as bookkeeping only: ids, whose each is (the subscriber, an opaque owner; its
 * uid and account), what it asked for, and what it costs its accounts. A watch costs one unit per cgroup
 * directory it follows (the cgroup, and with subtree each descendant, in each hierarchy), charged against its
 * connection, its user's account and the daemon as a whole, each with a cap (cgmanager(8), LIMITS), in one of two
 * budgets: what it followed when it was made (past a cap the Watch is refused), and what appeared beneath it
 * afterwards, which whoever owns the watched cgroup makes at will (past a cap it is not followed and the watch is
 * told `lost`): so nobody's mkdirs can make another's Watch fail. The kernel side of a watch is
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
/* The part of the total that only root's account (0) may take with Watch: others' watches cannot shut it out. */
#define WATCH_ROOT_RESERVED(total) ((total) / 16)

/* What a unit is charged to: the cgroups a watch followed when it was made, or those that appeared beneath it later. */
enum watch_budget { WB_ASKED, WB_GROWN, WB_COUNT };

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
	char *name;                 /* as the subscriber named the cgroup */
	const struct cred *cred;    /* the subscriber's, for the descendants a subtree watch meets (its owner keeps it) */
	unsigned charged[WB_COUNT]; /* units charged, in each budget */
	void *src;                  /* ops/event_source.c's state of it */
	struct watch *prev, *next;
};

/* The count of one owner or one account. */
struct watch_account {
	uint64_t key;
	unsigned n;
};

/* One budget's counts: of each owner, each account, and the daemon's. */
struct watch_ledger {
	unsigned total;
	struct watch_account *owners, *accounts;
	size_t n_owners, n_accounts;
};

struct watch_registry {
	struct watch_limits limits; /* each applies to each budget */
	struct watch *head;
	struct watch_ledger ledger[WB_COUNT];
	/* Each owner's last id (key: the owner): ids are the connection's own, not a count of everyone's watches. */
	struct watch_account *ids;
	size_t n_ids;
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
/* n more units for w in budget b, all or none. */
int watch_charge(struct watch_registry *reg, struct watch *w, enum watch_budget b, unsigned n, struct err *e);
void watch_uncharge(struct watch_registry *reg, struct watch *w, enum watch_budget b, unsigned n);
/* The watch of that id, if it is owner's. */
struct watch *watch_registry_find(const struct watch_registry *reg, const void *owner, uint32_t id);
/* Unlinks, uncharges and frees w. */
void watch_registry_remove(struct watch_registry *reg, struct watch *w);
/* The owner is gone (its watches removed): its ids are forgotten. */
void watch_registry_forget(struct watch_registry *reg, const void *owner);
/* Units charged to an owner, to an account, in both budgets (for tests and the debug log). */
unsigned watch_owner_units(const struct watch_registry *reg, const void *owner);
unsigned watch_account_units(const struct watch_registry *reg, uint64_t account);
