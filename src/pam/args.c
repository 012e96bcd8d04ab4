#include "pam/args.h"

#include <string.h>
#include <syslog.h>

#include <security/pam_ext.h>

/* A controller list is words of letters, digits, '_' and '=' (name=systemd) separated by single commas. */
static bool controllers_valid(const char *s)
{
	if (!*s || *s == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_=,") == strlen(s);
}

static void bad(pam_handle_t *pamh, struct pam_cgm_args *a, const char *arg, const char *why)
{
	pam_syslog(pamh, LOG_ERR, "bad argument '%s': %s; it is ignored", arg, why);
	a->bad++;
}

static void set_controllers(pam_handle_t *pamh, struct pam_cgm_args *a, const char *arg, const char *list)
{
	if (!list)
		bad(pamh, a, arg, "-c needs a controller list, such as freezer,memory,name=systemd or all");
	else if (!controllers_valid(list))
		bad(pamh, a, list, "not a comma-separated list of controllers");
	else
		a->controllers = list;
}

static void set_path(pam_handle_t *pamh, struct pam_cgm_args *a, const char *arg, const char *path,
                     const char **to)
{
	if (path[0] != '/')
		bad(pamh, a, arg, "the path must be absolute");
	else
		*to = path;
}

void pam_cgm_args_parse(pam_handle_t *pamh, int argc, const char **argv, struct pam_cgm_args *a)
{
	*a = (struct pam_cgm_args){.config = PAM_CGM_CONFIG, .controllers = "all"};
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i];
		if (strncmp(arg, "socket=", 7) == 0)
			set_path(pamh, a, arg, arg + 7, &a->socket);
		else if (strncmp(arg, "config=", 7) == 0)
			set_path(pamh, a, arg, arg + 7, &a->config);
		else if (strcmp(arg, "strict") == 0)
			a->strict = true;
		else if (strcmp(arg, "-c") == 0 || strcmp(arg, "--controllers") == 0)
			set_controllers(pamh, a, arg, i + 1 < argc ? argv[++i] : NULL);
		else if (strncmp(arg, "--controllers=", 14) == 0)
			set_controllers(pamh, a, arg, arg + 14);
		else if (strncmp(arg, "-c", 2) == 0)
			set_controllers(pamh, a, arg, arg + 2);
		else
			bad(pamh, a, arg, "unknown argument (known: socket=PATH, config=PATH, -c LIST, strict)");
	}
}
