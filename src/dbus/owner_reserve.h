/*
 * An account (dbus/admission.h) has an owner: the uid it is named after, or for a user namespace that root
 * made (a container), the uid its root maps to. The other peers charged to it are its members: a user's
 * subordinate uids, a container's users. A few of each of the account's allowances are kept for its owner, so
 * that its members together cannot take all of them: a container's cgproxy, which relays every call of the
 * container as its root, is served while the container's users hold what they may. Pure: unit-tested.
 */
#pragma once
#include <stdbool.h>
#include <sys/types.h>

/* What of cap is kept for the owner: preferred, but at most half of cap, so that the members keep the rest. */
unsigned owner_reserve(unsigned cap, unsigned preferred);
/*
 * Whether the account may take one more of something it holds held of in all, members_held of them its
 * members': the account stays within cap, and its members together within cap less reserve.
 */
bool owner_reserve_admits(unsigned held, unsigned members_held, unsigned cap, unsigned reserve, bool owner);
/*
 * Whether a peer with host uids euid (effective) and ruid (real) is the account's owner, whose host uid is
 * owner ((uid_t)-1 when unknown: no one is). Both must be the owner's: a set-uid program the owner left where
 * a member can run it keeps the member's real uid, and is the member's.
 */
bool owner_is(uid_t euid, uid_t ruid, uid_t owner);
