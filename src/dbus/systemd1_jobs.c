/*
 * The systemd1 interface's jobs: a StopUnit or KillUnit that waits on the kernel (a kill until the tree is
 * empty, a stop until its tasks have left or its timeout) is stepped from the loop, as dbus/deferred.c steps the
 * key API's, and ends with JobRemoved or the call's reply. A job is done when its unit's cgroup is, or when the
 * stop leaves the tasks as KillMode says, so the result is always done or failed.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgfs/cgdir.h"
#include "dbus/deferred.h"
#include "dbus/peer.h"
#include "dbus/systemd1_internal.h"
#include "util/cleanup.h"
#include "util/list.h"
#include "util/log.h"

void sd1_job_path(uint32_t id, char out[64])
{
	snprintf(out, 64, SD1_JOB_PREFIX "%u", id);
}

void sd1_emit_job_removed(struct systemd1 *s, uint32_t id, const char *unit, const char *result)
{
	char path[64];
	sd1_job_path(id, path);
	if (!s->bus)
		return;
	int r = sd_bus_emit_signal(s->bus, SD1_PATH, SD1_MANAGER, "JobRemoved", "uoss", id, path, unit, result);
	if (r < 0)
		log_warn("systemd1: cannot send JobRemoved of job %u (%s): %s", id, unit, strerror(-r));
}

/* The units whose stop j is are no longer loaded once it ends (or goes with the manager). */
static void unload_stopped(struct systemd1 *s, struct sd1_job *j, bool remove)
{
	for (struct sd1_unit *u = s->units, *next; u; u = next) {
		next = u->next;
		if (u->stop != j)
			continue;
		u->stop = NULL;
		if (remove)
			sd1_unit_remove(s, u);
	}
}

static void job_free(struct systemd1 *s, struct sd1_job *j)
{
	unload_stopped(s, j, false);
	for (struct sd1_job *c = s->jobs; c; c = c->next)
		if (c->parent == j)
			c->parent = NULL;
	wake_set_clear(&j->woken_by);
	loop_timer_cancel(s->loop, &j->timer);
	LIST_REMOVE(s->jobs, j, prev, next);
	ops_job_free(j->job);
	ops_job_free(j->signalled);
	free(j->cgroup);
	free(j->inodes);
	peer_requester_drop(&j->req);
	sd_bus_message_unref(j->reply_to);
	free(j);
}

static void job_end(struct sd1_job *j, int rc, const struct err *e)
{
	struct systemd1 *s = j->s;
	/* A scope's cgroup also goes by itself once its last task has left (remove-on-empty): gone is done. */
	if (rc < 0 && e->kind == ERR_NOT_FOUND)
		rc = 0;
	if (rc < 0)
		log_info("systemd1: job %u of %s failed: %s", j->id, j->unit, e->msg);
	if (j->reply_to) {
		if (s->bus)
			rc < 0 ? sd1_reply_error(j->reply_to, e) : sd_bus_reply_method_return(j->reply_to, "");
	} else {
		sd1_emit_job_removed(s, j->id, j->unit, rc < 0 ? "failed" : "done");
	}
	unload_stopped(s, j, true);
	/* The slice's stop that waited for this one takes its own steps once the last of them has ended. */
	if (j->parent && --j->parent->waiting == 0)
		loop_timer_set(s->loop, &j->parent->timer, now_usec());
	job_free(s, j);
}

/*
 * The next look at the job: less often as it goes on, and for a stop's wait no later than its deadline; sooner
 * when a task it signalled exits.
 */
static void job_again(struct sd1_job *j, uint64_t now)
{
	int fds[WAKE_SET_MAX];
	uint64_t at = now + j->delay;
	if (!j->job && j->cgroup && j->stop.state == UNIT_STOP_SIGNALLED && j->stop.deadline < at)
		at = j->stop.deadline;
	j->delay = j->delay * 2 > DEFERRED_STEP_MAX_USEC ? DEFERRED_STEP_MAX_USEC : j->delay * 2;
	loop_timer_set(j->s->loop, &j->timer, at);
	wake_set_watch(&j->woken_by, fds,
	               j->job         ? ops_job_wake_fds(j->job, fds, WAKE_SET_MAX)
	               : j->signalled ? ops_job_signalled_fds(j->signalled, fds, WAKE_SET_MAX)
	                              : 0);
}

