#include "dbus/events.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "dbus/admission.h"
#include "dbus/deferred.h"
#include "ops/watch.h"
#include "util/log.h"

struct queued_event {
	uint32_t id;
	enum event_kind kind;
	uint64_t count, time_us;
	char *name;
};

/* What waits for one connection, oldest first, and what was dropped since it last read. */
struct subscriber {
	struct queued_event q[EVENTS_QUEUED_MAX];
	unsigned head, n;
	uint64_t lost, lost_since_us;
	struct event_pump *pump; /* which counts the bytes of its names against its account */
	uint64_t account;        /* its connection's (dbus/admission.h's admission_account) */
};

/* The bytes of names waiting for one account's connections. */
struct account_bytes {
	uint64_t account;
	size_t bytes;
};

struct event_pump {
	struct loop *loop;
	struct ops *ops;
	struct loop_watch watch;
	struct loop_timer tick;
	struct account_bytes *accounts; /* those with something waiting */
	size_t n_accounts;
};

static struct account_bytes *account_bytes_find(struct event_pump *p, uint64_t account)
{
	for (size_t i = 0; i < p->n_accounts; i++)
		if (p->accounts[i].account == account)
			return &p->accounts[i];
	return NULL;
}

/* len more bytes queued for s's account, if within EVENTS_ACCOUNT_BYTES. */
static bool bytes_take(struct subscriber *s, size_t len)
{
	struct event_pump *p = s->pump;
	struct account_bytes *a = account_bytes_find(p, s->account);
	if ((a ? a->bytes : 0) + len > EVENTS_ACCOUNT_BYTES)
		return false;
	if (!a) {
		struct account_bytes *v = realloc(p->accounts, (p->n_accounts + 1) * sizeof(*v));
		if (!v)
			return false;
		p->accounts = v;
		a = &v[p->n_accounts++];
		*a = (struct account_bytes){.account = s->account};
	}
	a->bytes += len;
	return true;
}

/* len bytes no longer queued for s's account. */
static void bytes_give(struct subscriber *s, size_t len)
{
	struct event_pump *p = s->pump;
	struct account_bytes *a = account_bytes_find(p, s->account);
	if (!a)
		return;
	a->bytes -= len < a->bytes ? len : a->bytes;
	if (!a->bytes)
		*a = p->accounts[--p->n_accounts];
}

/* q leaves s's queue: its name is freed and no longer counted. */
static void queued_drop(struct subscriber *s, struct queued_event *q)
{
	bytes_give(s, strlen(q->name) + 1);
	free(q->name);
	q->name = NULL;
}

static int send_event(struct conn *c, uint32_t id, const char *name, enum event_kind k, uint64_t count,
                      uint64_t time_us)
{
	sd_bus_message *m = NULL;
	int r = sd_bus_message_new_signal(c->bus, &m, CGMANAGER_OBJECT_PATH, CGMANAGER_IFACE1, "Event");
	if (r >= 0)
		r = sd_bus_message_append(m, "uss", id, name, event_word(k));
	if (r >= 0)
		r = sd_bus_message_open_container(m, 'a', "{sv}");
	if (r >= 0)
		r = sd_bus_message_append(m, "{sv}", "time", "t", time_us);
	if (r >= 0 && (EV_BIT(k) & (EV_COUNTED | EV_BIT(EV_LOST))))
		r = sd_bus_message_append(m, "{sv}", "count", "t", count);
	if (r >= 0)
		r = sd_bus_message_close_container(m);
	if (r >= 0)
		r = sd_bus_send(c->bus, m, NULL);
	sd_bus_message_unref(m);
	return r;
}

static bool room_to_send(struct conn *c)
{
	uint64_t queued = 0;
	return sd_bus_get_n_queued_write(c->bus, &queued) >= 0 && queued < EVENTS_SEND_BELOW;
}

void events_flush(struct conn *c)
{
	struct subscriber *s = c->sub;
	if (!s)
		return;
	while (s->n && room_to_send(c)) {
		struct queued_event *q = &s->q[s->head];
		int r = send_event(c, q->id, q->name, q->kind, q->count, q->time_us);
		if (r < 0)
			log_debug("client pid %d: event not sent: %s", (int)c->req.pid, strerror(-r));
		queued_drop(s, q);
		s->head = (s->head + 1) % EVENTS_QUEUED_MAX;
		s->n--;
	}
	/* It read everything that waited: now it hears what it missed. */
	if (!s->n && s->lost && room_to_send(c) && send_event(c, 0, "", EV_LOST, s->lost, s->lost_since_us) >= 0)
		s->lost = 0;
}

