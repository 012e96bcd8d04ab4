#include "dbus/server.h"

#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cgfs/proc.h"
#include "dbus/acceptor.h"
#include "dbus/conn.h"
#include "dbus/deferred.h"
#include "dbus/events.h"
#include "dbus/loop.h"
#include "dbus/peer.h"
#include "dbus/scm_server.h"
#include "ops/release.h"
#include "util/list.h"
#include "util/log.h"

/* The acceptor drops a client that has not sent a byte by then, and one that has not authenticated by as
 * long after its first byte. */
#define AUTH_TIMEOUT_USEC ((uint64_t)SERVER_AUTH_TIMEOUT_SEC * 1000000ULL)
/* Messages one connection may have processed per turn, and the time they may take (at least one is
 * processed), so that one that sends many, or costly ones, delays the others by little. */
#define MESSAGES_PER_TURN 32
#define TURN_BUDGET_USEC 100
/* What one account's connections together may take of a turn (at least one of them is served): a user
 * with many busy connections delays the others' calls by one share, not by one turn of each connection. An
 * account's owner and its members have a share each (dbus/admission.h): a container's users do not delay its
 * root's cgproxy by their share. */
#define ACCOUNT_SHARE_USEC 30
/* Events served per turn, in time: what is left is reported again next turn, behind the others. */
#define EVENTS_BUDGET_USEC 400
/* Replies sd-bus may hold for a client that does not read them (beyond the socket's buffer); then the
 * client is not read until it has read some. */
#define QUEUED_REPLIES_MAX SERVER_QUEUED_REPLIES_MAX
/* The kernel's buffer of unread replies per connection (it doubles this); sd-bus would make it 8 MiB. */
#define CONN_SNDBUF (16 * 1024)
struct server {
	struct ops *ops;
	struct loop *loop;
	int signal_fd;
	struct loop_watch signal_watch, release_watch, handover_watch;
	bool stopping;                      /* a signal said so in this turn */
	bool handed_over;                   /* the acceptor has a connection ready in this turn */
	struct conn *conns;
	struct conn *busy;                  /* to be processed next turn */
	unsigned serial;
	uint64_t turn;                      /* counts the turns of the loop, for the accounts' shares */
	struct admission adm;   /* every connection is charged there by the acceptor, released by conn_free */
	struct acceptor *acceptor; /* started by the first turn, once server_set_limits had its say */
	int listen_fd;
	sd_id128_t id;
	struct scm_registry scm;
	struct deferred_registry deferred;
	struct event_pump *events; /* the watches' events in the loop (dbus/events.h); NULL in cgproxy */
	const sd_bus_vtable *iface0, *iface1;
	void *app;
	uint8_t *scratch; /* intake_pump's read buffer on this thread (malloc'ed apart: see the acceptor's) */
	unsigned nconns, nconns_peak; /* connections served, and their most since the last trim */
	bool trim_due;                /* they fell to a quarter of that peak: malloc_trim at the end of the turn */
};

/*
 * glibc keeps what a burst of connections freed (3 KiB and more each: BENCHMARKS.md) for later mallocs, and
 * hands back to the kernel only what lies at the top of a heap, which the survivors pin. When the connections
 * fall to a quarter of their most since the last trim, and that was at least TRIM_PEAK_MIN, malloc_trim(0)
 * returns the free pages of every arena: once or twice per burst, never per close.
 */
#define TRIM_PEAK_MIN 16

struct loop *server_loop(struct server *s)
{
	return s->loop;
}

void *server_app(struct server *s)
{
	return s->app;
}

unsigned server_default_max_conns(void)
{
	struct rlimit rl = {.rlim_cur = 1024};
	getrlimit(RLIMIT_NOFILE, &rl);
	unsigned long nofile = rl.rlim_cur == RLIM_INFINITY ? 1UL << 20 : rl.rlim_cur;
	unsigned long n = nofile > SERVER_FDS_RESERVED + 64 * SERVER_FDS_PER_CONN
	                          ? (nofile - SERVER_FDS_RESERVED) / SERVER_FDS_PER_CONN
	                          : 64;
	return n > 1000000 ? 1000000 : (unsigned)n;
}

