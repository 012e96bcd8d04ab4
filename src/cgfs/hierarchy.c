#include "hierarchy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "cgfs/cgdir.h"
#include "cgfs/hierarchy_parse.h"
#include "cgfs/proc.h"
#include "util/cleanup.h"
#include "util/log.h"
#include "util/open_resolved.h"

const char *cgroup2_delegate_list_path = "/sys/kernel/cgroup/delegate";

static bool path_within(const char *path, const char *root)
{
	size_t n = strlen(root);
	if (strcmp(root, "/") == 0)
		return true;
	return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static int openat2_dir(int dirfd, const char *path)
{
	return open_resolved(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS);
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
		r = mountinfo_parse_line(line, &m);
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

static int load_unified_controllers(struct hierarchy *h)
{
	_cleanup_free_ char *text = NULL;
	int r = read_small_file_at(h->root_fd, "cgroup.controllers", &text);
	return r < 0 ? r : hierarchy_parse_controllers(h, text);
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
		r = hierarchy_parse_self_line(&h, line);
		if (r < 0) {
			err_errno(e, -r, "cannot parse /proc/self/cgroup line '%s'", line);
			goto fail;
		}
		h.root_fd = open_hierarchy_root(&h, mounts, nm);
		if (h.root_fd < 0) {
			log_warn("cannot open %s:%s (%s); not serving it", h.name, h.root_path, strerror(-h.root_fd));
			hierarchy_clear(&h);
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
		hierarchy_clear(&hs->h[i]);
		if (hs->h[i].root_fd >= 0)
			close(hs->h[i].root_fd);
	}
	free(hs->h);
	*hs = (struct hierarchies){0};
}

static struct hierarchy *find_v1(const struct hierarchies *hs, const char *name)
{
	for (size_t i = 0; i < hs->n; i++)
		if (!hs->h[i].unified && (strv_contains(&hs->h[i].controllers, name) || strcmp(hs->h[i].name, name) == 0))
			return &hs->h[i];
	return NULL;
}

static struct hierarchy *find_one(const struct hierarchies *hs, const char *name)
{
	/* A hierarchy's own name first, so that every name hierarchies give back selects them again. */
	struct hierarchy *h = find_v1(hs, name);
	if (h)
		return h;
	if (strcmp(name, "unified") == 0 || strcmp(name, "cgroup2") == 0) {
		for (size_t i = 0; i < hs->n; i++)
			if (hs->h[i].unified)
				return &hs->h[i];
		return NULL;
	}
	/* 0.42 accepts "systemd" for the name=systemd hierarchy. */
	if (strcmp(name, "systemd") == 0)
		return find_v1(hs, "name=systemd");
	/* On cgroup2, a controller name denotes the one hierarchy that offers it. */
	for (size_t i = 0; i < hs->n; i++)
		if (hs->h[i].unified && strv_contains(&hs->h[i].controllers, name))
			return &hs->h[i];
	return NULL;
}

void hierarchy_set_add(struct hierarchy_set *s, struct hierarchy *h)
{
	for (unsigned i = 0; i < s->n; i++)
		if (s->h[i] == h)
			return;
	if (s->n < PROC_CGROUP_MAX)
		s->h[s->n++] = h;
}

void hierarchy_set_add_controller(struct hierarchy_set *s, struct hierarchy *h, const char *ctrl)
{
	hierarchy_set_add(s, h);
	for (size_t i = 0; h->unified && i < h->controllers.n && i < 64; i++)
		if (strcmp(h->controllers.v[i], ctrl) == 0)
			s->v2_ctrls |= UINT64_C(1) << i;
}

void hierarchies_all(const struct hierarchies *hs, struct hierarchy_set *out)
{
	*out = (struct hierarchy_set){.several = true, .v2_every = true};
	for (size_t i = 0; i < hs->n; i++)
		hierarchy_set_add(out, &hs->h[i]);
}

int hierarchies_select(const struct hierarchies *hs, const char *spec, struct hierarchy_set *out, struct err *e)
{
	strv names = {0};

	*out = (struct hierarchy_set){.several = strchr(spec, ',') != NULL};
	if (strcmp(spec, "all") == 0) {
		hierarchies_all(hs, out);
		return 0;
	}
	if (strv_split(&names, spec, ',') < 0)
		return err_set(e, ERR_LIMIT, "out of memory");
	if (names.n == 0) {
		strv_free(&names);
		return err_set(e, ERR_INVALID, "no controller named (give one, a comma-separated list, or 'all')");
	}
	for (size_t i = 0; i < names.n; i++) {
		struct hierarchy *h = find_one(hs, names.v[i]);
		if (!h) {
			err_set(e, ERR_NOT_FOUND, "controller '%s' is not available on this host", names.v[i]);
			strv_free(&names);
			return -1;
		}
		/* "unified" names the hierarchy, not a controller of it: no controller is handed over. */
		hierarchy_set_add_controller(out, h, names.v[i]);
	}
	strv_free(&names);
	return 0;
}

void hierarchies_parse(const struct hierarchies *hs, const char *spec, struct hierarchy_set *out)
{
	struct err e = {0};
	if (hierarchies_select(hs, spec, out, &e) < 0) {
		*out = (struct hierarchy_set){0};
		out->invalid = e;
	}
	out->written = spec;
}

int hierarchy_set_check(const struct hierarchy_set *s, struct err *e)
{
	if (s->invalid.kind != ERR_NONE) {
		*e = s->invalid;
		return -1;
	}
	if (s->n == 0)
		return err_set(e, ERR_INVALID, "no hierarchy to act on");
	return 0;
}


int hierarchy_set_single(const struct hierarchy_set *s, struct hierarchy **out, struct err *e)
{
	char names[256] = "";
	if (hierarchy_set_check(s, e) < 0)
		return -1;
	if (s->n == 1) {
		*out = s->h[0];
		return 0;
	}
	if (s->written)
		return err_set(e, ERR_INVALID, "this call takes exactly one controller; '%s' names %u hierarchies", s->written,
		               s->n);
	for (unsigned i = 0; i < s->n; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? " " : "", s->h[i]->name);
	return err_set(e, ERR_INVALID, "this call takes exactly one controller; %u hierarchies (%s) were named", s->n,
	               names);
}
