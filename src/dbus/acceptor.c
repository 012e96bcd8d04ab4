#include "dbus/acceptor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dbus/loop.h"
#include "dbus/peer.h"
#include "ops/identity.h"
#include "util/list.h"
#include "util/log.h"

/* How often refusals are logged at most (the rest are counted), in usec. */
#define REFUSAL_LOG_USEC (10ULL * 1000000ULL)
/* Out of file descriptors with no spare one left: the pause before the listen socket is looked at again. */
#define NO_FDS_PAUSE_USEC 100000
/* sd-bus steps through a whole auth exchange in fewer (read, reply, write, BEGIN). */
#define AUTH_STEPS_MAX 16
/* Room for hand-overs the serving thread has not taken yet (the pipe's default, 64 KiB, holds 8192). */
#define HANDOFF_PIPE_BYTES (1024 * 1024)

struct acceptor {
	pthread_t thread;
	struct admission *adm;
	const struct ops *ops;
	sd_id128_t server_id;
	uint64_t auth_timeout;
	int epfd, listen_fd, stop_fd, spare_fd;
	bool started;          /* the thread runs (acceptor_stop joins it) */
	uint64_t listen_resume; /* when the listen socket, paused for want of fds, is watched again; 0: watched */
	int handoff[2]; /* pointers to struct accepted, one write each (atomic: smaller than PIPE_BUF) */
	struct accepted *head, *tail; /* not yet authenticated, nearest deadline first */
	struct log_limit refusals;
	/* intake_pump's read buffer on this thread; malloc'ed apart, so that its pages are touched only as far as
	 * reads fill them (calloc would clear it all) */
	uint8_t *scratch;
};

/* Tags for the epoll entries that are not connections. */
static char tag_listen, tag_stop;

/* Logs refused connections, at most once per REFUSAL_LOG_USEC; the rest are counted. */
static void note_refusal(struct acceptor *ac, uid_t uid, const char *why)
{
	unsigned n;
	log_debug("connection of uid %u refused: %s", (unsigned)uid, why);
	if (log_limit_pass(&ac->refusals, now_usec(), REFUSAL_LOG_USEC, &n))
		log_warn("refused %u connection(s), the last of uid %u: %s", n, (unsigned)uid, why);
}

#define OUT_OF_RESOURCES "the daemon is out of memory or file descriptors"

static bool out_of_resources(int r)
{
	return r == -ENOMEM || r == -EMFILE || r == -ENFILE;
}

static void waiting_remove(struct acceptor *ac, struct accepted *a)
{
	LIST_REMOVE_TAILED(ac->head, ac->tail, a, prev, next);
}

/* Off the list and no longer watched. */
static void waiting_unlink(struct acceptor *ac, struct accepted *a)
{
	epoll_ctl(ac->epfd, EPOLL_CTL_DEL, a->fd, NULL);
	waiting_remove(ac, a);
}

/* Its deadline from now: every deadline is now + the same timeout, so appending keeps the list in order. */
static void waiting_append(struct acceptor *ac, struct accepted *a)
{
	a->auth_deadline = now_usec() + ac->auth_timeout;
	LIST_APPEND_TAILED(ac->head, ac->tail, a, prev, next);
}

void accepted_drop(struct admission *adm, struct accepted *a)
{
	if (a->bus) {
		sd_bus_close(a->bus);
		sd_bus_unref(a->bus); /* and with it the client's socket and sd-bus's end of the socketpair */
	} else {
		close(a->fd);
	}
	intake_free(&a->in);
	peer_requester_drop(&a->req);
	admission_release(adm, a->slot);
	free(a);
}

static void listen_watch(struct acceptor *ac, bool on)
{
	struct epoll_event ev = {.events = on ? EPOLLIN : 0, .data.ptr = &tag_listen};
	epoll_ctl(ac->epfd, EPOLL_CTL_MOD, ac->listen_fd, &ev);
	ac->listen_resume = on ? 0 : now_usec() + NO_FDS_PAUSE_USEC;
}

