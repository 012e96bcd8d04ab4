#include "proxy/relay.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "common/cgmanager_wire.h"
#include "scm/scm_io.h"
#include "util/list.h"
#include "util/log.h"

/* Where datagrams are read (one thread: one buffer); a string result is at most this long. */
static char scratch[65536];

static void take_room(struct relay *x);

/*
 * Answered (or given up): off its connection and the loop, then done. abandon: the daemon may still hold the
 * exchange, waiting for a credential that will not come (upstream_give_back closes the connection).
 */
static void finish(struct relay *x, bool abandon)
{
	struct loop *l = x->up->loop;
	x->finished = true;
	upstream_give_back(x, abandon);
	LIST_REMOVE(x->up->relays, x, all_prev, all_next);
	loop_watch_remove(l, &x->watch);
	loop_timer_cancel(l, &x->step_timer);
	x->call = sd_bus_slot_unref(x->call);
	if (x->fd >= 0)
		close(x->fd);
	x->fd = -1;
	scm_result_free(&x->result);
	x->plain = sd_bus_message_unref(x->plain);
	/* Within relay_start, which frees it (and calls no done). */
	if (x->starting)
		return;
	if (x->done)
		x->done(x->owner);
	free(x);
}

static void reply_errno(struct relay *x, int r, const char *what)
{
	int e = sd_bus_reply_method_errorf(x->plain, upstream_gone(r) ? SD_BUS_ERROR_NO_SERVER : SD_BUS_ERROR_FAILED,
	                                   "cgproxy: %s: %s", what, strerror(-r));
	if (e < 0)
		log_debug("cannot answer %s: %s", sd_bus_message_get_member(x->plain), strerror(-e));
}

static void step_wait(struct relay *x, enum relay_step step)
{
	x->step = step;
	loop_timer_set(x->up->loop, &x->step_timer, now_usec() + RELAY_STEP_USEC);
}

/* Copies the plain call's arguments that the Scm call also has; the rest become the second credential. */
static int build_scm_call(struct relay *x, sd_bus *bus, int fd, sd_bus_message **out)
{
	const struct scm_method *m = x->m;
	sd_bus_message *call = NULL;
	int32_t ints[2];
	int ni = 0, r;
	size_t ncopy = strlen(m->args);

	r = sd_bus_message_new_method_call(bus, &call, NULL, CGMANAGER_OBJECT_PATH, CGMANAGER_IFACE0, m->name);
	r = r < 0 ? r : sd_bus_message_rewind(x->plain, true);
	for (const char *t = m->plain_args; r >= 0 && *t; t++) {
		bool copy = (size_t)(t - m->plain_args) < ncopy;
		if (*t == 's') {
			const char *s;
			r = sd_bus_message_read_basic(x->plain, 's', &s);
			if (r >= 0 && copy)
				r = sd_bus_message_append_basic(call, 's', s);
		} else {
			int32_t v;
			r = sd_bus_message_read_basic(x->plain, 'i', &v);
			if (r >= 0 && copy)
				r = sd_bus_message_append_basic(call, 'i', &v);
			else if (r >= 0 && ni < 2)
				ints[ni++] = v;
		}
	}
	if (r >= 0)
		r = sd_bus_message_append_basic(call, 'h', &fd);
	if (r < 0) {
		sd_bus_message_unref(call);
		return r;
	}
	x->second = (struct ucred){.pid = getpid(), .uid = getuid(), .gid = getgid()};
	if (m->second == SCM_SECOND_PID)
		x->second.pid = ni > 0 ? ints[0] : 0;
	if (m->second == SCM_SECOND_IDS) {
		x->second.uid = ni > 0 ? (uid_t)ints[0] : (uid_t)-1;
		x->second.gid = ni > 1 ? (gid_t)ints[1] : (gid_t)-1;
	}
	*out = call;
	return 0;
}

static int on_plain_reply(sd_bus_message *reply, void *u, sd_bus_error *ret);
static int on_scm_ack(sd_bus_message *reply, void *u, sd_bus_error *ret);

/* The call without an Scm form, as the client sent it. */
static int build_plain_call(struct relay *x, sd_bus *bus, sd_bus_message **out)
{
	sd_bus_message *m = x->plain;
	int r = sd_bus_message_new_method_call(bus, out, NULL, sd_bus_message_get_path(m), sd_bus_message_get_interface(m),
	                                       sd_bus_message_get_member(m));
	r = r < 0 ? r : sd_bus_message_rewind(m, true);
	r = r < 0 ? r : sd_bus_message_copy(*out, m, true);
	if (r < 0)
		*out = sd_bus_message_unref(*out);
	return r;
}

