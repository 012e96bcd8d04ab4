/*
 * Kill: a signal to every task of a subtree, forks included. Each task is
 * pinned by a pidfd and checked as kill(2) would check it from the
 * requester, so a cgroup one owns never lends power over someone else's
 * task that sits in it. Host root on cgroup2 gets cgroup.kill, which the
 * kernel makes atomic against forks.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ops/job.h"
#include "ops/key_ctx.h"
#include "ops/subtree_tasks.h"
#include "util/cleanup.h"

#define KILL_DEADLINE_MS 5000


static void unpin(int pidfd)
{
	if (pidfd >= 0)
		close(pidfd);
}

/*
 * Pins pid and checks it as kill(2) would: 0 with *pidfd set, 1 when
 * refused (why filled), 2 when gone, -1 when it cannot be pinned (errno).
 */
static int task_check(const struct requester *r, pid_t pid, int *pidfd, char why[POLICY_WHY_MAX])
{
	int c;
	*pidfd = pidfd_open(pid, 0);
	/* Without pidfds (Linux < 5.3, valgrind) the task is signalled by pid: checked, but not pinned. */
	if (*pidfd < 0 && errno != ENOSYS)
		return errno == ESRCH ? 2 : -1;
	if ((c = task_is_requesters(r, pid, TASK_SIGNAL, why)) != 0)
		unpin(*pidfd);
	return c;
}

/* Host root's SIGKILL on cgroup2: one write, no race with forks. */
static void kill_unified(struct ops *o, const struct requester *r, const char *name)
{
	struct key_ctx k;
	struct err ignored;
	if (!policy_is_host_root(&r->cred) || key_ctx_init(&k, o, r, name, &ignored) < 0)
		return;
	struct target *t = key_ctx_target(&k, "", &ignored);
	/* Not a tree that holds the daemon itself (<root>/.cgmanager): the rounds spare its pid, cgroup.kill would not. */
	if (t && !rel_is_beneath(DAEMON_LEAF, t->rel))
		cgdir_write(t->fd, "cgroup.kill", "1");
	key_ctx_free(&k);
}

/*
 * One round: every task now in the subtree that is due a signal is checked,
 * then signalled. In the first round a refusal signals nobody; later, a task
 * that is not the requester's (put there by root meanwhile) is left alone.
 * *left counts the requester's tasks still there.
 */
static int kill_round(const struct requester *r, const pidv *now, struct ops_job *j, bool first, size_t *left,
                      bool *fresh, struct err *e)
{
	int *fds = calloc(now->n + 1, sizeof(int));
	pid_t *pids = calloc(now->n + 1, sizeof(pid_t));
	size_t n = 0;
	char why[POLICY_WHY_MAX];
	int rc = 0;

	*left = 0;
	*fresh = false;
	if (!fds || !pids) {
		free(fds);
		free(pids);
		return err_set(e, ERR_LIMIT, "out of memory");
	}
	int sig = j->sig;
	pidv *seen = &j->seen;
	for (size_t i = 0; i < now->n; i++) {
		bool again = false;
		/* The daemon in its own tree (it is in <root>/.cgmanager) is not a task anyone's Kill reaches. */
		if (now->v[i] == getpid())
			continue;
		for (size_t k = 0; k < seen->n; k++)
			again |= seen->v[k] == now->v[i];
		int c = task_check(r, now->v[i], &fds[n], why);
		if (c < 0) {
			rc = err_errno(e, errno, "cannot pin pid %d to signal it", (int)now->v[i]);
			break;
		}
		if (c == 1 && first) {
			rc = err_set(e, ERR_ACCESS, "Kill refused, nothing was signalled: %s", why);
			break;
		}
		if (c != 0)
			continue;
		++*left;
		/* SIGKILL goes again to whatever is still there; other signals once to each task. */
		if (sig != SIGKILL && again) {
			unpin(fds[n]);
			continue;
		}
		*fresh |= !again;
		if (!again && pidv_push(seen, now->v[i]) < 0) {
			unpin(fds[n]);
			rc = err_set(e, ERR_LIMIT, "out of memory");
			break;
		}
		pids[n++] = now->v[i];
	}
	/*
	 * Every task was checked before any is signalled: a refusal (or a failure) signals nobody in this round.
	 * The job keeps the pidfds of a few of the tasks it signalled: readable when they exit, they tell one who
	 * waits for that (SIGKILL's steps, a stop) when to look again, sooner than a timer would.
	 */
	for (size_t i = 0; i < n; i++) {
		if (rc == 0) {
			int sent = fds[i] >= 0 ? (int)syscall(SYS_pidfd_send_signal, fds[i], sig, NULL, 0) : kill(pids[i], sig);
			if (sent < 0 && errno != ESRCH)
				rc = err_errno(e, errno, "cannot signal pid %d", (int)pids[i]);
			else if (sent == 0 && fds[i] >= 0 && j->n_wake < OPS_JOB_PIDFDS_MAX) {
				j->wake[j->n_wake++] = fds[i];
				continue;
			}
		}
		unpin(fds[i]);
	}
	free(fds);
	free(pids);
	return rc;
}

int kill_job_step(struct ops *o, const struct requester *r, struct ops_job *j, struct err *e)
{
	pidv now = {0};
	size_t left;
	bool fresh;
	bool first = j->seen.v == NULL;
	/* Before any walk, which a tree that keeps changing under it can make fail: the kernel's kill needs none. */
	if (first && j->sig == SIGKILL && !j->own_only)
		kill_unified(o, r, j->name);
	ops_job_wake_clear(j);
	int rr = ops_key_tasks_host(o, r, j->name, !j->own_only, &now, e);
	if (rr == 0)
		rr = kill_round(r, &now, j, first, &left, &fresh, e);
	pidv_free(&now);
	if (rr < 0)
		return -1;
	if (j->sig == SIGKILL ? left == 0 : !fresh)
		return 1;
	if (monotonic_ms() > j->deadline_ms)
		return err_set(e, ERR_BUSY, "%zu tasks of %s were still there %d s after signal %d", left, j->name,
		               KILL_DEADLINE_MS / 1000, j->sig);
	return 0;
}

static int kill_start(struct ops *o, const struct requester *r, const char *name, int sig, bool own_only,
                      struct ops_job **job, struct err *e)
{
	struct ops_job *j;
	int rr;

	*job = NULL;
	if (sig < 1 || sig > SIGRTMAX)
		return err_set(e, ERR_INVALID, "signal %d is not a signal (1 to %d)", sig, SIGRTMAX);
	if (!(j = ops_job_new(name, KILL_DEADLINE_MS, e)))
		return -1;
	j->sig = sig;
	j->own_only = own_only;
	j->step = kill_job_step;
	if ((rr = kill_job_step(o, r, j, e)) != 0) {
		ops_job_free(j);
		return rr < 0 ? -1 : 0;
	}
	*job = j;
	return 0;
}

int ops_key_kill_start(struct ops *o, const struct requester *r, const char *name, int sig, struct ops_job **job,
                    struct err *e)
{
	return kill_start(o, r, name, sig, false, job, e);
}

int ops_key_kill_own_start(struct ops *o, const struct requester *r, const char *name, int sig, struct ops_job **job,
                           struct err *e)
{
	return kill_start(o, r, name, sig, true, job, e);
}
