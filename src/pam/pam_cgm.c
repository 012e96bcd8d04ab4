/*
 * pam_cgm: a PAM session module that gives each login session a cgroup of
 * its own beneath a cgroup of its user, delegated to the user, through
 * cgmanager (pam_cgm(8)). A failure opens the session without a cgroup and
 * logs why, unless the argument strict makes it refuse the session.
 */
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#define PAM_SM_SESSION
#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "cgmanager.h"
#include "pam/args.h"
#include "pam/limits_conf.h"
#include "pam/open_in_child.h"
#include "pam/session.h"

/* The module's only exported symbols: the library is built with hidden visibility. */
#define EXPORTED __attribute__((visibility("default")))

/* The PAM data that carries the session's cgroup from open_session to close_session. */
#define DATA_SESSION "pam_cgm_session"

static void free_data(pam_handle_t *pamh, void *data, int error_status)
{
	free(data);
}

/* The session opens anyway unless strict. */
static int outcome(const struct pam_cgm_args *a)
{
	return a->strict ? PAM_SESSION_ERR : PAM_SUCCESS;
}

/* A user name is one cgroup name component, and not one of the daemon's own (".leaf", ".cgmanager"). */
static bool name_usable(const char *name)
{
	if (!name[0] || name[0] == '.' || strlen(name) > 255)
		return false;
	for (const char *p = name; *p; p++)
		if (*p == '/' || (unsigned char)*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

static int read_limits(pam_handle_t *pamh, const struct pam_cgm_args *a, const struct passwd *pw,
                       struct pam_cgm_limits *limits)
{
	gid_t *groups = NULL;
	int ngroups = 64, r;

	/* getgrouplist says how many there are when they do not fit: asked again with room for all. */
	for (int tries = 0; tries < 3; tries++) {
		gid_t *more = realloc(groups, ngroups * sizeof(*groups));
		if (!more)
			break;
		groups = more;
		if (getgrouplist(pw->pw_name, pw->pw_gid, groups, &ngroups) >= 0) {
			r = pam_cgm_limits_read(pamh, a->config, pw->pw_name, groups, ngroups, limits);
			free(groups);
			return r;
		}
	}
	free(groups);
	pam_syslog(pamh, LOG_ERR, "cannot list the groups of user %s; no limits are set", pw->pw_name);
	memset(limits, 0, sizeof(*limits));
	return -1;
}

EXPORTED int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	struct pam_cgm_args a;
	struct pam_cgm_limits limits;
	struct passwd pwbuf, *pw = NULL;
	char buf[4096], why[1024], path[1024];
	const char *user = NULL;
	char *session = NULL;

	pam_cgm_args_parse(pamh, argc, argv, &a);
	if (pam_get_user(pamh, &user, NULL) != PAM_SUCCESS || !user) {
		pam_syslog(pamh, LOG_ERR, "cannot get the user of the session");
		return outcome(&a);
	}
	if (getpwnam_r(user, &pwbuf, buf, sizeof(buf), &pw) != 0 || !pw) {
		pam_syslog(pamh, LOG_ERR, "user '%s' is not known", user);
		return outcome(&a);
	}
	if (!name_usable(pw->pw_name)) {
		pam_syslog(pamh, LOG_ERR, "user name '%s' cannot be a cgroup's name; the session has no cgroup",
		           pw->pw_name);
		return outcome(&a);
	}
	if ((read_limits(pamh, &a, pw, &limits) != 0 || a.bad) && a.strict) {
		pam_syslog(pamh, LOG_ERR, "strict: the session is refused for the errors above");
		return PAM_SESSION_ERR;
	}
	switch (pam_cgm_open_in_child(a.socket, a.controllers, pw, &limits, path, sizeof(path), why, sizeof(why))) {
	case PAM_CGM_OPENED:
		break;
	case PAM_CGM_UNREACHABLE:
		pam_syslog(pamh, LOG_ERR, "%s; the session %s without a cgroup", why, a.strict ? "is refused" : "opens");
		return outcome(&a);
	default:
		pam_syslog(pamh, LOG_ERR, "%s for user %s; the session %s without a cgroup", why, pw->pw_name,
		           a.strict ? "is refused" : "opens");
		return outcome(&a);
	}
	if (!(session = strdup(path))) {
		pam_syslog(pamh, LOG_ERR, "out of memory keeping the session's cgroup %s for close_session", path);
		return PAM_SUCCESS;
	}
	if (pam_set_data(pamh, DATA_SESSION, session, free_data) != PAM_SUCCESS) {
		pam_syslog(pamh, LOG_ERR, "cannot keep the session's cgroup %s for close_session", session);
		free(session);
	}
	/* A daemon on a socket of its own: the session's cgm and libcgmanager find it there too. */
	if (a.socket) {
		char env[1100];
		snprintf(env, sizeof(env), "CGMANAGER_SOCKET=%s", a.socket);
		if (pam_putenv(pamh, env) != PAM_SUCCESS)
			pam_syslog(pamh, LOG_ERR, "cannot set %s in the session's environment", env);
	}
	return PAM_SUCCESS;
}

EXPORTED int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	struct pam_cgm_args a;
	const void *session = NULL;
	cgm_client *c = NULL;
	cgm_error err = {0};
	char why[1024];
	int r;

	/* No cgroup was made for this session (or another process opened it): nothing to do. */
	if (pam_get_data(pamh, DATA_SESSION, &session) != PAM_SUCCESS || !session)
		return PAM_SUCCESS;
	pam_cgm_args_parse(pamh, argc, argv, &a);
	if ((r = cgm_connect(a.socket, &c, &err)) < 0) {
		pam_syslog(pamh, LOG_ERR, "cannot reach cgmanager at %s: %s; %s goes when its last task leaves",
		           a.socket ? a.socket : cgm_default_socket(), err.message ? err.message : strerror(-r),
		           (const char *)session);
		cgm_error_clear(&err);
		return outcome(&a);
	}
	r = pam_cgm_session_close(c, a.controllers, session, why, sizeof(why));
	cgm_disconnect(c);
	if (r < 0) {
		pam_syslog(pamh, LOG_ERR, "%s; %s goes when its last task leaves", why, (const char *)session);
		return outcome(&a);
	}
	pam_set_data(pamh, DATA_SESSION, NULL, NULL);
	return PAM_SUCCESS;
}
