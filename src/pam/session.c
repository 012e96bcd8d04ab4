#include "pam/session.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Session cgroups are numbered from 0; a user with this many sessions open gets no more. */
#define MAX_SESSIONS 1000

/* Fills why with "WHAT: the daemon's answer" and returns -1. */
static int failed(char *why, size_t whylen, const char *what, int r, cgm_error *err)
{
	snprintf(why, whylen, "%s: %s", what, err->message ? err->message : strerror(-r));
	cgm_error_clear(err);
	return -1;
}

static bool word_in_list(const char *list, const char *word, char sep)
{
	size_t n = strlen(word);
	for (const char *p = list; p && *p; p = strchr(p, sep), p = p ? p + 1 : NULL)
		if (strncmp(p, word, n) == 0 && (p[n] == '\0' || p[n] == sep || p[n] == '\n'))
			return true;
	return false;
}

/*
 * The cgroup2 controllers of the list to enable for the session's children: all that reach the session (when the
 * list is "all" or names cgroup2 itself), or those it names. Empty when the list names no cgroup2 controller.
 */
static int v2_wanted(cgm_client *c, const char *controllers, bool *all, char ***names, cgm_error *err)
{
	cgm1_controller *known = NULL;
	size_t n = 0, k = 0;
	int r;

	*all = strcmp(controllers, "all") == 0 || word_in_list(controllers, "unified", ',') ||
	       word_in_list(controllers, "cgroup2", ',');
	*names = NULL;
	if (*all)
		return 0;
	if ((r = cgm1_list_controllers(c, &known, &n, err)) < 0)
		return r;
	if (!(*names = calloc(n + 1, sizeof(char *))))
		r = -ENOMEM;
	for (size_t i = 0; r >= 0 && i < n; i++)
		if (strcmp(known[i].version, "v2") == 0 && word_in_list(controllers, known[i].controller, ','))
			(*names)[k++] = strdup(known[i].controller);
	cgm1_controllers_free(known, n);
	return r < 0 ? r : 0;
}

/*
 * On cgroup2, enables the session's controllers in its cgroup.subtree_control before any task is in it: the
 * process moved in then goes to the session's task leaf, and the user, who gets cgroup.subtree_control with the
 * session, can create children with those controllers (the kernel lets no cgroup with tasks of its own enable
 * controllers for its children).
 */
static int enable_for_children(cgm_client *c, const char *controllers, const char *session, char *why,
                               size_t whylen)
{
	cgm_error err = {0};
	char **names = NULL, *offered = NULL, plus[1024] = "";
	bool all;
	int r;

	if ((r = v2_wanted(c, controllers, &all, &names, &err)) < 0)
		return failed(why, whylen, "cannot list the controllers", r, &err);
	if (!all && (!names || !names[0])) {
		cgm_strv_free(names);
		return 0;
	}
	r = cgm_get_value(c, "unified", session, "cgroup.controllers", &offered, &err);
	if (r < 0 && all && strcmp(controllers, "all") == 0) {
		/* "all" on a host without cgroup2. */
		cgm_error_clear(&err);
		cgm_strv_free(names);
		return 0;
	}
	if (r < 0) {
		cgm_strv_free(names);
		return failed(why, whylen, "cannot read the session's cgroup.controllers", r, &err);
	}
	for (char *save = NULL, *w = strtok_r(offered, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
		bool want = all;
		for (char **p = names; !want && p && *p; p++)
			want = strcmp(*p, w) == 0;
		if (want && strlen(plus) + strlen(w) + 3 < sizeof(plus))
			snprintf(plus + strlen(plus), sizeof(plus) - strlen(plus), "%s+%s", plus[0] ? " " : "", w);
	}
	free(offered);
	cgm_strv_free(names);
	if (plus[0] && (r = cgm_set_value(c, "unified", session, "cgroup.subtree_control", plus, &err)) < 0)
		return failed(why, whylen, "cannot enable the controllers for the session's children", r, &err);
	return 0;
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
			cgm_strv_free(taken);
			return failed(why, whylen, "cannot create the session's cgroup", r, &err);
		}
		if (existed != 1) {
			cgm_strv_free(taken);
			return 0;
		}
	}
	cgm_strv_free(taken);
	snprintf(why, whylen, "%s already has %d sessions", user_cg, MAX_SESSIONS);
	return -1;
}