static void sink(void *ctx, const struct watch *w, const char *name, enum event_kind k, uint64_t count,
                 uint64_t time_us)
{
	struct conn *c = (struct conn *)w->owner;
	struct subscriber *s = c->sub;
	size_t len = strlen(name) + 1;
	if (!s) {
		if (!(s = c->sub = calloc(1, sizeof(*s))))
			return;
		s->pump = ctx;
		s->account = admission_account(c->slot);
	}
	/*
	 * Full, its account's connections holding their bytes' worth, or still owing a `lost`: what comes now would
	 * arrive before the news of the gap.
	 */
	bool room = s->n < EVENTS_QUEUED_MAX && !s->lost && bytes_take(s, len);
	char *copy = room ? malloc(len) : NULL;
	if (!copy) {
		if (room)
			bytes_give(s, len); /* out of memory */
		if (!s->lost++)
			s->lost_since_us = time_us;
		/*
		 * The first drop with nothing of its own waiting (its account's other connections hold the bytes): its
		 * `lost` may go now, else once its socket takes what sd-bus holds.
		 */
		if (s->n || s->lost > 1)
			return;
	} else {
		memcpy(copy, name, len);
		s->q[(s->head + s->n++) % EVENTS_QUEUED_MAX] =
		    (struct queued_event){.id = w->id, .kind = k, .count = count, .time_us = time_us, .name = copy};
	}
	events_flush(c);
	/* Whatever waits in sd-bus now is written when the socket takes it. */
	c->deferred->wake(c);
}

void events_conn_gone(struct conn *c)
{
	struct subscriber *s = c->sub;
	unsigned n = c->ops ? ops_unwatch_owner(c->ops, c) : 0;
	if (n)
		log_debug("client pid %d gone: its %u watches ended; uid %u now follows %u cgroups", (int)c->req.pid, n,
		          (unsigned)c->req.cred.uid,
		          watch_account_units(watches_registry(c->ops->watches), admission_account(c->slot)));
	if (!s)
		return;
	for (unsigned i = 0; i < s->n; i++)
		queued_drop(s, &s->q[(s->head + i) % EVENTS_QUEUED_MAX]);
	free(s);
	c->sub = NULL;
}

void events_unwatched(struct conn *c, uint32_t id)
{
	struct subscriber *s = c->sub;
	unsigned kept = 0;
	if (!s)
		return;
	/* In place, oldest first: an entry moves only to a slot already read. */
	for (unsigned i = 0; i < s->n; i++) {
		struct queued_event *q = &s->q[(s->head + i) % EVENTS_QUEUED_MAX];
		if (q->id == id)
			queued_drop(s, q);
		else
			s->q[(s->head + kept++) % EVENTS_QUEUED_MAX] = *q;
	}
	s->n = kept;
}

static void on_source(void *owner, uint32_t events)
{
	struct event_pump *p = owner;
	(void)events;
	event_source_process(watches_source(p->ops->watches));
}

static void on_tick(void *owner, uint64_t now)
{
	struct event_pump *p = owner;
	struct event_source *es = watches_source(p->ops->watches);
	if (event_source_tick(es))
		loop_timer_set(p->loop, &p->tick, now + EVENTS_TICK_AGAIN_USEC);
	else if (event_source_wants_tick(es))
		loop_timer_set(p->loop, &p->tick, now + EVENTS_TICK_USEC);
}

struct event_pump *event_pump_start(struct loop *l, struct ops *o, struct err *e)
{
	struct event_pump *p = calloc(1, sizeof(*p));
	int r;
	if (!p) {
		err_set(e, ERR_LIMIT, "out of memory");
		return NULL;
	}
	p->loop = l;
	p->ops = o;
	event_source_set_sink(watches_source(o->watches), sink, p);
	loop_timer_init(&p->tick, on_tick, p);
	/*
	 * Served in every turn: the kernel's inotify queue is emptied each time (its overflow drops every watch's
	 * notices), and what is served of them is bounded (event_source_process).
	 */
	if ((r = loop_watch_add(l, &p->watch, event_source_fd(watches_source(o->watches)), EPOLLIN, false, on_source,
	                        p)) < 0) {
		err_errno(e, -r, "cannot watch cgroup events");
		free(p);
		return NULL;
	}
	return p;
}

void event_pump_stop(struct event_pump *p)
{
	if (!p)
		return;
	loop_timer_cancel(p->loop, &p->tick);
	loop_watch_remove(p->loop, &p->watch);
	event_source_set_sink(watches_source(p->ops->watches), NULL, NULL);
	free(p->accounts);
	free(p);
}

void event_pump_watched(struct event_pump *p)
{
	if (!p->tick.set && event_source_wants_tick(watches_source(p->ops->watches)))
		loop_timer_set(p->loop, &p->tick, now_usec() + EVENTS_TICK_USEC);
}
