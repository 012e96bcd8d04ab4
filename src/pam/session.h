/*
 * The cgroups of a login session, asked of the daemon through libcgmanager
 * (pam_cgm(8), LAYOUT). In every hierarchy of the controller list, relative
 * to the daemon's root:
 *
 *   user/NAME     the user's cgroup: root's, with the limits of pam.conf
 *   user/NAME/N   the session's cgroup, delegated to the user (Chown); on
 *                 cgroup2 its controllers are enabled for its children, so
 *                 the session's process sits in its task leaf
 */
#pragma once
#include <pwd.h>
#include <stddef.h>

#include "cgmanager.h"
#include "pam/limits_conf.h"

/*
 * Moves the calling process (the PAM application) into a new session cgroup
 * of pw's user. On success *session is the session's cgroup ("user/NAME/N",
 * malloc'ed) and 0 is returned; on failure -1, with why (a sentence naming
 * the call and the daemon's answer) filled and what this call made undone.
 */
int pam_cgm_session_open(cgm_client *c, const char *controllers, const struct passwd *pw,
                         const struct pam_cgm_limits *limits, char **session, char *why, size_t whylen);

/*
 * Moves the calling process back to the daemon's root, then removes the
 * session's cgroup, and the user's if it was the last session, unless
 * tasks remain there: those cgroups were marked remove-on-empty when the
 * session opened. -1 with why filled if the daemon did not do the move.
 */
int pam_cgm_session_close(cgm_client *c, const char *controllers, const char *session, char *why, size_t whylen);
