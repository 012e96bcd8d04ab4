#include "proxy/upstream.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "proxy/relay.h"
#include "util/list.h"
#include "util/log.h"

#define PROCESS_PER_TURN 64 /* messages of one connection handled in one turn of the loop; the rest in the next */

bool upstream_gone(int r)
{
	return r == -ECONNRESET || r == -ENOTCONN || r == -EPIPE || r == -ECONNREFUSED || r == -ENOENT;
}

static void link_event(void *owner, uint32_t events);
static void link_due(void *owner, uint64_t now);
static void kick_waiting(void *owner, uint64_t now);

void upstream_init(struct upstream *u, struct loop *l, const char *path)
{
	*u = (struct upstream){.loop = l, .path = strdup(path)};
	loop_timer_init(&u->kick, kick_waiting, u);
}

/* Connects; sd-bus authenticates from the loop (the connection is ready once it has). */
static int link_open(struct upstream *u, struct uplink **out)
{
	char address[4200];
	struct uplink *l = calloc(1, sizeof(*l));
	int r = l ? sd_bus_new(&l->bus) : -ENOMEM;

	snprintf(address, sizeof(address), "unix:path=%s", u->path);
	if (r >= 0 && (r = sd_bus_set_address(l->bus, address)) >= 0 && (r = sd_bus_negotiate_fds(l->bus, 1)) >= 0 &&
	    (r = sd_bus_start(l->bus)) >= 0)
		r = loop_watch_add(u->loop, &l->watch, sd_bus_get_fd(l->bus), EPOLLIN, true, link_event, l);
	if (r < 0) {
		if (l)
			sd_bus_close_unref(l->bus);
		free(l);
		return r;
	}
	l->up = u;
	loop_timer_init(&l->timer, link_due, l);
	LIST_PREPEND(u->links, l, prev, next);
	u->nlinks++;
	upstream_rearm(l);
	log_debug("connecting to cgmanager at %s (%u connections)", u->path, u->nlinks);
	*out = l;
	return 0;
}

/* Never a flush: a connection closes when the daemon went away, or to end an abandoned exchange at once. */
static void link_free(struct uplink *l)
{
	struct upstream *u = l->up;
	loop_watch_remove(u->loop, &l->watch);
	loop_timer_cancel(u->loop, &l->timer);
	LIST_REMOVE(u->links, l, prev, next);
	u->nlinks--;
	sd_bus_close_unref(l->bus);
	free(l);
	/* Room for another connection. */
	if (u->waiting)
		loop_timer_set(u->loop, &u->kick, 0);
}

void upstream_rearm(struct uplink *l)
{
	uint64_t due = UINT64_MAX;
	int ev = sd_bus_get_events(l->bus);
	if (ev >= 0)
		loop_watch_set_events(l->up->loop, &l->watch, (uint32_t)ev);
	if (sd_bus_get_timeout(l->bus, &due) >= 0 && due != UINT64_MAX)
		loop_timer_set(l->up->loop, &l->timer, due);
	else
		loop_timer_cancel(l->up->loop, &l->timer);
}

static bool link_open_for_calls(const struct uplink *l)
{
	return !l->draining && sd_bus_is_open(l->bus) > 0;
}

/* Serves the connection: sd-bus's messages (the replies, each to its relay), then its state. */
static void link_process(struct uplink *l)
{
	struct upstream *u = l->up;
	int r = 0;

	for (int i = 0; i < PROCESS_PER_TURN && (r = sd_bus_process(l->bus, NULL)) > 0; i++)
		;
	if (r < 0 || sd_bus_is_open(l->bus) <= 0) {
		if (l->ready)
			log_info("cgmanager at %s closed a connection (%s)", u->path, strerror(r < 0 ? -r : ECONNRESET));
		/* Each relay leaves it: the calls the daemon had not taken go on another (never this one again). */
		l->draining = true;
		while (l->relays)
			relay_link_lost(l->relays, r < 0 ? r : -ECONNRESET);
		link_free(l);
		return;
	}
	if (l->draining && !l->relays) {
		link_free(l);
		return;
	}
	if (!l->ready && sd_bus_is_ready(l->bus) > 0) {
		l->ready = true;
		log_debug("connected to cgmanager at %s", u->path);
		for (struct relay *x = l->relays, *next; x; x = next) {
			next = x->link_next;
			if (x->step == RELAY_LINK)
				relay_link_ready(x);
		}
	}
	if (r > 0) {
		loop_timer_set(u->loop, &l->timer, 0); /* more to do: in this turn's deadlines */
		return;
	}
	upstream_rearm(l);
}

