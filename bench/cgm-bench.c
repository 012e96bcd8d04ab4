/*
 * cgm-bench: the cost of cgmanager operations through libcgmanager, each
 * against its floor measured in the same run: a bare sd-bus round trip to
 * the daemon (org.freedesktop.DBus.Peer.Ping, answered by sd-bus itself)
 * plus the same kernel operations done directly on cgroupfs.
 *
 *   cgm-bench --socket PATH --memdir DIR [--iterations N] [--clients N]
 *
 * DIR is the daemon's root in the memory hierarchy (the caller must be in
 * it); the benchmark works in DIR/bench only, and removes it.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

#include "cgmanager.h"

static const char *sock, *memdir;
static int iterations = 20000, nclients = 1;
static pid_t sleeper;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "cgm-bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void write_file(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, v, strlen(v)) < 0)
		die(path);
	close(fd);
}

static void read_file(const char *path)
{
	char buf[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, buf, sizeof(buf)) < 0)
		die(path);
	close(fd);
}

/* One operation, done once by client k at iteration i; returns 0 on success. */
typedef int (*op_fn)(cgm_client *c, sd_bus *raw, int k, int i);

static int op_roundtrip(cgm_client *c, sd_bus *raw, int k, int i)
{
	(void)c, (void)k, (void)i;
	return sd_bus_call_method(raw, NULL, "/org/linuxcontainers/cgmanager", "org.freedesktop.DBus.Peer", "Ping", NULL,
	                          NULL, "");
}
static int op_ping(cgm_client *c, sd_bus *raw, int k, int i)
{
	(void)raw, (void)k, (void)i;
	return cgm_ping(c, NULL);
}
static int op_getvalue(cgm_client *c, sd_bus *raw, int k, int i)
{
	char *v = NULL;
	(void)raw, (void)k, (void)i;
	int r = cgm_get_value(c, "memory", "bench", "memory.soft_limit_in_bytes", &v, NULL);
	free(v);
	return r;
}
static int op_setvalue(cgm_client *c, sd_bus *raw, int k, int i)
{
	(void)raw, (void)k;
	return cgm_set_value(c, "memory", "bench", "memory.soft_limit_in_bytes", i & 1 ? "64M" : "128M", NULL);
}
static int op_movepid(cgm_client *c, sd_bus *raw, int k, int i)
{
	(void)raw, (void)k;
	return cgm_move_pid(c, "memory", i & 1 ? "bench/a" : "bench/b", sleeper, NULL);
}
static int op_create_remove(cgm_client *c, sd_bus *raw, int k, int i)
{
	char name[64];
	int existed;
	(void)raw, (void)i;
	snprintf(name, sizeof(name), "bench/x%d", k);
	int r = cgm_create(c, "memory", name, &existed, NULL);
	return r < 0 ? r : cgm_remove(c, "memory", name, 0, &existed, NULL);
}

static char path_soft[4200], path_a[4200], path_b[4200];
static int direct_read(cgm_client *c, sd_bus *raw, int k, int i)
{
	(void)c, (void)raw, (void)k, (void)i;
	read_file(path_soft);
	return 0;
}
static int direct_write(cgm_client *c, sd_bus *raw, int k, int i)
{
	(void)c, (void)raw, (void)k;
	write_file(path_soft, i & 1 ? "64M" : "128M");
	return 0;
}
static int direct_move(cgm_client *c, sd_bus *raw, int k, int i)
{
	char pid[16];
	(void)c, (void)raw, (void)k;
	snprintf(pid, sizeof(pid), "%d", (int)sleeper);
	write_file(i & 1 ? path_a : path_b, pid);
	return 0;
}
static int direct_mkdir_rmdir(cgm_client *c, sd_bus *raw, int k, int i)
{
	char p[4200];
	(void)c, (void)raw, (void)i;
	snprintf(p, sizeof(p), "%s/bench/x%d", memdir, k);
	if (mkdir(p, 0755) < 0 || rmdir(p) < 0)
		die(p);
	return 0;
}

