/*
 * cgproxy's connections to the cgmanager above it: a small pool, each connection made and served from
 * cgproxy's event loop (as the daemon serves its systemd1 bus) and made again when the daemon restarts.
 */
#pragma once
#include <stdbool.h>
#include <systemd/sd-bus.h>

#include "dbus/loop.h"

struct relay;

/*
 * The daemon runs at most 4 Scm exchanges of one connection at once (SCM_PER_CONN in dbus/scm_server.c) and
 * 32 of one account (SCM_PER_UID): 8 connections of 4 take all of the container's. Calls past them wait in
 * order, up to UPSTREAM_WAITING_MAX; later ones are refused (LimitsExceeded).
 */
#define UPSTREAM_PER_LINK 4
#define UPSTREAM_LINKS_MAX 8
#define UPSTREAM_WAITING_MAX 1024

/* One connection upstream. */
struct uplink {
	struct upstream *up;
	sd_bus *bus;
	struct loop_watch watch;
	struct loop_timer timer; /* sd-bus's own deadline, or now: to be processed (or closed) in this turn */
	bool ready;              /* authenticated: calls go out */
	bool draining;           /* an exchange on it was abandoned: takes no more, closed once the others end */
	unsigned scm;            /* Scm exchanges on it: at most UPSTREAM_PER_LINK */
	struct relay *relays;    /* the calls that use it */
	struct uplink *prev, *next;
};

struct upstream {
	char *path;
	struct loop *loop;
	struct uplink *links;
	unsigned nlinks;
	struct relay *waiting, *waiting_tail; /* calls waiting for room on a connection, oldest first */
	unsigned nwaiting;
	struct loop_timer kick; /* room came free: the waiting calls take it in this turn */
	struct relay *relays;   /* every call under way (relay.h) */
	bool stopping;
};

void upstream_init(struct upstream *u, struct loop *l, const char *path);
/* Opens the first connection, to say at start whether the daemon is there; 0 or -errno. */
int upstream_probe(struct upstream *u);
/*
 * Room for x on a connection: 1 when x has it (x->link; its call goes out once the connection is
 * ready: relay_link_ready), 0 when x waits in line (relay_link_ready once it has room), -errno when no
 * connection can be made; -ENOBUFS when the line is full.
 */
int upstream_take(struct upstream *u, struct relay *x);
/* x is done with its connection (or leaves the line). abandon: the connection takes no more, and closes. */
void upstream_give_back(struct relay *x, bool abandon);
/* After a call went out on l: sd-bus may have to write more, and has a deadline. */
void upstream_rearm(struct uplink *l);
/* Closes every connection; the calls are finished first (relay_stop_all). */
void upstream_free(struct upstream *u);
/* Whether an error from sd-bus means the daemon went away (or is not there). */
bool upstream_gone(int r);
