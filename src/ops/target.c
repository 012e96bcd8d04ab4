#include "ops/target.h"
#include "ops/unified.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgfs/hierarchy_parse.h"
#include "cgfs/proc.h"
#include "util/cleanup.h"

void target_close(struct target *t)
{
	if (t->req_fd >= 0)
		close(t->req_fd);
	if (t->fd >= 0)
		close(t->fd);
	t->req_fd = t->fd = -1;
}

/*
 * A pidfd polls readable once its process has exited, zombie or not. A zombie's /proc/PID/cgroup reads
 * as the root cgroup, so a connection kept by the children of an exited, unreaped process would
 * otherwise name cgroups from the root: a signal 0 to the pidfd still reaches a zombie; the poll does not
 * pass it.
 */
int requester_still_alive(const struct requester *r, struct err *e)
{
	struct pollfd p = {.fd = r->pidfd, .events = POLLIN};
	if (r->pidfd < 0)
		return 0;
	if (poll(&p, 1, 0) != 0)
		return err_set(e, ERR_ACCESS, "the process that opened this connection (pid %d) has exited", (int)r->pid);
	return 0;
}

int requester_cgroups(const struct ops *o, const struct requester *r, struct proc_cgroups *pc, struct err *e)
{
	if (r->pid <= 0 || r->pidns == 0)
		return err_set(e, ERR_ACCESS, "the requester's pid is not visible in the daemon's pid namespace");
	if ((r->cgroup_fd >= 0 ? proc_cgroups_read_fd(r->cgroup_fd, r->pid, pc, e) : proc_cgroups_read(r->pid, pc, e)) < 0)
		return -1;
	/* Read first, check after: a reused pid would show up here as our peer having died. */
	if (requester_still_alive(r, e) < 0) {
		proc_cgroups_free(pc);
		return -1;
	}
	return 0;
}

void display_path(const char *rel, char *out, size_t len)
{
	snprintf(out, len, "/%s", rel);
}

