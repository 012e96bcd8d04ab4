/*
 * The fds whose readiness brings a waiting call's next step forward: the pidfds of the tasks it signalled,
 * readable once they exit. The loop watches them; when one is ready, the owner's step timer is made due at
 * once, so the step runs from the timers, after the turn's events (it may free the owner while another of its
 * fds is among them). The fds stay their owner's: the set only watches them.
 */
#pragma once
#include "dbus/loop.h"
#include "ops/key_api.h"

/* As many as a Kill's job keeps. */
#define WAKE_SET_MAX OPS_JOB_PIDFDS_MAX

struct wake_set {
	struct loop *loop;
	struct loop_timer *step; /* the owner's: set due at once by a wake */
	struct loop_watch w[WAKE_SET_MAX];
};

void wake_set_init(struct wake_set *ws, struct loop *loop, struct loop_timer *step);
/* Watches up to WAKE_SET_MAX of fds instead of what it watched; one that cannot be watched is left to the timer. */
void wake_set_watch(struct wake_set *ws, const int *fds, unsigned n);
/* Watches nothing (before the owner's step, which may close the fds). */
void wake_set_clear(struct wake_set *ws);
