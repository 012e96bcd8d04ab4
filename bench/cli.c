/*
 * `cgm` as a process: fork+exec of `cgm --socket S ping` to its exit, against fork+exec of cgm-noop (the same
 * libraries loaded, nothing done: bench/cgm_noop.c) and of /bin/true, alternating, in the same run.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Milliseconds from fork to the child's exit; -1 when it failed. */
static double run_ms(char *const argv[])
{
	uint64_t t0 = now_ns();
	int st;
	pid_t p = fork();
	if (p < 0)
		return -1;
	if (p == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -1;
	return (double)(now_ns() - t0) / 1e6;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_d);
	return v[n / 2];
}

int bench_cli(const char *cgm, const char *noop, int runs)
{
	char *ping[] = {(char *)cgm, "--socket", (char *)env.sock, "ping", NULL};
	char *floor_[] = {(char *)noop, NULL}, *tru[] = {"/bin/true", NULL};
	double *a = calloc((size_t)runs, sizeof(double)), *b = calloc((size_t)runs, sizeof(double)),
	       *c = calloc((size_t)runs, sizeof(double));
	int rc = 0;
	if (!a || !b || !c)
		return -1;
	for (int r = 0; r < runs && rc == 0; r++)
		if ((a[r] = run_ms(ping)) < 0 || (b[r] = run_ms(floor_)) < 0 || (c[r] = run_ms(tru)) < 0) {
			warnx_("run %d: a program failed", r);
			rc = -1;
		}
	if (rc == 0) {
		double ma = median(a, runs), mb = median(b, runs), mc = median(c, runs);
		printf("## cgm as a process (ms, median of %d, alternating)\n\n| what | median | p90 |\n| --- | ---: | ---: |\n",
		       runs);
		printf("| cgm ping | %.2f | %.2f |\n", ma, a[runs * 9 / 10]);
		printf("| floor: cgm-noop (libcgmanager, libsystemd and their libraries loaded, nothing done) | %.2f | %.2f |\n",
		       mb, b[runs * 9 / 10]);
		printf("| fork+exec of /bin/true | %.2f | %.2f |\n\n", mc, c[runs * 9 / 10]);
		printf("cgm ping / floor: %.2fx %s (target 1.5x)\n", ma / mb, ma <= 1.5 * mb ? "ok" : "MISS");
	}
	free(a);
	free(b);
	free(c);
	if (rc < 0)
		count_failure();
	return rc;
}
