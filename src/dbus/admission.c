#include "dbus/admission.h"

#include <stdlib.h>
#include <sys/stat.h>

#include "cgfs/proc.h"
#include "dbus/owner_reserve.h"
#include "dbus/peer.h"

/* Of each account's --max-connections-per-uid, what its members (a container's users) leave to its owner (the
 * container's root, whose cgproxy needs one): a few, for a cgproxy and a root's tools at once. */
#define OWNER_RESERVED_CONNS 8

/* An account has up to two: its owner's connections, and its members' (dbus/owner_reserve.h). */
struct uid_slot {
	uint64_t account;
	bool owner;
	unsigned conns;
	struct uid_slot *next;
	/* The serving thread's alone (the acceptor never reads them): the turn of its loop that last served the
	 * slot, and for how long it has served it in that turn. */
	uint64_t turn, served_usec;
};

void admission_init(struct admission *a, unsigned max_conns, unsigned root_reserved, unsigned max_conns_per_uid,
                    size_t max_message)
{
	struct stat st;
	*a = (struct admission){.max_conns = max_conns, .root_reserved = root_reserved,
	                        .max_conns_per_uid = max_conns_per_uid, .max_message = max_message};
	pthread_mutex_init(&a->lock, NULL);
	if (stat("/proc/self/ns/user", &st) == 0)
		a->userns = st.st_ino;
}

void admission_destroy(struct admission *a)
{
	while (a->slots) {
		struct uid_slot *u = a->slots;
		a->slots = u->next;
		free(u);
	}
	pthread_mutex_destroy(&a->lock);
}

void admission_set_limits(struct admission *a, unsigned max_conns, unsigned max_conns_per_uid, size_t max_message)
{
	pthread_mutex_lock(&a->lock);
	if (max_conns)
		a->max_conns = max_conns;
	if (max_conns_per_uid)
		a->max_conns_per_uid = max_conns_per_uid;
	if (max_message)
		a->max_message = max_message;
	pthread_mutex_unlock(&a->lock);
}

void admission_get_limits(struct admission *a, unsigned *max_conns, unsigned *max_conns_per_uid, size_t *max_message)
{
	pthread_mutex_lock(&a->lock);
	*max_conns = a->max_conns;
	*max_conns_per_uid = a->max_conns_per_uid;
	*max_message = a->max_message;
	pthread_mutex_unlock(&a->lock);
}

/* The slot of account's owner, or of its members; NULL if it has none. Under the lock. */
static struct uid_slot *slot_find(struct admission *a, uint64_t account, bool owner)
{
	for (struct uid_slot *u = a->slots; u; u = u->next)
		if (u->account == account && u->owner == owner)
			return u;
	return NULL;
}

/* The same, made (with no connection yet) if it has none. Under the lock. */
static struct uid_slot *slot_get(struct admission *a, uint64_t account, bool owner)
{
	struct uid_slot *u = slot_find(a, account, owner);
	if (u || !(u = calloc(1, sizeof(*u))))
		return u;
	u->account = account;
	u->owner = owner;
	u->next = a->slots;
	a->slots = u;
	return u;
}

/* Forgets a slot that holds no connection. Under the lock. */
static void slot_drop_if_empty(struct admission *a, struct uid_slot *u)
{
	if (u->conns > 0)
		return;
	for (struct uid_slot **p = &a->slots; *p; p = &(*p)->next)
		if (*p == u) {
			*p = u->next;
			break;
		}
	free(u);
}

static const char *refusal(struct admission *a, uid_t uid, struct uid_slot *u)
{
	if (a->nconns >= a->max_conns)
		return "the daemon has as many connections as it takes (--max-connections)";
	/* The last few are kept for root, so that other uids together cannot shut the administrator out. */
	if (uid != 0 && a->nconns + a->root_reserved >= a->max_conns)
		return "the connections left are kept for root (--max-connections)";
	if (!u)
		return "out of memory";
	if (uid == 0)
		return NULL;
	/* The account's connections together within the cap, its members' short of its owner's reserve. */
	const struct uid_slot *other = slot_find(a, u->account, !u->owner);
	unsigned held = u->conns + (other ? other->conns : 0), members = u->owner ? held - u->conns : u->conns;
	unsigned reserve = owner_reserve(a->max_conns_per_uid, OWNER_RESERVED_CONNS);
	if (owner_reserve_admits(held, members, a->max_conns_per_uid, reserve, u->owner))
		return NULL;
	if (held >= a->max_conns_per_uid)
		return "the uid (or the user who made its user namespace) has as many connections as it may "
		       "(--max-connections-per-uid)";
	return "the connections left to the uid's account (its user's, or its container's) are kept for its owner (the "
	       "user, or the container's root) (--max-connections-per-uid)";
}

/*
 * Root's connections by its effective uid, unless the process runs for a user: a set-uid-root program the user
 * started (su, sudo) keeps the user's real uid, and the user may stop it; it is charged to that user, or a user
 * with enough of them stopped would hold the connections kept for root. Its requests are still root's.
 */
static uid_t admitted_as(pid_t pid, uid_t uid)
{
	struct proc_ids ids;
	struct err ignored;
	if (uid != 0 || pid <= 0 || proc_ids_read(pid, &ids, &ignored) < 0)
		return uid;
	return ids.uid[0];
}

struct uid_slot *admission_charge(struct admission *a, pid_t pid, uid_t uid, const char **why)
{
	bool owner = true;
	/* Read from /proc outside the lock: the serving thread may be waiting for it. */
	uid = admitted_as(pid, uid);
	uint64_t account = uid == 0 ? 0 : peer_account(pid, uid, a->userns, &owner);
	pthread_mutex_lock(&a->lock);
	struct uid_slot *u = slot_get(a, account, owner);
	if ((*why = refusal(a, uid, u))) {
		if (u)
			slot_drop_if_empty(a, u);
		u = NULL;
	} else {
		u->conns++;
		a->nconns++;
	}
	pthread_mutex_unlock(&a->lock);
	return u;
}

void admission_release(struct admission *a, struct uid_slot *u)
{
	pthread_mutex_lock(&a->lock);
	u->conns--;
	a->nconns--;
	slot_drop_if_empty(a, u);
	pthread_mutex_unlock(&a->lock);
}

uint64_t admission_share_left_usec(const struct uid_slot *u, uint64_t turn, uint64_t share_usec)
{
	if (u->turn != turn)
		return share_usec;
	return u->served_usec < share_usec ? share_usec - u->served_usec : 0;
}

void admission_share_charge(struct uid_slot *u, uint64_t turn, uint64_t usec)
{
	if (u->turn != turn) {
		u->turn = turn;
		u->served_usec = 0;
	}
	u->served_usec += usec;
}

uint64_t admission_account(const struct uid_slot *u)
{
	return u->account; /* set when the slot was made, before any connection held it: no lock needed */
}

bool admission_owner(const struct uid_slot *u)
{
	return u->owner; /* set when the slot was made, as its account */
}
