/*
 * The systemd1 interface's bus connection: made, named and served from the daemon's loop, and made again
 * when the bus goes away, while the daemon's own socket is served on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "dbus/systemd1_internal.h"
#include "util/log.h"

#define PROCESS_PER_TURN 64            /* messages handled in one turn of the loop; the rest in the next */
#define RETRY_FIRST_USEC 1000000ULL    /* the first wait before connecting again */
#define RETRY_MAX_USEC 30000000ULL

static void on_bus(void *owner, uint32_t events);
static void on_timer(void *owner, uint64_t now);

static int connect_bus(struct systemd1 *s, struct err *e)
{
	sd_bus *bus = NULL;
	int r;
	if ((r = sd_bus_new(&bus)) < 0 || (r = sd_bus_set_address(bus, s->address)) < 0 ||
	    (r = sd_bus_set_bus_client(bus, 1)) < 0 || (r = sd_bus_start(bus)) < 0) {
		sd_bus_unref(bus);
		return err_errno(e, -r, "cannot connect to the bus at %s", s->address);
	}
	if ((r = sd_bus_add_object_vtable(bus, NULL, SD1_PATH, SD1_MANAGER, sd1_manager_vtable, s)) < 0 ||
	    (r = sd1_units_register(s, bus)) < 0) {
		sd_bus_flush_close_unref(bus);
		return err_errno(e, -r, "cannot serve the systemd1 objects");
	}
	if ((r = sd_bus_request_name(bus, SD1_NAME, 0)) < 0) {
		sd_bus_flush_close_unref(bus);
		if (r == -EEXIST)
			return err_set(e, ERR_BUSY, "%s is owned already on the bus at %s (by another cgmanager, or by "
			               "systemd); it is served once", SD1_NAME, s->address);
		return err_errno(e, -r, "cannot own %s on the bus at %s", SD1_NAME, s->address);
	}
	if ((r = loop_watch_add(s->loop, &s->watch, sd_bus_get_fd(bus), EPOLLIN, true, on_bus, s)) < 0) {
		sd_bus_flush_close_unref(bus);
		return err_errno(e, -r, "cannot watch the bus connection");
	}
	s->bus = bus;
	s->retry_usec = RETRY_FIRST_USEC;
	return 0;
}

static void disconnect(struct systemd1 *s)
{
	sd1_requester_forget(s); /* it holds a message of this bus */
	loop_watch_remove(s->loop, &s->watch);
	sd_bus_flush_close_unref(s->bus);
	s->bus = NULL;
}

/* Waits for what sd-bus waits for next: its socket's events and its own deadline. */
static void rearm(struct systemd1 *s)
{
	uint64_t due = UINT64_MAX;
	int ev = sd_bus_get_events(s->bus);
	if (ev >= 0)
		loop_watch_set_events(s->loop, &s->watch, (uint32_t)ev);
	if (sd_bus_get_timeout(s->bus, &due) >= 0 && due != UINT64_MAX)
		loop_timer_set(s->loop, &s->timer, due);
	else
		loop_timer_cancel(s->loop, &s->timer);
}

static void lost(struct systemd1 *s, int r)
{
	log_warn("systemd1: the bus at %s went away (%s); the socket is served on, connecting again in %llu s",
	         s->address, strerror(-r), (unsigned long long)(s->retry_usec / 1000000));
	disconnect(s);
	loop_timer_set(s->loop, &s->timer, now_usec() + s->retry_usec);
}

static void process(struct systemd1 *s)
{
	int r = 0;
	for (int i = 0; i < PROCESS_PER_TURN && (r = sd_bus_process(s->bus, NULL)) > 0; i++)
		;
	if (r < 0 || !sd_bus_is_open(s->bus)) {
		lost(s, r < 0 ? r : -ECONNRESET);
		return;
	}
	if (r > 0) {
		loop_timer_set(s->loop, &s->timer, 0); /* more to do: the next turn */
		return;
	}
	rearm(s);
}

static void on_bus(void *owner, uint32_t events)
{
	process(owner);
}

static void on_timer(void *owner, uint64_t now)
{
	struct systemd1 *s = owner;
	struct err e = {0};
	if (s->bus) {
		process(s);
		return;
	}
	if (connect_bus(s, &e) == 0) {
		log_info("systemd1: connected to the bus at %s again; serving %s", s->address, SD1_NAME);
		process(s);
		return;
	}
	s->retry_usec = s->retry_usec * 2 > RETRY_MAX_USEC ? RETRY_MAX_USEC : s->retry_usec * 2;
	log_warn("systemd1: %s; trying again in %llu s", e.msg, (unsigned long long)(s->retry_usec / 1000000));
	loop_timer_set(s->loop, &s->timer, now + s->retry_usec);
}

struct systemd1 *systemd1_new(struct ops *o, struct loop *l, const char *address, struct err *e)
{
	struct systemd1 *s = calloc(1, sizeof(*s));
	if (!s || !(s->address = strdup(address))) {
		free(s);
		err_set(e, ERR_FAILED, "out of memory");
		return NULL;
	}
	s->ops = o;
	s->loop = l;
	s->retry_usec = RETRY_FIRST_USEC;
	loop_timer_init(&s->timer, on_timer, s);
	if (!sd1_unit_add(s, UNIT_ROOT_SLICE, UNIT_KIND_SLICE, "", NULL) || connect_bus(s, e) < 0) {
		if (!e->kind)
			err_set(e, ERR_FAILED, "out of memory");
		systemd1_free(s);
		return NULL;
	}
	process(s);
	log_info("systemd1: serving %s on the bus at %s", SD1_NAME, address);
	return s;
}

void systemd1_free(struct systemd1 *s)
{
	if (!s)
		return;
	sd1_jobs_free(s);
	loop_timer_cancel(s->loop, &s->timer);
	sd1_requester_forget(s);
	if (s->bus)
		disconnect(s);
	while (s->units)
		sd1_unit_remove(s, s->units);
	strv_free(&s->logged);
	free(s->address);
	free(s);
}
