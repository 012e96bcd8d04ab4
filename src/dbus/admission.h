/*
 * Who may hold one more connection: the counts behind --max-connections and --max-connections-per-uid, the
 * latter per account (dbus/peer.h), a few of each account's kept for its owner (dbus/owner_reserve.h).
 * Shared by the thread that accepts connections (dbus/acceptor.h), which charges them, and the one that
 * serves them, which releases them; every function takes the lock itself.
 */
#pragma once
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct uid_slot; /* what one account (peer_account) holds: its owner's connections, or its members' */

struct admission {
	pthread_mutex_t lock;
	struct uid_slot *slots;
	unsigned nconns;             /* charged and not yet released */
	unsigned max_conns;          /* of everyone together, root_reserved of them root's alone */
	unsigned root_reserved;
	unsigned max_conns_per_uid;  /* of each account but root, owner and members together */
	size_t max_message;          /* bytes of one incoming message, header included (the intake's bound) */
	ino_t userns;                /* the daemon's own user namespace, for peer_account */
};

void admission_init(struct admission *a, unsigned max_conns, unsigned root_reserved, unsigned max_conns_per_uid,
                    size_t max_message);
void admission_destroy(struct admission *a);
/* Zeros keep a limit as it is. */
void admission_set_limits(struct admission *a, unsigned max_conns, unsigned max_conns_per_uid, size_t max_message);
void admission_get_limits(struct admission *a, unsigned *max_conns, unsigned *max_conns_per_uid, size_t *max_message);
/*
 * Charges one connection of the peer (pid, host uid) to its account: the slot to release it with, or NULL
 * with *why set to the limit it would pass.
 */
struct uid_slot *admission_charge(struct admission *a, pid_t pid, uid_t uid, const char **why);
void admission_release(struct admission *a, struct uid_slot *u);
/*
 * The serving thread's time per turn of its loop is shared by slots, not connections (an account's owner and
 * its members have one each): whether u has left in that turn of its share_usec (when it has some, at least
 * one message is served), and charging it what serving one of its connections took. Called by the serving
 * thread alone, without the lock.
 */
uint64_t admission_share_left_usec(const struct uid_slot *u, uint64_t turn, uint64_t share_usec);
void admission_share_charge(struct uid_slot *u, uint64_t turn, uint64_t usec);
/* The account a slot is of (0 for root): every connection of one user, and of one container, share it. */
uint64_t admission_account(const struct uid_slot *u);
/* Whether u holds the account's owner's connections (always for root's account), not its members'. */
bool admission_owner(const struct uid_slot *u);
