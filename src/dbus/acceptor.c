#include "dbus/acceptor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dbus/peer.h"
#include "ops/identity.h"
#include "util/log.h"

/* How much lower than the serving thread's the acceptor's scheduling priority is (in nice steps). */
#define ACCEPTOR_NICE_STEPS 10
/* How often refusals are logged at most (the rest are counted), in ms. */
#define REFUSAL_LOG_MS 10000
/* Out of file descriptors with no spare one left: the pause before the listen socket is looked at again. */
#define NO_FDS_PAUSE_MS 100

struct acceptor {
	pthread_t thread;
	struct admission *adm;
	const struct ops *ops;
	int listen_fd, stop_fd, spare_fd;
	int handoff[2]; /* pointers to struct accepted, one write each (atomic: smaller than PIPE_BUF) */
	unsigned refused;
	struct timespec refused_logged_at;
};

/* Logs refused connections, at most once per REFUSAL_LOG_MS; the rest are counted. */
static void note_refusal(struct acceptor *ac, uid_t uid, const char *why)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ac->refused++;
	log_debug("connection of uid %u refused: %s", (unsigned)uid, why);
	long long ms = (now.tv_sec - ac->refused_logged_at.tv_sec) * 1000LL +
	               (now.tv_nsec - ac->refused_logged_at.tv_nsec) / 1000000;
	if (ac->refused_logged_at.tv_sec && ms < REFUSAL_LOG_MS)
		return;
	log_warn("refused %u connection(s), the last of uid %u: %s", ac->refused, (unsigned)uid, why);
	ac->refused = 0;
	ac->refused_logged_at = now;
}

/* Waits up to ms for fd to have events; false once the acceptor is told to stop. */
static bool wait_unless_stopped(struct acceptor *ac, int fd, short events, int ms)
{
	struct pollfd p[2] = {{.fd = ac->stop_fd, .events = POLLIN}, {.fd = fd, .events = events}};
	while (poll(p, fd >= 0 ? 2 : 1, ms) < 0)
		if (errno != EINTR)
			return false;
	return !p[0].revents;
}

/* Out of file descriptors: the spare one makes room to take a connection off the queue and close it. */
static bool shed_one(struct acceptor *ac)
{
	if (ac->spare_fd >= 0) {
		close(ac->spare_fd);
		int fd = accept4(ac->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0)
			close(fd);
		ac->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	}
	note_refusal(ac, (uid_t)-1, "the daemon is out of file descriptors");
	/* Not even that: look again a little later rather than spin on the listen socket. */
	return ac->spare_fd >= 0 || wait_unless_stopped(ac, -1, 0, NO_FDS_PAUSE_MS);
}

/* Takes one connection off the queue, if one waits; false once the acceptor is told to stop. */
static bool accept_one(struct acceptor *ac)
{
	int fd = accept4(ac->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno == EMFILE || errno == ENFILE)
			return shed_one(ac);
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			log_warn("accept: %s", strerror(errno));
		return true;
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
		close(fd);
		note_refusal(ac, uc.uid, why);
		return true;
	}
	struct accepted *a = calloc(1, sizeof(*a));
	int r = a ? peer_requester(fd, &a->req) : -ENOMEM;
	if (r < 0) {
		close(fd);
		admission_release(ac->adm, slot);
		free(a);
		log_warn("cannot set up a connection of pid %d: %s", (int)uc.pid, strerror(-r));
		return true;
	}
	a->fd = fd;
	a->slot = slot;
	/* A peer whose namespaces cannot be read still connects: each request then says why it is refused. */
	struct err e;
	if (ac->ops && requester_identify(ac->ops, &a->req, &e) < 0)
		log_debug("client pid %d: %s", (int)a->req.pid, e.msg);
	/* The serving thread takes them at its pace; a full pipe holds the rest in the listen queue. */
	for (;;) {
		if (write(ac->handoff[1], &a, sizeof(a)) == sizeof(a))
			return true;
		if (errno == EINTR)
			continue;
		bool full = errno == EAGAIN;
		if (full && wait_unless_stopped(ac, ac->handoff[1], POLLOUT, -1))
			continue;
		accepted_drop(ac->adm, a);
		return !full; /* full, and told to stop */
	}
}

void accepted_drop(struct admission *adm, struct accepted *a)
{
	close(a->fd);
	peer_requester_drop(&a->req);
	admission_release(adm, a->slot);
	free(a);
}

static void *acceptor_main(void *arg)
{
	struct acceptor *ac = arg;
	pthread_setname_np(pthread_self(), "cgm-acceptor"); /* how ps, top and perf tell it from the serving thread */
	/* Below the serving thread: a storm of connects waits for the cpu, not the clients already served. */
	struct sched_param sp = {0};
	sched_setscheduler(0, SCHED_IDLE, &sp);
	while (wait_unless_stopped(ac, ac->listen_fd, POLLIN, -1) && accept_one(ac))
		;
	return NULL;
}

struct acceptor *acceptor_start(int listen_fd, struct admission *a, const struct ops *ops, struct err *e)
{
	struct acceptor *ac = calloc(1, sizeof(*ac));
	if (!ac) {
		err_set(e, ERR_LIMIT, "out of memory");
		return NULL;
	}
	ac->adm = a;
	ac->ops = ops;
	ac->listen_fd = listen_fd;
	ac->handoff[0] = ac->handoff[1] = -1;
	ac->stop_fd = eventfd(0, EFD_CLOEXEC);
	ac->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (ac->stop_fd < 0 || pipe2(ac->handoff, O_CLOEXEC | O_NONBLOCK) < 0) {
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
		close(ac->stop_fd);
		ac->stop_fd = -1; /* tells acceptor_stop there is no thread */
		acceptor_stop(ac);
		return NULL;
	}
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
	if (ac->stop_fd >= 0) {
		uint64_t one = 1;
		if (ac->handoff[0] >= 0 && write(ac->stop_fd, &one, sizeof(one)) == sizeof(one))
			pthread_join(ac->thread, NULL);
		close(ac->stop_fd);
	}
	if (ac->handoff[0] >= 0) {
		for (struct accepted *a; (a = acceptor_take(ac));)
			accepted_drop(ac->adm, a);
		close(ac->handoff[0]);
		close(ac->handoff[1]);
	}
	if (ac->spare_fd >= 0)
		close(ac->spare_fd);
	free(ac);
}