void server_set_limits(struct server *s, const struct server_limits *l)
{
	admission_set_limits(&s->adm, l->max_conns, l->max_conns_per_uid, l->max_message);
}

void server_get_limits(struct server *s, struct server_limits *l)
{
	admission_get_limits(&s->adm, &l->max_conns, &l->max_conns_per_uid, &l->max_message);
}

/* --- the lists a connection is on --- */

static void busy_add(struct server *s, struct conn *c)
{
	if (c->busy)
		return;
	c->busy = true;
	LIST_PREPEND(s->busy, c, busy_prev, busy_next);
}

static void busy_remove(struct server *s, struct conn *c)
{
	if (!c->busy)
		return;
	LIST_REMOVE(s->busy, c, busy_prev, busy_next);
	c->busy = false;
}

/* --- connections --- */

static void conn_free(struct server *s, struct conn *c)
{
	events_conn_gone(c);
	deferred_cancel_conn(&s->deferred, c);
	scm_registry_cancel_conn(&s->scm, c->serial);
	loop_watch_remove(s->loop, &c->watch);
	LIST_REMOVE(s->conns, c, prev, next);
	busy_remove(s, c);
	s->nconns--;
	if (s->nconns_peak >= TRIM_PEAK_MIN && s->nconns <= s->nconns_peak / 4)
		s->trim_due = true;
	/* Never a flush: that would wait, with every other client, for one that does not read. The bus
	 * closes the client's socket and its end of the intake. */
	sd_bus_close(c->bus);
	sd_bus_unref(c->bus);
	intake_free(&c->in);
	peer_requester_drop(&c->req);
	admission_release(&s->adm, c->slot);
	log_debug("client pid %d gone", (int)c->req.pid);
	free(c);
}

/*
 * The objects a client calls. sd-bus builds its tables of an object's members per connection, which would
 * be most of what a connection costs (~75 us, 7 KiB for all three), so the methods are run from the
 * connection's filter (direct_method) and an object's table is added only with the first call that needs
 * sd-bus's own handling of it: introspection, properties, a call sd-bus must refuse.
 */
enum { OBJ_IFACE0 = 1, OBJ_IFACE1 = 2, OBJ_DRIVER = 4, OBJ_ALL = 7 };

static unsigned objects_needed(sd_bus_message *m)
{
	uint8_t type = 0;
	if (sd_bus_message_get_type(m, &type) < 0 || type != SD_BUS_MESSAGE_METHOD_CALL)
		return 0;
	const char *i = sd_bus_message_get_interface(m);
	if (i && !strcmp(i, CGMANAGER_IFACE0))
		return OBJ_IFACE0;
	if (i && !strcmp(i, CGMANAGER_IFACE1))
		return OBJ_IFACE1;
	if (i && !strcmp(i, "org.freedesktop.DBus"))
		return OBJ_DRIVER;
	if (i && !strcmp(i, "org.freedesktop.DBus.Peer"))
		return 0; /* sd-bus answers it itself */
	/* No interface, Introspectable, Properties, ...: these look at every object. */
	return OBJ_ALL;
}

static int conn_add_objects(struct conn *c, unsigned want)
{
	struct server *s = c->srv;
	int r = 0;
	want &= ~c->objects;
	/* Each is marked as soon as it is added, so that a later failure leaves no duplicate to add again. */
	if (want & OBJ_IFACE0) {
		if ((r = sd_bus_add_object_vtable(c->bus, NULL, CGMANAGER_OBJECT_PATH, CGMANAGER_IFACE0, s->iface0, c)) < 0)
			return r;
		c->objects |= OBJ_IFACE0;
	}
	if ((want & OBJ_IFACE1) && s->iface1) {
		if ((r = sd_bus_add_object_vtable(c->bus, NULL, CGMANAGER_OBJECT_PATH, CGMANAGER_IFACE1, s->iface1, c)) < 0)
			return r;
		c->objects |= OBJ_IFACE1;
	}
	if (want & OBJ_DRIVER) {
		if ((r = sd_bus_add_object_vtable(c->bus, NULL, "/org/freedesktop/DBus", "org.freedesktop.DBus",
		                                  bus_driver_vtable, c)) < 0)
			return r;
		c->objects |= OBJ_DRIVER;
	}
	return 0;
}

