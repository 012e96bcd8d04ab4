/* The kernel's word on who is at the other end of a unix socket. */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "ops/ops.h"

/*
 * SO_PEERCRED, SO_PEERGROUPS and SO_PEERPIDFD, taken at connect time (before Linux 6.5, a pidfd of the pid
 * then). Fails (-ESRCH and the like) for a peer that has exited or cannot be pinned by a pidfd, but where
 * the kernel has no pidfds at all; -EPERM before Linux 6.5 when the process of its pid has another
 * effective uid than the one that connected; -EMFILE, -ENOMEM when the daemon is out of them.
 */
int peer_requester(int fd, struct requester *out);
/* Closes and frees what peer_requester and requester_identify gave r. */
void peer_requester_drop(struct requester *r);

/*
 * Whom a connection of pid (host uid uid) is charged to for the per-uid
 * caps (dbus/admission.h). A peer in the daemon's user namespace (own_userns) is
 * charged to its uid. One in a user namespace below it is charged to the
 * uid that made the outermost of those namespaces, so that a user's
 * subordinate uids and all the namespaces it makes share that user's
 * connections; where root made that namespace (a root-made container), to
 * the namespace itself. Ids up to 2^32-1 are uids; namespaces are
 * PEER_ACCOUNT_USERNS | inode. When the pid's namespaces cannot be read
 * (it exited), the uid.
 *
 * *owner says whether the peer is one of the account's owners (dbus/owner_reserve.h), by its effective and real
 * host uids: the uid the account is named after, or the host uid of uid 0 of the namespace directly beneath
 * ours (made by root or a user), known for a peer in that namespace itself (one in a namespace nested in it is
 * a member).
 */
#define PEER_ACCOUNT_USERNS (1ULL << 32)
uint64_t peer_account(pid_t pid, uid_t uid, ino_t own_userns, bool *owner);
