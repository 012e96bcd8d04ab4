#include "ops/victim.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ops/identity.h"
#include "util/cleanup.h"

void victim_free(struct victim *v)
{
	if (v->pidfd >= 0)
		close(v->pidfd);
	if (v->stat_fd >= 0)
		close(v->stat_fd);
	proc_cgroups_free(&v->pc);
}

bool pidfd_alive(int pidfd)
{
	return pidfd < 0 || syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0 || errno != ESRCH;
}

/* The kernel's PF_EXITING task flag, as /proc/PID/stat's ninth field shows it. */
#define TASK_FLAG_EXITING 0x4u

/*
 * A zombie still has its pid (and a pidfd of it answers signals), but the
 * kernel no longer moves it: a write of its pid to cgroup.procs succeeds and
 * does nothing. So an exited task is recognised by its state, not by a write.
 * A task already exiting but not yet a zombie counts too: from the moment it
 * starts to exit, /proc/PID/cgroup shows "/" in every v1 hierarchy.
 */
static bool stat_says_exited(const char *stat)
{
	char state = 0;
	unsigned flags = 0;
	const char *p = strrchr(stat, ')');
	if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %u", &state, &flags) != 2)
		return false;
	return state == 'Z' || state == 'X' || (flags & TASK_FLAG_EXITING);
}

bool task_exited(pid_t pid)
{
	char path[64];
	_cleanup_free_ char *stat = NULL;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 || read_proc_record_fd(fd, &stat) < 0 || stat_says_exited(stat);
}

bool victim_exited(struct victim *v)
{
	_cleanup_free_ char *stat = NULL;
	if (v->stat_fd < 0) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)v->pid);
		if ((v->stat_fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			return true;
		/* Opened while the pinned task still held its pid (a zombie holds it too): the file is that task's. */
		if (!pidfd_alive(v->pidfd))
			return true;
	}
	return read_proc_record_fd(v->stat_fd, &stat) < 0 || stat_says_exited(stat);
}

/* Its uids and cgroups, read once it is pinned; a read that fails because it exited says so. */
int victim_facts(struct victim *v, struct err *e)
{
	if (proc_ids_read(v->pid, &v->ids, e) == 0 && proc_cgroups_read(v->pid, &v->pc, e) == 0 && pidfd_alive(v->pidfd))
		return 0;
	if (!pidfd_alive(v->pidfd) || kill(v->pid, 0) < 0)
		return err_set(e, ERR_NOT_FOUND, "pid %d exited while it was being checked; nothing was moved", (int)v->pid);
	return -1;
}

int victim_open(pid_t pid, struct victim *v, struct err *e)
{
	*v = (struct victim){.pid = pid, .pidfd = -1, .stat_fd = -1};
	if (pid <= 0)
		return err_set(e, ERR_INVALID, "pid %d is not a valid pid", (int)pid);
	v->pidfd = pidfd_open(pid, 0);
	int err = v->pidfd < 0 ? errno : 0;
	/* Without pidfds (Linux < 5.3, valgrind) kill(2) tells whether the pid exists. */
	if (err == ENOSYS && kill(pid, 0) < 0 && errno == ESRCH)
		err = ESRCH;
	if (err == ESRCH)
		return err_set(e, ERR_NOT_FOUND, "pid %d does not exist (it may have exited)", (int)pid);
	if (err && err != ENOSYS)
		return err_errno(e, err, "pid %d", (int)pid);
	return victim_facts(v, e);
}

/* A pid number means something only in the pid namespace it came from. */
int pid_args_refused(const struct requester *r, struct err *e)
{
	if (!r->proxy && r->other_pidns)
		return err_set(e, ERR_NOT_SUPPORTED,
		               "pid arguments from another pid namespace cannot be trusted; use the Scm call (or cgproxy) so "
		               "that the kernel translates the pid");
	return 0;
}

/* Where the victim is in h, relative to the daemon's root; refuses tasks outside it. */
int victim_rel(const struct victim *v, const struct hierarchy *h, char rel[CGNAME_MAX], struct err *e)
{
	const char *path = proc_cgroups_path(&v->pc, h->id);
	if (!path)
		return err_set(e, ERR_NOT_FOUND, "pid %d is in no cgroup of %s", (int)v->pid, h->name);
	if (rel_within_root(h, path, rel) == 0)
		return 0;
	if (task_exited(v->pid))
		return err_set(e, ERR_NOT_FOUND, "pid %d has exited; nothing was done", (int)v->pid);
	return err_set(e, ERR_ACCESS, "pid %d is in %s:%s, outside %s:%s, the tree this daemon manages", (int)v->pid,
	               h->name, path, h->name, h->root_path);
}

/* The task behind a pidfd the requester passed: its pid here comes from the kernel (fdinfo), never from the peer. */
int victim_open_pidfd(int pidfd, struct victim *v, struct err *e)
{
	char path[64];
	_cleanup_free_ char *info = NULL;
	const char *line;
	int pid;

	*v = (struct victim){.pidfd = -1, .stat_fd = -1};
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	if (read_small_file_at(AT_FDCWD, path, &info) < 0 || !(line = strstr(info, "\nPid:")) ||
	    sscanf(line + 5, "%d", &pid) != 1)
		return err_set(e, ERR_INVALID, "the fd passed is not a pidfd");
	if (pid == -1)
		return err_set(e, ERR_NOT_FOUND, "the process the pidfd refers to has exited");
	if (pid == 0)
		return err_set(e, ERR_ACCESS, "the process the pidfd refers to is not visible to the daemon");
	v->pid = pid;
	v->pidfd = fcntl(pidfd, F_DUPFD_CLOEXEC, 3);
	if (v->pidfd < 0)
		return err_errno(e, errno, "cannot keep the pidfd");
	return victim_facts(v, e);
}

int victim_relative_name(const struct victim *v, const struct hierarchy *h, const char *vrel,
                         const struct proc_cgroups *pc, char name[CGNAME_MAX], struct err *e)
{
	char req_rel[CGNAME_MAX];
	const char *own = proc_cgroups_path(pc, h->id), *rest;
	if (!own || rel_within_root(h, own, req_rel) < 0)
		return err_set(e, ERR_ACCESS, "your cgroup in %s is outside %s:%s, the tree this daemon manages", h->name,
		               h->name, h->root_path);
	if (!rel_is_beneath(vrel, req_rel))
		return err_set(e, ERR_ACCESS, "pid %d is in %s:/%s, which is not beneath your cgroup %s:/%s", (int)v->pid,
		               h->name, vrel, h->name, req_rel);
	for (rest = vrel + strlen(req_rel); *rest == '/'; rest++)
		;
	snprintf(name, CGNAME_MAX, "%s", rest);
	return 0;
}
