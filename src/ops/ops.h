/*
 * One function per operation: the only place that says what a request
 * means. Transport-agnostic: the D-Bus interfaces turn arguments into these
 * calls and results into replies. Every function returns 0, or -1 with e set.
 */
#pragma once
#include <stdbool.h>
#include <sys/types.h>

#include "cgfs/cgdir.h"
#include "cgfs/hierarchy.h"
#include "policy/policy.h"
#include "util/err.h"
#include "util/strv.h"

struct release_watch;
struct quotas;
struct watches;

struct ops {
	struct hierarchies hs;
	struct hierarchy_set all; /* every one of hs: what "all" and the key API's calls act on */
	struct release_watch *release;
	strv delegate_files;     /* /sys/kernel/cgroup/delegate, NULL-terminated */
	bool have_delegate_list;
	ino_t pidns, userns;     /* the daemon's own, to recognise host requesters */
	struct quotas *quotas;   /* ops/quota.h */
	struct watches *watches; /* ops/watch.h: Watch's subscriptions and their event source */
	struct {
		int fd;              /* ops/journal.h; -1: none */
		off_t len, last;     /* its length, and where its last note starts */
		char *path;
	} journal;
};

/* Who is asking: the kernel's view of the peer, pinned by a pidfd. */
struct requester {
	pid_t pid;
	int pidfd; /* -1 where the kernel has no pidfds */
	/*
	 * /proc/PID/cgroup opened with the connection's first message, so that each request reads the cgroups
	 * of the very task that connected with one pread (proc_cgroups_read_fd); -1 (Scm requesters, cgproxy):
	 * read by pid.
	 */
	int cgroup_fd;
	struct cred cred;
	/*
	 * For the Scm calls: the D-Bus peer that relayed the request (a cgproxy,
	 * or the requester itself). Pids and ids in the request came through
	 * the kernel's credential translation. NULL for plain calls.
	 */
	const struct requester *proxy;
	/*
	 * Names are relative to the daemon's root, not to the requester's cgroup: the systemd1 interface's
	 * requesters, host root alone, whose unit names map beneath the root whatever cgroup they call from.
	 */
	bool names_from_root;
	/* Filled by requester_identify (ops/identity.h). */
	ino_t pidns, userns;
	bool other_pidns; /* not in the daemon's pid namespace */
};

int ops_init(struct ops *o, struct err *e);
void ops_free(struct ops *o);

int ops_get_pid_cgroup(struct ops *o, const struct requester *r, const struct hierarchy_set *set, pid_t pid,
                       bool absolute, char **out, struct err *e);
/* *existed: 1 when the cgroup was already there in every hierarchy, -1 when this call created it. */
int ops_create(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
               int *existed, struct err *e);
/* The same, keeping a record of what it made so that the key API's Create can take it all back. */
struct create_state;
int ops_create_recorded(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
                        int *existed, struct create_state **rec, struct err *e);
/* Removes what the call recorded made, and frees rec; create_record_free keeps it. */
void create_record_undo(struct create_state *rec);
void create_record_free(struct create_state *rec);
int ops_chown(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup, uid_t uid,
              gid_t gid, struct err *e);
/* Chown with uid and gid as the daemon's user namespace numbers them, already translated. */
int ops_chown_host_ids(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
                       uid_t uid, gid_t gid, struct err *e);
int ops_chmod(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
              const char *file, int mode, struct err *e);
/* The same for the process pidfd refers to: no pid number, so no namespace question and no reuse race. */
int ops_move_pidfd(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
                   int pidfd, struct err *e);
int ops_move_pid(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
                 pid_t pid, bool absolute, struct err *e);
int ops_get_value(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
                  const char *key, char **out, struct err *e);
int ops_set_value(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
                  const char *key, const char *value, struct err *e);
/* *existed: 1 when removed, -1 when it did not exist. */
int ops_remove(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
               bool recursive, int *existed, struct err *e);
/*
 * Recursive with a list of controllers or "all" (set->several), as 0.42: a hierarchy where the cgroup does not
 * exist adds no task. Of a set of one named alone, a missing cgroup is ERR_NOT_FOUND whatever its name.
 */
int ops_get_tasks(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
                  bool recursive, pidv *out, struct err *e);
int ops_list_children(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
                      strv *out, struct err *e);
int ops_remove_on_empty(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
                        struct err *e);
/* *existed as ops_remove, for the named cgroup itself. */
int ops_prune(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
              int *existed, struct err *e);
/* cgmanager0_0's ListControllers: the names a 0.42 client finds in its /proc/self/cgroup (see ops.c). */
int ops_list_controllers(struct ops *o, strv *out, struct err *e);

struct key_info {
	char *name;
	uid_t uid;
	gid_t gid;
	mode_t mode;
};
typedef struct {
	struct key_info *v;
	size_t n;
} keyv;
void keyv_free(keyv *k);
int ops_list_keys(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
                  keyv *out, struct err *e);
