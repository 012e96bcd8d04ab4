#include "pam/session.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Session cgroups are numbered from 0; a user with this many sessions open gets no more. */
#define MAX_SESSIONS 1000

/* A failed step: why is "WHAT: the daemon's answer". Returns -EAGAIN when the cgroup was gone, else -1. */
static int failed(char *why, size_t whylen, const char *what, int r, cgm_error *err)
{
	bool gone = err->name && strcmp(err->name, "org.freedesktop.DBus.Error.FileNotFound") == 0;
	snprintf(why, whylen, "%s: %s", what, err->message ? err->message : strerror(-r));
	cgm_error_clear(err);
	return gone ? -EAGAIN : -1;
}

static bool listed(char **names, const char *name)
{
	for (char **p = names; p && *p; p++)
		if (strcmp(*p, name) == 0)
			return true;
	return false;
}

/*
 * Claims user/NAME/N for the lowest N that no hierarchy has (those of other controller lists included): one
 * not listed, made by a Create that found it in none. A session opened meanwhile with that N makes it try the next.
 */
static int create_session(cgm_client *c, const char *controllers, const char *user_cg, char *session,
                          size_t size, char *why, size_t whylen)
{
	cgm_error err = {0};
	char **taken = NULL;
	int existed = 0, r;

	if ((r = cgm_create(c, controllers, user_cg, &existed, &err)) < 0)
		return failed(why, whylen, "cannot create the user's cgroup", r, &err);
	if ((r = cgm1_list_children(c, user_cg, &taken, &err)) < 0)
		return failed(why, whylen, "cannot list the user's sessions", r, &err);
	for (int i = 0; i < MAX_SESSIONS; i++) {
		snprintf(session, size, "%s/%d", user_cg, i);
		if (listed(taken, strrchr(session, '/') + 1))
			continue;
		if ((r = cgm_create(c, controllers, session, &existed, &err)) < 0) {
			session[0] = '\0'; /* not ours to remove: another session's, perhaps */
			cgm_strv_free(taken);
			return failed(why, whylen, "cannot create the session's cgroup", r, &err);
		}
		if (existed != 1) {
			cgm_strv_free(taken);
			return 0;
		}
	}
	cgm_strv_free(taken);
	session[0] = '\0';
	snprintf(why, whylen, "%s already has %d sessions", user_cg, MAX_SESSIONS);
	return -1;
}

/*
 * Everything after the session's Create but the move, in the order that keeps the user's limits binding: every
 * Create (each makes missing parents, user/NAME included) comes before the limits, so the user/NAME limited is
 * the one the session is in; if it goes after (remove-on-empty, with the session's cgroup beneath it), the
 * steps that follow, the application's move last, find the session gone and the open starts again.
 */
static int set_up(cgm_client *c, const char *controllers, const struct passwd *pw,
                  const struct pam_cgm_limits *limits, const char *user_cg, const char *session, char *why,
                  size_t whylen)
{
	char delegated[600];
	cgm_error err = {0};
	int existed, r;

	/* The Chown hands over the list's controllers on cgroup2: enabled down the path to the delegated cgroup. */
	snprintf(delegated, sizeof(delegated), "%s/%s", session, PAM_CGM_DELEGATED);
	if ((r = cgm_create(c, controllers, delegated, &existed, &err)) < 0)
		return failed(why, whylen, "cannot create the session's delegated cgroup", r, &err);
	if ((r = cgm_chown(c, controllers, delegated, pw->pw_uid, pw->pw_gid, &err)) < 0)
		return failed(why, whylen, "cannot hand the session's delegated cgroup to the user", r, &err);
	if (limits->n && (r = cgm1_set_values(c, user_cg, limits->v, limits->n, &err)) < 0)
		return failed(why, whylen, "cannot set the limits of pam.conf on the user's cgroup", r, &err);
	/* Both go once their last task has left, also if the application never closes the session. */
	if ((r = cgm_remove_on_empty(c, controllers, session, &err)) < 0 ||
	    (r = cgm_remove_on_empty(c, controllers, user_cg, &err)) < 0)
		return failed(why, whylen, "cannot mark the session's cgroups remove-on-empty", r, &err);
	return 0;
}

int pam_cgm_session_prepare(cgm_client *c, const char *controllers, const struct passwd *pw,
                            const struct pam_cgm_limits *limits, char *session, size_t size, char *why,
                            size_t whylen)
{
	char user_cg[512];
	int r;

	snprintf(user_cg, sizeof(user_cg), "user/%s", pw->pw_name);
	session[0] = '\0';
	if ((r = create_session(c, controllers, user_cg, session, size, why, whylen)) == 0 &&
	    (r = set_up(c, controllers, pw, limits, user_cg, session, why, whylen)) == 0)
		return 0;
	if (session[0])
		pam_cgm_session_undo(c, controllers, session);
	return r;
}

void pam_cgm_session_undo(cgm_client *c, const char *controllers, const char *session)
{
	char user_cg[512];
	int existed;

	/* Nothing entered it: what is left of the session is empty, and user/NAME goes if no other session is there. */
	cgm_remove(c, controllers, session, 1, &existed, NULL);
	snprintf(user_cg, sizeof(user_cg), "%.*s", (int)(strrchr(session, '/') - session), session);
	cgm_remove(c, controllers, user_cg, 0, &existed, NULL);
}

int pam_cgm_session_enter(cgm_client *c, const char *controllers, const char *session, char *why, size_t whylen)
{
	char abs[600];
	cgm_error err = {0};
	int r;

	snprintf(abs, sizeof(abs), "/%s", session);
	if ((r = cgm_move_pid_abs(c, controllers, abs, getpid(), &err)) < 0)
		return failed(why, whylen, "cannot move the process into the session's cgroup", r, &err);
	return 0;
}

int pam_cgm_session_close(cgm_client *c, const char *controllers, const char *session, char *why, size_t whylen)
{
	char user_cg[512];
	cgm_error err = {0};
	int existed, r;

	if ((r = cgm_move_pid_abs(c, controllers, "/", getpid(), &err)) < 0) {
		failed(why, whylen, "cannot move the process to the daemon's root cgroup", r, &err);
		return -1;
	}
	/* Refused while tasks are left: they were marked remove-on-empty, and go when those tasks do. */
	cgm_remove(c, controllers, session, 1, &existed, NULL);
	snprintf(user_cg, sizeof(user_cg), "%.*s", (int)(strrchr(session, '/') - session), session);
	cgm_remove(c, controllers, user_cg, 0, &existed, NULL);
	return 0;
}
