#include "proxy/client_calls.h"

#include <stdlib.h>
#include <string.h>

#include "dbus/conn.h"
#include "dbus/server.h"
#include "proxy/relay.h"
#include "util/log.h"

/* c->app_state of a connection that has called: made with its first call, freed with the connection. */
struct client_calls {
	struct conn *c;
	struct upstream *up;
	struct relay *current;                             /* the call under way */
	sd_bus_message *waiting[CLIENT_CALLS_WAITING_MAX]; /* the calls behind it, a ring from head */
	unsigned head, n;
};

static void on_done(void *owner);

/* Starts the oldest call that waits (one answered at once makes room for the next). */
static void start_next(struct client_calls *q)
{
	struct ucred requester = {.pid = q->c->req.pid, .uid = q->c->req.cred.uid, .gid = q->c->req.cred.gid};
	while (!q->current && q->n > 0) {
		sd_bus_message *m = q->waiting[q->head];
		q->head = (q->head + 1) % CLIENT_CALLS_WAITING_MAX;
		q->n--;
		q->current = relay_start(q->up, m, &requester, on_done, q);
		sd_bus_message_unref(m);
	}
}

/* The call under way was answered: its reply may wait for the client's socket, and the next call goes. */
static void on_done(void *owner)
{
	struct client_calls *q = owner;
	q->current = NULL;
	start_next(q);
	server_conn_wake(q->c);
}

int client_calls_relay(struct conn *c, struct upstream *u, sd_bus_message *m)
{
	struct client_calls *q = c->app_state;
	if (!q) {
		if (!(q = calloc(1, sizeof(*q))))
			return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_NO_MEMORY, "cgproxy: out of memory");
		*q = (struct client_calls){.c = c, .up = u};
		c->app_state = q;
	}
	if (q->n >= CLIENT_CALLS_WAITING_MAX)
		return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_LIMITS_EXCEEDED,
		                                  "cgproxy: %u calls of this connection already wait behind the one under way "
		                                  "(at most %u); wait for their answers",
		                                  q->n, CLIENT_CALLS_WAITING_MAX);
	q->waiting[(q->head + q->n) % CLIENT_CALLS_WAITING_MAX] = sd_bus_message_ref(m);
	q->n++;
	start_next(q);
	return 1;
}

void client_calls_gone(struct conn *c)
{
	struct client_calls *q = c->app_state;
	if (!q)
		return;
	if (q->current || q->n)
		log_debug("client pid %d gone: %s, %u waiting calls dropped", (int)c->req.pid,
		          q->current ? "its call under way is finished" : "no call under way", q->n);
	if (q->current)
		relay_detach(q->current);
	for (; q->n > 0; q->n--, q->head = (q->head + 1) % CLIENT_CALLS_WAITING_MAX)
		sd_bus_message_unref(q->waiting[q->head]);
	free(q);
	c->app_state = NULL;
}
