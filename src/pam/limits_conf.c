#include "pam/limits_conf.h"

#include <errno.h>
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <security/pam_ext.h>

static const char *const keys[PAM_CGM_KEYS] = {"memory.limit", "pids.limit", "cpu_share_percent"};

enum rank { RANK_NONE, RANK_ALL, RANK_GROUP, RANK_USER };

static int key_index(const char *key)
{
	for (int i = 0; i < PAM_CGM_KEYS; i++)
		if (strcmp(key, keys[i]) == 0)
			return i;
	return -1;
}

static bool in_groups(const char *name, const gid_t *groups, int ngroups)
{
	char buf[4096];
	struct group g, *found = NULL;
	if (getgrnam_r(name, &g, buf, sizeof(buf), &found) != 0 || !found)
		return false;
	for (int i = 0; i < ngroups; i++)
		if (groups[i] == found->gr_gid)
			return true;
	return false;
}

/* How strongly DOMAIN applies to the user: RANK_NONE if it does not. */
static enum rank domain_rank(const char *domain, const char *user, const gid_t *groups, int ngroups)
{
	if (strcmp(domain, "*") == 0)
		return RANK_ALL;
	if (domain[0] == '@')
		return in_groups(domain + 1, groups, ngroups) ? RANK_GROUP : RANK_NONE;
	return strcmp(domain, user) == 0 ? RANK_USER : RANK_NONE;
}

int pam_cgm_limits_read(pam_handle_t *pamh, const char *path, const char *user, const gid_t *groups, int ngroups,
                        struct pam_cgm_limits *out)
{
	enum rank best[PAM_CGM_KEYS] = {RANK_NONE};
	char line[1024];
	int lineno = 0, errors = 0;

	memset(out, 0, sizeof(*out));
	FILE *f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		pam_syslog(pamh, LOG_ERR, "cannot read %s: %m; no limits are set", path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *domain, *key, *value, *extra, *save = NULL;
		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			pam_syslog(pamh, LOG_ERR, "%s:%d: line longer than %zu bytes; it is ignored", path, lineno,
			           sizeof(line) - 2);
			errors++;
			for (int c; (c = fgetc(f)) != EOF && c != '\n';)
				;
			continue;
		}
		line[strcspn(line, "#")] = '\0';
		if (!(domain = strtok_r(line, " \t\r\n", &save)))
			continue;
		key = strtok_r(NULL, " \t\r\n", &save);
		value = key ? strtok_r(NULL, " \t\r\n", &save) : NULL;
		extra = value ? strtok_r(NULL, " \t\r\n", &save) : NULL;
		int k = key ? key_index(key) : -1;
		const char *why = !value ? "expected DOMAIN KEY VALUE" :
		                  extra ? "more than DOMAIN KEY VALUE" :
		                  k < 0 ? "unknown key (known: memory.limit, pids.limit, cpu_share_percent)" :
		                  strcmp(domain, "@") == 0 ? "no group name after '@'" :
		                  strlen(value) >= sizeof(out->storage[0]) ? "value too long" : NULL;
		if (why) {
			pam_syslog(pamh, LOG_ERR, "%s:%d: %s; the line is ignored", path, lineno, why);
			errors++;
			continue;
		}
		enum rank r = domain_rank(domain, user, groups, ngroups);
		if (r != RANK_NONE && r >= best[k]) {
			best[k] = r;
			snprintf(out->storage[k], sizeof(out->storage[k]), "%s", value);
		}
	}
	fclose(f);
	for (int k = 0; k < PAM_CGM_KEYS; k++)
		if (best[k] != RANK_NONE)
			out->v[out->n++] = (cgm1_value){.key = (char *)keys[k], .value = out->storage[k]};
	return errors;
}
