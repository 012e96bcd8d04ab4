#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/cleanup.h"

/*
 * All of fd from offset 0 (pread: a kept fd of a /proc file is read afresh each time). A /proc file made
 * of one record (single_open) gives all of it that fits in the first read, so short_is_eof saves the
 * read that would only find the end.
 */
static int read_all(int fd, bool short_is_eof, char **out)
{
	size_t len = 0, cap = 4096;
	_cleanup_free_ char *buf = malloc(cap);

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (len + 1 >= cap) {
			if (cap >= (16u << 20))
				return -EFBIG;
			char *nb = realloc(buf, cap * 2);
			if (!nb)
				return -ENOMEM;
			buf = nb;
			cap *= 2;
		}
		ssize_t n = pread(fd, buf + len, cap - len - 1, (off_t)len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		len += (size_t)n;
		if (n == 0 || (short_is_eof && len + 1 < cap))
			break;
	}
	buf[len] = '\0';
	*out = take_ptr(&buf);
	return 0;
}

int read_small_file_at(int dirfd, const char *path, char **out)
{
	_cleanup_close_ int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	return read_all(fd, false, out);
}

int read_proc_record_fd(int fd, char **out)
{
	return read_all(fd, true, out);
}

void proc_cgroups_free(struct proc_cgroups *pc)
{
	for (int i = 0; i < pc->n; i++)
		free(pc->e[i].path);
	pc->n = 0;
}

int proc_cgroups_parse(const char *text, struct proc_cgroups *out)
{
	const char *line = text;
	out->n = 0;
	while (*line) {
		const char *eol = strchrnul(line, '\n');
		const char *c1 = memchr(line, ':', (size_t)(eol - line));
		const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(eol - c1 - 1)) : NULL;
		char *endp;
		long id;

		if (!c2 || c2[1] != '/')
			goto bad;
		id = strtol(line, &endp, 10);
		if (endp != c1 || id < 0 || id > 1 << 20)
			goto bad;
		if (out->n == PROC_CGROUP_MAX)
			goto bad;
		out->e[out->n].id = (int)id;
		out->e[out->n].path = strndup(c2 + 1, (size_t)(eol - c2 - 1));
		if (!out->e[out->n].path)
			goto bad;
		out->n++;
		line = *eol ? eol + 1 : eol;
	}
	return 0;
bad:
	proc_cgroups_free(out);
	return -EINVAL;
}

int proc_cgroups_read_fd(int fd, pid_t pid, struct proc_cgroups *out, struct err *e)
{
	_cleanup_free_ char *text = NULL;
	int r = read_all(fd, true, &text);
	if (r < 0)
		return err_errno(e, -r, "cannot read the cgroups of pid %d", (int)pid);
	if (proc_cgroups_parse(text, out) < 0)
		return err_set(e, ERR_FAILED, "cannot parse /proc/%d/cgroup", (int)pid);
	return 0;
}

int proc_cgroups_open(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int proc_cgroups_read(pid_t pid, struct proc_cgroups *out, struct err *e)
{
	_cleanup_close_ int fd = proc_cgroups_open(pid);
	if (fd < 0)
		return err_errno(e, -fd, "cannot read the cgroups of pid %d", (int)pid);
	return proc_cgroups_read_fd(fd, pid, out, e);
}

const char *proc_cgroups_path(const struct proc_cgroups *pc, int id)
{
	for (int i = 0; i < pc->n; i++)
		if (pc->e[i].id == id)
			return pc->e[i].path;
	return NULL;
}

static int parse_id_line(const char *text, const char *key, unsigned out[4])
{
	/* The line that starts with key: a process names itself (Name:, on a line the kernel escapes), and a
	 * name like "xUid:" must neither stand in for its ids nor hide them. */
	const char *p = text;
	size_t n = strlen(key);
	while (p && strncmp(p, key, n) != 0)
		if ((p = strchr(p, '\n')))
			p++;
	if (!p)
		return -EINVAL;
	p += n;
	for (int i = 0; i < 4; i++) {
		char *end;
		errno = 0;
		unsigned long v = strtoul(p, &end, 10);
		if (end == p || errno || v > 0xffffffffUL)
			return -EINVAL;
		out[i] = (unsigned)v;
		p = end;
	}
	return 0;
}

int proc_status_parse_ids(const char *text, struct proc_ids *out)
{
	unsigned u[4], g[4];
	if (parse_id_line(text, "Uid:", u) < 0 || parse_id_line(text, "Gid:", g) < 0)
		return -EINVAL;
	for (int i = 0; i < 4; i++) {
		out->uid[i] = u[i];
		out->gid[i] = g[i];
	}
	return 0;
}

/* The text of /proc/PID/status, which the id, NSpid and Tgid readers parse; -errno. */
static int read_status(pid_t pid, char **text)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : read_proc_record_fd(fd, text);
}

int proc_ids_read(pid_t pid, struct proc_ids *out, struct err *e)
{
	_cleanup_free_ char *text = NULL;
	int r = read_status(pid, &text);
	if (r < 0)
		return err_errno(e, -r, "cannot read the credentials of pid %d", (int)pid);
	if (proc_status_parse_ids(text, out) < 0)
		return err_set(e, ERR_FAILED, "cannot parse /proc/%d/status", (int)pid);
	return 0;
}

int proc_status_parse_nspid(const char *text, pid_t *out, int max)
{
	const char *p = strstr(text, "\nNSpid:");
	int n = 0;
	if (!p)
		return -EINVAL;
	p += 7;
	while (n < max) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p)
			break;
		out[n++] = (pid_t)v;
		p = end;
	}
	return n > 0 ? n : -EINVAL;
}

int proc_nspid_read(pid_t pid, pid_t *out, int max)
{
	_cleanup_free_ char *text = NULL;
	int r = read_status(pid, &text);
	return r < 0 ? r : proc_status_parse_nspid(text, out, max);
}

/* A pid line of /proc/PID/status ("\nTgid:"): the Name: line comes first and cannot hold a newline, so it cannot fake one. */
static int parse_pid_line(const char *text, const char *tag)
{
	const char *p = strstr(text, tag);
	size_t n = strlen(tag);
	char *end;
	long v;
	if (!p)
		return -EINVAL;
	v = strtol(p + n, &end, 10);
	return end == p + n || v <= 0 ? -EINVAL : (int)v;
}

int proc_status_parse_tgid(const char *text)
{
	return parse_pid_line(text, "\nTgid:");
}

int proc_status_parse_ppid(const char *text)
{
	return parse_pid_line(text, "\nPPid:");
}

int proc_ppid_read(pid_t pid)
{
	_cleanup_free_ char *text = NULL;
	int r = read_status(pid, &text);
	return r < 0 ? r : proc_status_parse_ppid(text);
}

int proc_tgid_read(pid_t tid)
{
	_cleanup_free_ char *text = NULL;
	int r = read_status(tid, &text);
	return r < 0 ? r : proc_status_parse_tgid(text);
}
