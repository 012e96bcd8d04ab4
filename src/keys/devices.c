/* Device syntaxes: access rules for the devices keys, and the block device of per-device io keys. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys/internal.h"

/* Linux device numbers: 12 bits of major, 20 of minor. */
#define MAJOR_LIMIT (1u << 12)
#define MINOR_LIMIT (1u << 20)
#define RULE_TOKENS 3

#define RULE_HINT "use TYPE MAJ:MIN ACCESS as in c 1:3 rwm, a /dev path with an optional access, or a for all devices"

static int parse_number(const char *s, unsigned limit, bool star_ok, int *v)
{
	unsigned long long n;
	if (star_ok && strcmp(s, "*") == 0) {
		*v = -1;
		return 0;
	}
	if (!key_parse_u64(s, &n) || n >= limit)
		return -1;
	*v = (int)n;
	return 0;
}

static int parse_majmin(const char *s, bool star_ok, int *major, int *minor, struct err *e)
{
	const char *colon = strchr(s, ':');
	char maj[16];
	if (!colon || (size_t)(colon - s) >= sizeof(maj))
		goto bad;
	memcpy(maj, s, (size_t)(colon - s));
	maj[colon - s] = '\0';
	if (parse_number(maj, MAJOR_LIMIT, star_ok, major) < 0 || parse_number(colon + 1, MINOR_LIMIT, star_ok, minor) < 0)
		goto bad;
	return 0;
bad:
	return err_set(e, ERR_INVALID, "'%.40s' is not a device number (MAJ:MIN%s)", s,
	               star_ok ? ", each a number or *" : " in decimal");
}

/* Letters of rwm, each once at most, in the kernel's order; rule is the whole rule, for the refusal. */
static int parse_access(const char *s, const char *rule, char access[4], struct err *e)
{
	bool r = false, w = false, m = false;
	for (const char *p = s; *p; p++) {
		bool *seen = *p == 'r' ? &r : *p == 'w' ? &w : *p == 'm' ? &m : NULL;
		if (!seen)
			return err_set(e, ERR_INVALID, "'%.20s' is not an access (use letters of rwm)", s);
		if (*seen)
			return err_set(e, ERR_INVALID, "'%s': access '%c' is named twice (each of r, w, m at most once)", rule, *p);
		*seen = true;
	}
	snprintf(access, 4, "%s%s%s", r ? "r" : "", w ? "w" : "", m ? "m" : "");
	return 0;
}

/* Only /dev is looked in: a client must not learn through us what exists elsewhere. */
static int resolve_path(const struct key_host *h, const char *path, char *type, int *major, int *minor,
                        struct err *e)
{
	unsigned maj, min;
	if (strncmp(path, "/dev/", 5) != 0 || strstr(path, "/../") || strcmp(path + strlen(path) - 3, "/..") == 0)
		return err_set(e, ERR_INVALID, "'%.60s' is not a path under /dev", path);
	if (!h->device_of)
		return err_set(e, ERR_NOT_SUPPORTED, "'%.60s': device paths cannot be resolved here (use MAJ:MIN)", path);
	if (h->device_of(h->ctx, path, &maj, &min, type, e) < 0)
		return -1;
	if (maj >= MAJOR_LIMIT || min >= MINOR_LIMIT || (*type != 'b' && *type != 'c'))
		return err_set(e, ERR_INVALID, "'%.60s' is not a device node", path);
	*major = (int)maj;
	*minor = (int)min;
	return 0;
}

/* Splits S in place on white space; the count, or RULE_TOKENS + 1 when there are more. */
static int tokens(char *s, char *tok[RULE_TOKENS])
{
	char *save;
	int n = 0;
	for (char *p = strtok_r(s, " \t\r", &save); p; p = strtok_r(NULL, " \t\r", &save)) {
		if (n == RULE_TOKENS)
			return n + 1;
		tok[n++] = p;
	}
	return n;
}

