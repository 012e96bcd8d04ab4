/*
 * The per-user limits of pam_cgm (pam_cgm(8), LIMITS): lines "DOMAIN KEY VALUE"
 * where DOMAIN is "*" (everyone), "@group" or a user name, and KEY one of
 * the cgmanager1 keys memory.limit, pids.limit and cpu_share_percent. For each
 * key a user's own line wins over a line of one of its groups, which wins
 * over "*"; among lines of one rank the last one wins.
 */
#pragma once
#include <stddef.h>
#include <sys/types.h>

#include <security/pam_modules.h>

#include "cgmanager.h"

#define PAM_CGM_KEYS 3

struct pam_cgm_limits {
	cgm1_value v[PAM_CGM_KEYS]; /* key and value point into storage below */
	size_t n;
	char storage[PAM_CGM_KEYS][256];
};

/*
 * Reads path (a missing file means no limits) and picks the values for user, whose groups are groups[ngroups].
 * Logs each line it cannot use, naming path and line number, and returns how many (-1: the file could not be
 * read, also logged).
 */
int pam_cgm_limits_read(pam_handle_t *pamh, const char *path, const char *user, const gid_t *groups, int ngroups,
                        struct pam_cgm_limits *out);
