/*
 * One call relayed upstream, from cgproxy's event loop: nothing waits. An Scm exchange is a sequence of steps,
 * each started by an event: room on a connection (the credentials then go into the socketpair, and the call
 * upstream), the daemon's acknowledgement of the Scm call, its kick for each credential, each datagram of
 * the result; a step that does not come within
 * RELAY_STEP_USEC ends the call with an error. A call without an Scm form is sent as it is and its reply
 * copied back.
 */
#pragma once
#include <stdbool.h>
#include <sys/socket.h>
#include <systemd/sd-bus.h>

#include "dbus/loop.h"
#include "proxy/scm_result.h"
#include "proxy/upstream.h"
#include "scm/scm_methods.h"

#define RELAY_CALL_USEC (5ULL * 1000000ULL) /* the daemon's reply to a call */
#define RELAY_STEP_USEC (2ULL * 1000000ULL) /* each kick and each datagram of a result */

enum relay_step {
	RELAY_WAITING, /* for room on a connection */
	RELAY_LINK,    /* for its connection to be ready */
	RELAY_CALL,    /* for the daemon's reply to the call */
	RELAY_KICK,    /* for the daemon's kicks, one per credential it reads (they went with the call) */
	RELAY_RESULT,  /* for the result's datagrams */
	RELAY_REASON,  /* for the datagram that says why the daemon refused */
};

struct relay {
	struct upstream *up;
	sd_bus_message *plain;      /* the client's call, answered by the relay */
	const struct scm_method *m; /* its Scm form; NULL: relayed as it is */
	struct ucred requester;     /* the client, as this namespace sees it */
	struct ucred second;        /* the victim (its pid) or the new owner (its ids) */
	enum relay_step step;
	bool retried;  /* its connection went away once already */
	bool starting; /* relay_start has not returned: a finish then calls no done */
	bool finished;
	int fd;                  /* this end of the exchange's socketpair */
	int kicks;               /* the daemon's kicks read */
	struct loop_watch watch; /* fd, from the acknowledgement on */
	struct loop_timer step_timer;
	sd_bus_slot *call; /* the call under way upstream */
	struct scm_reader result;
	void (*done)(void *owner); /* the client was answered (NULL once the client is gone) */
	void *owner;
	struct uplink *link;                 /* while it has room on one */
	struct relay *link_prev, *link_next; /* its connection's calls, or the line it waits in */
	struct relay *all_prev, *all_next;   /* every call under way (struct upstream) */
};

/*
 * Relays the plain call m of a client (requester: its credentials as this namespace sees them) and answers
 * it. Returns the relay under way (done is called once it answered; it is freed then), or NULL when m was
 * answered at once.
 */
struct relay *relay_start(struct upstream *u, sd_bus_message *m, const struct ucred *requester,
                          void (*done)(void *owner), void *owner);
/* Its client is gone: it finishes what it began (the daemon may have done it already), answering no one. */
void relay_detach(struct relay *x);
/* Its connection (x->link) is ready to take its call. */
void relay_link_ready(struct relay *x);
/*
 * Its connection went away (r: why), or none could be made: retried once on another if the daemon had not
 * taken the call, else it carries on over its socketpair.
 */
void relay_link_lost(struct relay *x, int r);
/* cgproxy stops: every call under way is answered with an error. */
void relay_stop_all(struct upstream *u);
