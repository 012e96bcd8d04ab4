/* The state of a key-API operation that waits on the kernel between steps (key_api.h, dbus/deferred.h). */
#pragma once
#include "ops/key_api.h"

struct ops_job {
	int (*step)(struct ops *o, const struct requester *r, struct ops_job *j, struct err *e);
	char *name;
	long long deadline_ms;  /* CLOCK_MONOTONIC */
	int sig;                /* Kill */
	pidv seen;              /* Kill: the tasks signalled so far */
	bool frozen;            /* Freeze/Thaw: the state waited for */
	bool then_remove;       /* Delete with force: remove once the kill is done */
	bool own_only;          /* Kill: the tasks of the cgroup itself, not of its children */
	int wake[OPS_JOB_PIDFDS_MAX]; /* Kill: pidfds of tasks its last round signalled (ops_job_wake_fds) */
	unsigned n_wake;
};

/* A job for name that must be done within deadline_ms from now. */
struct ops_job *ops_job_new(const char *name, int deadline_ms, struct err *e);
long long monotonic_ms(void);
/* Closes the pidfds the previous step kept (each step keeps those of what it waits for now). */
void ops_job_wake_clear(struct ops_job *j);
/* One round of Kill's signals (kill.c), for Delete-force too. */
int kill_job_step(struct ops *o, const struct requester *r, struct ops_job *j, struct err *e);
