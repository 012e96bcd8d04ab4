/*
 * Opens the session's cgroups. Their requests name cgroups relative to the requester's own, so they come from a
 * child process of the PAM application that moves itself to the daemon's root first; the application then moves
 * itself into the session with MovePidAbs, once, all or nothing, and stays where it was when anything fails (had
 * it moved to the daemon's root itself, as 0.42's module did, a failure would leave it, and the session it
 * starts, outside every limit). The application asks for its own pid, so no other process can be moved in its
 * place, and the child runs with every uid root's, so a user who shares the application's real uid (su, sudo)
 * can neither stop nor kill it part way.
 */
#pragma once
#include <pwd.h>
#include <stddef.h>

#include "pam/limits_conf.h"

enum pam_cgm_outcome {
	PAM_CGM_OPENED,      /* session holds the session's cgroup, the application is in it */
	PAM_CGM_UNREACHABLE, /* no daemon at the socket; why says so */
	PAM_CGM_FAILED,      /* a request was refused or failed; why names it and the daemon's answer */
};

enum pam_cgm_outcome pam_cgm_open_in_child(const char *socket, const char *controllers, const struct passwd *pw,
                                           const struct pam_cgm_limits *limits, char *session, size_t size,
                                           char *why, size_t whylen);
