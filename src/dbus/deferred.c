#include "dbus/deferred.h"

#include <stdlib.h>

#include "dbus/conn.h"
#include "dbus/errors.h"
#include "util/log.h"

struct deferred {
	struct conn *c;
	sd_bus_message *m;
	deferred_step_fn step;
	void *state;
	void (*free_state)(void *);
	uint64_t due, step_usec;
	struct deferred *next;
};

int deferred_start(struct conn *c, sd_bus_message *m, deferred_step_fn step, void *state, void (*free_state)(void *))
{
	struct deferred_registry *reg = server_deferred(c->srv);
	unsigned mine = 0, uids = 0;
	for (const struct deferred *o = reg->head; o; o = o->next) {
		mine += o->c == c;
		uids += o->c->req.cred.uid == c->req.cred.uid;
	}
	/* Each waiting call costs a step every few ms: bounded per connection and per uid. */
	if (mine >= DEFERRED_PER_CONN || uids >= DEFERRED_PER_UID) {
		free_state(state);
		return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_LIMITS_EXCEEDED,
		                                  "%u calls of uid %u already wait for the kernel (at most %u per connection, "
		                                  "%u per uid); wait for their answers", mine >= DEFERRED_PER_CONN ? mine : uids,
		                                  (unsigned)c->req.cred.uid, DEFERRED_PER_CONN, DEFERRED_PER_UID);
	}
	struct deferred *d = calloc(1, sizeof(*d));
	if (!d) {
		free_state(state);
		return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_NO_MEMORY, "out of memory");
	}
	*d = (struct deferred){c, sd_bus_message_ref(m), step, state, free_state, now_usec() + DEFERRED_STEP_USEC,
	                       DEFERRED_STEP_USEC, reg->head};
	reg->head = d;
	return 1;
}

uint64_t deferred_next_due(const struct deferred_registry *reg)
{
	uint64_t best = UINT64_MAX;
	for (const struct deferred *d = reg->head; d; d = d->next)
		if (d->due < best)
			best = d->due;
	return best;
}

static void deferred_free(struct deferred *d)
{
	sd_bus_message_unref(d->m);
	d->free_state(d->state);
	free(d);
}

void deferred_run_due(struct deferred_registry *reg, uint64_t now)
{
	for (struct deferred **p = &reg->head; *p;) {
		struct deferred *d = *p;
		struct err e = {0};
		int r;
		if (d->due > now) {
			p = &d->next;
			continue;
		}
		r = d->step(conn_ops(d->c), &d->c->req, d->state, &e);
		if (r == 0) {
			/* What has not happened in a few steps is not about to: look less often. */
			if (d->step_usec < DEFERRED_STEP_MAX_USEC)
				d->step_usec *= 2;
			d->due = now + d->step_usec;
			p = &d->next;
			continue;
		}
		*p = d->next;
		r = r > 0 ? sd_bus_reply_method_return(d->m, "") : reply_error(d->m, &e);
		if (r < 0)
			log_debug("client pid %d: cannot answer %s: %s", (int)d->c->req.pid, sd_bus_message_get_member(d->m),
			          strerror(-r));
		server_conn_wake(d->c);
		deferred_free(d);
	}
}

void deferred_cancel_conn(struct deferred_registry *reg, const struct conn *c)
{
	for (struct deferred **p = &reg->head; *p;) {
		struct deferred *d = *p;
		if (d->c != c) {
			p = &d->next;
			continue;
		}
		*p = d->next;
		deferred_free(d);
	}
}

void deferred_free_all(struct deferred_registry *reg)
{
	while (reg->head) {
		struct deferred *d = reg->head;
		reg->head = d->next;
		deferred_free(d);
	}
}
