/*
 * The thread that takes connections off the listen socket, checks them against the connection limits
 * (dbus/admission.h) and hands those it admits to the serving thread. Refusing costs a connect storm's
 * every connection an accept, SO_PEERCRED, a look at its user namespace and a close; done here, at a
 * lower priority, it takes nothing from the clients being served.
 */
#pragma once
#include "dbus/admission.h"
#include "ops/ops.h"
#include "util/err.h"

struct acceptor;

/* An admitted connection, with what the kernel says of its peer already read (so is the serving thread's work
 * per connection small). */
struct accepted {
	int fd;                /* the client's socket, non-blocking */
	struct uid_slot *slot; /* what it was charged to: admission_release it when it goes */
	struct requester req;  /* peer_requester's, and requester_identify's if the acceptor has ops */
};

/* ops (NULL in cgproxy) only for requester_identify, which reads what never changes once the daemon runs. */
struct acceptor *acceptor_start(int listen_fd, struct admission *a, const struct ops *ops, struct err *e);
/* Readable while admitted connections wait to be taken. */
int acceptor_fd(const struct acceptor *ac);
/* One admitted connection, the caller's to free; NULL when none waits. */
struct accepted *acceptor_take(struct acceptor *ac);
/* Closes and releases an admitted connection that is not set up after all. */
void accepted_drop(struct admission *a, struct accepted *c);
/* Stops the thread; what it admitted and was not taken is closed and released. */
void acceptor_stop(struct acceptor *ac);
