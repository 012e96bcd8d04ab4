/* Key-API jobs: an operation that waits on the kernel, stepped by the caller until done or past its deadline. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ops/job.h"

long long monotonic_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

struct ops_job *ops_job_new(const char *name, int deadline_ms, struct err *e)
{
	struct ops_job *j = calloc(1, sizeof(*j));
	if (j && !(j->name = strdup(name))) {
		free(j);
		j = NULL;
	}
	if (!j) {
		err_set(e, ERR_LIMIT, "out of memory");
		return NULL;
	}
	j->deadline_ms = monotonic_ms() + deadline_ms;
	return j;
}

void ops_job_free(struct ops_job *job)
{
	if (!job)
		return;
	ops_job_wake_clear(job);
	free(job->name);
	pidv_free(&job->seen);
	free(job);
}

void ops_job_wake_clear(struct ops_job *j)
{
	while (j->n_wake > 0)
		close(j->wake[--j->n_wake]);
}

unsigned ops_job_signalled_fds(const struct ops_job *job, int *fds, unsigned max)
{
	unsigned n = job->n_wake < max ? job->n_wake : max;
	memcpy(fds, job->wake, n * sizeof(*fds));
	return n;
}

unsigned ops_job_wake_fds(const struct ops_job *job, int *fds, unsigned max)
{
	/* Only SIGKILL's steps wait for exits; another signal's next round looks for forks after a fixed wait. */
	return job->sig == SIGKILL ? ops_job_signalled_fds(job, fds, max) : 0;
}

int ops_job_step(struct ops *o, const struct requester *r, struct ops_job *job, struct err *e)
{
	return job->step(o, r, job, e);
}
