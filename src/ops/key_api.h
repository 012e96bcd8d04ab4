/*
 * The operations behind org.linuxcontainers.cgmanager1: abstract controllers
 * and keys (keys/keys.h) over the same targets, privilege rules and
 * mechanics as the 0.42 operations of ops/ops.h. A name is a cgroup relative
 * to the requester's own, the same in every hierarchy it exists in.
 */
#pragma once
#include "ops/ops.h"

/* One key and its value; a request's or an answer's list of them. */
struct kv {
	char *key, *value;
};
typedef struct {
	struct kv *v;
	size_t n;
} kvv;
int kvv_push(kvv *k, const char *key, char *value_taken);
void kvv_free(kvv *k);

/*
 * The hierarchy backing abstract controller ctrl here, and its version:
 * a v1 hierarchy that has it, else the cgroup2 one where cgroup2 offers it
 * (devices, freezer and cpuacct are core there). "" names cgroup2 itself;
 * "io" and "blkio" are one controller. NULL if none.
 */
struct hierarchy *hierarchy_for_controller(struct ops *o, const char *ctrl, int *version);
/* Pairs controller, "v1" or "v2", for every abstract controller available. */
int ops_key_list_controllers(struct ops *o, strv *names, strv *versions, struct err *e);
/* The hierarchies of ctrls plus those behind the keys of values; every hierarchy if ctrls is empty. */
int ops_key_hierarchies(struct ops *o, const char *const *ctrls, const kvv *values, struct hierarchy_set *set,
                        struct err *e);
int ops_key_create(struct ops *o, const struct requester *r, const char *name, const char *const *ctrls,
                const kvv *values, bool *created, struct err *e);
/* Every value parsed and checked before the first write; a failed write undoes the earlier ones. */
int ops_key_set_values(struct ops *o, const struct requester *r, const char *name, const kvv *values, struct err *e);
int ops_key_get_values(struct ops *o, const struct requester *r, const char *name, const char *const *keys, kvv *out,
                    struct err *e);
int ops_key_list_children(struct ops *o, const struct requester *r, const char *name, strv *out, struct err *e);
/* Pids as the requester's pid namespace numbers them; tasks it cannot see are left out. */
int ops_key_list_tasks(struct ops *o, const struct requester *r, const char *name, bool recursive, pidv *out,
                    struct err *e);
/* The same as the daemon numbers them, for Kill. */
int ops_key_tasks_host(struct ops *o, const struct requester *r, const char *name, bool recursive, pidv *out,
                    struct err *e);
/* uid and gid as the requester's user namespace numbers them. */
int ops_key_chown(struct ops *o, const struct requester *r, const char *name, uid_t uid, gid_t gid, struct err *e);
int ops_key_move(struct ops *o, const struct requester *r, const char *name, int pidfd, struct err *e);
/* For requesters in the daemon's pid namespace only. */
int ops_key_move_pid(struct ops *o, const struct requester *r, const char *name, pid_t pid, struct err *e);
/*
 * The task's cgroup as a name relative to the requester's ("" for its own), the same in every hierarchy; *out is
 * malloc'ed. Refused for a task outside the requester's subtree, or placed differently in two hierarchies.
 * By pid only for requesters in the daemon's pid namespace; by pidfd for any.
 */
int ops_key_pid_cgroup(struct ops *o, const struct requester *r, pid_t pid, char **out, struct err *e);
int ops_key_pidfd_cgroup(struct ops *o, const struct requester *r, int pidfd, char **out, struct err *e);
/*
 * The operations that wait on the kernel run as jobs, so that the daemon's
 * loop never waits: start does what can be done at once and leaves *job
 * NULL when nothing is left to wait for; otherwise ops_job_step is called
 * again (every few milliseconds) until it returns 1 (done) or -1 (failed).
 */
struct ops_job;
/*
 * How many of the tasks a Kill round signalled its job keeps pidfds of, to be told when they exit (one exit is
 * enough to look again); counted in each connection's file descriptors (dbus/server.h).
 */
#define OPS_JOB_PIDFDS_MAX 4
/* Delete: without force only a tree without tasks; with force, Kill(SIGKILL) first. */
int ops_key_delete_start(struct ops *o, const struct requester *r, const char *name, bool force, struct ops_job **job,
                      struct err *e);
/* Kill: every task of the tree signalled, forks included; for SIGKILL, done once the tree is empty. */
int ops_key_kill_start(struct ops *o, const struct requester *r, const char *name, int sig, struct ops_job **job,
                    struct err *e);
/* The same for the tasks of the cgroup itself only, not of its children (a slice's own, which no unit holds). */
int ops_key_kill_own_start(struct ops *o, const struct requester *r, const char *name, int sig, struct ops_job **job,
                           struct err *e);
/* Freeze or thaw: freezer.state set, done once the kernel reports the whole tree in that state. */
int ops_key_freeze_start(struct ops *o, const struct requester *r, const char *name, bool frozen, struct ops_job **job,
                      struct err *e);
int ops_job_step(struct ops *o, const struct requester *r, struct ops_job *job, struct err *e);
/*
 * Up to max fds (pidfds of killed tasks) that become readable when the job's next step may find it done: the
 * caller steps it then rather than waiting for its timer. Valid until the next step. Their count.
 */
unsigned ops_job_wake_fds(const struct ops_job *job, int *fds, unsigned max);
/* Up to max pidfds of the tasks a Kill job's last round signalled, whatever the signal: for a wait for their exits. */
unsigned ops_job_signalled_fds(const struct ops_job *job, int *fds, unsigned max);
void ops_job_free(struct ops_job *job);