/* The inode of cgroup in hierarchy h, 0 where it is not there. */
static ino_t cgroup_inode(const struct hierarchy *h, const char *cgroup)
{
	_cleanup_close_ int fd = cgdir_open_beneath(h->root_fd, cgroup);
	struct stat st;
	return fd >= 0 && fstat(fd, &st) == 0 ? st.st_ino : 0;
}

/*
 * Whether the stop's cgroup is still the one it started with (or gone): a cgroup made again under its name once
 * the stop's was removed (remove-on-empty) is another's, whose tasks the stop must not signal. The daemon's loop
 * makes and removes cgroups, so nothing of its own comes between this look and the step that follows it.
 */
static bool stop_cgroup_same(struct sd1_job *j)
{
	const struct hierarchies *hs = &j->s->ops->hs;
	for (size_t i = 0; i < hs->n; i++) {
		ino_t now = cgroup_inode(&hs->h[i], j->cgroup);
		if (now && now != j->inodes[i])
			return false;
	}
	return true;
}

/*
 * Whether the stop's cgroup holds no task (a slice's: none of its own); 1 also when it is gone (a scope goes with
 * its last task).
 */
static int stop_cgroup_empty(struct sd1_job *j, struct err *e)
{
	pidv tasks = {0};
	if (ops_key_tasks_host(j->s->ops, &j->req, j->cgroup, !j->own_only, &tasks, e) < 0)
		return e->kind == ERR_NOT_FOUND ? (*e = (struct err){0}, 1) : -1;
	int empty = tasks.n == 0;
	pidv_free(&tasks);
	return empty;
}

/*
 * One round of sig to every task of the stop's cgroup: as systemd's, the signal goes to the tasks there now.
 * The round of KillSignal is kept while the stop waits: the pidfds of the tasks it signalled tell when they exit.
 */
static int signal_once(struct sd1_job *j, int sig, bool keep, struct err *e)
{
	struct ops_job *rounds = NULL;
	int rc = j->own_only ? ops_key_kill_own_start(j->s->ops, &j->req, j->cgroup, sig, &rounds, e)
	                     : ops_key_kill_start(j->s->ops, &j->req, j->cgroup, sig, &rounds, e);
	if (keep && rounds) {
		ops_job_free(j->signalled);
		j->signalled = rounds;
	} else {
		ops_job_free(rounds);
	}
	if (rc < 0 && e->kind == ERR_NOT_FOUND) {
		*e = (struct err){0};
		return 0;
	}
	return rc;
}

/*
 * The end of a slice's stop: its tree removed if no task is left in it. One where its units' stops left tasks
 * (KillMode none) stays, as systemd's does: the slice is stopped all the same.
 */
static int slice_remove(struct sd1_job *j, struct err *e)
{
	struct ops_job *rest = NULL;
	if (ops_key_delete_start(j->s->ops, &j->req, j->cgroup, false, &rest, e) == 0) {
		ops_job_free(rest);
		return 1;
	}
	if (e->kind != ERR_BUSY)
		return -1;
	log_info("systemd1: %s stopped; its cgroup stays, with the tasks its units' stops left", j->unit);
	*e = (struct err){0};
	return 1;
}

