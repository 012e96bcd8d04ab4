#include "dbus/deferred.h"

#include <stdlib.h>

#include "dbus/conn.h"
#include "dbus/errors.h"
#include "dbus/loop.h"
#include "dbus/wake_set.h"
#include "util/list.h"
#include "util/log.h"

struct deferred {
	struct deferred_registry *reg;
	struct conn *c;
	sd_bus_message *m;
	deferred_step_fn step;
	deferred_wake_fn wake;
	void *state;
	void (*free_state)(void *);
	uint64_t step_usec;
	struct loop_timer next_step;
	struct wake_set woken_by;
	struct deferred *prev, *next; /* the registry's */
};

void deferred_registry_init(struct deferred_registry *reg, struct loop *loop, void (*wake)(struct conn *c))
{
	*reg = (struct deferred_registry){.loop = loop, .wake = wake};
}

/* After a step: the fds it gave, each of which may end the wait for the timer. */
static void watch_wake(struct deferred *d)
{
	int fds[WAKE_SET_MAX];
	wake_set_watch(&d->woken_by, fds, d->wake ? d->wake(d->state, fds, WAKE_SET_MAX) : 0);
}

/* Off the registry and the loop, freed unanswered (if it was not answered). */
static void deferred_free(struct deferred *d)
{
	wake_set_clear(&d->woken_by);
	loop_timer_cancel(d->reg->loop, &d->next_step);
	LIST_REMOVE(d->reg->head, d, prev, next);
	sd_bus_message_unref(d->m);
	d->free_state(d->state);
	free(d);
}

static void step_due(void *owner, uint64_t now)
{
	struct deferred *d = owner;
	struct err e = {0};
	if (!d->c) {
		deferred_free(d); /* its client went away */
		return;
	}
	wake_set_clear(&d->woken_by);
	int r = d->step(conn_ops(d->c), &d->c->req, d->state, &e);
	if (r == 0) {
		/* What has not happened in a few steps is not about to: look less often. */
		if (d->step_usec < DEFERRED_STEP_MAX_USEC)
			d->step_usec *= 2;
		loop_timer_set(d->reg->loop, &d->next_step, now + d->step_usec);
		watch_wake(d);
		return;
	}
	r = r > 0 ? sd_bus_reply_method_return(d->m, "") : reply_error(d->m, &e);
	if (r < 0)
		log_debug("client pid %d: cannot answer %s: %s", (int)d->c->req.pid, sd_bus_message_get_member(d->m),
		          strerror(-r));
	d->reg->wake(d->c);
	deferred_free(d);
}

int deferred_start(struct conn *c, sd_bus_message *m, deferred_step_fn step, deferred_wake_fn wake, void *state,
                   void (*free_state)(void *))
{
	struct deferred_registry *reg = c->deferred;
	unsigned mine = 0, uids = 0;
	for (const struct deferred *o = reg->head; o; o = o->next) {
		mine += o->c == c;
		uids += o->c && o->c->req.cred.uid == c->req.cred.uid;
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
	*d = (struct deferred){.reg = reg, .c = c, .m = sd_bus_message_ref(m), .step = step, .wake = wake,
	                       .state = state, .free_state = free_state, .step_usec = DEFERRED_STEP_USEC};
	LIST_PREPEND(reg->head, d, prev, next);
	loop_timer_init(&d->next_step, step_due, d);
	loop_timer_set(reg->loop, &d->next_step, now_usec() + DEFERRED_STEP_USEC);
	wake_set_init(&d->woken_by, reg->loop, &d->next_step);
	watch_wake(d);
	return 1;
}

void deferred_cancel_conn(struct deferred_registry *reg, const struct conn *c)
{
	/* Not freed here: an event of this turn may still name one of its fds. Its timer frees it. */
	for (struct deferred *d = reg->head; d; d = d->next)
		if (d->c == c) {
			wake_set_clear(&d->woken_by);
			d->c = NULL;
			loop_timer_set(reg->loop, &d->next_step, 0);
		}
}

void deferred_free_all(struct deferred_registry *reg)
{
	while (reg->head)
		deferred_free(reg->head);
}
