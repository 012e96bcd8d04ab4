#include "pam/open_in_child.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgmanager.h"
#include "pam/session.h"

/*
 * A remove-on-empty of user/NAME (its other sessions' last task just left) can take a new session's cgroup with
 * it before the application is in: the open starts again, this many times in all.
 */
#define ATTEMPTS 3

/* What the child sends up the socket: the outcome, then the prepared session's cgroup or why not. */
struct report {
	enum pam_cgm_outcome outcome;
	bool again; /* a cgroup it made was gone meanwhile */
	char text[1024];
};

/*
 * All of len bytes through the socket fd, sent (out) or received; false if its other end is gone. MSG_NOSIGNAL:
 * a helper ended by root (or the OOM killer) must not take the login process with it by SIGPIPE.
 */
static bool transfer(int fd, void *buf, size_t len, bool out)
{
	for (size_t done = 0; done < len;) {
		ssize_t n = out ? send(fd, (char *)buf + done, len - done, MSG_NOSIGNAL)
		                : recv(fd, (char *)buf + done, len - done, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		done += n;
	}
	return true;
}

static void prepare(cgm_client *c, const char *controllers, const struct passwd *pw,
                    const struct pam_cgm_limits *limits, struct report *rep)
{
	char why[sizeof(rep->text)];
	cgm_error err = {0};
	int r;

	if ((r = cgm_move_pid_abs(c, controllers, "/", getpid(), &err)) < 0) {
		snprintf(rep->text, sizeof(rep->text), "cannot move pam_cgm's helper process to the daemon's root: %s",
		         err.message ? err.message : strerror(-r));
		cgm_error_clear(&err);
	} else if ((r = pam_cgm_session_prepare(c, controllers, pw, limits, rep->text, sizeof(rep->text), why,
	                                        sizeof(why))) == 0) {
		rep->outcome = PAM_CGM_OPENED;
	} else {
		rep->again = r == -EAGAIN;
		snprintf(rep->text, sizeof(rep->text), "%s", why);
	}
}

/* How long the child waits for the application's word after its report: a stopped application does not hold it. */
#define ANSWER_TIMEOUT_MS 60000

/* The application's word: 'k' when it is in the session; false for anything else, its end, or no word in time. */
static bool kept(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	char word = 0;
	int r;
	while ((r = poll(&p, 1, ANSWER_TIMEOUT_MS)) < 0 && errno == EINTR)
		;
	return r == 1 && transfer(fd, &word, 1, false) && word == 'k';
}

/* The child: prepares the session, reports it up, and undoes it unless the application says it is in. */
static void child(int fd, const char *socket, const char *controllers, const struct passwd *pw,
                  const struct pam_cgm_limits *limits)
{
	struct report rep = {.outcome = PAM_CGM_FAILED};
	cgm_client *c = NULL;
	cgm_error err = {0};
	int r;

	/*
	 * Out of reach of a user who shares the application's real uid (su, sudo): a session and process group of
	 * its own, so that no terminal's hang-up, ^C or ^Z reaches it, and every uid root's, so that no kill does.
	 * It always answers, and undoes what it made unless the application says it is in.
	 */
	setsid();
	if (setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0) {
		snprintf(rep.text, sizeof(rep.text), "cannot make pam_cgm's helper process root's: %s", strerror(errno));
		transfer(fd, &rep, sizeof(rep), true);
		return;
	}
	if ((r = cgm_connect(socket, &c, &err)) < 0) {
		rep.outcome = PAM_CGM_UNREACHABLE;
		snprintf(rep.text, sizeof(rep.text), "cannot reach cgmanager at %s: %s",
		         socket ? socket : cgm_default_socket(), err.message ? err.message : strerror(-r));
		cgm_error_clear(&err);
		transfer(fd, &rep, sizeof(rep), true);
		return;
	}
	prepare(c, controllers, pw, limits, &rep);
	/* Its connection is root's: closed before the wait, so that a stopped application holds none. */
	cgm_disconnect(c);
	if (rep.outcome != PAM_CGM_OPENED) {
		transfer(fd, &rep, sizeof(rep), true);
		return;
	}
	if ((!transfer(fd, &rep, sizeof(rep), true) || !kept(fd)) && cgm_connect(socket, &c, NULL) == 0) {
		pam_cgm_session_undo(c, controllers, rep.text);
		cgm_disconnect(c);
	}
}

/* One attempt: the child prepares, the application enters. */
static enum pam_cgm_outcome attempt(const char *socket, const char *controllers, const struct passwd *pw,
                                    const struct pam_cgm_limits *limits, char *session, size_t size, char *why,
                                    size_t whylen, bool *again)
{
	struct report rep = {.outcome = PAM_CGM_FAILED};
	int sv[2], r = 0;
	cgm_client *c = NULL;
	cgm_error err = {0};
	pid_t pid;

	*again = false;
	/* One channel both ways: the child's report up, the application's word down. */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		snprintf(why, whylen, "cannot make a socket pair: %s", strerror(errno));
		return PAM_CGM_FAILED;
	}
	if ((pid = fork()) == 0) {
		close(sv[0]);
		child(sv[1], socket, controllers, pw, limits);
		_exit(0);
	}
	close(sv[1]);
	if (pid < 0)
		snprintf(rep.text, sizeof(rep.text), "cannot fork pam_cgm's helper process: %s", strerror(errno));
	else if (!transfer(sv[0], &rep, sizeof(rep), false))
		snprintf(rep.text, sizeof(rep.text), "pam_cgm's helper process ended without an answer");
	rep.text[sizeof(rep.text) - 1] = '\0';
	if (rep.outcome == PAM_CGM_OPENED) {
		if ((r = cgm_connect(socket, &c, &err)) < 0) {
			snprintf(why, whylen, "cannot reach cgmanager at %s: %s", socket ? socket : cgm_default_socket(),
			         err.message ? err.message : strerror(-r));
			cgm_error_clear(&err);
		} else {
			r = pam_cgm_session_enter(c, controllers, rep.text, why, whylen);
			cgm_disconnect(c);
		}
		*again = r == -EAGAIN;
		/* The child keeps the session only when told so; anything else (this process gone too) undoes it. */
		transfer(sv[0], r == 0 ? "k" : "u", 1, true);
		rep.outcome = r == 0 ? PAM_CGM_OPENED : PAM_CGM_FAILED;
		if (r == 0)
			snprintf(session, size, "%s", rep.text);
	} else {
		*again = rep.again;
		snprintf(why, whylen, "%s", rep.text);
	}
	close(sv[0]);
	/* An application that reaps every child itself (a SIGCHLD handler) may have reaped it: the socket decided. */
	while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return rep.outcome;
}

enum pam_cgm_outcome pam_cgm_open_in_child(const char *socket, const char *controllers, const struct passwd *pw,
                                           const struct pam_cgm_limits *limits, char *session, size_t size,
                                           char *why, size_t whylen)
{
	enum pam_cgm_outcome o = PAM_CGM_FAILED;
	bool again = true;

	for (int i = 0; i < ATTEMPTS && again; i++)
		o = attempt(socket, controllers, pw, limits, session, size, why, whylen, &again);
	return o;
}
