/* The harness: timing, client processes with their own connections, direct cgroupfs helpers, the table. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

struct bench_env env = {.mem = -1, .freezer = -1, .iterations = 2000};
pid_t sleepers[MAX_CLIENTS], sleepers1[MAX_CLIENTS], sleepers2[MAX_CLIENTS];
static int nfail;

uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void die(const char *what)
{
	fprintf(stderr, "cgm-bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

void warnx_(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("cgm-bench: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int failures(void)
{
	return nfail;
}

void count_failure(void)
{
	nfail++;
}

int fwrite_str(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r = 0;
	if (fd < 0)
		return -errno;
	if (write(fd, v, strlen(v)) < 0)
		r = -errno;
	close(fd);
	return r;
}

int fread_buf(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, size - 1);
	int r = n < 0 ? -errno : (int)n;
	if (n >= 0)
		buf[n] = '\0';
	close(fd);
	return r;
}

int read_procs(const char *dir)
{
	char p[PATHMAX + 16], buf[8192];
	int count = 0;
	snprintf(p, sizeof(p), "%s/cgroup.procs", dir);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			count += buf[i] == '\n';
	close(fd);
	return n < 0 ? -errno : count;
}

int count_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int n = 0;
	if (!d)
		return -errno;
	while ((de = readdir(d)))
		n += de->d_type == DT_DIR && de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* What a program that does not know the tree's shape does: at each cgroup, its tasks and a readdir for its children. */
int walk_procs(const char *dir)
{
	int r = read_procs(dir), n = r < 0 ? r : 0;
	DIR *d = r < 0 ? NULL : opendir(dir);
	struct dirent *de;
	if (r < 0 || !d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		char sub[PATHMAX + 256];
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		if (walk_procs(sub) < 0)
			n = -1;
	}
	closedir(d);
	return n;
}

void hpath(int h, const char *rel, const char *file, char *out)
{
	snprintf(out, PATHMAX, "%s%s%s%s%s", env.hier_path[h], rel && *rel ? "/" : "", rel ? rel : "",
	         file ? "/" : "", file ? file : "");
}

static int copy_cpuset(int h, const char *rel, const char *file)
{
	char from[PATHMAX], to[PATHMAX], parent[PATHMAX], buf[512];
	hpath(h, rel, NULL, to);
	snprintf(parent, sizeof(parent), "%s", to);
	*strrchr(parent, '/') = '\0';
	snprintf(from, sizeof(from), "%.4000s/%s", parent, file);
	snprintf(to + strlen(to), sizeof(to) - strlen(to), "/%s", file);
	int r = fread_buf(from, buf, sizeof(buf));
	return r < 0 ? r : fwrite_str(to, buf);
}

int mkdir_cg(int h, const char *rel)
{
	char p[PATHMAX];
	hpath(h, rel, NULL, p);
	if (mkdir(p, 0755) < 0)
		return -errno;
	if (strcmp(env.hier_name[h], "cpuset") == 0) {
		int r = copy_cpuset(h, rel, "cpuset.cpus");
		return r < 0 ? r : copy_cpuset(h, rel, "cpuset.mems");
	}
	return 0;
}

int rmdir_cg(int h, const char *rel)
{
	char p[PATHMAX];
	hpath(h, rel, NULL, p);
	return rmdir(p) < 0 ? -errno : 0;
}

int mkdir_all(const char *rel)
{
	int r = 0;
	for (int h = 0; h < env.nhier && r == 0; h++)
		if ((r = mkdir_cg(h, rel)) < 0)
			warnx_("mkdir %s in %s: %s", rel, env.hier_name[h], strerror(-r));
	return r;
}

int rmdir_all(const char *rel)
{
	int r = 0;
	for (int h = 0; h < env.nhier; h++)
		if (rmdir_cg(h, rel) < 0 && r == 0)
			r = -errno;
	return r;
}

static int rmtree_path(const char *p)
{
	DIR *d = opendir(p);
	struct dirent *de;
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		char sub[PATHMAX + 256];
		snprintf(sub, sizeof(sub), "%s/%s", p, de->d_name);
		rmtree_path(sub);
	}
	closedir(d);
	return rmdir(p) < 0 ? -errno : 0;
}

int rmtree_cg(int h, const char *rel)
{
	char p[PATHMAX];
	hpath(h, rel, NULL, p);
	return rmtree_path(p);
}

int move_to(int h, const char *rel, pid_t pid)
{
	char p[PATHMAX], v[16];
	hpath(h, rel, "cgroup.procs", p);
	snprintf(v, sizeof(v), "%d", (int)pid);
	return fwrite_str(p, v);
}

pid_t spawn_sleeper(void)
{
	pid_t p = fork();
	if (p < 0)
		die("fork");
	if (p == 0) {
		for (;;)
			pause();
	}
	return p;
}

