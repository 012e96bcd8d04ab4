#include "cgfs/hierarchy_parse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"

void mount_entry_free(struct mount_entry *m)
{
	free(m->root);
	free(m->mountpoint);
	strv_free(&m->options);
	m->root = m->mountpoint = NULL;
}

static bool is_octal(char c)
{
	return c >= '0' && c <= '7';
}

/* mountinfo escapes space, tab, newline and backslash as \ooo; anything else is taken as it is. */
static char *unescape_mountinfo(const char *s, size_t len)
{
	char *out = malloc(len + 1), *o = out;
	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		/* Only a whole \ooo within the field, of a byte other than NUL (the kernel never writes \000). */
		if (s[i] == '\\' && i + 3 < len && s[i + 1] >= '0' && s[i + 1] <= '3' && is_octal(s[i + 2]) &&
		    is_octal(s[i + 3]) && (s[i + 1] != '0' || s[i + 2] != '0' || s[i + 3] != '0')) {
			*o++ = (char)(((s[i + 1] - '0') << 6) | ((s[i + 2] - '0') << 3) | (s[i + 3] - '0'));
			i += 3;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	return out;
}

/* The n-th space-separated field of line (0-based), up to a space, newline or the end. */
static int field(const char *line, int n, const char **start, size_t *len)
{
	const char *p = line;
	for (int i = 0; i < n; i++) {
		p = strchr(p, ' ');
		if (!p)
			return -1;
		p++;
	}
	*start = p;
	*len = strcspn(p, " \n");
	return 0;
}

int mountinfo_parse_line(const char *line, struct mount_entry *m)
{
	const char *root, *mp, *sep, *fstype, *sopts;
	size_t root_len, mp_len, fstype_len, sopts_len;

	*m = (struct mount_entry){0};
	/* Both are absolute in what the kernel prints; that also keeps " - " from being taken inside them. */
	if (field(line, 3, &root, &root_len) < 0 || field(line, 4, &mp, &mp_len) < 0 || root[0] != '/' || mp[0] != '/')
		return 0;
	sep = strstr(line, " - ");
	if (!sep)
		return 0;
	fstype = sep + 3;
	fstype_len = strcspn(fstype, " \n");
	if (field(fstype, 2, &sopts, &sopts_len) < 0)
		return 0;
	if (fstype_len == 6 && strncmp(fstype, "cgroup", 6) == 0)
		m->unified = false;
	else if (fstype_len == 7 && strncmp(fstype, "cgroup2", 7) == 0)
		m->unified = true;
	else
		return 0;
	m->root = unescape_mountinfo(root, root_len);
	m->mountpoint = unescape_mountinfo(mp, mp_len);
	_cleanup_free_ char *opts = strndup(sopts, sopts_len);
	if (!m->root || !m->mountpoint || !opts || strv_split(&m->options, opts, ',') < 0) {
		mount_entry_free(m);
		return -ENOMEM;
	}
	return 1;
}

void hierarchy_clear(struct hierarchy *h)
{
	strv_free(&h->controllers);
	free(h->name);
	free(h->root_path);
	h->name = h->root_path = NULL;
}

/* The name requesters know the hierarchy by: "unified", or its controllers joined with commas. */
static int join_name(struct hierarchy *h)
{
	size_t len = 1;
	if (h->unified) {
		h->name = strdup("unified");
		return h->name ? 0 : -ENOMEM;
	}
	for (size_t i = 0; i < h->controllers.n; i++)
		len += strlen(h->controllers.v[i]) + 1;
	h->name = calloc(1, len);
	if (!h->name)
		return -ENOMEM;
	for (size_t i = 0; i < h->controllers.n; i++) {
		if (i)
			strcat(h->name, ",");
		strcat(h->name, h->controllers.v[i]);
	}
	return 0;
}

/* The same line syntax proc_cgroups_parse (cgfs/proc.c) takes, so that both agree on ids and paths. */
int hierarchy_parse_self_line(struct hierarchy *h, const char *line)
{
	const char *eol = strchrnul(line, '\n');
	const char *c1 = memchr(line, ':', (size_t)(eol - line));
	const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(eol - c1 - 1)) : NULL;
	char *endp;
	int r = -ENOMEM;

	*h = (struct hierarchy){.root_fd = -1};
	if (!c2 || c2[1] != '/')
		return -EINVAL;
	long id = strtol(line, &endp, 10);
	if (endp != c1 || id < 0 || id > 1 << 20)
		return -EINVAL;
	h->id = (int)id;
	if (c2 > c1 + 1) {
		_cleanup_free_ char *ctrls = strndup(c1 + 1, (size_t)(c2 - c1 - 1));
		if (!ctrls || strv_split(&h->controllers, ctrls, ',') < 0)
			goto fail;
		r = -EINVAL;
		if (h->controllers.n == 0) /* only commas */
			goto fail;
	} else if (id == 0) {
		h->unified = true;
	} else {
		return -EINVAL; /* a v1 hierarchy without controllers */
	}
	r = -ENOMEM;
	if (!(h->root_path = strndup(c2 + 1, (size_t)(eol - c2 - 1))))
		goto fail;
	/* Started among the tasks a cgroup2 parent keeps in its leaf (ops/unified.h): the parent is the root. */
	if (h->unified)
		cgroup2_strip_leaf(h->root_path);
	if (join_name(h) < 0)
		goto fail;
	return 0;
fail:
	hierarchy_clear(h);
	return r;
}

int hierarchy_parse_controllers(struct hierarchy *h, const char *text)
{
	_cleanup_free_ char *first = strndup(text, strcspn(text, "\n"));
	return first ? strv_split(&h->controllers, first, ' ') : -ENOMEM;
}

void cgroup2_strip_leaf(char *path)
{
	size_t n = strlen(path), l = strlen(CGROUP2_TASK_LEAF);
	if (strcmp(path, CGROUP2_TASK_LEAF) == 0)
		path[0] = '\0';
	else if (n > l && path[n - l - 1] == '/' && strcmp(path + n - l, CGROUP2_TASK_LEAF) == 0)
		path[n - l - 1 == 0 ? 1 : n - l - 1] = '\0'; /* "/.leaf" is "/" */
}