/*
 * The vtable entry of a method call that can run straight from the filter: one of our methods, on its
 * object and interface, with the signature the vtable gives. Anything else (introspection, properties, an
 * unknown member, wrong arguments) goes to sd-bus's objects, which answer it as sd-bus does.
 */
static const sd_bus_vtable *direct_method(const struct server *s, sd_bus_message *m)
{
	const char *path = sd_bus_message_get_path(m), *iface = sd_bus_message_get_interface(m);
	const char *member = sd_bus_message_get_member(m), *sig = sd_bus_message_get_signature(m, true);
	const sd_bus_vtable *vt = NULL;
	uint8_t type = 0;

	if (sd_bus_message_get_type(m, &type) < 0 || type != SD_BUS_MESSAGE_METHOD_CALL || !path || !iface ||
	    !member || !sig)
		return NULL;
	if (!strcmp(path, CGMANAGER_OBJECT_PATH) && !strcmp(iface, CGMANAGER_IFACE0))
		vt = s->iface0;
	else if (!strcmp(path, CGMANAGER_OBJECT_PATH) && !strcmp(iface, CGMANAGER_IFACE1))
		vt = s->iface1;
	else if (!strcmp(path, "/org/freedesktop/DBus") && !strcmp(iface, "org.freedesktop.DBus"))
		vt = bus_driver_vtable;
	for (; vt && vt->type != _SD_BUS_VTABLE_END; vt++)
		if (vt->type == _SD_BUS_VTABLE_METHOD && !strcmp(vt->x.method.member, member))
			return !strcmp(vt->x.method.signature ? vt->x.method.signature : "", sig) ? vt : NULL;
	return NULL;
}

static int on_any_message(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct conn *c = u;
	const sd_bus_vtable *vt;
	int r;

	/*
	 * With its first message, the daemon opens the requester's /proc/PID/cgroup for all its requests.
	 * Opened after its pidfd pinned it: each read is followed by a check that the pinned task still
	 * lives, so what was read was that task's.
	 */
	if (c->srv->ops && c->req.cgroup_fd < 0 && c->req.pid > 0) {
		int fd = proc_cgroups_open(c->req.pid);
		c->req.cgroup_fd = fd >= 0 ? fd : -1;
	}
	/*
	 * A method of ours runs from here, as sd-bus would run it from the object's table (the daemon's
	 * vtables take the connection as userdata; the bus is trusted, so sd-bus would check no capability):
	 * the tables, most of what a connection costs, are then built only for the calls that need them.
	 * A positive return tells sd-bus that the message was handled; an error is answered by sd-bus.
	 */
	if ((vt = direct_method(c->srv, m))) {
		r = vt->x.method.handler(m, (uint8_t *)c + vt->x.method.offset, ret);
		return r < 0 || sd_bus_error_is_set(ret) ? r : 1;
	}
	/* sd-bus looks the objects up after the filters have run, so they serve this very message. */
	r = conn_add_objects(c, objects_needed(m));
	if (r < 0)
		log_warn("client pid %d: cannot set up its objects: %s", (int)c->req.pid, strerror(-r));
	return r < 0 ? r : 0;
}

static int conn_update_events(struct server *s, struct conn *c)
{
	int ev = sd_bus_get_events(c->bus);
	if (ev < 0)
		return ev;
	/* sd-bus reads from the intake; the client is read when sd-bus is through with what came before. */
	uint32_t want = (ev & POLLOUT ? EPOLLOUT : 0) |
	                (c->drained && !c->throttled && !c->in.eof && !intake_pending(&c->in) ? EPOLLIN : 0);
	return loop_watch_set_events(s->loop, &c->watch, want);
}

static void conn_event(void *owner, uint32_t events);

