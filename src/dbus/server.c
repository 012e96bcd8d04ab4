#include "dbus/server.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "dbus/conn.h"
#include "dbus/peer.h"
#include "dbus/scm_server.h"
#include "ops/identity.h"
#include "dbus/deferred.h"
#include "ops/release.h"
#include "util/log.h"

/* A client that has not finished authenticating by then is dropped. */
#define AUTH_TIMEOUT_USEC (10ULL * 1000000ULL)
/* Messages one connection may have processed per turn, so it cannot starve others. */
#define MESSAGES_PER_TURN 32

struct server {
	struct ops *ops;
	int epfd, listen_fd, signal_fd;
	struct conn *conns;
	unsigned nconns, serial;
	sd_id128_t id;
	struct scm_registry scm;
	struct deferred_registry deferred;
	const sd_bus_vtable *iface0, *iface1;
	void *app;
};

/* Tags for the epoll entries that are not connections. */
static char tag_listen, tag_signal, tag_release;

struct ops *conn_ops(const struct conn *c)
{
	return c->srv->ops;
}

struct deferred_registry *server_deferred(struct server *s)
{
	return &s->deferred;
}

void *server_app(struct server *s)
{
	return s->app;
}

struct ops *server_ops(struct server *s)
{
	return s->ops;
}

int server_epoll_fd(struct server *s)
{
	return s->epfd;
}

struct scm_registry *server_scm(struct server *s)
{
	return &s->scm;
}

uint64_t now_usec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

static void conn_free(struct server *s, struct conn *c)
{
	deferred_cancel_conn(&s->deferred, c);
	epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	if (c->prev)
		c->prev->next = c->next;
	else
		s->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	s->nconns--;
	sd_bus_flush_close_unref(c->bus);
	if (c->req.pidfd >= 0)
		close(c->req.pidfd);
	requester_release(&c->req);
	log_debug("client pid %d gone (%u connected)", (int)c->req.pid, s->nconns);
	free(c);
}

static int on_any_message(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct conn *c = u;
	(void)m;
	(void)ret;
	c->auth_deadline = 0;
	return 0;
}

static int conn_update_events(struct server *s, struct conn *c)
{
	int ev = sd_bus_get_events(c->bus);
	if (ev < 0)
		return ev;
	uint32_t want = (ev & POLLIN ? EPOLLIN : 0) | (ev & POLLOUT ? EPOLLOUT : 0);
	if (want == c->epoll_events)
		return 0;
	struct epoll_event e = {.events = want, .data.ptr = c};
	if (epoll_ctl(s->epfd, EPOLL_CTL_MOD, c->fd, &e) < 0)
		return -errno;
	c->epoll_events = want;
	return 0;
}

static int conn_new(struct server *s, int fd)
{
	struct conn *c = calloc(1, sizeof(*c));
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
	int r;

	if (!c) {
		close(fd);
		return -ENOMEM;
	}
	c->kind = LOOP_ITEM_CONN;
	c->srv = s;
	c->fd = fd;
	c->serial = ++s->serial;
	c->auth_deadline = now_usec() + AUTH_TIMEOUT_USEC;
	if ((r = peer_requester(fd, &c->req)) < 0) {
		close(fd);
		free(c);
		return r;
	}
	/* A peer whose namespaces cannot be read still connects: each request then says why it is refused. */
	struct err e;
	if (s->ops && requester_identify(s->ops, &c->req, &e) < 0)
		log_debug("client pid %d: %s", (int)c->req.pid, e.msg);
	if ((r = sd_bus_new(&c->bus)) < 0)
		goto fail_fd;
	if ((r = sd_bus_set_fd(c->bus, fd, fd)) < 0)
		goto fail_fd;
	/* From here the bus owns fd. Credentials were taken from the kernel above; the auth exchange decides nothing. */
	if ((r = sd_bus_set_server(c->bus, 1, s->id)) < 0 || (r = sd_bus_set_anonymous(c->bus, 1)) < 0 ||
	    (r = sd_bus_set_trusted(c->bus, 1)) < 0 || (r = sd_bus_negotiate_fds(c->bus, 1)) < 0 ||
	    (r = sd_bus_add_filter(c->bus, NULL, on_any_message, c)) < 0 ||
	    (r = sd_bus_add_object_vtable(c->bus, NULL, CGMANAGER_OBJECT_PATH, CGMANAGER_IFACE0, s->iface0, c)) < 0 ||
	    (s->iface1 &&
	     (r = sd_bus_add_object_vtable(c->bus, NULL, CGMANAGER_OBJECT_PATH, CGMANAGER_IFACE1, s->iface1, c)) < 0) ||
	    (r = sd_bus_add_object_vtable(c->bus, NULL, "/org/freedesktop/DBus", "org.freedesktop.DBus",
	                                  bus_driver_vtable, c)) < 0 ||
	    (r = sd_bus_start(c->bus)) < 0)
		goto fail_bus;
	ev.data.ptr = c;
	c->epoll_events = EPOLLIN;
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		r = -errno;
		goto fail_bus;
	}
	c->next = s->conns;
	if (s->conns)
		s->conns->prev = c;
	s->conns = c;
	s->nconns++;
	log_debug("client pid %d uid %u connected (%u connected)", (int)c->req.pid, (unsigned)c->req.cred.uid,
	          s->nconns);
	conn_update_events(s, c);
	return 0;
fail_fd:
	if (!c->bus)
		close(fd);
