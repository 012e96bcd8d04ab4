/* Kernel facts about a process, read from /proc. */
#pragma once
#include <stdbool.h>
#include <sys/types.h>

#include "util/err.h"

#define PROC_CGROUP_MAX 32

struct proc_cgroup_entry {
	int id;      /* 0 for cgroup2 */
	char *path;  /* as the reader's cgroup namespace shows it */
};

struct proc_cgroups {
	struct proc_cgroup_entry e[PROC_CGROUP_MAX];
	int n;
};

/* Parses the text of /proc/PID/cgroup. */
int proc_cgroups_parse(const char *text, struct proc_cgroups *out);
int proc_cgroups_read(pid_t pid, struct proc_cgroups *out, struct err *e);
/* /proc/PID/cgroup opened (fd or -errno): kept open, it reads the task it was opened for, or fails (ESRCH). */
int proc_cgroups_open(pid_t pid);
/* proc_cgroups_read from such an fd. */
int proc_cgroups_read_fd(int fd, pid_t pid, struct proc_cgroups *out, struct err *e);
/* The path for hierarchy id, or NULL. */
const char *proc_cgroups_path(const struct proc_cgroups *pc, int id);
void proc_cgroups_free(struct proc_cgroups *pc);

struct proc_ids {
	uid_t uid[4]; /* real, effective, saved, fs */
	gid_t gid[4];
};

/* Parses the Uid: and Gid: lines of /proc/PID/status text. */
int proc_status_parse_ids(const char *text, struct proc_ids *out);
int proc_ids_read(pid_t pid, struct proc_ids *out, struct err *e);

/*
 * The NSpid: line of /proc/PID/status: the task's pid in each pid namespace
 * from the reader's down to its own. Returns the count, or -errno.
 */
#define PROC_NSPID_MAX 33 /* the kernel nests pid namespaces 32 deep */
int proc_status_parse_nspid(const char *text, pid_t *out, int max);
int proc_nspid_read(pid_t pid, pid_t *out, int max);

/* The Tgid: line of /proc/TID/status: the process a thread belongs to; -errno. */
int proc_status_parse_tgid(const char *text);
int proc_tgid_read(pid_t tid);
/* The PPid: line: the parent's pid; -EINVAL for 0 (a parent outside the reader's pid namespace), else -errno. */
int proc_status_parse_ppid(const char *text);
int proc_ppid_read(pid_t pid);

/* Reads a whole small file into a NUL-terminated heap buffer. */
int read_small_file_at(int dirfd, const char *path, char **out);
/*
 * The same for a /proc file of one record (single_open: status, stat, cgroup), read with pread from offset 0:
 * the kernel renders the record whole and a read shorter than asked is all of it, so no read for the end.
 */
int read_proc_record_fd(int fd, char **out);
