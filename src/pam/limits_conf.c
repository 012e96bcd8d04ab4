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

/* 1 if the user's groups have group name, 0 if not (or no such group), -errno if it could not be looked up. */
static int in_groups(const char *name, const gid_t *groups, int ngroups)
{
	struct group g, *found = NULL;
	size_t size = 4096;
	char *buf = NULL;
	int r;

	/* A group's entry holds its member list, which has no bound: the buffer grows until it fits. */
	do {
		char *bigger = realloc(buf, size);
		if (!bigger) {
			free(buf);
			return -ENOMEM;
		}
		buf = bigger;
		r = getgrnam_r(name, &g, buf, size, &found);
		size *= 2;
	} while (r == ERANGE && size <= (64u << 20));
	free(buf); /* found->gr_gid was copied into g */
	if (r != 0)
		return -r;
	if (!found)
		return 0;
	for (int i = 0; i < ngroups; i++)
		if (groups[i] == g.gr_gid)
			return 1;
	return 0;
}

/* How strongly DOMAIN applies to the user: RANK_NONE if it does not; -errno if its group could not be looked up. */
static int domain_rank(const char *domain, const char *user, const gid_t *groups, int ngroups)
{
	int r;
	if (strcmp(domain, "*") == 0)
		return RANK_ALL;
	if (domain[0] == '@')
		return (r = in_groups(domain + 1, groups, ngroups)) < 0 ? r : r ? RANK_GROUP : RANK_NONE;
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
		int r = domain_rank(domain, user, groups, ngroups);
		if (r < 0) {
			pam_syslog(pamh, LOG_ERR, "%s:%d: cannot look up group '%s': %s; the line is ignored", path, lineno,
			           domain + 1, strerror(-r));
			errors++;
			continue;
		}
		if (r != RANK_NONE && r >= (int)best[k]) {
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
