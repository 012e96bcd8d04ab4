/*
 * Pure access decisions: (requester, facts about the target, action) ->
 * allowed, or refused with a sentence saying why. No I/O: callers gather
 * the facts from the kernel and hand them in, so every rule is unit-tested
 * without root.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define POLICY_MAX_GROUPS 64

struct idmap;

/* A requester as the daemon's user namespace sees it (uids and gids are host ids). */
struct cred {
	uid_t uid;
	gid_t gid;
	gid_t groups[POLICY_MAX_GROUPS];
	size_t ngroups;
	bool in_userns;      /* outside the daemon's user namespace (a container) */
	bool ns_root;        /* in_userns, and uid 0 there */
	struct idmap *uidmap, *gidmap; /* its user namespace's maps, when in_userns */
};

/* Host root: uid 0 in the daemon's user namespace. */
bool policy_is_host_root(const struct cred *c);
/* Host root, or root of a user namespace into which both uid and gid are mapped. */
bool policy_privileged_over(const struct cred *c, uid_t uid, gid_t gid);

/* Owner and mode of a cgroupfs directory or file, as stat(2) reports them. */
struct owner {
	uid_t uid;
	gid_t gid;
	mode_t mode;
};

#define POLICY_WHY_MAX 384

/*
 * An Scm credential names ids the kernel let its sender claim; but the sender need not be the peer that passed
 * the socket (a socket wired to one the daemon writes to carries the daemon's own, root's). So the peer must be
 * able to have sent them itself, as the kernel would let it: its own uid and one of its gids, or, for root of
 * the host or of a user namespace, ids that namespace maps. which names the credential ("requester's").
 */
bool policy_may_vouch(const struct cred *peer, uid_t uid, gid_t gid, const char *which, char why[POLICY_WHY_MAX]);

enum access_want { WANT_READ = 4, WANT_WRITE = 2, WANT_SEARCH = 1 };

/* Unix permission bits as the kernel applies them; root may do anything. */
bool policy_permits(const struct cred *c, const struct owner *o, int want);
bool policy_in_group(const struct cred *c, gid_t gid);
/* Whether every rule answers a and b alike: the same ids and groups, in the same user namespace (its maps). */
bool policy_same_cred(const struct cred *a, const struct cred *b);

/* "what" names the target for the message, e.g. "memory:/a/b". */
bool policy_may_create_in(const struct cred *c, const struct owner *parent, const char *what, char why[POLICY_WHY_MAX]);
bool policy_may_remove(const struct cred *c, const struct owner *parent, const char *what, bool is_requesters_own,
                       char why[POLICY_WHY_MAX]);
bool policy_may_read(const struct cred *c, const struct owner *file, const char *what, char why[POLICY_WHY_MAX]);
bool policy_may_list(const struct cred *c, const struct owner *dir, const char *what, char why[POLICY_WHY_MAX]);
/* Where a cgroup stands relative to the requester and the daemon: facts a rule may turn on. */
struct cgroup_place {
	bool daemon_root;    /* the root of the tree the daemon serves */
	bool requesters_own; /* the cgroup the requester itself is in */
};
/* Setting a value: the file must be writable, not a task or agent file, and "/" is host root's alone. */
bool policy_may_set_value(const struct cred *c, const struct owner *file, const char *key, struct cgroup_place at,
                          const char *what, char why[POLICY_WHY_MAX]);
/* Facts about an ancestor whose cgroup.subtree_control a request would have the daemon change. */
struct controller_place {
	bool enabled;               /* the controller is enabled there already */
	bool above_requesters_own;  /* a strict ancestor of the requester's own cgroup */
};
/*
 * Enabling controller ctrl in the cgroup.subtree_control of an ancestor of a cgroup that c creates, is handed
 * (Create, Chown with controllers) or sets a limit of: the daemon does it for c, top-down. Nothing to allow where
 * ctrl is enabled already. Host root may anywhere; anyone else only where it may write that cgroup.subtree_control
 * itself, as the kernel lets a delegatee at and beneath its delegation point (whose cgroup.subtree_control it was
 * handed), never above it; from a user namespace never above its own cgroup, the boundary the kernel draws
 * there (nsdelegate), whoever owns the files. "what" names the ancestor ("unified:/a").
 */
bool policy_may_enable_controller(const struct cred *c, const struct owner *subtree_control, struct controller_place at,
                                  const char *ctrl, const char *what, char why[POLICY_WHY_MAX]);
bool policy_may_chown(const struct cred *c, const struct owner *dir, uid_t new_uid, gid_t new_gid, const char *what,
                      char why[POLICY_WHY_MAX]);
bool policy_may_chmod(const struct cred *c, const struct owner *file, int mode, const char *what,
                      char why[POLICY_WHY_MAX]);

/* Facts about the task to move: every uid it runs as. */
struct task_facts {
	pid_t pid;
	uid_t uids[4]; /* real, effective, saved, fs */
	bool visible;  /* in the requester's pid namespace or one beneath it */
};
/* What is done to a task of someone's: each is refused by the same rule, and the refusal names it. */
enum task_action { TASK_MOVE, TASK_SIGNAL, TASK_FREEZE };
/*
 * Root, or every uid of the task is the requester's (so a set-uid program is not the user's to move, signal
 * or freeze: freezing stops a task as surely as SIGSTOP).
 */
bool policy_owns_task(const struct cred *c, const struct task_facts *t, enum task_action action,
                      char why[POLICY_WHY_MAX]);
/*
 * Moving a task: the requester must run as the task's uid (all of them, so a
 * set-uid program cannot be moved by the user who started it) or be root;
 * it must be able to write the destination's procs file; on cgroup2 also
 * the procs file of the common ancestor of source and destination, as the
 * kernel demands of a delegatee.
 */
bool policy_may_move(const struct cred *c, const struct task_facts *t, const struct owner *dest_procs,
                     const struct owner *common_ancestor_procs, const char *what, char why[POLICY_WHY_MAX]);

/*
 * Whether a move needs the common ancestor's procs file (above): on cgroup2, unless the destination is beneath
 * the task's own cgroup and that cgroup is a plain domain (cgroup.type "domain": no threaded subtree, so every
 * thread of the task is there, and the write to cgroup.procs takes none out of another cgroup). Such a move
 * down leaves the task under every cgroup it was under, so no limit is escaped; it is how a login session's own
 * tasks get into the cgroup delegated beneath the session's (root's) cgroup, as systemd's
 * AttachProcessesToUnit lets them into user@.service. The task must still be the requester's own.
 */
bool policy_move_needs_common_ancestor(bool unified, bool destination_beneath_task, bool task_cgroup_plain_domain);

/*
 * Writing value to file acts on the cgroup's tasks as a Kill or a Freeze does, so it is bound by the same
 * per-task rule: v1 freezer.state but THAWED and cgroup.freeze but 0 freeze (*action TASK_FREEZE),
 * cgroup.kill signals (TASK_SIGNAL).
 */
bool policy_write_acts_on_tasks(const char *file, const char *value, enum task_action *action);

/* Files a value may never be written to: they move tasks or run programs as root. */
bool policy_is_task_or_agent_file(const char *key);
/* The files a chown hands over; the limit files stay with their owner. */
bool policy_is_delegated_file(const char *file, bool unified, const char *const *kernel_delegate_list);