/* Sets up a connection the acceptor handed over (and takes it over: on failure, it is dropped). */
static int conn_new(struct server *s, struct accepted *a)
{
	struct conn *c = calloc(1, sizeof(*c));
	int r = c ? sd_bus_add_filter(a->bus, NULL, on_any_message, c) : -ENOMEM;

	if (r >= 0)
		r = loop_watch_add(s->loop, &c->watch, a->fd, EPOLLIN, true, conn_event, c);
	if (r < 0) {
		accepted_drop(&s->adm, a);
		free(c);
		return r;
	}
	c->srv = s;
	c->ops = s->ops;
	c->scm = &s->scm;
	c->deferred = &s->deferred;
	c->events = s->events;
	c->fd = a->fd;
	c->slot = a->slot;
	c->req = a->req;
	c->bus = a->bus;
	c->in = a->in;
	free(a);
	c->drained = true;
	c->serial = ++s->serial;
	LIST_PREPEND(s->conns, c, prev, next);
	if (++s->nconns > s->nconns_peak)
		s->nconns_peak = s->nconns;
	/* Authenticated: its replies get a socket buffer of a normal size (sd-bus made it 8 MiB). */
	int sz = CONN_SNDBUF;
	setsockopt(c->fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	/* What it sent after BEGIN may all have been read already: the next turn relays it. */
	busy_add(s, c);
	log_debug("client pid %d authenticated", (int)c->req.pid);
	return 0;
}

/* A call of c that waited was answered: its reply may wait for the socket (dbus/deferred.h). */
static void conn_wake(struct conn *c)
{
	if (conn_update_events(c->srv, c) < 0)
		busy_add(c->srv, c); /* processed (and, if dead, dropped) on the next turn */
}

/* Stops reading a client that leaves too many replies unread. */
static bool conn_throttle(struct conn *c)
{
	uint64_t q = 0;
	c->throttled = sd_bus_get_n_queued_write(c->bus, &q) >= 0 && q >= QUEUED_REPLIES_MAX;
	return c->throttled;
}

/*
 * One turn of a connection: sd-bus writes what waits and answers what was relayed to it (at most
 * MESSAGES_PER_TURN messages, and once one is, no more after budget_usec); once it has read everything, the
 * client is read once more. Returns false
 * when the connection is finished with.
 */
static bool conn_serve(struct server *s, struct conn *c, uint32_t events, uint64_t budget_usec)
{
	bool wake = events & (EPOLLOUT | EPOLLERR | EPOLLHUP), pumped = false;
	bool run_bus = !c->drained || wake;
	const char *why = NULL;
	int r = 0, n = 0;
	uint64_t t0 = now_usec();

	busy_remove(s, c);
	/* A throttled client is served again once it reads (the socket becomes writable) or goes. */
	if (c->throttled && !wake)
		return true;
	for (;;) {
		while (run_bus && n < MESSAGES_PER_TURN) {
			/* The first call writes before it reads; after that, a throttled client is not read. */
			if (n > 0 && (conn_throttle(c) || now_usec() - t0 > budget_usec))
				break;
			r = sd_bus_process(c->bus, NULL);
			if (r < 0) {
				if (r != -ECONNRESET && r != -ENOTCONN && r != -EPIPE)
					log_debug("client pid %d: %s", (int)c->req.pid, strerror(-r));
				return false;
			}
			n++;
			if (r == 0) {
				c->drained = true;
				break;
			}
			c->drained = false;
		}
		conn_throttle(c);
		if (!c->drained || c->throttled || pumped || c->in.eof)
			break;
		r = intake_pump(&c->in, c->fd, sd_bus_is_ready(c->bus) > 0, s->scratch, &why);
		if (r < 0) {
			log_info("client pid %d uid %u: %s; dropped", (int)c->req.pid, (unsigned)c->req.cred.uid, why);
			return false;
		}
		pumped = true;
		if (r == 0)
			break;
		c->drained = false;
		run_bus = true;
	}
	/* Hung up, and everything it sent before was answered (or could not be). */
	if (c->in.eof && c->drained && !intake_pending(&c->in))
		return false;
	if (!c->throttled && (!c->drained || intake_pending(&c->in)))
		busy_add(s, c);
	/* Events that waited for room go out behind what sd-bus just wrote. */
	events_flush(c);
	return conn_update_events(s, c) == 0;
}

/* A connection's turn, if its account has time left in this one; else it waits on the busy list. */
static bool conn_process(struct server *s, struct conn *c, uint32_t events)
{
	uint64_t left = admission_share_left_usec(c->slot, s->turn, ACCOUNT_SHARE_USEC), t0 = now_usec();
	if (!left) {
		busy_add(s, c);
		return true;
	}
	bool keep = conn_serve(s, c, events, left < TURN_BUDGET_USEC ? left : TURN_BUDGET_USEC);
	admission_share_charge(c->slot, s->turn, now_usec() - t0);
	return keep;
}

/* Its socket is ready: its turn. */
static void conn_event(void *owner, uint32_t events)
{
	struct conn *c = owner;
	if (!conn_process(c->srv, c, events))
		conn_free(c->srv, c);
}

/* --- accepting --- */

/* Sets up what the acceptor admitted, one per turn. */
static void take_accepted(struct server *s)
{
	struct accepted *a = acceptor_take(s->acceptor);
	int r = a ? conn_new(s, a) : 0;
	if (r < 0)
		log_warn("cannot set up a client connection: %s", strerror(-r));
}

/* The acceptor has connections ready: one is taken once this turn's events are served. */
static void on_handover(void *owner, uint32_t events)
{
	struct server *s = owner;
	s->handed_over = true;
}

static void on_signal(void *owner, uint32_t events)
{
	struct server *s = owner;
	struct signalfd_siginfo si;
	if (read(s->signal_fd, &si, sizeof(si)) == sizeof(si)) {
		log_info("signal %u received; shutting down", si.ssi_signo);
		s->stopping = true;
		loop_break(s->loop);
	}
}

static void on_release(void *owner, uint32_t events)
{
	struct server *s = owner;
	release_watch_process(s->ops->release);
}

/* Serves the connections that were busy when the turn began; what becomes busy now waits for the next turn. */
static void serve_busy(struct server *s)
{
	struct conn *todo = s->busy;
	s->busy = NULL;
	for (struct conn *c = todo; c; c = c->busy_next)
		c->busy = false;
	while (todo) {
		struct conn *c = todo;
		todo = c->busy_next;
		if (todo)
			todo->busy_prev = NULL;
		c->busy_next = c->busy_prev = NULL;
		if (!conn_process(s, c, 0))
			conn_free(s, c);
	}
}

struct server *server_new(struct ops *o, const sd_bus_vtable *iface0, const sd_bus_vtable *iface1, void *app,
                          int listen_fd, struct err *e)
{
	struct server *s = calloc(1, sizeof(*s));
	sigset_t mask;
	int r = 0;

	if (!s) {
		err_set(e, ERR_LIMIT, "out of memory");
		return NULL;
	}
	/* One malloc arena for the process, set before the acceptor thread starts: that thread makes each
	 * connection's sd-bus, and a thread's own arena would keep what they freed (malloc_trim gives back the
	 * free top of the main heap only). The two threads rarely allocate at the same moment. */
	mallopt(M_ARENA_MAX, 1);
	admission_init(&s->adm, server_default_max_conns(), SERVER_ROOT_RESERVED_CONNS, SERVER_DEFAULT_CONNS_PER_UID,
	               SERVER_DEFAULT_MAX_MESSAGE);
	s->ops = o;
	s->iface0 = iface0;
	s->iface1 = iface1;
	s->app = app;
	s->signal_fd = -1;
	s->loop = loop_new();
	s->scratch = malloc(INTAKE_CHUNK);
	sd_id128_randomize(&s->id);
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	s->signal_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (!s->scratch || !s->loop || s->signal_fd < 0) {
		err_errno(e, errno, "cannot set up the event loop");
		server_free(s);
		return NULL;
	}
	s->listen_fd = listen_fd;
	scm_registry_init(&s->scm, s->loop, o);
	deferred_registry_init(&s->deferred, s->loop, conn_wake);
	/* A signal stops the server even in a turn whose time is spent. */
	r = loop_watch_add(s->loop, &s->signal_watch, s->signal_fd, EPOLLIN, false, on_signal, s);
	if (r >= 0 && o)
		r = loop_watch_add(s->loop, &s->release_watch, release_watch_fd(o->release), EPOLLIN, true, on_release, s);
	if (r >= 0 && o && !(s->events = event_pump_start(s->loop, o, e))) {
		server_free(s);
		return NULL;
	}
	if (r < 0) {
		err_errno(e, -r, "cannot set up the event loop");
		server_free(s);
		return NULL;
	}
	return s;
}

/* The acceptor, with the limits as they are now. */
static int start_accepting(struct server *s)
{
	struct err e;
	int r;
	if (!(s->acceptor = acceptor_start(s->listen_fd, &s->adm, s->ops, s->id, AUTH_TIMEOUT_USEC, &e))) {
		log_error("%s", e.msg);
		return -1;
	}
	/* Noted in every turn, however long: busy clients cannot keep new ones (root too) out. */
	if ((r = loop_watch_add(s->loop, &s->handover_watch, acceptor_fd(s->acceptor), EPOLLIN, false, on_handover,
	                        s)) < 0) {
		log_error("cannot watch the acceptor's connections: %s", strerror(-r));
		return -1;
	}
	return 0;
}

static void trim_heap(struct server *s)
{
	uint64_t t0 = now_usec();
	int gave = malloc_trim(0);
	log_debug("connections fell from %u to %u: freed heap %s the kernel in %llu us", s->nconns_peak, s->nconns,
	          gave ? "given back to" : "kept, nothing to give", (unsigned long long)(now_usec() - t0));
	s->nconns_peak = s->nconns;
	s->trim_due = false;
}

int server_turn(struct server *s, int timeout_ms)
{
	if (!s->acceptor && start_accepting(s) < 0)
		return -1;
	/* No wait while connections are busy, nor beyond the release watch's next tick (nor, loop_dispatch sees to
	 * it, beyond the nearest deadline). */
	int due_ms = s->busy ? 0 : s->ops ? release_watch_timeout_ms(s->ops->release) : -1;
	if (due_ms >= 0 && (timeout_ms < 0 || due_ms < timeout_ms))
		timeout_ms = due_ms;
	s->stopping = s->handed_over = false;
	s->turn++;
	if (loop_dispatch(s->loop, timeout_ms, EVENTS_BUDGET_USEC) < 0)
		return -1;
	if (s->stopping)
		return 1;
	/* New connections after the clients that were waiting; one each turn however long it was, so that
	 * busy clients cannot keep others (root too) out. */
	if (s->handed_over)
		take_accepted(s);
	if (s->ops)
		release_watch_tick(s->ops->release);
	loop_run_due(s->loop);
	serve_busy(s);
	/* In a turn with nobody waiting for an answer: the trim takes ~1 ms per 50 connections' worth of heap. */
	if (s->trim_due && !s->busy)
		trim_heap(s);
	return 0;
}

bool server_serves_any(const struct server *s)
{
	return s->conns != NULL;
}

bool server_has_waiting_calls(const struct server *s)
{
	return s->deferred.head != NULL;
}

int server_run(struct server *s)
{
	int r;
	while ((r = server_turn(s, -1)) == 0)
		;
	return r < 0 ? -1 : 0;
}

void server_free(struct server *s)
{
	if (!s)
		return;
	/* Closes the hand-over pipe, which leaves the loop with it. */
	acceptor_stop(s->acceptor);
	scm_registry_free(&s->scm);
	deferred_free_all(&s->deferred);
	while (s->conns)
		conn_free(s, s->conns);
	event_pump_stop(s->events);
	if (s->signal_fd >= 0)
		close(s->signal_fd);
	loop_free(s->loop);
	admission_destroy(&s->adm);
	free(s->scratch);
	free(s);
}