/* Out of file descriptors: the spare one makes room to take a connection off the queue and close it. */
static void shed_one(struct acceptor *ac)
{
	int fd = -1;
	if (ac->spare_fd >= 0) {
		close(ac->spare_fd);
		fd = accept4(ac->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	}
	/* Logged before the close, so that a client that sees its connection closed finds the reason logged. */
	note_refusal(ac, (uid_t)-1, "the daemon is out of file descriptors");
	if (ac->spare_fd >= 0) {
		if (fd >= 0)
			close(fd);
		ac->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	}
	/* Not even that (the serving thread took the fd meanwhile): look again a little later rather than
	 * spin on the listen socket, and take the spare back then. */
	if (ac->spare_fd < 0)
		listen_watch(ac, false);
}

/* Takes one connection off the queue, if one waits, and keeps it until it speaks. */
static void accept_one(struct acceptor *ac)
{
	int fd = accept4(ac->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno == EMFILE || errno == ENFILE)
			shed_one(ac);
		else if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			log_warn("accept: %s", strerror(errno));
		return;
	}
	struct ucred uc;
	socklen_t len = sizeof(uc);
	const char *why = "no peer credentials";
	struct uid_slot *slot = NULL;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0)
		uc.uid = (uid_t)-1;
	else
		slot = admission_charge(ac->adm, uc.pid, uc.uid, &why);
	if (!slot) {
		note_refusal(ac, uc.uid, why);
		close(fd);
		return;
	}
	struct accepted *a = calloc(1, sizeof(*a));
	int r = a ? peer_requester(fd, &a->req) : -ENOMEM;
	if (r < 0) {
		note_refusal(ac, uc.uid,
		             out_of_resources(r) ? OUT_OF_RESOURCES
		             : r == -EPERM       ? "its pid names a process of another uid (before Linux 6.5: reused?)"
		                                 : "its process has exited (or cannot be pinned by a pidfd)");
		close(fd);
		admission_release(ac->adm, slot);
		free(a);
		return;
	}
	a->fd = fd;
	a->slot = slot;
	a->in.bus_fd = -1;
	/* A peer whose namespaces cannot be read still connects: each request then says why it is refused. */
	struct err e;
	if (ac->ops && requester_identify(ac->ops, &a->req, &e) < 0)
		log_debug("client pid %d: %s", (int)a->req.pid, e.msg);
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = a};
	if (epoll_ctl(ac->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		log_warn("cannot watch a connection of pid %d: %s", (int)uc.pid, strerror(errno));
		accepted_drop(ac->adm, a);
		return;
	}
	waiting_append(ac, a);
	log_debug("client pid %d uid %u connected", (int)a->req.pid, (unsigned)a->req.cred.uid);
}

/*
 * The connection's sd-bus, made when its client first sends something: one that stays silent costs a few
 * syscalls, not an sd-bus. The bus owns both fds from here.
 */
static int start_bus(struct acceptor *ac, struct accepted *a)
{
	int r, bus_end = -1;
	unsigned max_conns, max_conns_per_uid;
	size_t max_message;
	admission_get_limits(ac->adm, &max_conns, &max_conns_per_uid, &max_message);
	if ((r = intake_init(&a->in, max_message, &bus_end)) < 0)
		return r;
	if ((r = sd_bus_new(&a->bus)) < 0) {
		close(bus_end);
		return r;
	}
	/* Credentials were taken from the kernel at accept; the auth exchange decides nothing. */
	if ((r = sd_bus_set_fd(a->bus, bus_end, a->fd)) < 0) {
		close(bus_end);
		sd_bus_unref(a->bus);
		a->bus = NULL;
		return r;
	}
	/*
	 * sd-bus's own idea of its peer is the socketpair's (the daemon itself, root): nothing may ask sd-bus
	 * for a sender's credentials (the requester is a->req), and the bus stays trusted so that sd-bus
	 * makes no access decision of its own from them.
	 */
	if ((r = sd_bus_set_server(a->bus, 1, ac->server_id)) < 0 || (r = sd_bus_set_anonymous(a->bus, 1)) < 0 ||
	    (r = sd_bus_set_trusted(a->bus, 1)) < 0 || (r = sd_bus_negotiate_fds(a->bus, 1)) < 0 ||
	    (r = sd_bus_start(a->bus)) < 0)
		return r;
	return 0;
}

/*
 * sd-bus takes the auth exchange as the intake relays it: 1 once the client is authenticated (what it sent
 * after BEGIN waits in the intake), 0 while it is not yet, negative (with *why) when it failed. The
 * exchange is at most INTAKE_AUTH_MAX bytes, so this ends.
 */