/* The socketpair of an Scm call: this end is read from the loop; the daemon's goes with the call. */
static int build_call(struct relay *x, sd_bus *bus, sd_bus_message **call)
{
	int sv[2], r;
	if (!x->m)
		return build_plain_call(x, bus, call);
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0)
		return -errno;
	x->fd = sv[0];
	x->kicks = 0;
	r = scm_enable_passcred(sv[0]);
	if (r >= 0)
		r = build_scm_call(x, bus, sv[1], call); /* the message holds its own copy of sv[1] */
	close(sv[1]);
	return r;
}

/* The kernel would not vouch for the second credential: the pid is not ours to see, or the ids are not mapped here. */
static void refuse_second(struct relay *x, int r)
{
	const char *name = r == -ESRCH ? SD_BUS_ERROR_FILE_NOT_FOUND : SD_BUS_ERROR_ACCESS_DENIED;
	int e;
	if (x->m->second == SCM_SECOND_PID)
		e = sd_bus_reply_method_errorf(x->plain, name, "pid %d is not a task this namespace can vouch for: %s",
		                               (int)x->second.pid, strerror(-r));
	else
		e = sd_bus_reply_method_errorf(x->plain, name, "uid %u gid %u are not mapped in this namespace: %s",
		                               (unsigned)x->second.uid, (unsigned)x->second.gid, strerror(-r));
	if (e < 0)
		log_debug("cannot answer %s: %s", sd_bus_message_get_member(x->plain), strerror(-e));
}

/*
 * Both credentials go into the socketpair before the call goes out: the daemon reads them as soon as it has
 * sent its kicks, with no round trip to cgproxy for each, and one the kernel will not send costs the daemon
 * nothing (the call is not made). The kernel checks them as it would after the kick. 0, or -1 when answered.
 */
static int send_credentials(struct relay *x)
{
	int r = scm_send(x->fd, (char[]){SCM_CRED_BYTE}, 1, &x->requester);
	if (r < 0) {
		reply_errno(x, r, "cannot send the requester's credential");
		return -1;
	}
	if (x->m->second == SCM_SECOND_NONE)
		return 0;
	r = scm_send(x->fd, (char[]){SCM_CRED_BYTE}, 1, &x->second);
	if (r == -EINVAL || r == -EPERM || r == -ESRCH)
		refuse_second(x, r);
	else if (r < 0)
		reply_errno(x, r, "cannot send the second credential");
	return r < 0 ? -1 : 0;
}

void relay_link_ready(struct relay *x)
{
	struct uplink *l = x->link;
	sd_bus_message *call = NULL;
	int r = build_call(x, l->bus, &call);
	if (r >= 0 && x->m && send_credentials(x) < 0) {
		sd_bus_message_unref(call);
		finish(x, false);
		return;
	}
	if (r >= 0)
		r = sd_bus_call_async(l->bus, &x->call, call, x->m ? on_scm_ack : on_plain_reply, x, RELAY_CALL_USEC);
	sd_bus_message_unref(call);
	x->step = RELAY_CALL;
	if (r < 0 && upstream_gone(r)) {
		relay_link_lost(x, r);
		return;
	}
	if (r < 0) {
		reply_errno(x, r, "cannot relay the call");
		finish(x, false);
		return;
	}
	upstream_rearm(l);
}

void relay_link_lost(struct relay *x, int r)
{
	x->call = sd_bus_slot_unref(x->call);
	upstream_give_back(x, false);
	if (x->step > RELAY_CALL)
		return; /* the daemon took the call: the exchange goes on over its socketpair */
	if (x->fd >= 0)
		close(x->fd);
	x->fd = -1;
	if (!x->retried) {
		/* The daemon restarted, most likely: once more, on a new connection. */
		x->retried = true;
		take_room(x);
		return;
	}
	reply_errno(x, r, "cannot reach cgmanager");
	finish(x, false);
}

/* Whether an error reply is sd-bus's own, for a connection that closed before the daemon answered. */
static bool link_went_away(sd_bus_message *reply)
{
	return sd_bus_message_is_method_error(reply, NULL) && sd_bus_is_open(sd_bus_message_get_bus(reply)) <= 0;
}

