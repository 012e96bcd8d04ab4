#include "pam/open_in_child.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgmanager.h"
#include "pam/session.h"

/* What the child sends back through the pipe: the outcome, then the session's cgroup or why not. */
struct report {
	enum pam_cgm_outcome outcome;
	char text[1024];
};

static void child(const char *socket, const char *controllers, const struct passwd *pw,
                  const struct pam_cgm_limits *limits, pid_t app, struct report *rep)
{
	cgm_client *c = NULL;
	cgm_error err = {0};
	int r;

	if ((r = cgm_connect(socket, &c, &err)) < 0) {
		rep->outcome = PAM_CGM_UNREACHABLE;
		snprintf(rep->text, sizeof(rep->text), "cannot reach cgmanager at %s: %s",
		         socket ? socket : cgm_default_socket(), err.message ? err.message : strerror(-r));
		cgm_error_clear(&err);
		return;
	}
	rep->outcome = PAM_CGM_FAILED;
	if ((r = cgm_move_pid_abs(c, controllers, "/", getpid(), &err)) < 0) {
		snprintf(rep->text, sizeof(rep->text), "cannot move pam_cgm's helper process to the daemon's root: %s",
		         err.message ? err.message : strerror(-r));
		cgm_error_clear(&err);
	} else {
		char why[sizeof(rep->text)];
		if (pam_cgm_session_open(c, controllers, pw, limits, app, rep->text, sizeof(rep->text), why,
		                         sizeof(why)) == 0)
			rep->outcome = PAM_CGM_OPENED;
		else
			snprintf(rep->text, sizeof(rep->text), "%s", why);
	}
	cgm_disconnect(c);
}

enum pam_cgm_outcome pam_cgm_open_in_child(const char *socket, const char *controllers, const struct passwd *pw,
                                           const struct pam_cgm_limits *limits, char *session, size_t size,
                                           char *why, size_t whylen)
{
	struct report rep = {.outcome = PAM_CGM_FAILED};
	pid_t app = getpid(), pid;
	size_t got = 0;
	ssize_t n;
	int fds[2];

	if (pipe2(fds, O_CLOEXEC) < 0) {
		snprintf(why, whylen, "cannot make a pipe: %s", strerror(errno));
		return PAM_CGM_FAILED;
	}
	if ((pid = fork()) < 0) {
		snprintf(why, whylen, "cannot fork pam_cgm's helper process: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return PAM_CGM_FAILED;
	}
	if (pid == 0) {
		close(fds[0]);
		child(socket, controllers, pw, limits, app, &rep);
		for (char *p = (char *)&rep; got < sizeof(rep) && (n = write(fds[1], p + got, sizeof(rep) - got)) > 0;)
			got += n;
		_exit(got == sizeof(rep) ? 0 : 1);
	}
	close(fds[1]);
	while (got < sizeof(rep)) {
		if ((n = read(fds[0], (char *)&rep + got, sizeof(rep) - got)) > 0)
			got += n;
		else if (n == 0 || errno != EINTR)
			break;
	}
	close(fds[0]);
	/* An application that reaps every child itself (a SIGCHLD handler) may have reaped it: the pipe decides. */
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (got != sizeof(rep)) {
		snprintf(why, whylen, "pam_cgm's helper process ended without an answer");
		return PAM_CGM_FAILED;
	}
	rep.text[sizeof(rep.text) - 1] = '\0';
	snprintf(rep.outcome == PAM_CGM_OPENED ? session : why, rep.outcome == PAM_CGM_OPENED ? size : whylen, "%s",
	         rep.text);
	return rep.outcome;
}