void end_sleeper(pid_t p)
{
	if (p > 0) {
		kill(p, SIGKILL);
		waitpid(p, NULL, 0);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/*
 * Each client is a process with its own libcgmanager and bare sd-bus
 * connections; the iterations are shared out between them, and all start
 * together (a pipe is the starting gun) after a few untimed warm-up calls.
 */
struct result run_op(op_fn fn, int nclients, int div)
{
	int per = env.iterations / (div > 0 ? div : 1) / nclients;
	if (per < 10)
		per = 10;
	size_t n = (size_t)per * (size_t)nclients;
	size_t bytes = n * sizeof(uint64_t) + MAX_CLIENTS * sizeof(long) * 2;
	uint64_t *lat = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (lat == MAP_FAILED)
		die("mmap");
	long *errors = (long *)(lat + n), *ready = errors + MAX_CLIENTS;
	struct result res = {0};
	int gun[2], readyp[2];
	pid_t kids[MAX_CLIENTS];

	if (pipe(gun) < 0 || pipe(readyp) < 0)
		die("pipe");
	for (int k = 0; k < nclients; k++) {
		pid_t p = fork();
		if (p < 0)
			die("fork");
		if (p) {
			kids[k] = p;
			continue;
		}
		close(gun[1]);
		close(readyp[0]);
		struct cl c = {.k = k, .sleeper = sleepers[k], .sleeper1 = sleepers1[k], .pidfd1 = -1};
		char addr[PATHMAX + 16];
		snprintf(addr, sizeof(addr), "unix:path=%s", env.sock);
		if (cgm_connect(env.sock, &c.c, NULL) < 0 || sd_bus_new(&c.raw) < 0 ||
		    sd_bus_set_address(c.raw, addr) < 0 || sd_bus_negotiate_fds(c.raw, 1) < 0 || sd_bus_start(c.raw) < 0)
			_exit(2);
		if (c.sleeper1 > 0)
			c.pidfd1 = pidfd_open(c.sleeper1, 0);
		/* Warm-up: the daemon's and our caches, the connection's buffers. */
		int warm = per / 10 < 3 ? 3 : per / 10 > 50 ? 50 : per / 10;
		for (int i = 0; i < warm; i++)
			fn(&c, per + i);
		ready[k] = 1;
		char b = 0;
		if (write(readyp[1], &b, 1) != 1 || read(gun[0], &b, 1) != 0)
			_exit(3);
		for (int i = 0; i < per; i++) {
			int64_t t = fn(&c, i);
			if (t < 0) {
				errors[k]++;
				t = 0;
			}
			lat[(size_t)k * per + i] = (uint64_t)t;
		}
		cgm_disconnect(c.c);
		sd_bus_flush_close_unref(c.raw);
		_exit(0);
	}
	close(gun[0]);
	close(readyp[1]);
	for (int k = 0; k < nclients; k++) {
		char b;
		if (read(readyp[0], &b, 1) != 1)
			break;
	}
	uint64_t t0 = now_ns();
	close(gun[1]); /* go */
	for (int k = 0; k < nclients; k++) {
		int st;
		waitpid(kids[k], &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			errors[k] += 1000000;
	}
	double secs = (double)(now_ns() - t0) / 1e9;
	close(readyp[0]);
	qsort(lat, n, sizeof(uint64_t), cmp_u64);
	res.n = (long)n;
	res.p50_us = (double)lat[n / 2] / 1000.0;
	res.p90_us = (double)lat[n * 90 / 100] / 1000.0;
	res.p99_us = (double)lat[n * 99 / 100] / 1000.0;
	res.per_sec = (double)n / secs;
	for (int k = 0; k < nclients; k++)
		res.errors += errors[k];
	munmap(lat, bytes);
	return res;
}

void print_head(void)
{
	printf("| clients | operation | req/s | p50 µs | p99 µs | floor | floor p50 µs | ratio p50 | ratio mean | target |\n");
	printf("| ---: | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- |\n");
}

/*
 * ratio p50: the operation's median latency over the sum of the floors' medians.
 * ratio mean: the same with mean latencies (clients / throughput), which
 * counts the tail too; with one client it is the mean-latency ratio.
 */
void print_row(int clients, const char *name, const struct result *r, const struct result *rt,
               const struct result *fl, const char *floor_what)
{
	double floor_p50 = rt->p50_us + (fl ? fl->p50_us : 0);
	double floor_mean = 1.0 / rt->per_sec + (fl ? 1.0 / fl->per_sec : 0);
	double ratio = r->p50_us / floor_p50, ratio_mean = (1.0 / r->per_sec) / floor_mean;
	printf("| %d | %s | %.0f | %.1f | %.1f | %s | %.1f | %.2fx | %.2fx | %s |", clients, name, r->per_sec, r->p50_us,
	       r->p99_us, floor_what, floor_p50, ratio, ratio_mean, ratio <= 1.5 ? "ok" : "MISS");
	if (r->errors) {
		printf(" ERRORS %ld", r->errors);
		count_failure();
	}
	printf("\n");
	fflush(stdout);
}
