/*
 * Method calls whose answer waits on the kernel: Kill until the tree is
 * empty, Freeze until the kernel reports it frozen, Delete-force until its
 * tasks are gone. The event loop never waits for them: each pending call
 * is stepped from the loop, first after DEFERRED_STEP_USEC and then less
 * often, and answered when its step says done or failed, so one client's
 * wait delays no other. Few may wait at once (per connection, per uid).
 */
#pragma once
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "ops/ops.h"

/*
 * The first step's delay, doubling up to DEFERRED_STEP_MAX_USEC. A fork that was under way when Kill's
 * signals went out has put its child in the cgroup within microseconds, so a millisecond is ample for
 * the confirming walk to find it, and a Kill of a few tasks is answered in about that.
 */
#define DEFERRED_STEP_USEC 1000
#define DEFERRED_STEP_MAX_USEC 160000
#define DEFERRED_PER_CONN 1
#define DEFERRED_PER_UID 8

struct conn;
struct deferred;
struct loop;

/* One step: 1 done, 0 not yet, -1 failed with e set. */
typedef int (*deferred_step_fn)(struct ops *o, const struct requester *r, void *state, struct err *e);
/*
 * Optional: up to max fds whose readiness means the next step may find the call done (the pidfds of killed
 * tasks, readable once they exit); the step then runs at once instead of at its timer. Their count.
 */
typedef unsigned (*deferred_wake_fn)(const void *state, int *fds, unsigned max);

/*
 * The calls of one server that wait, each stepped from its loop. wake is the server's: once an answer went
 * out on c, c may have to be written when its socket takes more (the registry does not know how a
 * connection is served).
 */
struct deferred_registry {
	struct loop *loop;
	void (*wake)(struct conn *c);
	struct deferred *head;
};

void deferred_registry_init(struct deferred_registry *reg, struct loop *loop, void (*wake)(struct conn *c));
/*
 * Keeps m unanswered and steps it from c's registry (c->deferred), at its timer or when one of wake's fds is
 * ready (wake may be NULL); state is freed with free_state once answered.
 */
int deferred_start(struct conn *c, sd_bus_message *m, deferred_step_fn step, deferred_wake_fn wake, void *state,
                   void (*free_state)(void *));
/* The client went away: its calls are dropped unanswered. */
void deferred_cancel_conn(struct deferred_registry *reg, const struct conn *c);
void deferred_free_all(struct deferred_registry *reg);
