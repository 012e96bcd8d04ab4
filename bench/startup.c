/*
 * Start-up: from fork+exec of the daemon to its socket answering a Ping from
 * a fresh client, many runs, each daemon on a socket of its own and stopped
 * (SIGTERM) before the next. Floors: fork+exec of the same binary with
 * --version (loader, libraries, exit) and of /bin/true.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void stats(const char *what, double *v, int n)
{
	qsort(v, (size_t)n, sizeof(double), cmp_d);
	printf("| %s | %d | %.2f | %.2f | %.2f | %.2f |\n", what, n, v[0], v[n / 2], v[n * 90 / 100], v[n - 1]);
	fflush(stdout);
}

static double exec_to_exit(const char *path, const char *arg)
{
	uint64_t t0 = now_ns();
	pid_t p = fork();
	if (p == 0) {
		int null = open("/dev/null", 1);
		dup2(null, 1);
		execl(path, path, arg, (char *)NULL);
		_exit(127);
	}
	waitpid(p, NULL, 0);
	return (double)(now_ns() - t0) / 1e6;
}

int bench_startup(const char *daemon, const char *sockdir, int runs)
{
	double *up = calloc((size_t)runs, sizeof(double)), *fl = calloc((size_t)runs, sizeof(double)),
	       *tr = calloc((size_t)runs, sizeof(double));
	int rc = 0, done = 0;
	if (!up || !fl || !tr)
		return -1;
	for (int r = 0; r < runs && rc == 0; r++) {
		char sock[PATHMAX];
		snprintf(sock, sizeof(sock), "%s/startup-%d.sock", sockdir, r);
		unlink(sock);
		uint64_t t0 = now_ns();
		pid_t p = fork();
		if (p < 0)
			die("fork");
		if (p == 0) {
			execl(daemon, daemon, "--socket", sock, "--log-level", "error", (char *)NULL);
			_exit(127);
		}
		bool ok = false;
		while (!ok && now_ns() - t0 < 5000000000ULL) {
			cgm_client *c = NULL;
			if (cgm_connect(sock, &c, NULL) == 0) {
				ok = cgm_ping(c, NULL) == 0;
				cgm_disconnect(c);
			}
			if (!ok) {
				if (waitpid(p, NULL, WNOHANG) == p) {
					p = -1;
					break;
				}
				usleep(20);
			}
		}
		up[r] = (double)(now_ns() - t0) / 1e6;
		if (p > 0) {
			kill(p, SIGTERM);
			waitpid(p, NULL, 0);
		}
		if (!ok) {
			warnx_("run %d: the daemon did not answer", r);
			rc = -1;
			break;
		}
		fl[r] = exec_to_exit(daemon, "--version");
		tr[r] = exec_to_exit("/bin/true", "");
		done++;
	}
	if (done) {
		printf("## start-up (ms)\n\n| what | runs | min | median | p90 | max |\n| --- | ---: | ---: | ---: | ---: | ---: |\n");
		stats("exec of cgmanager to its first Ping answered", up, done);
		stats("floor: fork+exec of cgmanager --version to exit", fl, done);
		stats("floor: fork+exec of /bin/true to exit", tr, done);
	}
	free(up);
	free(fl);
	free(tr);
	if (rc < 0)
		count_failure();
	return rc;
}
