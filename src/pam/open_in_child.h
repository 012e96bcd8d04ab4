/*
 * Opens the session's cgroups from a child process of the PAM application
 * that moves itself to the daemon's root cgroup first, whose names the
 * requests use (they name cgroups relative to the requester's own). So the
 * application moves once, by the session's all-or-nothing final move, and
 * stays where it was when anything fails; had it moved to the daemon's root
 * itself, as 0.42's module did, a failure would leave it, and the session it
 * starts, outside every limit.
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
