/*
 * The cgroups of a login session, asked of the daemon through libcgmanager
 * (pam_cgm(8), LAYOUT). In every hierarchy of the controller list, relative
 * to the daemon's root:
 *
 *   user/NAME                the user's cgroup: root's, with the limits of pam.conf
 *   user/NAME/N              the session's cgroup: root's, holds the PAM
 *                            application and so the user's login shell
 *   user/NAME/N/delegated    delegated to the user (Chown), with the session's
 *                            controllers enabled down to it on cgroup2
 *
 * The application is never in a cgroup the user owns: on cgroup2 the owner
 * of a cgroup.procs may move (then freeze or kill) any task beneath it, root's
 * included. The user moves its own tasks into delegated/ through the daemon,
 * which checks each task's owner (cgm exec, cgm move).
 */
#pragma once
#include <pwd.h>
#include <stddef.h>
#include <sys/types.h>

#include "cgmanager.h"
#include "pam/limits_conf.h"

/* The name of the delegated cgroup beneath each session's. */
#define PAM_CGM_DELEGATED "delegated"

/*
 * Makes a new session's cgroups for pw's user (every step but the move), from the daemon's root cgroup, whose
 * names it uses. On success session (of size bytes) is "user/NAME/N" and 0 is returned; on failure what it made
 * is undone and why (a sentence naming the call and the daemon's answer) filled: -EAGAIN when a cgroup it made
 * was gone meanwhile (the open may start again), else -1.
 */
int pam_cgm_session_prepare(cgm_client *c, const char *controllers, const struct passwd *pw,
                            const struct pam_cgm_limits *limits, char *session, size_t size, char *why,
                            size_t whylen);

/* Removes a prepared session that nothing entered, and the user's cgroup if no other session is in it. */
void pam_cgm_session_undo(cgm_client *c, const char *controllers, const char *session);

/*
 * Moves the calling process (the application) into the prepared session, all or nothing, by MovePidAbs:
 * the process asks for itself, so the pid moved is its own. 0, -EAGAIN (the session was gone) or -1, why filled.
 */
int pam_cgm_session_enter(cgm_client *c, const char *controllers, const char *session, char *why, size_t whylen);

/*
 * Moves the calling process (the application, in the session) to the
 * daemon's root, then removes the session's cgroup, and the user's if it was
 * the last session, unless tasks remain there: those cgroups were marked
 * remove-on-empty when the session opened. -1 with why filled if the daemon
 * did not do the move.
 */
int pam_cgm_session_close(cgm_client *c, const char *controllers, const char *session, char *why, size_t whylen);
