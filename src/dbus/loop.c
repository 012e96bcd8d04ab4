#include "dbus/loop.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "util/list.h"
#include "util/log.h"

#define EVENTS_PER_WAIT 64
/* The longest wait for a deadline, in ms: a far one would overflow epoll_wait's int. */
#define WAIT_MAX_MS 60000

struct loop {
	int epfd;
	unsigned rotation;
	bool broken;                    /* loop_break was called in this turn */
	struct loop_timer *head, *tail; /* nearest deadline first */
};

uint64_t now_usec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

struct loop *loop_new(void)
{
	struct loop *l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0) {
		int saved = errno;
		free(l);
		errno = saved;
		return NULL;
	}
	return l;
}

void loop_free(struct loop *l)
{
	if (!l)
		return;
	close(l->epfd);
	free(l);
}

int loop_watch_add(struct loop *l, struct loop_watch *w, int fd, uint32_t events, bool budgeted,
                   void (*fn)(void *owner, uint32_t events), void *owner)
{
	struct epoll_event ev = {.events = events, .data.ptr = w};
	*w = (struct loop_watch){.fd = fd, .events = events, .budgeted = budgeted, .fn = fn, .owner = owner};
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		return -errno;
	w->watched = true;
	return 0;
}

int loop_watch_set_events(struct loop *l, struct loop_watch *w, uint32_t events)
{
	struct epoll_event ev = {.events = events, .data.ptr = w};
	if (events == w->events)
		return 0;
	if (epoll_ctl(l->epfd, EPOLL_CTL_MOD, w->fd, &ev) < 0)
		return -errno;
	w->events = events;
	return 0;
}

void loop_watch_remove(struct loop *l, struct loop_watch *w)
{
	if (!w->watched)
		return;
	epoll_ctl(l->epfd, EPOLL_CTL_DEL, w->fd, NULL);
	w->watched = false;
}

void loop_timer_init(struct loop_timer *t, void (*fn)(void *owner, uint64_t now), void *owner)
{
	*t = (struct loop_timer){.fn = fn, .owner = owner};
}

void loop_timer_cancel(struct loop *l, struct loop_timer *t)
{
	if (!t->set)
		return;
	LIST_REMOVE_TAILED(l->head, l->tail, t, prev, next);
	t->set = false;
}

void loop_timer_set(struct loop *l, struct loop_timer *t, uint64_t due)
{
	loop_timer_cancel(l, t);
	t->due = due;
	t->set = true;
	/* From the far end: most deadlines are set a fixed time from now, so they go last or near it. */
	struct loop_timer *before = l->tail;
	while (before && before->due > due)
		before = before->prev;
	t->prev = before;
	t->next = before ? before->next : l->head;
	if (t->next)
		t->next->prev = t;
	else
		l->tail = t;
	if (before)
		before->next = t;
	else
		l->head = t;
}

uint64_t loop_next_due(const struct loop *l)
{
	return l->head ? l->head->due : UINT64_MAX;
}

void loop_run_due(struct loop *l)
{
	uint64_t now = now_usec();
	while (l->head && l->head->due <= now) {
		struct loop_timer *t = l->head;
		loop_timer_cancel(l, t);
		t->fn(t->owner, now);
	}
}

void loop_break(struct loop *l)
{
	l->broken = true;
}

int loop_dispatch(struct loop *l, int timeout_ms, uint64_t budget_usec)
{
	struct epoll_event evs[EVENTS_PER_WAIT];
	uint64_t due = loop_next_due(l), now = now_usec();

	if (due != UINT64_MAX) {
		uint64_t ms = due <= now ? 0 : (due - now + 999) / 1000;
		if (timeout_ms < 0 || ms < (uint64_t)timeout_ms)
			timeout_ms = ms > WAIT_MAX_MS ? WAIT_MAX_MS : (int)ms;
	}
	int n = epoll_wait(l->epfd, evs, EVENTS_PER_WAIT, timeout_ms);
	uint64_t t0 = now_usec();
	if (n < 0) {
		if (errno == EINTR)
			return 0;
		log_error("epoll_wait: %s", strerror(errno));
		return -1;
	}
	l->broken = false;
	int first = n > 0 ? (int)(l->rotation++ % (unsigned)n) : 0;
	for (int k = 0; k < n && !l->broken; k++) {
		struct loop_watch *w = evs[(first + k) % n].data.ptr;
		if (w->budgeted && now_usec() - t0 > budget_usec)
			continue; /* the next turn's */
		w->fn(w->owner, evs[(first + k) % n].events);
	}
	return 0;
}