static int on_plain_reply(sd_bus_message *reply, void *u, sd_bus_error *ret)
{
	struct relay *x = u;
	sd_bus_message *out = NULL;
	int r;

	x->call = sd_bus_slot_unref(x->call);
	if (link_went_away(reply)) {
		relay_link_lost(x, -ECONNRESET);
		return 0;
	}
	if (sd_bus_message_is_method_error(reply, NULL)) {
		r = sd_bus_reply_method_error(x->plain, sd_bus_message_get_error(reply));
	} else {
		r = sd_bus_message_new_method_return(x->plain, &out);
		r = r < 0 ? r : sd_bus_message_copy(out, reply, true);
		r = r < 0 ? r : sd_bus_send(NULL, out, NULL);
		sd_bus_message_unref(out);
	}
	if (r < 0)
		log_debug("cannot answer %s: %s", sd_bus_message_get_member(x->plain), strerror(-r));
	finish(x, false);
	return 0;
}

static void on_fd(void *owner, uint32_t events);

static int on_scm_ack(sd_bus_message *reply, void *u, sd_bus_error *ret)
{
	struct relay *x = u;
	int r;

	x->call = sd_bus_slot_unref(x->call);
	if (link_went_away(reply)) {
		relay_link_lost(x, -ECONNRESET);
		return 0;
	}
	if (sd_bus_message_is_method_error(reply, NULL)) {
		/* Refused before the exchange began (a limit, a bad argument): the daemon holds nothing. */
		if ((r = sd_bus_reply_method_error(x->plain, sd_bus_message_get_error(reply))) < 0)
			log_debug("cannot answer %s: %s", sd_bus_message_get_member(x->plain), strerror(-r));
		finish(x, false);
		return 0;
	}
	if ((r = loop_watch_add(x->up->loop, &x->watch, x->fd, EPOLLIN, true, on_fd, x)) < 0) {
		reply_errno(x, r, "cannot watch the exchange's socket");
		finish(x, true);
		return 0;
	}
	step_wait(x, RELAY_KICK);
	return 0;
}

/* One kick of the daemon (one per credential it reads): false when the relay finished. */
static bool take_kick(struct relay *x)
{
	int r, needed = x->m->second == SCM_SECOND_NONE ? 1 : 2;
	if (++x->kicks < needed) {
		step_wait(x, RELAY_KICK);
		return true;
	}
	if ((r = scm_result_begin(&x->result, x->plain, x->m)) < 0) {
		reply_errno(x, r, "cannot make the reply");
		finish(x, true);
		return false;
	}
	step_wait(x, RELAY_RESULT);
	return true;
}

/* One datagram of the result: false when the relay finished. */
static bool take_result(struct relay *x, char *buf, ssize_t n, const struct ucred *c, bool have)
{
	int r = scm_result_take(&x->result, buf, (size_t)n, c, have);
	if (r == 0) {
		step_wait(x, RELAY_RESULT);
		return true;
	}
	if (r == SCM_RESULT_REFUSED) {
		/* The daemon says why next. */
		scm_result_free(&x->result);
		step_wait(x, RELAY_REASON);
		return true;
	}
	if (r == SCM_RESULT_DONE)
		r = sd_bus_send(NULL, x->result.reply, NULL);
	if (r < 0 && r != -ENOTCONN)
		reply_errno(x, r, "cannot read cgmanager's answer");
	finish(x, r < 0 && r != -ENOTCONN);
	return false;
}

/* The exchange's socket has datagrams: each is the next step's. */
static void on_fd(void *owner, uint32_t events)
{
	struct relay *x = owner;
	struct ucred c;
	bool have;

	for (;;) {
		void *buf = scratch;
		size_t len = sizeof(scratch) - 1;
		if (x->step == RELAY_RESULT)
			scm_result_buffer(&x->result, scratch, sizeof(scratch), &buf, &len);
		ssize_t n = scm_recv(x->fd, buf, len, &c, &have);
		if (n == -EAGAIN)
			return;
		if (n < 0) {
			reply_errno(x, (int)n, "cannot read from the exchange's socket");
			finish(x, true);
			return;
		}
		switch (x->step) {
		case RELAY_KICK:
			if (n != 1 || scratch[0] != SCM_KICK) {
				reply_errno(x, -EPROTO, "cgmanager did not take the request");
				finish(x, true);
				return;
			}
			if (!take_kick(x))
				return;
			break;
		case RELAY_RESULT:
			if (!take_result(x, buf, n, &c, have))
				return;
			break;
		case RELAY_REASON: {
			int r = scm_result_reply_refusal(x->plain, x->m, scratch, n);
			if (r < 0)
				log_debug("cannot answer %s: %s", sd_bus_message_get_member(x->plain), strerror(-r));
			finish(x, false);
			return;
		}
		default:
			return;
		}
	}
}

