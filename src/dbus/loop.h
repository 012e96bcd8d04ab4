/*
 * The serving thread's event loop: one epoll set, each fd in it with the callback that serves it, and one
 * list of deadlines, each with the callback that runs once it is due. The server registers its connections,
 * its signalfd, the release watch and the acceptor's hand-over pipe; the Scm exchanges (dbus/scm_server.h)
 * their sockets and deadlines; the calls that wait on the kernel (dbus/deferred.h) their next steps.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>

struct loop;

/* An fd in the loop. Its owner keeps it in place while it is watched. */
struct loop_watch {
	int fd;
	uint32_t events;   /* the epoll events asked for */
	bool watched;      /* added, not yet removed */
	bool budgeted;     /* served only while the turn's budget lasts (loop_dispatch) */
	void (*fn)(void *owner, uint32_t events);
	void *owner;
};

/* A deadline in the loop. Its owner keeps it in place while it is set. */
struct loop_timer {
	uint64_t due;      /* CLOCK_MONOTONIC usec (now_usec) */
	bool set;
	void (*fn)(void *owner, uint64_t now);
	void *owner;
	struct loop_timer *prev, *next; /* the loop's deadlines, nearest first */
};

/* The clock of every deadline: CLOCK_MONOTONIC in microseconds. */
uint64_t now_usec(void);

/* NULL with errno set. */
struct loop *loop_new(void);
/* Closes the epoll set; what is still registered is its owners' to free. */
void loop_free(struct loop *l);

/*
 * Watches fd for events; fn gets them. A budgeted watch waits for the next turn once the turn's budget is
 * spent; an unbudgeted one (a signal, the acceptor's hand-over) is served in every turn. 0 or -errno.
 */
int loop_watch_add(struct loop *l, struct loop_watch *w, int fd, uint32_t events, bool budgeted,
                   void (*fn)(void *owner, uint32_t events), void *owner);
/* Asks for other events (no system call when they are the same). 0 or -errno. */
int loop_watch_set_events(struct loop *l, struct loop_watch *w, uint32_t events);
/* No longer watched; nothing happens for a watch that is not. */
void loop_watch_remove(struct loop *l, struct loop_watch *w);

/* Whom a deadline calls; the timer is not set yet. */
void loop_timer_init(struct loop_timer *t, void (*fn)(void *owner, uint64_t now), void *owner);
/* Sets (or moves) the deadline; 0 is due at once, in this turn's or the next turn's loop_run_due. */
void loop_timer_set(struct loop *l, struct loop_timer *t, uint64_t due);
/* Nothing happens for a timer that is not set. */
void loop_timer_cancel(struct loop *l, struct loop_timer *t);
/* The nearest deadline; UINT64_MAX when none is set. */
uint64_t loop_next_due(const struct loop *l);

/*
 * One wait: up to timeout_ms (-1: no limit) but not beyond the nearest deadline, then the callbacks of the
 * fds that are ready, from a rotating start (what is left for the next turn, which epoll reports again in
 * the same order, is not always the same). Once budget_usec has passed, only unbudgeted watches are served.
 * 0, or -1 when epoll failed (logged).
 */
int loop_dispatch(struct loop *l, int timeout_ms, uint64_t budget_usec);
/* From a callback: loop_dispatch serves no more events of this turn. */
void loop_break(struct loop *l);
/* Calls, nearest first, every deadline that is due (each is unset before its callback, which may set it again). */
void loop_run_due(struct loop *l);