/* A stop's steps from where it is until one waits: 0 when it waits (on j->job or the cgroup), 1 done, -1 failed. */
static int stop_advance(struct sd1_job *j, uint64_t now, struct err *e)
{
	struct ops *o = j->s->ops;
	for (;;) {
		int sig, empty;
		if ((empty = stop_cgroup_empty(j, e)) < 0)
			return -1;
		switch (unit_stop_next(&j->stop, empty, now, &sig)) {
		case UNIT_STOP_SIGNAL:
			/* As systemd does, SIGCONT follows, so that a stopped task gets the signal now. */
			if (signal_once(j, sig, true, e) < 0 || (sig != SIGCONT && signal_once(j, SIGCONT, false, e) < 0))
				return -1;
			continue;
		case UNIT_STOP_WAIT:
			return 0;
		case UNIT_STOP_KILL:
			/* A slice's own tasks get SIGKILL until none is left (job_step removes its tree then). */
			if (j->own_only ? ops_key_kill_own_start(o, &j->req, j->cgroup, SIGKILL, &j->job, e) < 0
			                : ops_key_delete_start(o, &j->req, j->cgroup, true, &j->job, e) < 0)
				return -1;
			j->final = true;
			if (j->job)
				return 0;
			return j->own_only ? slice_remove(j, e) : 1;
		case UNIT_STOP_REMOVE:
			if (j->own_only)
				return slice_remove(j, e);
			return ops_key_delete_start(o, &j->req, j->cgroup, false, &j->job, e) < 0 ? -1 : 1;
		case UNIT_STOP_LEAVE:
			return 1;
		}
	}
}

static void job_step(void *owner, uint64_t now)
{
	struct sd1_job *j = owner;
	struct err e = {0};
	wake_set_clear(&j->woken_by);
	/* A slice's stop waits for those beneath it: the last to end wakes it. */
	if (j->waiting)
		return;
	if (j->cgroup && !stop_cgroup_same(j)) {
		log_info("systemd1: the cgroup of %s was removed and made again meanwhile; its stop ends there", j->unit);
		job_end(j, 0, &e);
		return;
	}
	int rc = j->job ? ops_job_step(j->s->ops, &j->req, j->job, &e) : 1;
	if (rc == 0) {
		job_again(j, now);
		return;
	}
	/* A slice's SIGKILL of its own tasks is done: its tree goes if nothing is left in it. */
	if (rc > 0 && j->job && j->own_only && j->final)
		rc = slice_remove(j, &e);
	if (j->cgroup && !j->final) {
		/* A stop that waits on its cgroup: on to its next step. */
		if ((rc = stop_advance(j, now, &e)) == 0) {
			job_again(j, now);
			return;
		}
	}
	job_end(j, rc < 0 ? -1 : 0, &e);
}

/*
 * Who the job's steps act as: the daemon itself, host root, as systemd runs a job it accepted. The caller was
 * host root when it was accepted, and need not wait for the end (busctl does not): its leaving must not fail it.
 */
static void daemon_requester(const struct ops *o, struct requester *to)
{
	*to = (struct requester){.pid = getpid(), .pidfd = -1, .cgroup_fd = -1, .names_from_root = true,
	                         .pidns = o->pidns, .userns = o->userns};
	to->cred.uid = 0;
	to->cred.gid = 0;
}

int sd1_job_run(struct systemd1 *s, const char *unit, struct ops_job *job,
                sd_bus_message *reply_to, uint32_t *id)
{
	struct sd1_job *j = calloc(1, sizeof(*j));
	if (!j) {
		ops_job_free(job);
		return -ENOMEM;
	}
	daemon_requester(s->ops, &j->req);
	j->s = s;
	j->id = *id = ++s->next_job;
	snprintf(j->unit, sizeof(j->unit), "%s", unit);
	j->job = job;
	j->reply_to = reply_to ? sd_bus_message_ref(reply_to) : NULL;
	j->delay = DEFERRED_STEP_USEC;
	loop_timer_init(&j->timer, job_step, j);
	wake_set_init(&j->woken_by, s->loop, &j->timer);
	job_again(j, now_usec());
	LIST_PREPEND(s->jobs, j, prev, next);
	return 0;
}

