/*
 * The thread that takes connections off the listen socket and keeps them until they have authenticated. It
 * checks each against the connection limits (dbus/admission.h), reads what the kernel says of its peer,
 * waits for its first byte (or its deadline), only then makes its sd-bus, runs the auth exchange through
 * the intake and hands it to the serving thread once it is authenticated. A storm of connects, silent,
 * authenticating or not, costs the serving thread one hand-over per connection that authenticates.
 */
#pragma once
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "dbus/admission.h"
#include "dbus/intake.h"
#include "ops/ops.h"
#include "util/err.h"

struct acceptor;

/* A connection that authenticated, its sd-bus running (as a server); what it sent after BEGIN waits in the
 * intake, to be relayed (intake_pump) before the client is read again. */
struct accepted {
	int fd;                /* the client's socket, non-blocking; sd-bus writes to it */
	struct uid_slot *slot; /* what it was charged to: admission_release it when it goes */
	struct requester req;  /* peer_requester's, and requester_identify's if the acceptor has ops */
	sd_bus *bus;           /* reads from the intake's socketpair; add a filter before processing it */
	struct intake in;
	uint64_t auth_deadline; /* CLOCK_MONOTONIC usec (now_usec) by which it must speak, then authenticate */
	struct accepted *prev, *next; /* the acceptor's list of those not yet authenticated */
};

/*
 * ops (NULL in cgproxy) only for requester_identify, which reads what never changes once the daemon runs;
 * server_id for the buses (sd_bus_set_server); auth_timeout_usec from accept to the first byte, and from
 * that to the end of the auth exchange.
 */
struct acceptor *acceptor_start(int listen_fd, struct admission *a, const struct ops *ops, sd_id128_t server_id,
                                uint64_t auth_timeout_usec, struct err *e);
/* Readable while connections wait to be taken. */
int acceptor_fd(const struct acceptor *ac);
/* One connection, the caller's from here; NULL when none waits. */
struct accepted *acceptor_take(struct acceptor *ac);
/* Closes and releases a connection that is not set up after all. */
void accepted_drop(struct admission *a, struct accepted *c);
/* Stops the thread; what it holds and what was not taken is closed and released. */
void acceptor_stop(struct acceptor *ac);
