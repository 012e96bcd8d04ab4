#include "systemd1/unit_name.h"

#include <stdio.h>
#include <string.h>

#define NAME_CHARS "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ:-_.\\"

/* The unit types systemd knows; only slices and scopes can be made here, the rest are named in refusals. */
static const char *const unit_types[] = {"service", "socket",  "target", "device", "mount", "automount",
                                         "swap",    "timer",   "path",   "slice",  "scope"};

static bool known_type(const char *t)
{
	for (size_t i = 0; i < sizeof(unit_types) / sizeof(unit_types[0]); i++)
		if (strcmp(t, unit_types[i]) == 0)
			return true;
	return false;
}

int unit_name_check(const char *name, enum unit_kind *kind, struct err *e)
{
	size_t len = strlen(name);
	const char *dot = strrchr(name, '.'), *at = strchr(name, '@');

	if (len == 0)
		return err_set(e, ERR_INVALID, "unit name is empty");
	if (len > UNIT_NAME_MAX)
		return err_set(e, ERR_INVALID, "unit name is %zu bytes long, longer than %d", len, UNIT_NAME_MAX);
	if (!dot || dot == name)
		return err_set(e, ERR_INVALID, "unit name '%s' is not NAME.TYPE", name);
	if (!known_type(dot + 1))
		return err_set(e, ERR_INVALID, "unit name '%s' has an unknown type '%s'", name, dot + 1);
	for (const char *p = name; *p; p++)
		if (*p != '@' && !strchr(NAME_CHARS, *p))
			return err_set(e, ERR_INVALID, "unit name '%s' has a character other than letters, digits and \":-_.\\@\" "
			               "at byte %zu", name, (size_t)(p - name));
	if (at && (at == name || strchr(at + 1, '@') || at > dot))
		return err_set(e, ERR_INVALID, "unit name '%s' is neither NAME.TYPE nor NAME@INSTANCE.TYPE", name);
	*kind = strcmp(dot + 1, "slice") == 0 ? UNIT_KIND_SLICE : strcmp(dot + 1, "scope") == 0 ? UNIT_KIND_SCOPE
	                                                                                         : UNIT_KIND_OTHER;
	return 0;
}

int slice_name_check(const char *name, struct err *e)
{
	enum unit_kind kind;
	if (unit_name_check(name, &kind, e) < 0)
		return -1;
	if (kind != UNIT_KIND_SLICE)
		return err_set(e, ERR_INVALID, "'%s' is not a slice (NAME.slice)", name);
	if (strcmp(name, UNIT_ROOT_SLICE) == 0)
		return 0;
	if (strchr(name, '@'))
		return err_set(e, ERR_INVALID, "slice name '%s' has an instance (@), which slices cannot have", name);
	size_t len = strlen(name) - strlen(".slice");
	if (name[0] == '-' || name[len - 1] == '-' || memmem(name, len, "--", 2))
		return err_set(e, ERR_INVALID, "slice name '%s' has an empty part: a leading, trailing or double '-'", name);
	return 0;
}

/* The kernel's names a cgroup directory could clash with: its own files, and any CONTROLLER.file. */
static const char *const controllers[] = {"cpu",    "cpuacct", "cpuset", "io",      "blkio", "memory", "devices",
                                          "pids",   "freezer", "net_cls", "net_prio", "perf_event", "hugetlb",
                                          "rdma",   "misc",    "bpf",    "cgroup"};

static bool needs_escape(const char *p, size_t len)
{
	const char *dot = memchr(p, '.', len);
	if (p[0] == '_' || p[0] == '.')
		return true;
	if ((len == 5 && memcmp(p, "tasks", 5) == 0) || (len == 17 && memcmp(p, "notify_on_release", 17) == 0) ||
	    (len == 13 && memcmp(p, "release_agent", 13) == 0))
		return true;
	for (size_t i = 0; dot && i < sizeof(controllers) / sizeof(controllers[0]); i++)
		if (strlen(controllers[i]) == (size_t)(dot - p) && memcmp(p, controllers[i], (size_t)(dot - p)) == 0)
			return true;
	return false;
}

