#include "dbus/wake_set.h"

#include <sys/epoll.h>

static void on_ready(void *owner, uint32_t events)
{
	struct wake_set *ws = owner;
	(void)events;
	wake_set_clear(ws);
	loop_timer_set(ws->loop, ws->step, 0);
}

void wake_set_init(struct wake_set *ws, struct loop *loop, struct loop_timer *step)
{
	*ws = (struct wake_set){.loop = loop, .step = step};
}

void wake_set_watch(struct wake_set *ws, const int *fds, unsigned n)
{
	wake_set_clear(ws);
	for (unsigned i = 0; i < n && i < WAKE_SET_MAX; i++)
		loop_watch_add(ws->loop, &ws->w[i], fds[i], EPOLLIN, true, on_ready, ws);
}

void wake_set_clear(struct wake_set *ws)
{
	for (unsigned i = 0; i < WAKE_SET_MAX; i++)
		loop_watch_remove(ws->loop, &ws->w[i]);
}