struct result {
	double p50_us, p99_us, per_sec;
	int errors;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Runs fn in nclients processes, iterations each; latencies gathered in shared memory. */
static struct result run(op_fn fn, int clients, bool moves)
{
	size_t n = (size_t)iterations * (size_t)clients;
	uint64_t *lat = mmap(NULL, n * sizeof(uint64_t) + 64 * sizeof(int), PROT_READ | PROT_WRITE,
	                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int *errors = (int *)(lat + n);
	struct result res = {0};
	uint64_t t0 = now_ns();

	if (lat == MAP_FAILED)
		die("mmap");
	pid_t kids[64];
	for (int k = 0; k < clients; k++) {
		pid_t p = fork();
		if (p < 0)
			die("fork");
		if (p) {
			kids[k] = p;
			continue;
		}
		cgm_client *c = NULL;
		sd_bus *raw = NULL;
		char addr[4200];
		snprintf(addr, sizeof(addr), "unix:path=%s", sock);
		if (cgm_connect(sock, &c, NULL) < 0 || sd_bus_new(&raw) < 0 || sd_bus_set_address(raw, addr) < 0 ||
		    sd_bus_start(raw) < 0)
			_exit(2);
		/* Moves of one task by several clients would race each other; each mover has the loop to itself. */
		int its = moves && k > 0 ? 0 : iterations;
		for (int i = 0; i < its; i++) {
			uint64_t s = now_ns();
			if (fn(c, raw, k, i) < 0)
				errors[k]++;
			lat[(size_t)k * iterations + i] = now_ns() - s;
		}
		for (int i = its; i < iterations; i++)
			lat[(size_t)k * iterations + i] = UINT64_MAX;
		cgm_disconnect(c);
		sd_bus_flush_close_unref(raw);
		_exit(0);
	}
	for (int k = 0; k < clients; k++)
		waitpid(kids[k], NULL, 0);
	double secs = (double)(now_ns() - t0) / 1e9;
	qsort(lat, n, sizeof(uint64_t), cmp_u64);
	size_t valid = 0;
	while (valid < n && lat[valid] != UINT64_MAX)
		valid++;
	res.p50_us = valid ? (double)lat[valid / 2] / 1000.0 : 0;
	res.p99_us = valid ? (double)lat[valid * 99 / 100] / 1000.0 : 0;
	res.per_sec = (double)valid / secs;
	for (int k = 0; k < clients; k++)
		res.errors += errors[k];
	munmap(lat, n * sizeof(uint64_t) + 64 * sizeof(int));
	return res;
}

static void print_row(const char *name, struct result r, const struct result *floor_rt, const struct result *floor_direct)
{
	printf("  %-16s %10.0f/s  p50 %7.1f us  p99 %7.1f us", name, r.per_sec, r.p50_us, r.p99_us);
	if (floor_rt) {
		double floor = floor_rt->p50_us + (floor_direct ? floor_direct->p50_us : 0);
		double ratio = r.p50_us / floor;
		printf("  floor %6.1f us  ratio %4.2fx %s", floor, ratio, ratio <= 1.5 ? "ok" : "MISS");
	}
	if (r.errors)
		printf("  ERRORS %d", r.errors);
	printf("\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {{"socket", required_argument, NULL, 's'},
	                                     {"memdir", required_argument, NULL, 'm'},
	                                     {"iterations", required_argument, NULL, 'n'},
	                                     {"clients", required_argument, NULL, 'c'},
	                                     {0}};
	int o, failed = 0;
	char p[4200];
	while ((o = getopt_long(argc, argv, "s:m:n:c:", opts, NULL)) != -1) {
		if (o == 's')
			sock = optarg;
		else if (o == 'm')
			memdir = optarg;
		else if (o == 'n')
			iterations = atoi(optarg);
		else if (o == 'c')
			nclients = atoi(optarg);
		else
			return 2;
	}
	if (!sock || !memdir || iterations <= 0 || nclients <= 0 || nclients > 64) {
		fprintf(stderr, "usage: cgm-bench --socket PATH --memdir DIR [--iterations N] [--clients 1..64]\n");
		return 2;
	}
	snprintf(p, sizeof(p), "%s/bench", memdir);
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		die(p);
	snprintf(path_a, sizeof(path_a), "%s/bench/a", memdir);
	snprintf(path_b, sizeof(path_b), "%s/bench/b", memdir);
	mkdir(path_a, 0755);
	mkdir(path_b, 0755);
	snprintf(path_soft, sizeof(path_soft), "%s/bench/memory.soft_limit_in_bytes", memdir);
	strcat(path_a, "/cgroup.procs");
	strcat(path_b, "/cgroup.procs");
	sleeper = fork();
	if (sleeper == 0) {
		pause();
		_exit(0);
	}

	printf("cgm-bench: %d iterations per client, %d client(s)\n", iterations, nclients);
	struct result rt = run(op_roundtrip, nclients, false);
	struct result d_read = run(direct_read, nclients, false), d_write = run(direct_write, nclients, false);
	struct result d_move = run(direct_move, 1, true), d_mk = run(direct_mkdir_rmdir, nclients, false);
	struct result ping = run(op_ping, nclients, false), get = run(op_getvalue, nclients, false);
	struct result set = run(op_setvalue, nclients, false), mv = run(op_movepid, 1, true);
	struct result cr = run(op_create_remove, nclients, false);
	printf("floor:\n");
	print_row("sd-bus roundtrip", rt, NULL, NULL);
	print_row("read file", d_read, NULL, NULL);
	print_row("write file", d_write, NULL, NULL);
	print_row("write procs", d_move, NULL, NULL);
	print_row("mkdir+rmdir", d_mk, NULL, NULL);
	printf("through cgmanager (ratio = p50 / (roundtrip p50 + direct p50)):\n");
	print_row("Ping", ping, &rt, NULL);
	print_row("GetValue", get, &rt, &d_read);
	print_row("SetValue", set, &rt, &d_write);
	print_row("MovePid", mv, &rt, &d_move);
	print_row("Create+Remove", cr, &rt, &d_mk);
	failed = ping.errors + get.errors + set.errors + mv.errors + cr.errors + rt.errors;

	kill(sleeper, SIGKILL);
	waitpid(sleeper, NULL, 0);
	snprintf(p, sizeof(p), "%s/bench/a", memdir);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/bench/b", memdir);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/bench", memdir);
	rmdir(p);
	return failed ? 1 : 0;
}