/* Appends "/" (unless at the start) and the escaped part p[0..len) to out at *at. */
static int append_part(char out[CGNAME_MAX], size_t *at, const char *p, size_t len, struct err *e)
{
	int n = snprintf(out + *at, CGNAME_MAX - *at, "%s%s%.*s", *at ? "/" : "", needs_escape(p, len) ? "_" : "",
	                 (int)len, p);
	if (n < 0 || (size_t)n >= CGNAME_MAX - *at)
		return err_set(e, ERR_INVALID, "the cgroup path of the unit would be longer than %d bytes", CGNAME_MAX - 1);
	*at += (size_t)n;
	return 0;
}

/* a-b-c.slice: a.slice, a-b.slice, a-b-c.slice. */
static int append_slice(const char *slice, char out[CGNAME_MAX], size_t *at, struct err *e)
{
	char part[UNIT_NAME_MAX + 1];
	size_t prefix = strlen(slice) - strlen(".slice");
	if (strcmp(slice, UNIT_ROOT_SLICE) == 0)
		return 0;
	for (size_t i = 0; i <= prefix; i++) {
		if (i < prefix && slice[i] != '-')
			continue;
		snprintf(part, sizeof(part), "%.*s.slice", (int)i, slice);
		if (append_part(out, at, part, strlen(part), e) < 0)
			return -1;
	}
	return 0;
}

int unit_cgroup_path(const char *name, const char *slice, char out[CGNAME_MAX], struct err *e)
{
	enum unit_kind kind;
	size_t at = 0;
	out[0] = '\0';
	if (unit_name_check(name, &kind, e) < 0)
		return -1;
	if (kind == UNIT_KIND_SLICE)
		return slice_name_check(name, e) < 0 ? -1 : append_slice(name, out, &at, e);
	if (kind != UNIT_KIND_SCOPE)
		return err_set(e, ERR_NOT_SUPPORTED, "'%s' is neither a slice nor a scope, the only units this manager "
		               "makes", name);
	if (!slice)
		slice = UNIT_DEFAULT_SLICE;
	if (slice_name_check(slice, e) < 0 || append_slice(slice, out, &at, e) < 0)
		return -1;
	return append_part(out, &at, name, strlen(name), e);
}

int slice_parent(const char *slice, char out[UNIT_NAME_MAX + 1])
{
	const char *dash = strrchr(slice, '-');
	if (strcmp(slice, UNIT_ROOT_SLICE) == 0)
		return -1;
	if (!dash)
		snprintf(out, UNIT_NAME_MAX + 1, UNIT_ROOT_SLICE);
	else
		snprintf(out, UNIT_NAME_MAX + 1, "%.*s.slice", (int)(dash - slice), slice);
	return 0;
}

int unit_name_of_cgroup(const char *path, char out[UNIT_NAME_MAX + 1])
{
	const char *last = strrchr(path, '/');
	struct err e;
	enum unit_kind kind;
	last = last ? last + 1 : path;
	if (last[0] == '_')
		last++;
	if (strlen(last) > UNIT_NAME_MAX)
		return -1;
	snprintf(out, UNIT_NAME_MAX + 1, "%s", last);
	return unit_name_check(out, &kind, &e);
}

void unit_object_path(const char *name, char out[UNIT_OBJECT_PATH_MAX])
{
	static const char hex[] = "0123456789abcdef";
	char *o = out + strlen(strcpy(out, UNIT_OBJECT_PREFIX));
	if (!*name)
		*o++ = '_';
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')) {
			*o++ = (char)*p;
		} else {
			*o++ = '_';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 15];
		}
	}
	*o = '\0';
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10
	                                                                                                    : -1;
}

int unit_name_of_object_path(const char *path, char out[UNIT_NAME_MAX + 1])
{
	size_t n = 0;
	if (strncmp(path, UNIT_OBJECT_PREFIX, strlen(UNIT_OBJECT_PREFIX)) != 0)
		return -1;
	for (const char *p = path + strlen(UNIT_OBJECT_PREFIX); *p; p++) {
		if (n >= UNIT_NAME_MAX)
			return -1;
		if (*p == '_') {
			int hi = hexval(p[1]), lo = hi < 0 ? -1 : hexval(p[2]);
			if (lo < 0)
				return -1;
			out[n++] = (char)(hi << 4 | lo);
			p += 2;
		} else {
			out[n++] = *p;
		}
	}
	out[n] = '\0';
	return n ? 0 : -1;
}
