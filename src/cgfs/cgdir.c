#include "cgdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/securebits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "cgfs/proc.h"
#include "util/cleanup.h"
#include "util/open_resolved.h"

int cgdir_open_beneath(int dirfd, const char *rel)
{
	return open_resolved(dirfd, *rel ? rel : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC,
	                     RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV);
}

int cgdir_mkdir_as(int parentfd, const char *name, uid_t uid, gid_t gid)
{
	/* Keeps the capabilities that a change of fsuid away from 0 would drop: the daemon's policy decided. */
	int bits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
	bool keep = bits >= 0 && prctl(PR_SET_SECUREBITS, bits | SECBIT_NO_SETUID_FIXUP, 0, 0, 0) == 0;
	gid_t old_gid = (gid_t)setfsgid(gid);
	uid_t old_uid = (uid_t)setfsuid(uid);
	int r = mkdirat(parentfd, name, 0755) < 0 ? -errno : 0;
	setfsuid(old_uid);
	setfsgid(old_gid);
	if (keep)
		prctl(PR_SET_SECUREBITS, bits, 0, 0, 0);
	return r;
}

int cgdir_stat(int cgfd, const char *file, struct stat *st)
{
	if (fstatat(cgfd, file, st, AT_SYMLINK_NOFOLLOW | (*file ? 0 : AT_EMPTY_PATH)) < 0)
		return -errno;
	return 0;
}

int cgdir_read(int cgfd, const char *file, char **out)
{
	return read_small_file_at(cgfd, file, out);
}

int cgdir_write(int cgfd, const char *file, const char *value)
{
	_cleanup_close_ int fd = openat(cgfd, file, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	size_t len = strlen(value);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, value, len);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

static int list_entries(int cgfd, bool dirs, strv *out)
{
	int fd = openat(cgfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if ((de->d_type == DT_DIR) != dirs)
			continue;
		int r = strv_push(out, de->d_name);
		if (r < 0)
			return r;
	}
	if (out->n)
		qsort(out->v, out->n, sizeof(char *), strv_sort_cmp);
	return 0;
}

int cgdir_children(int cgfd, strv *out)
{
	return list_entries(cgfd, true, out);
}

int cgdir_files(int cgfd, strv *out)
{
	return list_entries(cgfd, false, out);
}

int pidv_push(pidv *p, pid_t pid)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		pid_t *v = realloc(p->v, cap * sizeof(pid_t));
		if (!v)
			return -ENOMEM;
		p->v = v;
		p->cap = cap;
	}
	p->v[p->n++] = pid;
	return 0;
}

static int pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

void pidv_sort_unique(pidv *p)
{
	size_t n = 0;
	if (p->n)
		qsort(p->v, p->n, sizeof(pid_t), pid_cmp);
	for (size_t i = 0; i < p->n; i++)
		if (n == 0 || p->v[n - 1] != p->v[i])
			p->v[n++] = p->v[i];
	p->n = n;
}

void pidv_free(pidv *p)
{
	free(p->v);
	*p = (pidv){0};
}

/* Appends the numbers of a cgroup.procs or cgroup.threads text; with to_tgid, each thread's process. */
static int parse_ids(const char *text, bool to_tgid, pidv *out)
{
	for (const char *p = text; *p;) {
		char *end;
		long id = strtol(p, &end, 10);
		int r;
		if (end == p)
			break;
		if (id > 0 && to_tgid)
			id = proc_tgid_read((pid_t)id); /* a thread gone meanwhile: left out */
		if (id > 0 && (r = pidv_push(out, (pid_t)id)) < 0)
			return r;
		p = end;
		while (*p == '\n')
			p++;
	}
	return 0;
}

int cgdir_procs(int cgfd, pidv *out)
{
	_cleanup_free_ char *text = NULL;
	int r = cgdir_read(cgfd, "cgroup.procs", &text);
	/*
	 * A threaded cgroup2 cgroup refuses to list processes (EOPNOTSUPP); its threads are listed, and their
	 * processes are what a kill or a check must reach (a process's threads may sit in several of them).
	 */
	if (r == -EOPNOTSUPP) {
		if ((r = cgdir_read(cgfd, "cgroup.threads", &text)) < 0)
			return r;
		return parse_ids(text, true, out);
	}
	return r < 0 ? r : parse_ids(text, false, out);
}

int cgdir_chown_all(int cgfd, uid_t uid, gid_t gid)
{
	strv files = {0};
	int r = cgdir_files(cgfd, &files);
	for (size_t i = 0; r >= 0 && i < files.n; i++)
		if (fchownat(cgfd, files.v[i], uid, gid, AT_SYMLINK_NOFOLLOW) < 0)
			r = -errno;
	strv_free(&files);
	if (r >= 0 && fchown(cgfd, uid, gid) < 0)
		r = -errno;
	return r;
}