/* A step did not come in time. */
static void step_expired(void *owner, uint64_t now)
{
	struct relay *x = owner;
	switch (x->step) {
	case RELAY_KICK:
		reply_errno(x, -ETIMEDOUT,
		            x->kicks == 0 ? "cgmanager did not take the request"
		                          : "cgmanager did not take the second credential");
		finish(x, true);
		break;
	case RELAY_RESULT:
		reply_errno(x, -ETIMEDOUT, "cgmanager did not answer in time");
		finish(x, true);
		break;
	case RELAY_REASON:
		/* After a failure the daemon says why; 0.42 daemons do not, and then the reason is generic. */
		scm_result_reply_refusal(x->plain, x->m, NULL, 0);
		finish(x, false);
		break;
	default:
		break;
	}
}

/* Room on a connection: its call goes now, once the connection is ready, or once room comes free. */
static void take_room(struct relay *x)
{
	int r = upstream_take(x->up, x);
	if (r == -ENOBUFS) {
		int e =
		    sd_bus_reply_method_errorf(x->plain, SD_BUS_ERROR_LIMITS_EXCEEDED,
		                               "cgproxy: %u calls already wait for room on a connection to cgmanager (at "
		                               "most %u connections of %u Scm exchanges each, %u calls waiting); "
		                               "try again later",
		                               x->up->nwaiting, UPSTREAM_LINKS_MAX, UPSTREAM_PER_LINK, UPSTREAM_WAITING_MAX);
		if (e < 0)
			log_debug("cannot answer %s: %s", sd_bus_message_get_member(x->plain), strerror(-e));
		finish(x, false);
	} else if (r < 0) {
		x->step = RELAY_LINK;
		relay_link_lost(x, r);
	} else if (r > 0 && x->link->ready) {
		relay_link_ready(x);
	} else if (r > 0) {
		x->step = RELAY_LINK;
	}
}

struct relay *relay_start(struct upstream *u, sd_bus_message *m, const struct ucred *requester,
                          void (*done)(void *owner), void *owner)
{
	struct relay *x = u->stopping ? NULL : calloc(1, sizeof(*x));
	if (!x) {
		int r = sd_bus_reply_method_errorf(m, u->stopping ? SD_BUS_ERROR_NO_SERVER : SD_BUS_ERROR_NO_MEMORY,
		                                   "cgproxy: %s", u->stopping ? "stopping" : "out of memory");
		if (r < 0)
			log_debug("cannot answer %s: %s", sd_bus_message_get_member(m), strerror(-r));
		return NULL;
	}
	*x = (struct relay){.up = u,
	                    .plain = sd_bus_message_ref(m),
	                    .m = scm_method_by_plain(sd_bus_message_get_member(m)),
	                    .requester = *requester,
	                    .fd = -1,
	                    .done = done,
	                    .owner = owner,
	                    .starting = true};
	loop_timer_init(&x->step_timer, step_expired, x);
	LIST_PREPEND(u->relays, x, all_prev, all_next);
	take_room(x);
	x->starting = false;
	if (x->finished) {
		free(x);
		return NULL;
	}
	return x;
}

void relay_detach(struct relay *x)
{
	x->done = NULL;
}

void relay_stop_all(struct upstream *u)
{
	u->stopping = true;
	while (u->relays) {
		struct relay *x = u->relays;
		int r = sd_bus_reply_method_errorf(x->plain, SD_BUS_ERROR_NO_SERVER,
		                                   "cgproxy stopped before cgmanager answered %s (cgmanager may have done "
		                                   "it already)",
		                                   sd_bus_message_get_member(x->plain));
		if (r < 0)
			log_debug("cannot answer %s: %s", sd_bus_message_get_member(x->plain), strerror(-r));
		finish(x, false);
	}
}