static int escape(cgm_client *c, const char *controllers, char *why, size_t whylen)
{
	cgm_error err = {0};
	int r = cgm_move_pid_abs(c, controllers, "/", getpid(), &err);
	return r < 0 ? failed(why, whylen, "cannot move the process to the daemon's root cgroup", r, &err) : 0;
}

static int setup(cgm_client *c, const char *controllers, const struct passwd *pw,
                 const struct pam_cgm_limits *limits, const char *user_cg, const char *session, char *why,
                 size_t whylen)
{
	cgm_error err = {0};
	int r;

	/* Root's side first: the limits go on the user's cgroup, which stays root's, before anything is the user's. */
	if (limits->n && (r = cgm1_set_values(c, user_cg, limits->v, limits->n, &err)) < 0)
		return failed(why, whylen, "cannot set the limits of pam.conf on the user's cgroup", r, &err);
	if (enable_for_children(c, controllers, session, why, whylen) < 0)
		return -1;
	if ((r = cgm_chown(c, controllers, session, pw->pw_uid, pw->pw_gid, &err)) < 0)
		return failed(why, whylen, "cannot hand the session's cgroup to the user", r, &err);
	/*
	 * Both go once their last task has left, also if the application never closes the session. Marked while the
	 * process is still where it names them from (it names none above itself once it is in the session).
	 */
	if ((r = cgm_remove_on_empty(c, controllers, session, &err)) < 0 ||
	    (r = cgm_remove_on_empty(c, controllers, user_cg, &err)) < 0)
		return failed(why, whylen, "cannot mark the session's cgroups remove-on-empty", r, &err);
	if ((r = cgm_move_pid(c, controllers, session, getpid(), &err)) < 0)
		return failed(why, whylen, "cannot move the process into the session's cgroup", r, &err);
	return 0;
}

int pam_cgm_session_open(cgm_client *c, const char *controllers, const struct passwd *pw,
                         const struct pam_cgm_limits *limits, char **session, char *why, size_t whylen)
{
	char user_cg[512], path[600];
	int existed;

	snprintf(user_cg, sizeof(user_cg), "user/%s", pw->pw_name);
	if (escape(c, controllers, why, whylen) < 0 ||
	    create_session(c, controllers, user_cg, path, sizeof(path), why, whylen) < 0)
		return -1;
	if (setup(c, controllers, pw, limits, user_cg, path, why, whylen) < 0) {
		/* Undo: the process is back in the daemon's root, and nothing else was ever in the session. */
		cgm_move_pid_abs(c, controllers, "/", getpid(), NULL);
		cgm_remove(c, controllers, path, 1, &existed, NULL);
		cgm_remove(c, controllers, user_cg, 0, &existed, NULL);
		return -1;
	}
	if (!(*session = strdup(path))) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	return 0;
}

int pam_cgm_session_close(cgm_client *c, const char *controllers, const char *session, char *why, size_t whylen)
{
	char user_cg[512];
	int existed;

	if (escape(c, controllers, why, whylen) < 0)
		return -1;
	/* Refused while tasks are left: they were marked remove-on-empty, and go when those tasks do. */
	cgm_remove(c, controllers, session, 0, &existed, NULL);
	snprintf(user_cg, sizeof(user_cg), "%.*s", (int)(strrchr(session, '/') - session), session);
	cgm_remove(c, controllers, user_cg, 0, &existed, NULL);
	return 0;
}