static struct sd1_job *stop_new(struct systemd1 *s, struct sd1_unit *u, struct err *e)
{
	struct sd1_job *j = calloc(1, sizeof(*j));
	if (!j || !(j->cgroup = strdup(u->cgroup)) || !(j->inodes = calloc(s->ops->hs.n + 1, sizeof(ino_t)))) {
		if (j)
			free(j->cgroup);
		free(j);
		err_set(e, ERR_FAILED, "out of memory");
		return NULL;
	}
	daemon_requester(s->ops, &j->req);
	j->s = s;
	snprintf(j->unit, sizeof(j->unit), "%s", u->name);
	for (size_t i = 0; i < s->ops->hs.n; i++)
		j->inodes[i] = cgroup_inode(&s->ops->hs.h[i], u->cgroup);
	j->delay = DEFERRED_STEP_USEC;
	loop_timer_init(&j->timer, job_step, j);
	wake_set_init(&j->woken_by, s->loop, &j->timer);
	return j;
}

/* A scope's stop, its first step taken now; *out NULL when the step failed (e set). */
static int scope_stop_start(struct systemd1 *s, struct sd1_unit *u, struct sd1_job **out, struct err *e)
{
	struct sd1_job *j = *out = stop_new(s, u, e);
	if (!j)
		return -1;
	unit_stop_init(&j->stop, &u->kill);
	uint64_t now = now_usec();
	int rc = stop_advance(j, now, e);
	if (rc < 0) {
		ops_job_free(j->job);
		ops_job_free(j->signalled);
		free(j->cgroup);
		free(j->inodes);
		free(j);
		*out = NULL;
		return -1;
	}
	j->id = ++s->next_job;
	LIST_PREPEND(s->jobs, j, prev, next);
	u->stop = j;
	/* Done already: ended from the loop all the same, so that JobRemoved follows the call's reply. */
	if (rc > 0) {
		ops_job_free(j->job);
		j->job = NULL;
		j->final = true;
		loop_timer_set(s->loop, &j->timer, now);
	} else {
		job_again(j, now);
	}
	return 0;
}

static bool beneath(const struct sd1_unit *c, const struct sd1_unit *slice)
{
	size_t n = strlen(slice->cgroup);
	return c != slice && strncmp(c->cgroup, slice->cgroup, n) == 0 && c->cgroup[n] == '/';
}

/*
 * A slice's stop, as systemd's (the units in a slice require it): each scope beneath is stopped by its own kill
 * settings, a stop under way already is waited for, and the slices beneath are this job's too. Its own steps, the
 * slice's default stop of the tasks in its cgroup itself, come when the last of those has ended.
 */
static int slice_stop_start(struct systemd1 *s, struct sd1_unit *slice, uint32_t *id, struct err *e)
{
	struct sd1_job *j = stop_new(s, slice, e), *c;
	if (!j)
		return -1;
	struct unit_kill dflt;
	unit_kill_default(&dflt);
	unit_stop_init(&j->stop, &dflt);
	j->own_only = true;
	j->id = *id = ++s->next_job;
	LIST_PREPEND(s->jobs, j, prev, next);
	slice->stop = j;
	for (struct sd1_unit *u = s->units; u; u = u->next) {
		if (!beneath(u, slice))
			continue;
		if (!u->stop && u->kind == UNIT_KIND_SLICE) {
			u->stop = j;
			continue;
		}
		if (!u->stop) {
			struct err failed = {0};
			/* One that cannot be stopped (its first step failed) is logged and left: the others go on. */
			if (scope_stop_start(s, u, &c, &failed) < 0) {
				log_warn("systemd1: stopping %s with its slice %s failed: %s", u->name, slice->name, failed.msg);
				continue;
			}
		} else {
			c = u->stop;
		}
		/* A stop under way beneath whose own slice's stop waits for it already is waited for through that one. */
		if (c != j && !c->parent) {
			c->parent = j;
			j->waiting++;
		}
	}
	if (!j->waiting)
		loop_timer_set(s->loop, &j->timer, now_usec());
	return 0;
}

int sd1_stop_run(struct systemd1 *s, struct sd1_unit *u, uint32_t *id, struct err *e)
{
	struct sd1_job *j;
	if (u->kind == UNIT_KIND_SLICE)
		return slice_stop_start(s, u, id, e);
	if (scope_stop_start(s, u, &j, e) < 0)
		return -1;
	*id = j->id;
	return 0;
}

void sd1_jobs_free(struct systemd1 *s)
{
	while (s->jobs)
		job_free(s, s->jobs);
}
