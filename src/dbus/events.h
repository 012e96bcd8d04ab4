/*
 * Event signals (org.linuxcontainers.cgmanager1.Event) to the connections that asked for them with Watch:
 * peer-to-peer, sent on the subscriber's own connection, no match rules. The event source (ops/event_source.h)
 * is one fd in the serving loop; each event is queued for its subscriber and sent from the loop once sd-bus
 * holds fewer than EVENTS_SEND_BELOW unsent messages for it, so a slow reader never makes the loop wait. At
 * most EVENTS_QUEUED_MAX events wait per connection, and their names take at most EVENTS_ACCOUNT_BYTES for all the
 * connections of one account (dbus/admission.h) together: beyond that they are dropped and counted, and once the
 * subscriber has read what waited it gets one `lost` event (id 0, name "") with the count.
 */
#pragma once
#include "dbus/conn.h"
#include "dbus/loop.h"

#define EVENTS_QUEUED_MAX 64
#define EVENTS_SEND_BELOW 4
/* A name is up to 4 KiB, and a user may hold --max-connections-per-uid connections: the bound is the account's. */
#define EVENTS_ACCOUNT_BYTES (1u << 20)
/* The v1 checks that no file notifies of (emptiness, oom_kill counts), in us. */
#define EVENTS_TICK_USEC 1000000ULL
/* When a round of checks did not end within one turn: the clients are served in between. */
#define EVENTS_TICK_AGAIN_USEC 10000ULL

struct event_pump;

/* Watches the source of o in loop l; NULL with e set on failure. */
struct event_pump *event_pump_start(struct loop *l, struct ops *o, struct err *e);
void event_pump_stop(struct event_pump *p);
/* A watch was added: the once-a-second check may be needed now. */
void event_pump_watched(struct event_pump *p);

/* Sends what waits for c, as far as its socket takes it without waiting. */
void events_flush(struct conn *c);
/* Unwatch of c's watch id succeeded: what waits of it is dropped, so that nothing of it follows the reply. */
void events_unwatched(struct conn *c, uint32_t id);
/* c goes away: its watches end, what waited for it is dropped. */
void events_conn_gone(struct conn *c);
