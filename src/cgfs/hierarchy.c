#include "hierarchy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "cgfs/cgdir.h"
#include "cgfs/proc.h"
#include "util/cleanup.h"
#include "util/log.h"

const char *cgroup2_delegate_list_path = "/sys/kernel/cgroup/delegate";

struct mount_entry {
	char *root;       /* the cgroup the mount shows as its root */
	char *mountpoint;
	bool unified;
	strv options;     /* super options: controllers, name=..., others */
};

static void mount_entry_free(struct mount_entry *m)
{
	free(m->root);
	free(m->mountpoint);
	strv_free(&m->options);
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static char *unescape_mountinfo(const char *s, size_t len)
{
	char *out = malloc(len + 1), *o = out;
	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\\' && i + 3 < len + 1 && s[i + 1] >= '0' && s[i + 1] <= '3') {
			*o++ = (char)(((s[i + 1] - '0') << 6) | ((s[i + 2] - '0') << 3) | (s[i + 3] - '0'));
			i += 3;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	return out;
}

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

/* One line of /proc/self/mountinfo; returns 1 for a cgroup mount, 0 otherwise. */
static int parse_mount_line(const char *line, struct mount_entry *m)
{
	const char *root, *mp, *sep, *fstype, *sopts;
	size_t root_len, mp_len, fstype_len, sopts_len;

	if (field(line, 3, &root, &root_len) < 0 || field(line, 4, &mp, &mp_len) < 0)
		return 0;
	sep = strstr(line, " - ");
	if (!sep)
		return 0;
	fstype = sep + 3;
	fstype_len = strcspn(fstype, " ");
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

static bool path_within(const char *path, const char *root)
{
	size_t n = strlen(root);
	if (strcmp(root, "/") == 0)
		return true;
	return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static int openat2_dir(int dirfd, const char *path)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS,
	};
	int fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	return fd < 0 ? -errno : fd;
}

/* Opens the daemon's cgroup through a mount whose root contains it. */
static int open_through_mount(const struct mount_entry *m, const char *cgpath)
{
	char path[8192];
	const char *rest = cgpath + (strcmp(m->root, "/") == 0 ? 0 : strlen(m->root));
	if (snprintf(path, sizeof(path), "%s/%s", m->mountpoint, rest) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return openat2_dir(AT_FDCWD, path);
}

/* A detached mount of the hierarchy: visible in no mount table. */
static int open_detached(const struct hierarchy *h, const char *cgpath)
{
	_cleanup_close_ int fsfd = fsopen(h->unified ? "cgroup2" : "cgroup", FSOPEN_CLOEXEC);
	_cleanup_close_ int mntfd = -1;

	if (fsfd < 0)
		return -errno;
	if (!h->unified) {
		for (size_t i = 0; i < h->controllers.n; i++) {
			const char *c = h->controllers.v[i];
			int r = strncmp(c, "name=", 5) == 0
				? fsconfig(fsfd, FSCONFIG_SET_STRING, "name", c + 5, 0)
				: fsconfig(fsfd, FSCONFIG_SET_FLAG, c, NULL, 0);
			if (r < 0)
				return -errno;
			if (strncmp(c, "name=", 5) == 0 && h->controllers.n == 1 &&
			    fsconfig(fsfd, FSCONFIG_SET_FLAG, "none", NULL, 0) < 0)
				return -errno;
		}
	}
	if (fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return -errno;
	mntfd = fsmount(fsfd, FSMOUNT_CLOEXEC, 0);
	if (mntfd < 0)
		return -errno;
	return openat2_dir(mntfd, cgpath[1] ? cgpath + 1 : ".");
}

static bool mount_is_hierarchy(const struct mount_entry *m, const struct hierarchy *h)
{
	if (m->unified != h->unified)
		return false;
	if (h->unified)
		return true;
	for (size_t i = 0; i < h->controllers.n; i++)
		if (!strv_contains(&m->options, h->controllers.v[i]))
			return false;
	return true;
}

static int open_hierarchy_root(struct hierarchy *h, struct mount_entry *mounts, size_t nm)
{
	for (size_t i = 0; i < nm; i++) {
		if (!mount_is_hierarchy(&mounts[i], h) || !path_within(h->root_path, mounts[i].root))
			continue;
		int fd = open_through_mount(&mounts[i], h->root_path);
		if (fd >= 0)
			return fd;
	}
	log_info("%s is not mounted here; mounting it detached", h->name);
	return open_detached(h, h->root_path);
}

static int read_mounts(struct mount_entry **out, size_t *n)
{
	_cleanup_free_ char *text = NULL;
	struct mount_entry *v = NULL;
	size_t cnt = 0;
	int r = read_small_file_at(AT_FDCWD, "/proc/self/mountinfo", &text);
	if (r < 0)
		return r;
	for (char *line = text; *line;) {
		char *eol = strchrnul(line, '\n');
		bool more = *eol != '\0';
		*eol = '\0';
		struct mount_entry m = {0};
		r = parse_mount_line(line, &m);
		if (r < 0)
			goto fail;
		if (r > 0) {
			struct mount_entry *nv = realloc(v, (cnt + 1) * sizeof(*v));
			if (!nv) {
				mount_entry_free(&m);
				r = -ENOMEM;
				goto fail;
			}
			v = nv;
			v[cnt++] = m;
		}
		line = more ? eol + 1 : eol;
	}
	*out = v;
	*n = cnt;
	return 0;
fail:
	for (size_t i = 0; i < cnt; i++)
		mount_entry_free(&v[i]);
	free(v);
	return r;
}

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

/* One line of /proc/self/cgroup becomes one hierarchy (not yet opened). */
static int hierarchy_from_self(struct hierarchy *h, const char *line)
{
	unsigned id;
	char ctrls[1024], path[4096];
	if (sscanf(line, "%u:%1023[^:]:%4095[^\n]", &id, ctrls, path) == 3) {
		h->id = (int)id;
		h->unified = false;
		if (strv_split(&h->controllers, ctrls, ',') < 0)
			return -ENOMEM;
	} else if (sscanf(line, "0::%4095[^\n]", path) == 1) {
		h->id = 0;
		h->unified = true;
		/* Started among the tasks a cgroup2 parent keeps in its leaf (ops/unified.h): the parent is the root. */
		cgroup2_strip_leaf(path);
	} else {
		return -EINVAL;
	}
	h->root_path = strdup(path);
	h->root_fd = -1;
	if (!h->root_path)
		return -ENOMEM;
	return join_name(h);
}

static int load_unified_controllers(struct hierarchy *h)
{
	_cleanup_free_ char *text = NULL;
	int r = read_small_file_at(h->root_fd, "cgroup.controllers", &text);
	if (r < 0)
		return r;
	text[strcspn(text, "\n")] = '\0';
	return strv_split(&h->controllers, text, ' ');
}

int hierarchies_discover(struct hierarchies *hs, struct err *e)
{
	_cleanup_free_ char *self = NULL;
	struct mount_entry *mounts = NULL;
	size_t nm = 0;
	int r;

	*hs = (struct hierarchies){0};
	r = read_small_file_at(AT_FDCWD, "/proc/self/cgroup", &self);
	if (r < 0)
		return err_errno(e, -r, "cannot read /proc/self/cgroup");
	r = read_mounts(&mounts, &nm);
	if (r < 0)
		return err_errno(e, -r, "cannot read /proc/self/mountinfo");

	for (char *line = self; *line;) {
		char *eol = strchrnul(line, '\n');
		bool more = *eol != '\0';
		*eol = '\0';
		/* An empty v2 line on a v1-only host is a hierarchy nobody mounted. */
		struct hierarchy h = {0};
		if (!*line)
			goto next;
		if (hs->n == PROC_CGROUP_MAX) {
			log_warn("more than %d hierarchies; not serving '%s'", PROC_CGROUP_MAX, line);
			goto next;
		}
		r = hierarchy_from_self(&h, line);
		if (r < 0) {
			err_errno(e, -r, "cannot parse /proc/self/cgroup line '%s'", line);
			goto fail;
		}
		h.root_fd = open_hierarchy_root(&h, mounts, nm);
		if (h.root_fd < 0) {
			log_warn("cannot open %s:%s (%s); not serving it", h.name, h.root_path, strerror(-h.root_fd));
			strv_free(&h.controllers);
			free(h.name);
			free(h.root_path);
			goto next;
		}
		if (h.unified && load_unified_controllers(&h) < 0)
			log_warn("cannot read cgroup.controllers of unified:%s", h.root_path);
		struct hierarchy *nh = realloc(hs->h, (hs->n + 1) * sizeof(*nh));
		if (!nh) {
			err_set(e, ERR_LIMIT, "out of memory");
			goto fail;
		}
		hs->h = nh;
		hs->h[hs->n++] = h;
		log_debug("serving %s at %s", h.name, h.root_path);
	next:
		line = more ? eol + 1 : eol;
	}
	for (size_t i = 0; i < nm; i++)
		mount_entry_free(&mounts[i]);
	free(mounts);
	if (hs->n == 0)
		return err_set(e, ERR_NOT_FOUND, "no cgroup hierarchy could be opened");
	return 0;
fail:
	for (size_t i = 0; i < nm; i++)
		mount_entry_free(&mounts[i]);
	free(mounts);
	hierarchies_free(hs);
	return -1;
}

void hierarchies_free(struct hierarchies *hs)
{
	for (size_t i = 0; i < hs->n; i++) {
		strv_free(&hs->h[i].controllers);
		free(hs->h[i].name);
		free(hs->h[i].root_path);
		if (hs->h[i].root_fd >= 0)
			close(hs->h[i].root_fd);
	}
	free(hs->h);
	*hs = (struct hierarchies){0};
}

static struct hierarchy *find_one(const struct hierarchies *hs, const char *name)
{
	char named[256];
	if (strcmp(name, "unified") == 0 || strcmp(name, "cgroup2") == 0) {
		for (size_t i = 0; i < hs->n; i++)
			if (hs->h[i].unified)
				return &hs->h[i];
		return NULL;
	}
	/* 0.42 accepts "systemd" for the name=systemd hierarchy. */
	if (strcmp(name, "systemd") == 0)
		name = "name=systemd";
	snprintf(named, sizeof(named), "%s", name);
	for (size_t i = 0; i < hs->n; i++)
		if (!hs->h[i].unified && (strv_contains(&hs->h[i].controllers, named) || strcmp(hs->h[i].name, named) == 0))
			return &hs->h[i];
	/* On cgroup2, a controller name denotes the one hierarchy that offers it. */
	for (size_t i = 0; i < hs->n; i++)
		if (hs->h[i].unified && strv_contains(&hs->h[i].controllers, named))
			return &hs->h[i];
	return NULL;
}

void cgroup2_strip_leaf(char *path)
{
	size_t n = strlen(path), l = strlen(CGROUP2_TASK_LEAF);
	if (strcmp(path, CGROUP2_TASK_LEAF) == 0)
		path[0] = '\0';
	else if (n > l && path[n - l - 1] == '/' && strcmp(path + n - l, CGROUP2_TASK_LEAF) == 0)
		path[n - l - 1 == 0 ? 1 : n - l - 1] = '\0'; /* "/.leaf" is "/" */
}

int hierarchies_select(const struct hierarchies *hs, const char *spec, struct hierarchy **out, struct err *e)
{
	strv names = {0};
	int n = 0;

	if (strcmp(spec, "all") == 0) {
		for (size_t i = 0; i < hs->n; i++)
			out[n++] = &hs->h[i];
		return n;
	}
	if (strv_split(&names, spec, ',') < 0)
		return err_set(e, ERR_LIMIT, "out of memory");
	if (names.n == 0) {
		strv_free(&names);
		return err_set(e, ERR_INVALID, "no controller named (give one, a comma-separated list, or 'all')");
	}
	for (size_t i = 0; i < names.n; i++) {
		struct hierarchy *h = find_one(hs, names.v[i]);
		bool dup = false;
		if (!h) {
			err_set(e, ERR_NOT_FOUND, "controller '%s' is not available on this host", names.v[i]);
			strv_free(&names);
			return -1;
		}
		for (int j = 0; j < n; j++)
			dup |= out[j] == h;
		if (!dup)
			out[n++] = h;
	}
	strv_free(&names);
	return n;
}
