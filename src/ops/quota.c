#include "ops/quota.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cgname.h"
#include "util/cleanup.h"

struct quota_count {
	uid_t uid;
	int hierarchy; /* hierarchy id; 0 for cgroup2 */
	unsigned long count;
};

struct quotas {
	unsigned max_cgroups, max_depth;
	struct quota_count *c;
	size_t n;
};

struct quotas *quotas_new(unsigned max_cgroups, unsigned max_depth)
{
	struct quotas *q = calloc(1, sizeof(*q));
	if (q)
		*q = (struct quotas){.max_cgroups = max_cgroups, .max_depth = max_depth};
	return q;
}

void quotas_free(struct quotas *q)
{
	if (q)
		free(q->c);
	free(q);
}

unsigned quotas_max_cgroups(const struct quotas *q)
{
	return q->max_cgroups;
}

unsigned quotas_max_depth(const struct quotas *q)
{
	return q->max_depth;
}

/* Directories beneath dirfd owned by uid; dirfd is consumed. */
static unsigned long count_owned(int dirfd, uid_t uid)
{
	unsigned long n = 0;
	DIR *d = fdopendir(dirfd);
	struct dirent *de;
	if (!d) {
		close(dirfd);
		return 0;
	}
	while ((de = readdir(d))) {
		struct stat st;
		if (de->d_type != DT_DIR || strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		n += st.st_uid == uid;
		int sub = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0)
			n += count_owned(sub, uid);
	}
	closedir(d);
	return n;
}

static struct quota_count *entry(struct quotas *q, uid_t uid, const struct hierarchy *h, bool *fresh)
{
	for (size_t i = 0; i < q->n; i++)
		if (q->c[i].uid == uid && q->c[i].hierarchy == h->id) {
			*fresh = false;
			return &q->c[i];
		}
	struct quota_count *c = realloc(q->c, (q->n + 1) * sizeof(*c));
	if (!c)
		return NULL;
	q->c = c;
	*fresh = true;
	c[q->n] = (struct quota_count){.uid = uid, .hierarchy = h->id};
	return &c[q->n++];
}

static unsigned long recount(const struct hierarchy *h, uid_t uid)
{
	/* root_fd may be O_PATH, which readdir cannot use. */
	int fd = openat(h->root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? 0 : count_owned(fd, uid);
}

/* How many of the parent's ancestors, counting up from it without a gap, belong to uid. */
static unsigned owned_run(const struct hierarchy *h, const char *parent_rel, uid_t uid)
{
	_cleanup_close_ int cur = dup(h->root_fd);
	char path[CGNAME_MAX];
	unsigned run = 0;
	struct stat st;

	snprintf(path, sizeof(path), "%s", parent_rel);
	if (cur < 0 || fstat(cur, &st) < 0)
		return 0;
	run = st.st_uid == uid;
	char *save = NULL;
	for (char *comp = strtok_r(path, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		int next = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 || fstat(next, &st) < 0) {
			if (next >= 0)
				close(next);
			return run;
		}
		close(cur);
		cur = next;
		run = st.st_uid == uid ? run + 1 : 0;
	}
	return run;
}

int quota_check_create(struct quotas *q, const struct requester *r, const struct hierarchy *h, const char *parent_rel,
                       struct err *e)
{
	uid_t uid = r->cred.uid;
	bool fresh;
	if (!q || policy_is_host_root(&r->cred))
		return 0;
	if (q->max_depth) {
		/* The first cgroup of the run is what the uid was given: its children are at depth 1. */
		unsigned depth = owned_run(h, parent_rel, uid);
		if (depth > q->max_depth)
			return err_set(e, ERR_LIMIT, "%s:/%s%s...: uid %u may nest cgroups %u deep below what it was given; this "
			               "would be %u deep (cgmanager --max-depth)", h->name, parent_rel, *parent_rel ? "/" : "",
			               (unsigned)uid, q->max_depth, depth);
	}
	if (!q->max_cgroups)
		return 0;
	struct quota_count *c = entry(q, uid, h, &fresh);
	if (!c)
		return err_set(e, ERR_LIMIT, "out of memory");
	if (fresh || c->count >= q->max_cgroups)
		c->count = recount(h, uid);
	if (c->count >= q->max_cgroups)
		return err_set(e, ERR_LIMIT, "uid %u owns %lu cgroups in %s, its limit (cgmanager --max-cgroups-per-uid)",
		               (unsigned)uid, c->count, h->name);
	return 0;
}

void quota_note_created(struct quotas *q, const struct requester *r, const struct hierarchy *h)
{
	bool fresh;
	struct quota_count *c;
	if (!q || policy_is_host_root(&r->cred) || !(c = entry(q, r->cred.uid, h, &fresh)))
		return;
	if (!fresh)
		c->count++;
	else
		c->count = recount(h, r->cred.uid);
}

/* Lowers a cgroup2 limit file to max unless it is lower already. */
static int lower_limit(int cgfd, const char *file, unsigned max, struct err *e)
{
	_cleanup_free_ char *cur = NULL;
	char value[16];
	int r = cgdir_read(cgfd, file, &cur);
	if (r < 0)
		return r == -ENOENT ? 0 : err_errno(e, -r, "cannot read %s", file);
	if (strncmp(cur, "max", 3) != 0 && strtoul(cur, NULL, 10) <= max)
		return 0;
	snprintf(value, sizeof(value), "%u", max);
	if ((r = cgdir_write(cgfd, file, value)) < 0)
		return err_errno(e, -r, "cannot set %s to %s", file, value);
	return 0;
}

int quota_limit_delegated(const struct quotas *q, int cgfd, struct err *e)
{
	if (!q)
		return 0;
	if (q->max_cgroups && lower_limit(cgfd, "cgroup.max.descendants", q->max_cgroups, e) < 0)
		return -1;
	if (q->max_depth && lower_limit(cgfd, "cgroup.max.depth", q->max_depth, e) < 0)
		return -1;
	return 0;
}
