#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgfs/proc.h"
#include "ops/identity.h"
#include "ops/release.h"
#include "ops/target.h"
#include "ops/unified.h"
#include "ops/victim.h"
#include "util/cleanup.h"
#include "util/log.h"

/* The longest common ancestor of two relative paths. */
static void common_ancestor(const char *a, const char *b, char out[CGNAME_MAX])
{
	size_t last = 0, i = 0;
	for (; a[i] && a[i] == b[i]; i++)
		if (a[i] == '/')
			last = i;
	if ((a[i] == '\0' && (b[i] == '\0' || b[i] == '/')) || (b[i] == '\0' && a[i] == '/'))
		last = i;
	memcpy(out, a, last);
	out[last] = '\0';
}

/* cgroup.type "domain": not in a threaded subtree (the root cgroup, which has no cgroup.type, may hold one). */
static bool plain_domain(const struct hierarchy *h, const char *rel)
{
	_cleanup_close_ int fd = cgdir_open_beneath(h->root_fd, rel);
	_cleanup_free_ char *type = NULL;
	if (fd < 0 || cgdir_read(fd, "cgroup.type", &type) < 0)
		return false;
	type[strcspn(type, "\n")] = '\0';
	return strcmp(type, "domain") == 0;
}

static int check_move(struct ops *o, const struct requester *r, const struct victim *v, struct target *t,
                      bool absolute, struct err *e)
{
	char vrel[CGNAME_MAX], anc[CGNAME_MAX], why[POLICY_WHY_MAX];
	struct owner dest, ancestor;
	bool need_ancestor;
	struct task_facts tf = {.pid = v->pid, .visible = !r->other_pidns || pid_visible_in(v->pid, r->pidns)};

	memcpy(tf.uids, v->ids.uid, sizeof(tf.uids));
	/* Whose task it is comes first: that is the refusal that matters. */
	if (!policy_owns_task(&r->cred, &tf, TASK_MOVE, why))
		return err_set(e, ERR_ACCESS, "%s", why);
	if (victim_rel(v, t->h, vrel, e) < 0)
		return -1;
	if (!rel_is_beneath(vrel, t->req_rel))
		return err_set(e, ERR_ACCESS, "pid %d is in %s:/%s, outside %s %s:/%s%s", (int)v->pid, t->h->name, vrel,
		               absolute ? "the cgroup of the proxy that relayed you," : "your cgroup", t->h->name, t->req_rel,
		               absolute ? "" : " (MovePidAbs is for root)");
	if (target_owner(t, "cgroup.procs", &dest, e) < 0)
		return -1;
	/* cgroup.type is read only where it decides: a non-root move down on cgroup2. */
	bool down = t->h->unified && r->cred.uid != 0 && rel_is_beneath(t->rel, vrel);
	need_ancestor = r->cred.uid != 0 &&
	                policy_move_needs_common_ancestor(t->h->unified, down, down && plain_domain(t->h, vrel));
	if (need_ancestor) {
		common_ancestor(vrel, t->rel, anc);
		_cleanup_close_ int afd = cgdir_open_beneath(t->h->root_fd, anc);
		struct stat st;
		if (afd < 0 || cgdir_stat(afd, "cgroup.procs", &st) < 0)
			return err_set(e, ERR_FAILED, "cannot inspect the common ancestor %s:/%s", t->h->name, anc);
		ancestor = (struct owner){st.st_uid, st.st_gid, st.st_mode};
	}
	if (!policy_may_move(&r->cred, &tf, &dest, need_ancestor ? &ancestor : NULL, t->what, why))
		return err_set(e, ERR_ACCESS, "%s", why);
	return 0;
}

/* Why the kernel would not take the task into t, in words that say what to do. */
static void move_refused(const struct victim *v, const struct target *t, int errnum, struct err *e)
{
	int pid = (int)v->pid;
	if (errnum == ESRCH)
		err_set(e, ERR_NOT_FOUND, "pid %d exited before it could be moved into %s", pid, t->what);
	else if (errnum == ENOSPC && !t->h->unified)
		err_set(e, ERR_LIMIT, "cannot move pid %d into %s: the kernel refused (no space left on device): its "
		        "cpuset.cpus or cpuset.mems is empty, so no task can run there; set both first (the key API's "
		        "cpus_allowed)", pid, t->what);
	else if (errnum == ENOENT || errnum == ENODEV)
		err_set(e, ERR_NOT_FOUND, "cannot move pid %d into %s: it was removed meanwhile", pid, t->what);
	else if (errnum == EBUSY && t->h->unified)
		err_set(e, ERR_BUSY, "cannot move pid %d into %s: the kernel refused (device or resource busy): a cgroup2 "
		        "cgroup whose children have controllers holds no tasks", pid, t->what);
	else if (errnum == EOPNOTSUPP && t->h->unified)
		err_set(e, ERR_NOT_SUPPORTED, "cannot move pid %d into %s: the kernel refused (operation not supported): "
		        "%s is part of a threaded subtree, or pid %d is a kernel thread", pid, t->what, t->what, pid);
	else
		err_errno(e, errnum, "cannot move pid %d into %s: the kernel refused", pid, t->what);
}

