/* Mechanics on one cgroup directory, always through fds (no path is resolved twice). */
#pragma once
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "util/strv.h"

/*
 * Opens rel ("" for dirfd itself) beneath dirfd. The kernel refuses any
 * resolution that leaves dirfd, follows a symlink or a /proc magic link, or
 * crosses a mount. Returns an O_DIRECTORY fd or -errno.
 */
int cgdir_open_beneath(int dirfd, const char *rel);

/*
 * mkdir of a cgroup that cgroupfs makes uid:gid's, the directory and every file in it, as it creates them
 * (it takes a new cgroup's owner from its maker's fsuid and fsgid): nobody can give another directory that
 * name and have it taken for the new one, as a later chown by name could be. Only the calling thread's
 * fsuid changes, and back at once. -errno.
 */
int cgdir_mkdir_as(int parentfd, const char *name, uid_t uid, gid_t gid);

/* fstatat of a file in the cgroup ("" for the directory itself); -errno. */
int cgdir_stat(int cgfd, const char *file, struct stat *st);

/* Reads a cgroup file into a heap string; -errno. */
int cgdir_read(int cgfd, const char *file, char **out);
/* Writes value to a cgroup file in one write(2), as cgroupfs wants; -errno. */
int cgdir_write(int cgfd, const char *file, const char *value);

/* Names of child cgroups, sorted. */
int cgdir_children(int cgfd, strv *out);
/* Names of all entries that are not directories, sorted. */
int cgdir_files(int cgfd, strv *out);

typedef struct {
	pid_t *v;
	size_t n, cap;
} pidv;
int pidv_push(pidv *p, pid_t pid);
/* Sorted ascending, each pid once. */
void pidv_sort_unique(pidv *p);
void pidv_free(pidv *p);

/* Appends the pids of cgroup.procs (of a threaded cgroup2 cgroup: the processes of its threads). */
int cgdir_procs(int cgfd, pidv *out);

/* Chowns the directory and every file in it. */
int cgdir_chown_all(int cgfd, uid_t uid, gid_t gid);
