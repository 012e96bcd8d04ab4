/* Reading a key's backing files through the host, and shaping answers. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys/internal.h"

char *key_rstrip(char *text)
{
	size_t n = strlen(text);
	while (n > 0 && isspace((unsigned char)text[n - 1]))
		text[--n] = '\0';
	return text;
}

int key_answer(char **out, const char *s, struct err *e)
{
	*out = strdup(s);
	return *out ? 0 : key_oom(e);
}

int key_answer_fmt(char **out, struct err *e, const char *fmt, ...)
{
	va_list ap;
	int r;
	va_start(ap, fmt);
	r = vasprintf(out, fmt, ap);
	va_end(ap);
	if (r < 0) {
		*out = NULL;
		return key_oom(e);
	}
	return 0;
}

int key_read(const struct key_ref *k, const char *ctrl, const char *file, char **out, struct err *e)
{
	*out = NULL;
	if (k->h->read_file(k->h->ctx, ctrl, file, out, e) < 0)
		return -1;
	if (!*out)
		return key_oom(e);
	key_rstrip(*out);
	return 0;
}

int key_read_u64(const struct key_ref *k, const char *ctrl, const char *file, bool unlimited_v1,
                 unsigned long long *v, struct err *e)
{
	char *text;
	int rc = 0;
	if (key_read(k, ctrl, file, &text, e) < 0)
		return -1;
	if (strcmp(text, "max") == 0)
		*v = KEY_BYTES_MAX;
	else if (strcmp(text, "-1") == 0) /* v1 cpu.cfs_quota_us */
		*v = KEY_BYTES_MAX;
	else if (!key_parse_u64(text, v))
		rc = err_set(e, ERR_FAILED, "%s: %s reads '%.40s', not a number", k->key, file, text);
	else if (unlimited_v1 && k->version == 1 && *v >= KEY_V1_UNLIMITED)
		*v = KEY_BYTES_MAX;
	free(text);
	return rc;
}

bool key_field_of(const char *text, const char *name, unsigned long long *v)
{
	size_t len = strlen(name);
	for (const char *line = text; line && *line;) {
		if (strncmp(line, name, len) == 0 && line[len] == ' ') {
			char num[24];
			size_t n = strcspn(line + len + 1, "\n");
			if (n == 0 || n >= sizeof(num))
				return false;
			memcpy(num, line + len + 1, n);
			num[n] = '\0';
			return key_parse_u64(num, v);
		}
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return false;
}

int key_read_field(const struct key_ref *k, const char *ctrl, const char *file, const char *name,
                   unsigned long long *v, bool *found, struct err *e)
{
	char *text;
	if (key_read(k, ctrl, file, &text, e) < 0)
		return -1;
	*found = key_field_of(text, name, v);
	free(text);
	return 0;
}