/*
 * Writes pidstr into the cgroup of h that /proc/PID/cgroup names path, beneath the daemon's root (-ENOENT
 * outside it: the daemon writes nowhere else); into its leaf where its children have controllers, as the task
 * was. 0 or -errno.
 */
static int move_into_path(struct hierarchy *h, const char *path, const char *pidstr)
{
	struct target back = {.h = h, .req_fd = -1};
	_cleanup_close_ int leaf = -1;
	int r;
	if (!path || rel_within_root(h, path, back.rel) < 0)
		return -ENOENT;
	back.fd = cgdir_open_beneath(h->root_fd, back.rel);
	r = back.fd;
	if (r >= 0 && (r = unified_procs_dir(&back, &leaf)) >= 0)
		r = cgdir_write(r, "cgroup.procs", pidstr);
	if (back.fd >= 0)
		close(back.fd);
	return r;
}

/*
 * Nothing half-done: after a refusal in t[n], the task goes back where it
 * was in the hierarchies t[0..n-1] it was already moved in. The reason is
 * kept in e; only a failure to move it back is added.
 */
static void move_back(const struct victim *v, const struct target *t, int n, struct err *e)
{
	char pidstr[16];
	bool all_back = true;
	snprintf(pidstr, sizeof(pidstr), "%d", (int)v->pid);
	if (n == 0 || !pidfd_alive(v->pidfd))
		return;
	for (int i = n; i-- > 0;) {
		struct hierarchy *h = t[i].h;
		const char *path = proc_cgroups_path(&v->pc, h->id);
		int r = move_into_path(h, path, pidstr);
		if (r < 0 && r != -ESRCH) {
			char msg[WHAT_MAX + CGNAME_MAX + 128];
			snprintf(msg, sizeof(msg), "; and moving it back into %s:%s failed (%s), so it stays in %s", h->name,
			         path ? path : "?", strerror(-r), t[i].what);
			err_append(e, msg);
			all_back = false;
		}
	}
	if (all_back) {
		char msg[64];
		snprintf(msg, sizeof(msg), "; pid %d was left where it was in every hierarchy", (int)v->pid);
		err_append(e, msg);
	}
}

/*
 * The uids were read before the write, and a task can exec a setuid program in between: the kernel then
 * moved a task that is no longer the requester's. Read after the write, they tell: if the task is not the
 * requester's now, it goes back (whether its exec came just before the write or just after, it is someone
 * else's task in the requester's cgroup). A task that exited is left to the check that follows.
 */
static bool changed_hands(const struct requester *r, const struct victim *v, struct err *e)
{
	struct proc_ids now;
	struct err ignored;
	struct task_facts tf = {.pid = v->pid, .visible = true};
	char why[POLICY_WHY_MAX];

	/* Alive after the read: the uids read were this task's, not those of a task that reused its pid. */
	if (policy_is_host_root(&r->cred) || proc_ids_read(v->pid, &now, &ignored) < 0 || !pidfd_alive(v->pidfd))
		return false;
	memcpy(tf.uids, now.uid, sizeof(tf.uids));
	if (policy_owns_task(&r->cred, &tf, TASK_MOVE, why))
		return false;
	err_set(e, ERR_ACCESS, "pid %d changed its uids while it was being moved (it ran a setuid program): %s",
	        (int)v->pid, why);
	return true;
}

/*
 * The victim exited between its last check and a write, and its pid was handed out again at once (a full turn
 * of pid_max; set_tid in the tests): the write moved that new task, which the requester had no right to move.
 * A task made just then is where its parent put it, so in each hierarchy written where it is in the target now
 * and its parent is not, it goes where its parent is. Logged either way: the daemon cannot tell a task that its
 * parent made in another cgroup (clone3's CLONE_INTO_CGROUP), which this moves to the parent's; nor where the
 * process was whose new thread took the pid (the write moved the whole process), which it leaves.
 */
