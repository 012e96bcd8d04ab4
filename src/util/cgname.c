#include "cgname.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static int has_control_char(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			return 1;
	}
	return 0;
}

static int component_valid(const char *c, size_t len, const char **why)
{
	if (len > NAME_MAX) {
		*why = "a path component is longer than 255 bytes";
		return -1;
	}
	if ((len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.')) {
		*why = "'.' and '..' are not allowed in cgroup names";
		return -1;
	}
	if (has_control_char(c, len)) {
		*why = "control characters are not allowed in cgroup names";
		return -1;
	}
	return 0;
}

int cgname_normalize(const char *name, char out[CGNAME_MAX], const char **why)
{
	size_t o = 0;
	const char *p = name;

	if (strlen(name) >= CGNAME_MAX) {
		*why = "the cgroup name is longer than 4095 bytes";
		return -1;
	}
	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		const char *end = strchrnul(p, '/');
		size_t len = (size_t)(end - p);
		if (component_valid(p, len, why) < 0)
			return -1;
		if (o)
			out[o++] = '/';
		memcpy(out + o, p, len);
		o += len;
		p = end;
	}
	out[o] = '\0';
	return 0;
}

int cgfile_name_valid(const char *file, const char **why)
{
	size_t len = strlen(file);
	if (len == 0) {
		*why = "the file name is empty";
		return -1;
	}
	if (strchr(file, '/')) {
		*why = "a file name may not contain '/'";
		return -1;
	}
	return component_valid(file, len, why);
}

int cgpath_join(const char *a, const char *b, char out[CGNAME_MAX])
{
	int n;
	if (!*a)
		n = snprintf(out, CGNAME_MAX, "%s", b);
	else if (!*b)
		n = snprintf(out, CGNAME_MAX, "%s", a);
	else
		n = snprintf(out, CGNAME_MAX, "%s/%s", a, b);
	return (n < 0 || n >= CGNAME_MAX) ? -1 : 0;
}