fail_bus:
	sd_bus_flush_close_unref(c->bus);
	if (c->req.pidfd >= 0)
		close(c->req.pidfd);
	requester_release(&c->req);
	free(c);
	return r;
}

void server_conn_wake(struct conn *c)
{
	if (conn_update_events(c->srv, c) < 0)
		c->busy = true; /* processed (and, if dead, dropped) on the next turn */
}

/* Returns false when the connection is finished with. */
static bool conn_process(struct server *s, struct conn *c)
{
	int r = 0;
	c->busy = false;
	for (int i = 0; i < MESSAGES_PER_TURN; i++) {
		r = sd_bus_process(c->bus, NULL);
		if (r <= 0)
			break;
	}
	if (r < 0) {
		if (r != -ECONNRESET && r != -ENOTCONN && r != -EPIPE)
			log_debug("client pid %d: %s", (int)c->req.pid, strerror(-r));
		return false;
	}
	c->busy = r > 0;
	return conn_update_events(s, c) == 0;
}

static void accept_all(struct server *s)
{
	for (;;) {
		int fd = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
				log_warn("accept: %s", strerror(errno));
			return;
		}
		int r = conn_new(s, fd);
		if (r < 0)
			log_warn("cannot set up a client connection: %s", strerror(-r));
	}
}

/* Milliseconds until the nearest deadline (sd-bus timeouts, auth deadlines, the release tick). */
static int next_timeout(struct server *s)
{
	uint64_t now = now_usec(), best = scm_registry_next_deadline(&s->scm), due = deferred_next_due(&s->deferred);
	int rel = s->ops ? release_watch_timeout_ms(s->ops->release) : -1;

	if (due < best)
		best = due;
	for (struct conn *c = s->conns; c; c = c->next) {
		uint64_t t;
		if (c->busy)
			return 0;
		if (c->auth_deadline && c->auth_deadline < best)
			best = c->auth_deadline;
		if (sd_bus_get_timeout(c->bus, &t) >= 0 && t < best)
			best = t;
	}
	if (best != UINT64_MAX) {
		uint64_t ms = best <= now ? 0 : (best - now + 999) / 1000;
		if (rel < 0 || ms < (uint64_t)rel)
			rel = ms > 60000 ? 60000 : (int)ms;
	}
	return rel;
}

static void expire(struct server *s)
{
	uint64_t now = now_usec();
	scm_registry_expire(&s->scm, now);
	deferred_run_due(&s->deferred, now);
	for (struct conn *c = s->conns, *next; c; c = next) {
		uint64_t t;
		next = c->next;
		if (c->auth_deadline && c->auth_deadline <= now) {
			log_info("client pid %d did not authenticate in time; dropped", (int)c->req.pid);
			conn_free(s, c);
			continue;
		}
		if (c->busy || (sd_bus_get_timeout(c->bus, &t) >= 0 && t <= now))
			if (!conn_process(s, c))
				conn_free(s, c);
	}
}

struct server *server_new(struct ops *o, const sd_bus_vtable *iface0, const sd_bus_vtable *iface1, void *app,
                          int listen_fd, struct err *e)
{
	struct server *s = calloc(1, sizeof(*s));
	sigset_t mask;
	struct epoll_event ev = {.events = EPOLLIN};

	if (!s) {
		err_set(e, ERR_LIMIT, "out of memory");
		return NULL;
	}
	s->ops = o;
	s->iface0 = iface0;
	s->iface1 = iface1;
	s->app = app;
	s->listen_fd = listen_fd;
	s->signal_fd = -1;
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	sd_id128_randomize(&s->id);
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	s->signal_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (s->epfd < 0 || s->signal_fd < 0) {
		err_errno(e, errno, "cannot set up the event loop");
		server_free(s);
		return NULL;
	}
	ev.data.ptr = &tag_listen;
	epoll_ctl(s->epfd, EPOLL_CTL_ADD, listen_fd, &ev);
	ev.data.ptr = &tag_signal;
	epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->signal_fd, &ev);
	ev.data.ptr = &tag_release;
	if (o)
		epoll_ctl(s->epfd, EPOLL_CTL_ADD, release_watch_fd(o->release), &ev);
	return s;
}

int server_run(struct server *s)
{
	struct epoll_event evs[64];
	for (;;) {
		int n = epoll_wait(s->epfd, evs, 64, next_timeout(s));
		if (n < 0 && errno != EINTR) {
			log_error("epoll_wait: %s", strerror(errno));
			return -1;
		}
		for (int i = 0; i < n; i++) {
			void *p = evs[i].data.ptr;
			if (p == &tag_signal) {
				struct signalfd_siginfo si;
				if (read(s->signal_fd, &si, sizeof(si)) == sizeof(si)) {
					log_info("signal %u received; shutting down", si.ssi_signo);
					return 0;
				}
			} else if (p == &tag_listen) {
				accept_all(s);
			} else if (p == &tag_release) {
				release_watch_process(s->ops->release);
			} else if (*(int *)p == LOOP_ITEM_SCM) {
				scm_exchange_event(p, evs[i].events);
			} else if (!conn_process(s, p)) {
				conn_free(s, p);
			}
		}
		if (s->ops)
			release_watch_tick(s->ops->release);
		expire(s);
	}
}

void server_free(struct server *s)
{
	if (!s)
		return;
	scm_registry_free(&s->scm);
	deferred_free_all(&s->deferred);
	while (s->conns)
		conn_free(s, s->conns);
	if (s->signal_fd >= 0)
		close(s->signal_fd);
	if (s->epfd >= 0)
		close(s->epfd);
	free(s);
}