static int authenticate(struct acceptor *ac, struct accepted *a, const char **why)
{
	for (;;) {
		int r;
		/* Until sd-bus is through. It takes BEGIN only once its replies are written, and reports progress
		 * meanwhile: after a few steps with replies the client does not read, watch_auth waits for the
		 * socket to be writable instead. */
		for (int step = 0; (r = sd_bus_process(a->bus, NULL)) > 0; step++)
			if (step >= AUTH_STEPS_MAX && (sd_bus_get_events(a->bus) & POLLOUT))
				return 0;
		if (r < 0) {
			*why = "the auth exchange failed";
			return r;
		}
		if (sd_bus_is_ready(a->bus) > 0)
			return 1;
		/* A BEGIN that sd-bus did not take (one before AUTH) fails here: nothing more is relayed. */
		if ((r = intake_pump(&a->in, a->fd, false, ac->scratch, why)) < 0)
			return r;
		if (r == 0 && a->in.eof) {
			*why = "it hung up before it was authenticated";
			return -ECONNRESET;
		}
		if (r == 0)
			return 0;
	}
}

/* While it authenticates, the client is read, and written when sd-bus has replies it could not send yet. */
static int watch_auth(struct acceptor *ac, struct accepted *a)
{
	int ev = sd_bus_get_events(a->bus);
	struct epoll_event e = {.events = EPOLLIN | (ev > 0 && (ev & POLLOUT) ? EPOLLOUT : 0), .data.ptr = a};
	return ev < 0 ? ev : epoll_ctl(ac->epfd, EPOLL_CTL_MOD, a->fd, &e) < 0 ? -errno : 0;
}

/* The serving thread takes them at its pace; while the pipe is full, this waits (or stops). False once told
 * to stop. */
static bool hand_over(struct acceptor *ac, struct accepted *a)
{
	for (;;) {
		if (write(ac->handoff[1], &a, sizeof(a)) == sizeof(a))
			return true;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN) {
			accepted_drop(ac->adm, a);
			return true;
		}
		struct pollfd p[2] = {{.fd = ac->stop_fd, .events = POLLIN}, {.fd = ac->handoff[1], .events = POLLOUT}};
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			usleep(1000); /* should not happen: do not spin */
		if (p[0].revents) {
			accepted_drop(ac->adm, a);
			return false;
		}
	}
}

/*
 * A connection spoke, could be written or hung up. Its first byte gets it an sd-bus and a new deadline to
 * authenticate by; once authenticated it is handed over, and on failure dropped. False once told to stop.
 */
static bool heard_from(struct acceptor *ac, struct accepted *a, uint32_t events)
{
	const char *why = NULL;
	bool first = !a->bus;
	int r;

	if (!(events & (EPOLLIN | EPOLLOUT))) {
		waiting_unlink(ac, a);
		accepted_drop(ac->adm, a); /* hung up, or an error on the socket */
		return true;
	}
	if (first && (r = start_bus(ac, a)) < 0) {
		waiting_unlink(ac, a);
		if (out_of_resources(r))
			note_refusal(ac, a->req.cred.uid, OUT_OF_RESOURCES);
		else
			log_warn("cannot set up a connection of pid %d: %s", (int)a->req.pid, strerror(-r));
		accepted_drop(ac->adm, a);
		return true;
	}
	r = authenticate(ac, a, &why);
	if (r == 0 && (r = watch_auth(ac, a)) == 0) {
		/* Its first byte starts the time it has to authenticate in. */
		if (first) {
			waiting_remove(ac, a);
			waiting_append(ac, a);
		}
		return true;
	}
	waiting_unlink(ac, a);
	if (r < 0) {
		/* Hanging up is every client's right: not worth a line of the log each. */
		if (!why)
			why = strerror(-r);
		if (r == -ECONNRESET)
			log_debug("client pid %d: %s; dropped", (int)a->req.pid, why);
		else
			log_info("client pid %d uid %u: %s; dropped", (int)a->req.pid, (unsigned)a->req.cred.uid, why);
		accepted_drop(ac->adm, a);
		return true;
	}
	return hand_over(ac, a);
}

static void expire(struct acceptor *ac)
{
	uint64_t now = now_usec();
	if (ac->listen_resume && ac->listen_resume <= now) {
		if (ac->spare_fd < 0)
			ac->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		listen_watch(ac, true);
	}
	while (ac->head && ac->head->auth_deadline <= now) {
		struct accepted *a = ac->head;
		log_info("client pid %d did not authenticate in time; dropped", (int)a->req.pid);
		waiting_unlink(ac, a);
		accepted_drop(ac->adm, a);
	}
}