static void link_event(void *owner, uint32_t events)
{
	link_process(owner);
}

static void link_due(void *owner, uint64_t now)
{
	link_process(owner);
}

int upstream_probe(struct upstream *u)
{
	struct uplink *l;
	return link_open(u, &l);
}

static void attach(struct uplink *l, struct relay *x)
{
	x->link = l;
	l->scm += x->m != NULL;
	LIST_PREPEND(l->relays, x, link_prev, link_next);
}

/*
 * A connection with room for x: an Scm exchange takes one of a connection's UPSTREAM_PER_LINK; a call
 * without an Scm form holds nothing of the daemon's and goes on any. The first with room, so that few
 * connections carry few calls.
 */
static struct uplink *link_with_room(struct upstream *u, const struct relay *x)
{
	for (struct uplink *l = u->links; l; l = l->next)
		if (link_open_for_calls(l) && (!x->m || l->scm < UPSTREAM_PER_LINK))
			return l;
	return NULL;
}

/* 1 with room, 0 when every connection is full and no more may be made, -errno when none can be made. */
static int find_room(struct upstream *u, struct relay *x)
{
	struct uplink *l = link_with_room(u, x);
	int r;
	if (!l && u->nlinks < UPSTREAM_LINKS_MAX) {
		if ((r = link_open(u, &l)) < 0)
			return r;
	}
	if (!l)
		return 0;
	attach(l, x);
	return 1;
}

int upstream_take(struct upstream *u, struct relay *x)
{
	/* Those waiting already come first. */
	int r = u->waiting ? 0 : find_room(u, x);
	if (r != 0)
		return r;
	if (u->nwaiting >= UPSTREAM_WAITING_MAX)
		return -ENOBUFS;
	LIST_APPEND_TAILED(u->waiting, u->waiting_tail, x, link_prev, link_next);
	u->nwaiting++;
	x->step = RELAY_WAITING;
	return 0;
}

/* Room came free: the calls waiting take it, oldest first, in this turn. */
static void kick_waiting(void *owner, uint64_t now)
{
	struct upstream *u = owner;
	while (u->waiting) {
		struct relay *x = u->waiting;
		LIST_REMOVE_TAILED(u->waiting, u->waiting_tail, x, link_prev, link_next);
		u->nwaiting--;
		x->step = RELAY_LINK;
		int r = find_room(u, x);
		if (r == 0) {
			/* Still full: first in line again. */
			x->step = RELAY_WAITING;
			LIST_PREPEND(u->waiting, x, link_prev, link_next);
			if (!x->link_next)
				u->waiting_tail = x;
			u->nwaiting++;
			return;
		}
		if (r < 0)
			relay_link_lost(x, r); /* no connection can be made: as if it went away */
		else if (x->link->ready)
			relay_link_ready(x);
	}
}

void upstream_give_back(struct relay *x, bool abandon)
{
	struct upstream *u = x->up;
	struct uplink *l = x->link;
	if (x->step == RELAY_WAITING && !l) {
		LIST_REMOVE_TAILED(u->waiting, u->waiting_tail, x, link_prev, link_next);
		u->nwaiting--;
		return;
	}
	if (!l)
		return;
	LIST_REMOVE(l->relays, x, link_prev, link_next);
	l->scm -= x->m != NULL;
	x->link = NULL;
	/*
	 * The daemon holds an abandoned exchange until the credential it waits for comes (5 s), and counts it
	 * against the connection's few (SCM_PER_CONN): left so, a handful of refused pids would stop the proxy for
	 * every user of the container. Closing the connection ends its exchanges at once, but only once its
	 * other exchanges are done: closed earlier, the daemon would drop those too, perhaps after it did what
	 * they asked, and they could be neither retried nor answered.
	 */
	if (abandon)
		l->draining = true;
	if (l->draining && !l->relays)
		loop_timer_set(u->loop, &l->timer, 0);
	if (u->waiting)
		loop_timer_set(u->loop, &u->kick, 0);
}

void upstream_free(struct upstream *u)
{
	loop_timer_cancel(u->loop, &u->kick);
	while (u->links)
		link_free(u->links);
	loop_timer_cancel(u->loop, &u->kick);
	free(u->path);
	u->path = NULL;
}
