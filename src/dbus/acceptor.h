/*
 * The thread that takes connections off the listen socket, checks them against the connection limits
 * (dbus/admission.h) and hands those it admits to the serving thread. Refusing costs a connect storm's
 * every connection an accept, SO_PEERCRED, a look at its user namespace and a close; done here, at a
 * lower priority, it takes nothing from the clients being served.
 */
#pragma once
#include "dbus/admission.h"
#include "util/err.h"

struct acceptor;

struct accepted {
	int fd;               /* the client's socket, non-blocking */
	struct uid_slot *slot; /* what it was charged to: admission_release it when it goes */
};

struct acceptor *acceptor_start(int listen_fd, struct admission *a, struct err *e);
/* Readable while admitted connections wait to be taken. */
int acceptor_fd(const struct acceptor *ac);
/* One admitted connection: 1, or 0 when none waits. */
int acceptor_take(struct acceptor *ac, struct accepted *out);
/* Stops the thread; what it admitted and was not taken is closed and released. */
void acceptor_stop(struct acceptor *ac);