static void *acceptor_main(void *arg)
{
	struct acceptor *ac = arg;
	pthread_setname_np(pthread_self(), "cgm-acceptor"); /* how ps, top and perf tell it from the serving thread */
	for (;;) {
		struct epoll_event evs[32];
		uint64_t due = ac->head ? ac->head->auth_deadline : UINT64_MAX, now = now_usec();
		if (ac->listen_resume && ac->listen_resume < due)
			due = ac->listen_resume;
		int timeout = due == UINT64_MAX ? -1 : due <= now ? 0 : (int)((due - now + 999) / 1000);
		int n = epoll_wait(ac->epfd, evs, 32, timeout);
		if (n < 0 && errno != EINTR) {
			log_error("acceptor: epoll_wait: %s", strerror(errno));
			usleep(1000); /* should not happen: do not spin */
			continue;
		}
		for (int i = 0; i < n; i++) {
			void *p = evs[i].data.ptr;
			if (p == &tag_stop)
				return NULL;
			if (p == &tag_listen)
				accept_one(ac);
			else if (!heard_from(ac, p, evs[i].events))
				return NULL;
		}
		expire(ac);
	}
}

struct acceptor *acceptor_start(int listen_fd, struct admission *a, const struct ops *ops, sd_id128_t server_id,
                                uint64_t auth_timeout_usec, struct err *e)
{
	struct acceptor *ac = calloc(1, sizeof(*ac));
	if (!ac) {
		err_set(e, ERR_LIMIT, "out of memory");
		return NULL;
	}
	ac->adm = a;
	ac->ops = ops;
	ac->server_id = server_id;
	ac->auth_timeout = auth_timeout_usec;
	ac->listen_fd = listen_fd;
	ac->handoff[0] = ac->handoff[1] = -1;
	ac->epfd = epoll_create1(EPOLL_CLOEXEC);
	ac->stop_fd = eventfd(0, EFD_CLOEXEC);
	ac->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ac->scratch = malloc(INTAKE_CHUNK);
	struct epoll_event el = {.events = EPOLLIN, .data.ptr = &tag_listen}, es = {.events = EPOLLIN, .data.ptr = &tag_stop};
	if (!ac->scratch || ac->epfd < 0 || ac->stop_fd < 0 || pipe2(ac->handoff, O_CLOEXEC | O_NONBLOCK) < 0 ||
	    (fcntl(ac->handoff[1], F_SETPIPE_SZ, HANDOFF_PIPE_BYTES) < 0 && errno != EPERM) ||
	    epoll_ctl(ac->epfd, EPOLL_CTL_ADD, listen_fd, &el) < 0 || epoll_ctl(ac->epfd, EPOLL_CTL_ADD, ac->stop_fd, &es) < 0) {
		err_errno(e, errno, "cannot set up the thread that accepts connections");
		acceptor_stop(ac);
		return NULL;
	}
	/* Signals are the serving thread's (its signalfd): none is delivered to this one. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int r = pthread_create(&ac->thread, NULL, acceptor_main, ac);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0) {
		err_errno(e, r, "cannot start the thread that accepts connections");
		acceptor_stop(ac);
		return NULL;
	}
	ac->started = true;
	return ac;
}

int acceptor_fd(const struct acceptor *ac)
{
	return ac->handoff[0];
}

struct accepted *acceptor_take(struct acceptor *ac)
{
	struct accepted *a;
	ssize_t n;
	while ((n = read(ac->handoff[0], &a, sizeof(a))) < 0 && errno == EINTR)
		;
	return n == sizeof(a) ? a : NULL;
}

void acceptor_stop(struct acceptor *ac)
{
	if (!ac)
		return;
	uint64_t one = 1;
	if (ac->started && write(ac->stop_fd, &one, sizeof(one)) == sizeof(one))
		pthread_join(ac->thread, NULL);
	if (ac->stop_fd >= 0)
		close(ac->stop_fd);
	while (ac->head) {
		struct accepted *a = ac->head;
		waiting_unlink(ac, a);
		accepted_drop(ac->adm, a);
	}
	if (ac->handoff[0] >= 0) {
		for (struct accepted *a; (a = acceptor_take(ac));)
			accepted_drop(ac->adm, a);
		close(ac->handoff[0]);
		close(ac->handoff[1]);
	}
	if (ac->epfd >= 0)
		close(ac->epfd);
	if (ac->spare_fd >= 0)
		close(ac->spare_fd);
	free(ac->scratch);
	free(ac);
}