static int parse_rule(const struct key_host *h, char *text, struct dev_rule *r, struct err *e)
{
	char shown[80], *tok[RULE_TOKENS];
	int n;

	snprintf(shown, sizeof(shown), "%s", text);
	n = tokens(text, tok);
	*r = (struct dev_rule){.major = -1, .minor = -1};
	if (n == 0 || n > RULE_TOKENS)
		goto bad;
	if (strcmp(tok[0], "a") == 0) {
		/* The kernel reads "a" as every device and every access, whatever follows: say so rather than guess. */
		if (n >= 2 && (strcmp(tok[1], "*:*") != 0 || (n == 3 && strcmp(tok[2], "rwm") != 0)))
			return err_set(e, ERR_INVALID, "'%s': a names every device with every access, and takes no numbers or "
			               "access (use c *:* or b *:* with an access)", shown);
		r->type = 'a';
		strcpy(r->access, "rwm");
		return 0;
	}
	if (tok[0][0] == '/') {
		if (n > 2)
			goto bad;
		if (resolve_path(h, tok[0], &r->type, &r->major, &r->minor, e) < 0)
			return -1;
		return parse_access(n == 2 ? tok[1] : "rwm", shown, r->access, e);
	}
	if ((strcmp(tok[0], "b") != 0 && strcmp(tok[0], "c") != 0) || n < 2)
		goto bad;
	r->type = tok[0][0];
	if (parse_majmin(tok[1], true, &r->major, &r->minor, e) < 0)
		return -1;
	return parse_access(n == 3 ? tok[2] : "rwm", shown, r->access, e);
bad:
	return err_set(e, ERR_INVALID, "'%s' is not a device rule (" RULE_HINT ")", shown);
}

int key_parse_dev_rules(const struct key_host *h, const char *s, bool allow, struct dev_rule **rules, size_t *n,
                        struct err *e)
{
	struct dev_rule *v = NULL;
	size_t count = 0;
	const char *p = s;

	*rules = NULL;
	*n = 0;
	while (*p) {
		size_t len = strcspn(p, ",\n");
		char *piece = strndup(p, len);
		struct dev_rule *grown = realloc(v, (count + 1) * sizeof(*v));
		if (!piece || !grown) {
			free(piece);
			free(grown ? grown : v);
			return key_oom(e);
		}
		v = grown;
		/* Blank pieces (a trailing newline, ",,") are not rules, and not errors either. */
		if (strspn(piece, " \t\r") != len) {
			if (parse_rule(h, piece, &v[count], e) < 0) {
				free(piece);
				free(v);
				return -1;
			}
			v[count++].allow = allow;
		}
		free(piece);
		p += len;
		if (*p)
			p++;
	}
	if (count == 0) {
		free(v);
		return err_set(e, ERR_INVALID, "no device rule given (%s)", RULE_HINT);
	}
	*rules = v;
	*n = count;
	return 0;
}

static void format_number(char *buf, size_t cap, int v)
{
	if (v < 0)
		snprintf(buf, cap, "*");
	else
		snprintf(buf, cap, "%d", v);
}

const char *key_format_dev_rule(const struct dev_rule *r, char buf[KEY_DEV_RULE_MAX])
{
	char maj[12], min[12];
	if (r->type == 'a') {
		snprintf(buf, KEY_DEV_RULE_MAX, "a");
		return buf;
	}
	format_number(maj, sizeof(maj), r->major);
	format_number(min, sizeof(min), r->minor);
	snprintf(buf, KEY_DEV_RULE_MAX, "%c %s:%s %s", r->type, maj, min, r->access);
	return buf;
}

int key_parse_block_dev(const struct key_host *h, const char *s, unsigned *major, unsigned *minor, struct err *e)
{
	int maj, min;
	char type;
	if (s[0] == '/') {
		if (resolve_path(h, s, &type, &maj, &min, e) < 0)
			return -1;
		if (type != 'b')
			return err_set(e, ERR_INVALID, "'%.60s' is a character device (io keys take block devices)", s);
	} else if (parse_majmin(s, false, &maj, &min, e) < 0) {
		return -1;
	}
	*major = (unsigned)maj;
	*minor = (unsigned)min;
	return 0;
}
