/*
 * The task a request names by pid or by pidfd, pinned by a pidfd so that its facts (uids, cgroups) and what is
 * done to it concern one process. Shared by MovePid and GetPidCgroup.
 */
#pragma once
#include <stdbool.h>
#include <sys/types.h>

#include "cgfs/proc.h"
#include "ops/target.h"

/* The task named by pid, pinned so that its facts and the move concern one process. */
struct victim {
	pid_t pid;
	int pidfd;
	int stat_fd; /* its /proc/PID/stat, opened by the first victim_exited */
	struct proc_ids ids;
	struct proc_cgroups pc;
};

void victim_free(struct victim *v);
/* Pins pid and reads its facts; refuses pids that do not exist or exited meanwhile. */
int victim_open(pid_t pid, struct victim *v, struct err *e);
/* The task behind a pidfd the requester passed: its pid here comes from the kernel (fdinfo), never from the peer. */
int victim_open_pidfd(int pidfd, struct victim *v, struct err *e);
/* A pid number means something only in the pid namespace it came from: refused from another one unless relayed. */
int pid_args_refused(const struct requester *r, struct err *e);
/* Where the victim is in h, relative to the daemon's root; refuses tasks outside it. */
int victim_rel(const struct victim *v, const struct hierarchy *h, char rel[CGNAME_MAX], struct err *e);
/*
 * Where the victim, at vrel in h (victim_rel), is relative to the requester's cgroup there (pc): "" for that
 * cgroup itself. Refused where it is not beneath it, or the requester's cgroup is outside the daemon's tree.
 */
int victim_relative_name(const struct victim *v, const struct hierarchy *h, const char *vrel,
                         const struct proc_cgroups *pc, char name[CGNAME_MAX], struct err *e);
/* False once the process of pidfd is gone (true without a pidfd: nothing to ask). */
bool pidfd_alive(int pidfd);
/* An exited task keeps its pid as a zombie but the kernel no longer moves it: told by its state, not a write. */
bool task_exited(pid_t pid);
/*
 * task_exited of the victim, from a /proc/PID/stat kept open from its first call: the kept file reads that task
 * or fails once it is reaped, where a file opened again by pid number could read a task that reused the pid.
 */
bool victim_exited(struct victim *v);
