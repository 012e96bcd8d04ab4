#include "ops/key_ctx.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cgfs/devices_bpf.h"
#include "util/cleanup.h"
#include "util/open_resolved.h"

struct target *key_ctx_target(struct key_ctx *k, const char *ctrl, struct err *e)
{
	int version;
	struct hierarchy *h = hierarchy_for_controller(k->o, ctrl, &version);
	if (!h) {
		err_set(e, ERR_NOT_SUPPORTED, "controller '%s' is not available on this host", ctrl);
		return NULL;
	}
	struct target **slot = &k->t[h - k->o->hs.h];
	if (*slot)
		return *slot;
	struct target *t = malloc(sizeof(*t));
	if (!t) {
		err_set(e, ERR_LIMIT, "out of memory");
		return NULL;
	}
	*t = (struct target){.req_fd = -1, .fd = -1};
	if (target_resolve(k->o, k->r, &k->pc, h, k->name, true, t, e) < 0) {
		target_close(t);
		free(t);
		return NULL;
	}
	return *slot = t;
}

static int kh_version_of(void *ctx, const char *controller)
{
	struct key_ctx *k = ctx;
	int version;
	return hierarchy_for_controller(k->o, controller, &version) ? version : 0;
}

/* The value a pending write of this request gives the file, newest first. */
static const char *pending_value(const struct key_ctx *k, const struct target *t, const char *file)
{
	for (size_t i = k->pending ? k->pending->n : 0; i-- > 0;) {
		const struct key_write *w = &k->pending->v[i];
		int version;
		if (w->file && strcmp(w->file, file) == 0 && hierarchy_for_controller(k->o, w->controller, &version) == t->h)
			return w->value;
	}
	return NULL;
}

static int stored_device_rules(const struct target *t, char **out, struct err *e)
{
	struct dev_rule *rules = NULL;
	size_t n = 0, len = 1;
	if (devices_bpf_rules(t->fd, &rules, &n, e) < 0)
		return -1;
	len += n * 32;
	*out = calloc(1, len);
	if (!*out) {
		free(rules);
		return err_set(e, ERR_LIMIT, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		char line[32];
		devices_rule_format(&rules[i], line, sizeof(line));
		strcat(*out, line);
		strcat(*out, "\n");
	}
	free(rules);
	return 0;
}

static int kh_read_file(void *ctx, const char *controller, const char *file, char **out, struct err *e)
{
	struct key_ctx *k = ctx;
	struct target *t = key_ctx_target(k, controller, e);
	struct owner own;
	char why[POLICY_WHY_MAX], what[WHAT_MAX + 256];
	const char *pending;
	int r;

	if (!t)
		return -1;
	if ((pending = pending_value(k, t, file))) {
		*out = strdup(pending);
		return *out ? 0 : err_set(e, ERR_LIMIT, "out of memory");
	}
	snprintf(what, sizeof(what), "%s %s", t->what, file);
	if (strcmp(file, KEY_DEVICES_BPF_FILE) == 0) {
		/* The rules live on the directory: whoever may list it may read them. */
		if (target_owner(t, "", &own, e) < 0)
			return -1;
		if (!policy_may_list(&k->r->cred, &own, t->what, why))
			return err_set(e, ERR_ACCESS, "%s", why);
		return stored_device_rules(t, out, e);
	}
	if (target_owner(t, file, &own, e) < 0)
		return -1;
	if (!policy_may_read(&k->r->cred, &own, what, why))
		return err_set(e, ERR_ACCESS, "%s", why);
	if ((r = cgdir_read(t->fd, file, out)) < 0)
		return err_errno(e, -r, "cannot read %s", what);
	return 0;
}

/*
 * A /dev path, resolved in the daemon's own /dev and only for requesters
 * that share its mount namespace (so it is their /dev too). Symlinks such as
 * /dev/disk/by-id/... are followed while they stay beneath /dev and on its
 * mount: a lookup that could reach a filesystem a user controls (a FUSE
 * server that never answers would stall the daemon) is refused, and so are
 * paths from other mount namespaces, whose clients resolve them themselves
 * (cgm does) and send MAJ:MIN.
 */
static int kh_device_of(void *ctx, const char *path, unsigned *major, unsigned *minor, char *type, struct err *e)
{
	struct key_ctx *k = ctx;
	char ns[64];
	struct stat st, mine, theirs;

	snprintf(ns, sizeof(ns), "/proc/%d/ns/mnt", (int)k->r->pid);
	if (stat(ns, &theirs) < 0 || stat("/proc/self/ns/mnt", &mine) < 0 || theirs.st_ino != mine.st_ino ||
	    theirs.st_dev != mine.st_dev)
		return err_set(e, ERR_NOT_SUPPORTED, "%s: the daemon resolves /dev paths only in its own mount namespace; "
		               "give the device as MAJ:MIN (cgm resolves paths for you)", path);
	if (strncmp(path, "/dev/", 5) != 0)
		return err_set(e, ERR_INVALID, "%s is not a path beneath /dev", path);
	_cleanup_close_ int devfd = open("/dev", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (devfd < 0)
		return err_errno(e, errno, "cannot open /dev to resolve %s", path);
	_cleanup_close_ int fd = open_resolved(devfd, path + 5, O_PATH | O_CLOEXEC,
	                                       RESOLVE_BENEATH | RESOLVE_NO_XDEV | RESOLVE_NO_MAGICLINKS);
	if (fd == -ELOOP)
		return err_set(e, ERR_NOT_SUPPORTED, "%s: a symlink, and this kernel cannot confine following it beneath "
		               "/dev (no openat2); give the device as MAJ:MIN (cgm resolves paths for you)", path);
	if (fd < 0)
		return err_errno(e, -fd, "cannot resolve %s within /dev", path);
	if (fstat(fd, &st) < 0)
		return err_errno(e, errno, "cannot stat %s", path);
	if (!S_ISBLK(st.st_mode) && !S_ISCHR(st.st_mode))
		return err_set(e, ERR_INVALID, "%s is not a device node", path);
	*type = S_ISBLK(st.st_mode) ? 'b' : 'c';
	*major = major(st.st_rdev);
	*minor = minor(st.st_rdev);
	return 0;
}

static int kh_online_cpus(void *ctx)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

int key_ctx_init(struct key_ctx *k, struct ops *o, const struct requester *r, const char *name, struct err *e)
{
	*k = (struct key_ctx){.o = o, .r = r, .name = name};
	k->host = (struct key_host){.version_of = kh_version_of, .read_file = kh_read_file, .device_of = kh_device_of,
	                            .online_cpus = kh_online_cpus, .ctx = k};
	return requester_cgroups(o, r, &k->pc, e);
}

void key_ctx_free(struct key_ctx *k)
{
	for (size_t i = 0; i < PROC_CGROUP_MAX; i++)
		if (k->t[i]) {
			target_close(k->t[i]);
			free(k->t[i]);
		}
	proc_cgroups_free(&k->pc);
}
