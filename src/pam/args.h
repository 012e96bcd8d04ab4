/*
 * pam_cgm's module arguments (pam_cgm(8)): socket=PATH, config=PATH,
 * -c LIST (or -cLIST, --controllers=LIST), strict.
 */
#pragma once
#include <stdbool.h>

#include <security/pam_modules.h>

#define PAM_CGM_CONFIG "/etc/cgmanager/pam.conf"

struct pam_cgm_args {
	const char *socket;      /* NULL: libcgmanager's default socket */
	const char *config;      /* the per-user limits, PAM_CGM_CONFIG unless config= names another */
	const char *controllers; /* as the 0.42 methods take them: "all", or "freezer,memory,name=systemd" */
	bool strict;             /* any failure refuses the session */
	int bad;                 /* arguments refused (each logged) and left out */
};

/* Fills a from argv (pointers into it); logs each argument it cannot use and counts it in a->bad. */
void pam_cgm_args_parse(pam_handle_t *pamh, int argc, const char **argv, struct pam_cgm_args *a);