int rel_within_root(const struct hierarchy *h, const char *path, char rel[CGNAME_MAX])
{
	const char *root = h->root_path;
	size_t n = strlen(root);
	const char *rest;

	if (strcmp(root, "/") == 0)
		rest = path;
	else if (strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/'))
		rest = path + n;
	else
		return -1;
	while (*rest == '/')
		rest++;
	if (strlen(rest) >= CGNAME_MAX)
		return -1;
	strcpy(rel, rest);
	if (h->unified)
		cgroup2_strip_leaf(rel);
	return 0;
}

static void set_what(struct target *t)
{
	char p[CGNAME_MAX + 2];
	display_path(t->rel, p, sizeof(p));
	snprintf(t->what, sizeof(t->what), "%s:%s", t->h->name, p);
}

static int open_named(struct target *t, int basefd, const char *clean, bool must_exist, struct err *e)
{
	t->fd = cgdir_open_beneath(basefd, clean);
	if (t->fd >= 0)
		return 0;
	if (t->fd == -ENOENT && !must_exist)
		return 0;
	if (t->fd == -ENOENT)
		return err_set(e, ERR_NOT_FOUND, "%s does not exist", t->what);
	if (t->fd == -ENOTDIR)
		return err_set(e, ERR_INVALID, "%s is not a cgroup", t->what);
	if (t->fd == -EXDEV || t->fd == -ELOOP)
		return err_set(e, ERR_ACCESS, "%s leads outside your cgroup (symlinks and escapes are refused)", t->what);
	return err_errno(e, -t->fd, "cannot open %s", t->what);
}

/*
 * The target in one open from the hierarchy's root: t->rel is the requester's cgroup joined with a
 * normalized name (no "..", no "."), opened with no symlink followed, so it is the same directory as the
 * name opened beneath the requester's cgroup, one open and one close cheaper. Where it fails, the caller
 * takes the two steps, which tell the requester's cgroup and the name apart (and Create needs the first).
 */
static int open_whole(struct target *t)
{
	t->fd = cgdir_open_beneath(t->h->root_fd, t->rel);
	return t->fd >= 0 ? 0 : -1;
}

/* Refuses a name, quoting only its start so that the reason always fits in the message. */
/* On cgroup2 the task leaf is the daemon's: nobody names it (ops/unified.h). */
static bool leaf_named(const struct hierarchy *h, const char *clean, const char **why)
{
	for (const char *p = clean; h->unified && *p; p += strcspn(p, "/"), p += *p == '/') {
		size_t n = strcspn(p, "/");
		if (n == strlen(UNIFIED_LEAF) && strncmp(p, UNIFIED_LEAF, n) == 0) {
			*why = "'" UNIFIED_LEAF "' is where cgroup2 keeps a cgroup's own tasks; it is not a cgroup of its own";
			return true;
		}
	}
	return false;
}

static int name_refused(struct err *e, const char *name, const char *why)
{
	size_t n = strnlen(name, 128);
	while (n > 0 && name[n] && ((unsigned char)name[n] & 0xC0) == 0x80)
		n--; /* not inside a UTF-8 sequence */
	return err_set(e, ERR_INVALID, "cgroup name '%.*s%s' is refused: %s", (int)n, name, name[n] ? "..." : "", why);
}

int target_resolve(const struct ops *o, const struct requester *r, const struct proc_cgroups *pc,
                   struct hierarchy *h, const char *name, bool must_exist, struct target *t, struct err *e)
{
	const char *why, *own = proc_cgroups_path(pc, h->id);
	char clean[CGNAME_MAX], base[CGNAME_MAX];

	if (r->names_from_root)
		return target_resolve_abs(r, h, name, must_exist, t, e);
	*t = (struct target){.h = h, .req_fd = -1, .fd = -1};
	if (cgname_normalize(name, clean, &why) < 0 || leaf_named(h, clean, &why))
		return name_refused(e, name, why);
	if (!own)
		return err_set(e, ERR_NOT_FOUND, "you are in no cgroup of %s", h->name);
	if (rel_within_root(h, own, t->req_rel) < 0)
		return err_set(e, ERR_ACCESS, "your cgroup %s:%s is outside %s:%s, the tree this daemon manages", h->name,
		               own, h->name, h->root_path);
	if (r->proxy && proxy_base(r, h, base) == 0 && !rel_is_beneath(t->req_rel, base))
		return err_set(e, ERR_ACCESS, "your cgroup %s:/%s is outside %s:/%s, the cgroup of the proxy that relayed you",
		               h->name, t->req_rel, h->name, base);
	if (cgpath_join(t->req_rel, clean, t->rel) < 0)
		return name_refused(e, name, "beneath your cgroup it would be longer than 4095 bytes");
	set_what(t);
	if (open_whole(t) == 0)
		return 0;
	t->req_fd = cgdir_open_beneath(h->root_fd, t->req_rel);
	if (t->req_fd < 0)
		return err_errno(e, -t->req_fd, "cannot open your cgroup %s:/%s", h->name, t->req_rel);
	return open_named(t, t->req_fd, clean, must_exist, e);
}

int target_resolve_abs(const struct requester *r, struct hierarchy *h, const char *name, bool must_exist,
                       struct target *t, struct err *e)
{
	const char *why;
	char clean[CGNAME_MAX];
	*t = (struct target){.h = h, .req_fd = -1, .fd = -1};
	if (cgname_normalize(name, clean, &why) < 0 || leaf_named(h, clean, &why))
		return name_refused(e, name, why);
	if (proxy_base(r, h, t->req_rel) < 0)
		return err_set(e, ERR_ACCESS, "the cgroup of the proxy that relayed you is outside %s:%s, the tree this "
		               "daemon manages", h->name, h->root_path);
	if (cgpath_join(t->req_rel, clean, t->rel) < 0)
		return name_refused(e, name, "it would be longer than 4095 bytes");
	set_what(t);
	if (open_whole(t) == 0)
		return 0;
	t->req_fd = cgdir_open_beneath(h->root_fd, t->req_rel);
	if (t->req_fd < 0)
		return err_errno(e, -t->req_fd, "cannot open %s:/%s", h->name, t->req_rel);
	return open_named(t, t->req_fd, clean, must_exist, e);
}

int proxy_base(const struct requester *r, const struct hierarchy *h, char rel[CGNAME_MAX])
{
	struct proc_cgroups pc = {0};
	struct err ignored;
	const char *path;
	int rc = -1;

	rel[0] = '\0';
	if (!r->proxy)
		return 0;
	if (proc_cgroups_read(r->proxy->pid, &pc, &ignored) < 0)
		return -1;
	path = proc_cgroups_path(&pc, h->id);
	if (path && rel_within_root(h, path, rel) == 0 && requester_still_alive(r->proxy, &ignored) == 0)
		rc = 0;
	proc_cgroups_free(&pc);
	return rc;
}

bool rel_is_beneath(const char *rel, const char *base)
{
	size_t n = strlen(base);
	if (n == 0)
		return true;
	return strncmp(rel, base, n) == 0 && (rel[n] == '\0' || rel[n] == '/');
}

int target_owner(const struct target *t, const char *file, struct owner *out, struct err *e)
{
	struct stat st;
	int r = cgdir_stat(t->fd, file, &st);
	if (r < 0) {
		if (r == -ENOENT)
			return err_set(e, ERR_NOT_FOUND, "%s has no file '%s'", t->what, file);
		return err_errno(e, -r, "cannot stat %s %s", t->what, file);
	}
	*out = (struct owner){.uid = st.st_uid, .gid = st.st_gid, .mode = st.st_mode};
	return 0;
}

struct cgroup_place target_place(const struct target *t)
{
	return (struct cgroup_place){.daemon_root = t->rel[0] == '\0', .requesters_own = strcmp(t->rel, t->req_rel) == 0};
}