static void reuser_back(const struct requester *r, const struct victim *v, const struct target *t, int n)
{
	/* Gone, and its pid is someone's again: that task may be the one the kernel moved. */
	if (n == 0 || pidfd_alive(v->pidfd) || task_exited(v->pid) || kill(v->pid, 0) < 0)
		return;
	struct proc_cgroups now = {0}, parent = {0};
	struct err ignored;
	char pidstr[16], rel[CGNAME_MAX];
	pid_t ppid = proc_ppid_read(v->pid);
	int back = 0, failed = 0;

	snprintf(pidstr, sizeof(pidstr), "%d", (int)v->pid);
	if (proc_tgid_read(v->pid) == v->pid && ppid > 0 && proc_cgroups_read(v->pid, &now, &ignored) == 0 &&
	    proc_cgroups_read(ppid, &parent, &ignored) == 0)
		for (int i = 0; i < n; i++) {
			const char *here = proc_cgroups_path(&now, t[i].h->id), *there = proc_cgroups_path(&parent, t[i].h->id);
			if (!here || !there || strcmp(here, there) == 0 || rel_within_root(t[i].h, here, rel) < 0 ||
			    strcmp(rel, t[i].rel) != 0)
				continue;
			if (move_into_path(t[i].h, there, pidstr) == 0)
				back++;
			else
				failed++;
		}
	log_warn("pid %d exited while uid %u moved it, and pid %d was handed out again meanwhile: its new task was "
	         "moved back where its parent (pid %d) is in %d hierarchies%s", (int)v->pid, (unsigned)r->cred.uid,
	         (int)v->pid, (int)ppid, back, failed ? "; in some it could not be" : "");
	proc_cgroups_free(&now);
	proc_cgroups_free(&parent);
}

static int move_victim(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
                       struct victim *v, bool absolute, struct err *e)
{
	struct hierarchy *const *sel = set->h;
	struct target t[set->n ? set->n : 1];
	struct proc_cgroups pc = {0};
	int n = (int)set->n, done = 0, rc = -1;
	char pidstr[16];

	/* First: a zombie's cgroups read as the root's, so every other check would be about a task that is gone. */
	if (victim_exited(v))
		return err_set(e, ERR_NOT_FOUND, "pid %d has exited (its parent has not reaped it yet); nothing was moved",
		               (int)v->pid);
	if (hierarchy_set_check(set, e) < 0 || requester_cgroups(o, r, &pc, e) < 0)
		return -1;
	/* Every check first, so a refusal leaves the task where it was in every hierarchy. */
	for (; done < n; done++) {
		int rr = absolute ? target_resolve_abs(r, sel[done], cgroup, true, &t[done], e)
		                  : target_resolve(o, r, &pc, sel[done], cgroup, true, &t[done], e);
		if (rr < 0 || check_move(o, r, v, &t[done], absolute, e) < 0) {
			done++;
			goto out;
		}
	}
	snprintf(pidstr, sizeof(pidstr), "%d", (int)v->pid);
	for (int i = 0; i < n; i++) {
		_cleanup_close_ int leaf = -1;
		int wr = pidfd_alive(v->pidfd) ? 0 : -ESRCH;
		if (wr == 0)
			wr = unified_procs_dir(&t[i], &leaf);
		if (wr >= 0)
			wr = cgdir_write(wr, "cgroup.procs", pidstr);
		if (wr < 0) {
			move_refused(v, &t[i], -wr, e);
			move_back(v, t, i, e);
			reuser_back(r, v, t, i);
			goto out;
		}
	}
	/* Whose it is now: an exec of a setuid program after the check may have made it someone else's. */
	if (changed_hands(r, v, e)) {
		move_back(v, t, n, e);
		goto out;
	}
	/* Still alive after the write: the pid we wrote was the task we checked, and the kernel moved it. */
	if (!pidfd_alive(v->pidfd) || victim_exited(v)) {
		reuser_back(r, v, t, n);
		err_set(e, ERR_NOT_FOUND, "pid %d exited while it was being moved", (int)v->pid);
		goto out;
	}
	for (int i = 0; i < n; i++)
		release_watch_entered(o->release, t[i].h, t[i].rel);
	rc = 0;
out:
	for (int i = 0; i < done; i++)
		target_close(&t[i]);
	proc_cgroups_free(&pc);
	return rc;
}

int ops_move_pid(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
                 pid_t pid, bool absolute, struct err *e)
{
	struct victim v = {.pidfd = -1, .stat_fd = -1};
	int rc = -1;

	if (absolute && !policy_is_host_root(&r->cred) && !(r->proxy && r->cred.ns_root))
		return err_set(e, ERR_ACCESS, "MovePidAbs is for root (of the host, or of a container through its proxy); you "
		               "are uid %u", (unsigned)r->cred.uid);
	if (pid_args_refused(r, e) < 0)
		return -1;
	if (victim_open(pid, &v, e) == 0)
		rc = move_victim(o, r, set, cgroup, &v, absolute, e);
	victim_free(&v);
	return rc;
}

int ops_move_pidfd(struct ops *o, const struct requester *r, const struct hierarchy_set *set, const char *cgroup,
                   int pidfd, struct err *e)
{
	struct victim v = {.pidfd = -1, .stat_fd = -1};
	int rc = -1;
	if (victim_open_pidfd(pidfd, &v, e) == 0)
		rc = move_victim(o, r, set, cgroup, &v, false, e);
	victim_free(&v);
	return rc;
}
