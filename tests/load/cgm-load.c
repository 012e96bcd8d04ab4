/*
 * cgm-load: load and faults against a running cgmanager, measured.
 *
 *   cgm-load --socket PATH --daemon-pid PID [--uid UID] MODE [OPTIONS]
 *
 * Run as root (it reads /proc/PID/fd and /proc/PID/status of the daemon);
 * the clients it forks drop to UID. They work in the caller's own cgroup
 * (it must be delegated to UID) and make child cgroups cN of it in the pids
 * hierarchy, which they remove again.
 *
 *   mixed --clients N --requests M [--window W]
 *       N clients, one connection each, make M requests in all (W in flight
 *       per client), a mix of the cgmanager0_0 and cgmanager1 calls and
 *       Peer.Ping. Prints requests, errors, elapsed, requests/s, and the
 *       daemon's fds and VmRSS before (after a warm-up) and after.
 *   kill-storm --clients N [--parallel P]
 *       N clients, P at a time, each SIGKILLed: half at a chosen point of the
 *       protocol (mid-auth, mid-message, with replies unread, at each step of
 *       an Scm exchange), half at a random moment of a loop of calls and Scm
 *       exchanges. A Ping every few ms meanwhile must be answered. Prints how
 *       each client ended, pings failed, fds and VmRSS before and after.
 *   hostile [--seconds S] [--conns N]
 *       Ping latency of a well-behaved client (p50, p99) before, during and
 *       after each attack: noauth (connections that never authenticate;
 *       checks they are dropped at the auth deadline), bigmsg (a 100 MiB
 *       message, again and again), flood (calls without reading a reply),
 *       conns (N connections at once); and, only when named with --only,
 *       quota: one uid, which must own more cgroups than the daemon's
 *       --max-cgroups-per-uid in hierarchy --quota-hierarchy (default pids),
 *       holds all the connections the per-uid cap allows, 32 silent Scm
 *       exchanges (that cap) and loops Creates there that the quota refuses.
 *       Prints what each attack achieved.
 *
 * Checks (each failure prints a line "FAIL: ..." and makes the exit status 1):
 *   --max-errors N (mixed, default 0), --rss-slack-kb K (default 2048), fds
 *   back to their baseline; --p99-ratio R (hostile, default 1.2): an attack's
 *   Ping p99 (the median of its rounds' p99s) at most R times that of the
 *   rounds without it, plus --p99-slack-us U (default 0) for a machine that
 *   is shared; R = 0 prints the latencies without checking them. Where the
 *   p99 without an attack is over 8 times its p50 (another load has the
 *   cpus) the latencies are printed and judged only for starvation: under
 *   the attack at most 4 times that without it, plus 1 ms.
 * Output: "key=value" lines, one per measurement.
 */
#include <errno.h>
#include <dirent.h>
#include <getopt.h>
#include <grp.h>
#include <poll.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

#include "raw.h"

extern char **environ;
static const char *sock_path;
static pid_t daemon_pid;
static uid_t client_uid;
static int failures;

#define CHECK(cond, ...)                                                                                         \
	do {                                                                                                     \
		if (!(cond)) {                                                                                   \
			printf("FAIL: " __VA_ARGS__);                                                            \
			printf("\n");                                                                            \
			failures++;                                                                              \
		}                                                                                                \
	} while (0)

static uint64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

static void sleep_us(uint64_t us)
{
	struct timespec ts = {.tv_sec = (time_t)(us / 1000000), .tv_nsec = (long)(us % 1000000) * 1000};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void die(const char *what)
{
	fprintf(stderr, "cgm-load: %s: %s\n", what, strerror(errno));
	exit(2);
}

static uint64_t rng_state = 88172645463325252ULL;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* --- the daemon, seen from /proc --- */

struct sample {
	unsigned fds;
	unsigned long rss_kb, hwm_kb;
};

static struct sample daemon_sample(void)
{
	struct sample s = {0};
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)daemon_pid);
	DIR *d = opendir(path);
	if (!d)
		die(path);
	for (struct dirent *e; (e = readdir(d));)
		s.fds += e->d_name[0] != '.';
	closedir(d);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)daemon_pid);
	FILE *f = fopen(path, "r");
	if (!f)
		die(path);
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "VmRSS: %lu", &s.rss_kb);
		sscanf(line, "VmHWM: %lu", &s.hwm_kb);
	}
	fclose(f);
	return s;
}

/* Waits up to ms for the daemon's fds to be back to at most fds; returns the last sample. */
static struct sample settle(unsigned fds, int ms)
{
	uint64_t end = now_us() + (uint64_t)ms * 1000;
	struct sample s;
	while ((s = daemon_sample()).fds > fds && now_us() < end)
		sleep_us(20000);
	return s;
}

static void print_sample(const char *what, struct sample before, struct sample after, unsigned long slack_kb)
{
	printf("%s: fds_before=%u fds_after=%u rss_kb_before=%lu rss_kb_after=%lu hwm_kb=%lu\n", what, before.fds,
	       after.fds, before.rss_kb, after.rss_kb, after.hwm_kb);
	CHECK(after.fds <= before.fds, "%s: the daemon has %u fds, %u before", what, after.fds, before.fds);
	CHECK(after.rss_kb <= before.rss_kb + slack_kb, "%s: the daemon's RSS grew from %lu to %lu KiB (slack %lu)", what,
	      before.rss_kb, after.rss_kb, slack_kb);
}

/* --- clients --- */

static void become_client(void)
{
	if (client_uid == 0)
		return;
	if (setgroups(0, NULL) < 0 || setresgid(client_uid, client_uid, client_uid) < 0 ||
	    setresuid(client_uid, client_uid, client_uid) < 0)
		die("cannot become the client uid");
}

static sd_bus *bus_open(void)
{
	sd_bus *b = NULL;
	char addr[256];
	snprintf(addr, sizeof(addr), "unix:path=%s", sock_path);
	if (sd_bus_new(&b) < 0 || sd_bus_set_address(b, addr) < 0 || sd_bus_negotiate_fds(b, 1) < 0 ||
	    sd_bus_start(b) < 0) {
		sd_bus_unref(b);
		return NULL;
	}
	return b;
}

static int bus_ping(sd_bus *b)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int r = sd_bus_call_method(b, NULL, RAW_PATH, RAW_IFACE0, "Ping", &e, NULL, "i", 0);
	sd_bus_error_free(&e);
	return r;
}

/* A fresh connection and one Ping: 0 when answered. */
static int fresh_ping(void)
{
	sd_bus *b = bus_open();
	int r = b ? bus_ping(b) : -1;
	sd_bus_flush_close_unref(b);
	return r < 0 ? -1 : 0;
}

/* --- the probe: Ping latency of a well-behaved client --- */

struct lat {
	uint32_t *v;
	size_t n, cap;
	unsigned failed;
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

struct stats {
	size_t n;
	unsigned failed;
	uint32_t p50, p99, max;
};

static struct stats lat_stats(struct lat *l)
{
	struct stats s = {.n = l->n, .failed = l->failed};
	if (!l->n)
		return s;
	qsort(l->v, l->n, sizeof(uint32_t), cmp_u32);
	s.p50 = l->v[l->n / 2];
	s.p99 = l->v[(l->n * 99) / 100];
	s.max = l->v[l->n - 1];
	return s;
}

/* Pings on b every interval_us for ms milliseconds; the latencies go to l. */
static void probe_into(sd_bus *b, int ms, uint64_t interval_us, struct lat *l)
{
	uint64_t end = now_us() + (uint64_t)ms * 1000;
	while (now_us() < end) {
		uint64_t t0 = now_us();
		int r = bus_ping(b);
		uint64_t t1 = now_us();
		if (r < 0) {
			l->failed++;
		} else {
			if (l->n == l->cap && !(l->v = realloc(l->v, (l->cap = l->cap ? 2 * l->cap : 4096) * sizeof(uint32_t))))
				die("out of memory");
			l->v[l->n++] = (uint32_t)(t1 - t0);
		}
		if (t1 - t0 < interval_us)
			sleep_us(interval_us - (t1 - t0));
	}
}

static struct stats probe(sd_bus *b, int ms, uint64_t interval_us)
{
	struct lat l = {0};
	probe_into(b, ms, interval_us, &l);
	struct stats s = lat_stats(&l);
	free(l.v);
	return s;
}

/* --- mixed load --- */

struct result {
	uint64_t requests, errors;
	char first_error[240];
};

struct mixed_client {
	sd_bus *bus;
	struct result *res;
	unsigned inflight;
	char name[32], child[48];
	bool remove_next;
};

static int on_reply(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct mixed_client *c = u;
	c->inflight--;
	c->res->requests++;
	if (sd_bus_message_is_method_error(m, NULL)) {
		const sd_bus_error *e = sd_bus_message_get_error(m);
		if (!c->res->errors++)
			snprintf(c->res->first_error, sizeof(c->res->first_error), "%s: %s", e->name, e->message);
	}
	return 1;
}

#define ASYNC(c, iface, member, sig, ...)                                                                        \
	sd_bus_call_method_async((c)->bus, NULL, "org.linuxcontainers.cgmanager", RAW_PATH, iface, member, on_reply, \
	                         (c), sig, ##__VA_ARGS__)

/* Sends one request of the mix. */
static bool ping_only;

static int issue(struct mixed_client *c)
{
	unsigned w = ping_only ? 0 : (unsigned)(rnd() % 100);
	if (c->remove_next) {
		c->remove_next = false;
		return ASYNC(c, RAW_IFACE0, "Remove", "ssi", "pids", c->child, 1);
	}
	if (w < 20)
		return ASYNC(c, RAW_IFACE0, "Ping", "i", 0);
	if (w < 30)
		return ASYNC(c, "org.freedesktop.DBus.Peer", "Ping", "");
	if (w < 40)
		return ASYNC(c, RAW_IFACE0, "GetPidCgroup", "si", "pids", (int32_t)getpid());
	if (w < 55)
		return ASYNC(c, RAW_IFACE0, "GetValue", "sss", "pids", c->name, "pids.current");
	if (w < 60)
		return ASYNC(c, RAW_IFACE0, "SetValue", "ssss", "pids", c->name, "pids.max", "max");
	if (w < 70)
		return ASYNC(c, RAW_IFACE0, "ListChildren", "ss", "pids", "");
	if (w < 75)
		return ASYNC(c, RAW_IFACE0, "ListControllers", "");
	if (w < 80)
		return ASYNC(c, RAW_IFACE0, "ListKeys", "ss", "pids", c->name);
	if (w < 90)
		return ASYNC(c, RAW_IFACE0, "GetTasks", "ss", "pids", c->name);
	if (w < 97)
		return ASYNC(c, RAW_IFACE1, "GetValues", "sas", c->name, 1, "pids.limit");
	c->remove_next = true;
	return ASYNC(c, RAW_IFACE0, "Create", "ss", "pids", c->child);
}

static int call_sync(sd_bus *b, struct result *res, const char *member, const char *sig, ...)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL, *reply = NULL;
	va_list ap;
	int r = sd_bus_message_new_method_call(b, &m, "org.linuxcontainers.cgmanager", RAW_PATH, RAW_IFACE0, member);
	if (r >= 0) {
		va_start(ap, sig);
		r = sd_bus_message_appendv(m, sig, ap);
		va_end(ap);
	}
	if (r >= 0)
		r = sd_bus_call(b, m, 0, &e, &reply);
	if (r < 0 && !res->errors++)
		snprintf(res->first_error, sizeof(res->first_error), "%s: %s: %s", member, e.name ? e.name : "",
		         e.message ? e.message : strerror(-r));
	sd_bus_error_free(&e);
	sd_bus_message_unref(m);
	sd_bus_message_unref(reply);
	return r;
}

/* Client k: makes its cgroup, then n requests, window at a time; removes its cgroup. */
static int mixed_client_run(int k, uint64_t n, unsigned window, struct result *res)
{
	struct mixed_client c = {.res = res};
	uint64_t issued = 0;
	rng_state ^= (uint64_t)(k + 1) * 0x9E3779B97F4A7C15ULL;
	snprintf(c.name, sizeof(c.name), "c%d", k);
	snprintf(c.child, sizeof(c.child), "c%d/t", k);
	if (!(c.bus = bus_open())) {
		res->errors = n;
		snprintf(res->first_error, sizeof(res->first_error), "cannot connect");
		return 1;
	}
	/* Its cgroup, with the pids controller there (on cgroup2 setting a pids key enables it). */
	if (call_sync(c.bus, res, "Create", "ss", "pids", c.name) < 0 ||
	    call_sync(c.bus, res, "SetValue", "ssss", "pids", c.name, "pids.max", "max") < 0)
		goto out;
	while (res->requests < n) {
		while (c.inflight < window && issued < n) {
			if (issue(&c) < 0) {
				res->errors += n - issued;
				goto out;
			}
			c.inflight++;
			issued++;
		}
		int r;
		while ((r = sd_bus_process(c.bus, NULL)) > 0)
			;
		if (r < 0) {
			if (!res->errors)
				snprintf(res->first_error, sizeof(res->first_error), "connection lost: %s", strerror(-r));
			res->errors += n - res->requests;
			goto out;
		}
		if (res->requests < n && (c.inflight >= window || issued >= n))
			sd_bus_wait(c.bus, 5000000);
	}
	call_sync(c.bus, res, "Remove", "ssi", "pids", c.name, 1);
out:
	sd_bus_flush_close_unref(c.bus);
	return 0;
}

/* Runs nclients clients making requests in all; returns the elapsed usec, results in res[]. */
static uint64_t mixed_round(int nclients, uint64_t requests, unsigned window, struct result *res,
                            unsigned long *peak_rss)
{
	uint64_t t0 = now_us();
	pid_t pids[256];
	for (int k = 0; k < nclients; k++) {
		uint64_t mine = requests / (uint64_t)nclients + ((uint64_t)k < requests % (uint64_t)nclients);
		memset(&res[k], 0, sizeof(res[k]));
		pids[k] = fork();
		if (pids[k] < 0)
			die("fork");
		if (pids[k] == 0) {
			become_client();
			_exit(mixed_client_run(k, mine, window, &res[k]));
		}
	}
	for (int left = nclients; left > 0;) {
		int st;
		pid_t p = waitpid(-1, &st, WNOHANG);
		if (p > 0) {
			left--;
			continue;
		}
		if (p < 0 && errno != EINTR)
			die("waitpid");
		struct sample s = daemon_sample();
		if (peak_rss && s.rss_kb > *peak_rss)
			*peak_rss = s.rss_kb;
		sleep_us(50000);
	}
	return now_us() - t0;
}

static int run_mixed(int nclients, uint64_t requests, unsigned window, uint64_t max_errors, unsigned long slack_kb)
{
	if (nclients < 1 || nclients > 256)
		nclients = 16;
	struct result *res = mmap(NULL, sizeof(struct result) * 256, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
	                          -1, 0);
	if (res == MAP_FAILED)
		die("mmap");
	/* A warm-up round, so that the baseline includes what the daemon allocates once. */
	struct sample start = daemon_sample();
	mixed_round(nclients, (uint64_t)nclients * 200, window, res, NULL);
	struct sample before = settle(start.fds, 5000);
	unsigned long peak = before.rss_kb;
	uint64_t us = mixed_round(nclients, requests, window, res, &peak);
	struct sample after = settle(before.fds, 5000);
	uint64_t done = 0, errors = 0;
	const char *first = NULL;
	for (int k = 0; k < nclients; k++) {
		done += res[k].requests;
		errors += res[k].errors;
		if (res[k].errors && !first)
			first = res[k].first_error;
	}
	printf("mixed: clients=%d window=%u requests=%llu errors=%llu elapsed_s=%.2f requests_per_s=%.0f "
	       "peak_rss_kb=%lu\n",
	       nclients, window, (unsigned long long)done, (unsigned long long)errors, (double)us / 1e6,
	       (double)done * 1e6 / (double)us, peak);
	if (first)
		printf("mixed: first error: %s\n", first);
	CHECK(errors <= max_errors, "mixed: %llu errors", (unsigned long long)errors);
	CHECK(done >= requests, "mixed: %llu of %llu requests answered", (unsigned long long)done,
	      (unsigned long long)requests);
	print_sample("mixed", before, after, slack_kb);
	CHECK(fresh_ping() == 0, "mixed: a fresh client's Ping failed afterwards");
	munmap(res, sizeof(struct result) * 256);
	return 0;
}

/* --- kill storm --- */

#define NPOINTS 11

static void killed_here(void)
{
	raise(SIGKILL);
	_exit(99);
}

/* Starts an Scm call on fd with args (the 'h' last); the datagram socket is *dgram. 0 or -1. */
static int scm_call(int fd, uint32_t serial, const char *member, const struct raw_arg *args, int nargs, int *dgram)
{
	uint8_t msg[2048];
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	size_t n = raw_call(msg, sizeof(msg), serial, RAW_IFACE0, member, args, nargs, 1);
	int r = n && raw_send(fd, msg, n, sv[1]) == 0 ? 0 : -1;
	close(sv[1]);
	*dgram = sv[0];
	return r;
}

/* A whole GetValueScm exchange; 0 when the result came. */
static int scm_exchange(int fd, uint32_t serial)
{
	struct raw_arg a[] = {{'s', "pids", 0}, {'s', "", 0}, {'s', "pids.current", 0}, {'h', NULL, 0}};
	char buf[512];
	int d, r = -1;
	if (scm_call(fd, serial, "GetValueScm", a, 4, &d) == 0 && raw_read(fd) == 2 &&
	    raw_scm_recv(d, buf, sizeof(buf), 3000) == 1 && raw_scm_cred(d) == 0 &&
	    raw_scm_recv(d, buf, sizeof(buf), 3000) >= 0)
		r = 0;
	close(d);
	return r;
}

/* Goes through the protocol up to point, then is killed there. Exit codes say where it fell short. */
static void storm_point(int point)
{
	uint8_t msg[8192];
	char buf[512];
	size_t n;
	int d;
	int fd = raw_connect(sock_path, 3000);
	if (fd < 0)
		_exit(10);
	if (point == 0)
		killed_here();
	if (raw_auth_start(fd) < 0)
		_exit(11);
	if (point == 1)
		killed_here();
	if (raw_auth_finish(fd) < 0)
		_exit(12);
	struct raw_arg create[] = {{'s', "pids", 0}, {'s', "storm", 0}};
	struct raw_arg keys[] = {{'s', "pids", 0}, {'s', "", 0}};
	struct raw_arg tasks[] = {{'s', "pids", 0}, {'s', "", 0}, {'h', NULL, 0}};
	struct raw_arg move[] = {{'s', "pids", 0}, {'s', "", 0}, {'h', NULL, 0}};
	switch (point) {
	case 2: /* half a header */
		n = raw_call(msg, sizeof(msg), 1, RAW_IFACE0, "Create", create, 2, 0);
		raw_send(fd, msg, 7, -1);
		killed_here();
		break;
	case 3: /* all but the end of a body */
		n = raw_call(msg, sizeof(msg), 1, RAW_IFACE0, "Create", create, 2, 0);
		raw_send(fd, msg, n - 3, -1);
		killed_here();
		break;
	case 4: /* a call whose reply is never read */
		n = raw_call(msg, sizeof(msg), 1, RAW_IFACE0, "ListKeys", keys, 2, 0);
		raw_send(fd, msg, n, -1);
		killed_here();
		break;
	case 5: /* many calls, replies unread */
		for (uint32_t i = 0; i < 200; i++) {
			n = raw_call(msg, sizeof(msg), i + 1, RAW_IFACE0, "ListKeys", keys, 2, 0);
			if (raw_send(fd, msg, n, -1) < 0)
				break;
		}
		killed_here();
		break;
	case 6: /* an Scm call sent, its reply unread */
		if (scm_call(fd, 1, "GetTasksRecursiveScm", tasks, 3, &d) < 0)
			_exit(13);
		killed_here();
		break;
	case 7: /* the reply read, the kick not answered */
		if (scm_call(fd, 1, "GetTasksRecursiveScm", tasks, 3, &d) < 0 || raw_read(fd) != 2)
			_exit(14);
		killed_here();
		break;
	case 8: /* the credential sent, the result unread */
		if (scm_call(fd, 1, "GetTasksRecursiveScm", tasks, 3, &d) < 0 || raw_read(fd) != 2 ||
		    raw_scm_recv(d, buf, sizeof(buf), 3000) != 1 || raw_scm_cred(d) < 0)
			_exit(15);
		killed_here();
		break;
	case 9: /* a two-credential exchange, killed between them */
		if (scm_call(fd, 1, "MovePidScm", move, 3, &d) < 0 || raw_read(fd) != 2 ||
		    raw_scm_recv(d, buf, sizeof(buf), 3000) != 1 || raw_scm_cred(d) < 0 ||
		    raw_scm_recv(d, buf, sizeof(buf), 3000) != 1)
			_exit(16);
		killed_here();
		break;
	default: /* the result partly read */
		if (scm_call(fd, 1, "GetTasksRecursiveScm", tasks, 3, &d) < 0 || raw_read(fd) != 2 ||
		    raw_scm_recv(d, buf, sizeof(buf), 3000) != 1 || raw_scm_cred(d) < 0 ||
		    raw_scm_recv(d, buf, sizeof(buf), 3000) < 0)
			_exit(17);
		killed_here();
	}
}

/* Calls and Scm exchanges in a loop, until the parent kills it. */
static void storm_loop(void)
{
	struct raw_arg ping[] = {{'i', NULL, 0}};
	struct raw_arg keys[] = {{'s', "pids", 0}, {'s', "", 0}};
	uint8_t msg[1024];
	uint32_t serial = 1;
	for (;;) {
		int fd = raw_connect(sock_path, 3000);
		if (fd < 0 || raw_auth_start(fd) < 0 || raw_auth_finish(fd) < 0)
			_exit(20);
		for (int i = 0; i < 20; i++) {
			int r = 0;
			switch (rnd() % 4) {
			case 0:
				r = raw_roundtrip(fd, serial++, RAW_IFACE0, "Ping", ping, 1) == 2 ? 0 : -1;
				break;
			case 1:
				r = raw_roundtrip(fd, serial++, RAW_IFACE0, "ListKeys", keys, 2) >= 2 ? 0 : -1;
				break;
			case 2:
				r = scm_exchange(fd, serial++);
				break;
			default:
				for (int j = 0; j < 10 && r == 0; j++) {
					size_t n = raw_call(msg, sizeof(msg), serial++, RAW_IFACE0, "ListKeys", keys, 2, 0);
					r = raw_send(fd, msg, n, -1);
				}
				for (int j = 0; j < 10 && r == 0; j++)
					r = raw_read(fd) >= 2 ? 0 : -1;
			}
			if (r < 0)
				_exit(21);
		}
		close(fd);
	}
}

static int run_kill_storm(int nclients, int parallel, unsigned long slack_kb)
{
	struct {
		pid_t pid;
		uint64_t kill_at;
	} live[256];
	unsigned ended_killed = 0, ended_other = 0, codes[128] = {0};
	int nlive = 0, started = 0;
	if (parallel < 1 || parallel > 256)
		parallel = 32;

	/* Warm-up: a few of each kind, so that the baseline has what the daemon allocates once. */
	struct sample start = daemon_sample();
	for (int i = 0; i < NPOINTS; i++) {
		pid_t p = fork();
		if (p == 0) {
			become_client();
			storm_point(i);
		}
		waitpid(p, NULL, 0);
	}
	struct sample before = settle(start.fds, 7000);
	sd_bus *probe_bus = bus_open();
	if (!probe_bus)
		die("cannot connect the probe");
	unsigned pings = 0, ping_failed = 0;
	uint64_t t0 = now_us(), next_ping = t0;
	while (started < nclients || nlive > 0) {
		while (started < nclients && nlive < parallel) {
			int i = started++;
			uint64_t delay = rnd() % 30000;
			pid_t p = fork();
			if (p < 0)
				die("fork");
			if (p == 0) {
				become_client();
				rng_state ^= (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ULL;
				if (i % 2 == 0)
					storm_point((i / 2) % NPOINTS);
				storm_loop();
			}
			live[nlive].pid = p;
			live[nlive].kill_at = i % 2 ? now_us() + delay : 0;
			nlive++;
		}
		uint64_t now = now_us();
		for (int j = 0; j < nlive; j++)
			if (live[j].kill_at && live[j].kill_at <= now) {
				kill(live[j].pid, SIGKILL);
				live[j].kill_at = 0;
			}
		int st;
		pid_t p;
		while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
			for (int j = 0; j < nlive; j++)
				if (live[j].pid == p) {
					live[j] = live[--nlive];
					break;
				}
			if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) {
				ended_killed++;
			} else {
				ended_other++;
				codes[WIFEXITED(st) ? WEXITSTATUS(st) & 127 : 127]++;
			}
		}
		if (now >= next_ping) {
			pings++;
			if (bus_ping(probe_bus) < 0)
				ping_failed++;
			next_ping = now_us() + 5000;
		}
		sleep_us(500);
	}
	uint64_t us = now_us() - t0;
	CHECK(bus_ping(probe_bus) >= 0 && fresh_ping() == 0, "kill-storm: the daemon does not answer afterwards");
	sd_bus_flush_close_unref(probe_bus);
	/* An Scm exchange whose client died ends with its connection, at the latest at its deadline (5 s). */
	struct sample after = settle(before.fds, 8000);
	printf("kill-storm: clients=%d parallel=%d killed=%u ended_otherwise=%u elapsed_s=%.2f pings=%u "
	       "pings_failed=%u\n",
	       nclients, parallel, ended_killed, ended_other, (double)us / 1e6, pings, ping_failed);
	for (int c = 0; c < 128; c++)
		if (codes[c])
			printf("kill-storm: %u clients exited with %d (see storm_point/storm_loop)\n", codes[c], c);
	CHECK(ended_other == 0, "kill-storm: %u clients fell short of where they were to be killed", ended_other);
	CHECK(ping_failed == 0, "kill-storm: %u of %u pings failed during the storm", ping_failed, pings);
	print_sample("kill-storm", before, after, slack_kb);
	return 0;
}

/* --- hostile clients --- */

static volatile sig_atomic_t stop_attack;
static bool attacker_idle, isolate;
/* With isolate: the daemon's serving thread and the probe share probe_cpu, the attackers get the other cpus. */
static cpu_set_t attacker_cpus, daemon_cpus_saved;
static int probe_cpu = -1;

/* Whether there are cpus enough to give the attackers their own; sets the cpu sets. */
static bool isolate_setup(void)
{
	cpu_set_t all;
	if (sched_getaffinity(0, sizeof(all), &all) < 0 || CPU_COUNT(&all) < 2)
		return false;
	CPU_ZERO(&attacker_cpus);
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &all))
			continue;
		if (probe_cpu < 0)
			probe_cpu = c;
		else
			CPU_SET(c, &attacker_cpus);
	}
	return true;
}

/*
 * Puts the probe (this process) and the daemon's serving thread on probe_cpu, or back where the daemon was.
 * The daemon's acceptor thread, which takes and refuses connections, is left to run where the scheduler puts
 * it, beside the attackers, as on any host with more than one cpu.
 */
static void isolate_apply(bool on)
{
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(probe_cpu, &one);
	if (on) {
		if (sched_getaffinity(daemon_pid, sizeof(daemon_cpus_saved), &daemon_cpus_saved) < 0 ||
		    sched_setaffinity(daemon_pid, sizeof(one), &one) < 0 || sched_setaffinity(0, sizeof(one), &one) < 0)
			die("sched_setaffinity");
	} else {
		sched_setaffinity(daemon_pid, sizeof(daemon_cpus_saved), &daemon_cpus_saved);
		sched_setaffinity(0, sizeof(daemon_cpus_saved), &daemon_cpus_saved);
	}
}
static void on_term(int sig)
{
	stop_attack = 1;
}

/* The attacker reports one line to the parent through fd. */
static void report(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(int fd, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0 && write(fd, line, (size_t)n) < 0)
		_exit(3);
}

/* Connections that never authenticate: n silent ones and n that stop after their AUTH line. Held until
 * stopped; reports when the daemon closed them (the earliest and the latest, in ms from the connect). */
static void attack_noauth(int out, int n)
{
	int fds[64];
	uint64_t t0 = now_us(), first = 0, last = 0;
	int open = 0;
	if (n > 32)
		n = 32;
	for (int i = 0; i < 2 * n; i++) {
		char ok[64];
		if ((fds[i] = raw_connect(sock_path, 15000)) < 0)
			_exit(30);
		if (i % 2 && (raw_auth_start(fds[i]) < 0 || read(fds[i], ok, sizeof(ok)) <= 0))
			_exit(31);
		open++;
	}
	report(out, "ready\n");
	while (open > 0 && !stop_attack) {
		struct pollfd p[64];
		for (int i = 0; i < 2 * n; i++)
			p[i] = (struct pollfd){.fd = fds[i], .events = POLLIN};
		if (poll(p, (nfds_t)(2 * n), 100) <= 0)
			continue;
		for (int i = 0; i < 2 * n; i++) {
			char b[256];
			if (fds[i] < 0 || !p[i].revents || read(fds[i], b, sizeof(b)) > 0)
				continue;
			uint64_t ms = (now_us() - t0) / 1000;
			if (!first)
				first = ms;
			last = ms;
			close(fds[i]);
			fds[i] = -1;
			open--;
		}
	}
	report(out, "noauth_conns=%d noauth_still_open=%d noauth_first_closed_ms=%llu noauth_last_closed_ms=%llu\n",
	        2 * n, open, (unsigned long long)first, (unsigned long long)last);
	_exit(0);
}

/* A message announcing a 100 MiB body, sent again and again; reports how much of the body got out. */
static void attack_bigmsg(int out)
{
	static uint8_t zeros[64 * 1024];
	uint8_t msg[512];
	unsigned long long attempts = 0, most = 0, total = 0;
	bool said = false;
	while (!stop_attack) {
		int fd = raw_connect(sock_path, 1000);
		if (fd < 0 || raw_auth_start(fd) < 0 || raw_auth_finish(fd) < 0)
			_exit(40);
		size_t n = raw_header(msg, sizeof(msg), 1, "Ping", 100u << 20);
		unsigned long long sent = 0;
		if (raw_send(fd, msg, n, -1) == 0)
			while (sent < (100ULL << 20) && !stop_attack) {
				ssize_t k = send(fd, zeros, sizeof(zeros), MSG_NOSIGNAL);
				if (k <= 0)
					break;
				sent += (unsigned long long)k;
			}
		close(fd);
		attempts++;
		total += sent;
		if (sent > most)
			most = sent;
		if (!said) {
			report(out, "ready\n");
			said = true;
		}
		sleep_us(250000);
	}
	report(out, "bigmsg_attempts=%llu bigmsg_most_body_bytes_sent=%llu bigmsg_total_bytes=%llu\n", attempts, most,
	       total);
	_exit(0);
}

/* ListKeys calls as fast as they go in, never a reply read; reports how many went in. */
static void attack_flood(int out)
{
	struct raw_arg keys[] = {{'s', "pids", 0}, {'s', "", 0}};
	uint8_t batch[64 * 1024];
	size_t len = 0, per = 0;
	unsigned long long calls = 0, bytes = 0, stalls = 0;
	int fd = raw_connect(sock_path, 2000);
	if (fd < 0 || raw_auth_start(fd) < 0 || raw_auth_finish(fd) < 0)
		_exit(50);
	for (uint32_t s = 1; len + 512 < sizeof(batch); s++) {
		size_t n = raw_call(batch + len, sizeof(batch) - len, s, RAW_IFACE0, "ListKeys", keys, 2, 0);
		per = n;
		len += n;
	}
	report(out, "ready\n");
	size_t off = 0;
	while (!stop_attack) {
		struct pollfd p = {.fd = fd, .events = POLLOUT};
		if (poll(&p, 1, 50) <= 0) {
			stalls++;
			continue;
		}
		ssize_t k = send(fd, batch + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (k < 0) {
			if (errno == EAGAIN)
				continue;
			break;
		}
		bytes += (unsigned long long)k;
		off = (off + (size_t)k) % len;
	}
	calls = bytes / per;
	report(out, "flood_calls_sent=%llu flood_bytes_sent=%llu flood_stalled_polls=%llu\n", calls, bytes, stalls);
	_exit(0);
}

/* n connections at once: even ones authenticate, odd ones stay silent. Reports how many the daemon kept. */
static void attack_conns(int out, int n)
{
	int *fds = calloc((size_t)n, sizeof(int));
	int opened = 0, failed = 0;
	if (!fds)
		_exit(60);
	for (int i = 0; i < n && !stop_attack; i++) {
		fds[i] = raw_connect(sock_path, 2000);
		if (fds[i] < 0) {
			failed++;
			continue;
		}
		opened++;
		if (i % 2 == 0 && raw_auth_start(fds[i]) < 0) {
			close(fds[i]);
			fds[i] = -1;
		}
	}
	/* A refused connection was closed by the daemon: it reads as EOF. The daemon takes one connection
	 * per turn, so a slow one (under valgrind) may still have many in its listen queue: held are those
	 * still open once no more were closed for half a second (30 s at most). */
	uint64_t quiet_since = now_us(), give_up = now_us() + 30000000ULL;
	while (now_us() - quiet_since < 500000 && now_us() < give_up && !stop_attack) {
		sleep_us(50000);
		for (int i = 0; i < n; i++) {
			if (fds[i] < 0)
				continue;
			struct pollfd p = {.fd = fds[i], .events = POLLIN};
			char b[128];
			if (poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR) || read(fds[i], b, sizeof(b)) <= 0)) {
				close(fds[i]);
				fds[i] = -1;
				quiet_since = now_us();
			}
		}
	}
	int held = 0;
	for (int i = 0; i < n; i++)
		held += fds[i] >= 0;
	report(out, "ready\n");
	report(out, "conns_tried=%d conns_opened=%d conns_connect_failed=%d conns_held=%d\n", n, opened, failed, held);
	while (!stop_attack)
		pause();
	_exit(0);
}

/*
 * The quota attack: one uid that owns more cgroups than the daemon's --max-cgroups-per-uid (the test made
 * them with plain mkdir, behind the daemon's back) takes every connection it may (nconns tried: the per-uid
 * cap is held), keeps QUOTA_SCM Scm exchanges under way and silent on the first of them (as many per
 * connection as the daemon allows; each is started again once the daemon dropped it at its deadline), and on
 * the others loops Creates that the quota refuses, QUOTA_WINDOW in flight on each, as fast as they are
 * answered. Reports what it held and what the Creates got.
 */
#define QUOTA_SCM 32
#define QUOTA_SCM_PER_CONN 4
#define QUOTA_WINDOW 4
#define QUOTA_SCM_DEADLINE_US 5000000ULL /* the daemon's (SCM_DEADLINE_USEC) */
static const char *quota_hierarchy = "pids";

struct quota_tally {
	unsigned long long sent, refused, succeeded, other, scm_started, scm_refused;
	char first_other[160];
};

/* Starts one silent GetValueScm exchange on fd: 1 when under way (*dgram its socket), 0 refused, -1 lost. */
static int quota_scm_start(int fd, uint32_t *serial, int *dgram, struct quota_tally *t)
{
	struct raw_arg a[] = {{'s', quota_hierarchy, 0}, {'s', "", 0}, {'s', "cgroup.procs", 0}, {'h', NULL, 0}};
	const uint8_t *rest;
	size_t len;
	int d = -1;
	*dgram = -1;
	if (scm_call(fd, (*serial)++, "GetValueScm", a, 4, &d) < 0) {
		if (d >= 0)
			close(d);
		return -1;
	}
	int type = raw_read_body(fd, &rest, &len);
	if (type == 2) {
		t->scm_started++;
		*dgram = d;
		return 1;
	}
	close(d);
	if (type == 3 && rest && memmem(rest, len, "Scm exchanges are under way", 27)) {
		t->scm_refused++;
		return 0;
	}
	return -1;
}

static int quota_send_create(int fd, uint32_t *serial)
{
	struct raw_arg create[] = {{'s', quota_hierarchy, 0}, {'s', "quota-flood-x", 0}};
	uint8_t msg[512];
	size_t n = raw_call(msg, sizeof(msg), (*serial)++, RAW_IFACE0, "Create", create, 2, 0);
	return n ? raw_send(fd, msg, n, -1) : -1;
}

/* The first readable text of an answer's body (its error message), for the report. */
static void quota_note_other(struct quota_tally *t, const uint8_t *rest, size_t len)
{
	size_t best = 0, at = 0;
	for (size_t i = 0, run = 0; rest && i < len; i++) {
		run = rest[i] >= 32 && rest[i] < 127 ? run + 1 : 0;
		if (run > best)
			best = run, at = i + 1 - run;
	}
	if (!t->first_other[0])
		snprintf(t->first_other, sizeof(t->first_other), "%.*s", (int)(best < 150 ? best : 150), (const char *)rest + at);
}

static void attack_quota(int out, int n)
{
	struct quota_tally t = {0};
	int *fds = calloc((size_t)n, sizeof(int)), held = 0, lost = 0, nscm_conns = QUOTA_SCM / QUOTA_SCM_PER_CONN;
	uint32_t *serial = calloc((size_t)n, sizeof(uint32_t));
	struct {
		int conn, dgram;
		uint64_t started;
	} scm[QUOTA_SCM];
	if (!fds || !serial)
		_exit(70);
	/* Every connection the daemon admits; those over the per-uid cap it closes (EOF in the auth exchange). */
	for (int i = 0; i < n; i++) {
		int fd = raw_connect(sock_path, 5000);
		if (fd >= 0 && (raw_auth_start(fd) < 0 || raw_auth_finish(fd) < 0)) {
			close(fd);
			fd = -1;
		}
		if (fd >= 0) {
			fds[held] = fd;
			serial[held++] = 1;
		}
	}
	if (held <= nscm_conns)
		_exit(71);
	/* The Scm exchanges, QUOTA_SCM_PER_CONN on each of the first connections, and one more: refused at the cap. */
	int open = 0;
	for (int k = 0; k < QUOTA_SCM; k++) {
		scm[k].conn = k / QUOTA_SCM_PER_CONN;
		scm[k].started = now_us();
		open += quota_scm_start(fds[scm[k].conn], &serial[scm[k].conn], &scm[k].dgram, &t) == 1;
	}
	int extra, extra_refused = quota_scm_start(fds[nscm_conns], &serial[nscm_conns], &extra, &t) == 0;
	if (extra >= 0)
		close(extra);
	report(out, "quota_conns_tried=%d quota_conns_held=%d quota_scm_open=%d quota_scm_one_more_refused=%d\n", n, held,
	       open, extra_refused);
	/* The Creates, on the other connections. */
	int nc = held - nscm_conns;
	struct pollfd *p = calloc((size_t)nc, sizeof(*p));
	if (!p)
		_exit(72);
	for (int i = 0; i < nc; i++) {
		p[i] = (struct pollfd){.fd = fds[nscm_conns + i], .events = POLLIN};
		for (int w = 0; w < QUOTA_WINDOW; w++)
			if (quota_send_create(p[i].fd, &serial[nscm_conns + i]) == 0)
				t.sent++;
	}
	/* Measured from here: the first refusal waits for the daemon's first count of the uid's cgroups (a walk
	 * of them all, on its serving thread), and that belongs to what the attack costs the others. */
	report(out, "ready\n");
	uint64_t t0 = now_us();
	while (!stop_attack) {
		/* An exchange the daemon dropped at its deadline is started again (a refused one, a little later). */
		uint64_t now = now_us();
		for (int k = 0; k < QUOTA_SCM; k++) {
			if (now < scm[k].started + QUOTA_SCM_DEADLINE_US + 100000)
				continue;
			if (scm[k].dgram >= 0)
				close(scm[k].dgram);
			if (quota_scm_start(fds[scm[k].conn], &serial[scm[k].conn], &scm[k].dgram, &t) == 0)
				scm[k].started = now - QUOTA_SCM_DEADLINE_US; /* again in 100 ms */
			else
				scm[k].started = now;
		}
		if (poll(p, (nfds_t)nc, 50) <= 0)
			continue;
		for (int i = 0; i < nc && !stop_attack; i++) {
			if (p[i].fd < 0 || !p[i].revents)
				continue;
			const uint8_t *rest;
			size_t len;
			int type = raw_read_body(p[i].fd, &rest, &len);
			if (type < 0) {
				close(p[i].fd);
				p[i].fd = -1;
				lost++;
				continue;
			}
			if (type == 2) {
				t.succeeded++;
			} else if (type == 3 && rest && memmem(rest, len, "--max-cgroups-per-uid", 21)) {
				t.refused++;
			} else if (type == 3) {
				t.other++;
				quota_note_other(&t, rest, len);
			} else {
				continue; /* not an answer: nothing to send again */
			}
			if (quota_send_create(p[i].fd, &serial[nscm_conns + i]) == 0)
				t.sent++;
		}
	}
	double secs = (double)(now_us() - t0) / 1e6;
	report(out, "quota_creates_sent=%llu quota_creates_refused=%llu quota_creates_succeeded=%llu "
	       "quota_creates_other_errors=%llu quota_conns_lost=%d quota_scm_started=%llu quota_scm_refused=%llu "
	       "quota_ms_under_way=%.0f\n",
	       t.sent, t.refused, t.succeeded, t.other, lost, t.scm_started, t.scm_refused, secs * 1000);
	if (t.first_other[0])
		report(out, "quota_first_other_error: %s\n", t.first_other);
	_exit(0);
}

struct attacker {
	pid_t pid;
	int out;
	char text[2048];
	size_t len;
};

/* The attacker process (cgm-load ... --kind KIND attack), reporting on fd 3. */
static int attacker_main(const char *kind, int nconns)
{
	signal(SIGTERM, on_term);
	if (attacker_idle) {
		/* What the attack costs the daemon, not what the attacker's own CPU use costs the probe on a machine
		 * with few cpus: the attacker runs only where a cpu would idle. */
		struct sched_param sp = {0};
		if (sched_setscheduler(0, SCHED_IDLE, &sp) < 0)
			die("SCHED_IDLE");
	}
	if (isolate)
		sched_setaffinity(0, sizeof(attacker_cpus), &attacker_cpus);
	become_client();
	if (!strcmp(kind, "noauth"))
		attack_noauth(3, nconns);
	else if (!strcmp(kind, "bigmsg"))
		attack_bigmsg(3);
	else if (!strcmp(kind, "flood"))
		attack_flood(3);
	else if (!strcmp(kind, "conns"))
		attack_conns(3, nconns);
	else if (!strcmp(kind, "quota"))
		attack_quota(3, nconns);
	report(3, "ready\n");
	while (!stop_attack)
		pause();
	return 0;
}

/*
 * Starts an attacker. Spawned (vfork and exec), not forked: a fork would leave the probe, in this
 * process, to copy on write what it touches next, and that would show in its latencies.
 */
static void attacker_start(struct attacker *a, const char *kind, int nconns)
{
	char pid[16], uid[16], n[16];
	int p[2];
	posix_spawn_file_actions_t fa;
	snprintf(pid, sizeof(pid), "%d", (int)daemon_pid);
	snprintf(uid, sizeof(uid), "%u", (unsigned)client_uid);
	snprintf(n, sizeof(n), "%d", nconns);
	char cpus[24];
	unsigned long long mask = 0;
	for (int c = 0; c < 64; c++)
		if (CPU_ISSET(c, &attacker_cpus))
			mask |= 1ULL << c;
	snprintf(cpus, sizeof(cpus), "%llx", mask);
	char *argv[20] = {"cgm-load", "--socket", (char *)sock_path, "--daemon-pid", pid, "--uid", uid, "--kind",
	                  (char *)kind, "--conns", n, "--quota-hierarchy", (char *)quota_hierarchy};
	int k = 13;
	if (attacker_idle)
		argv[k++] = "--attacker-idle";
	if (isolate) {
		argv[k++] = "--attacker-cpus";
		argv[k++] = cpus;
	}
	argv[k++] = "attack";
	argv[k] = NULL;
	if (pipe2(p, O_CLOEXEC) < 0)
		die("pipe");
	a->len = 0;
	a->text[0] = 0;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 3);
	if ((errno = posix_spawn(&a->pid, "/proc/self/exe", &fa, NULL, argv, environ)) != 0)
		die("posix_spawn");
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	a->out = p[0];
}

/* Reads what the attacker reported so far (waiting up to ms for something, if wait). */
static void attacker_read(struct attacker *a, int ms)
{
	struct pollfd p = {.fd = a->out, .events = POLLIN};
	while (a->len + 1 < sizeof(a->text) && poll(&p, 1, ms) == 1) {
		ssize_t k = read(a->out, a->text + a->len, sizeof(a->text) - a->len - 1);
		if (k <= 0)
			break;
		a->len += (size_t)k;
		a->text[a->len] = 0;
		ms = 0;
	}
}

static void attacker_wait_ready(struct attacker *a, int ms)
{
	uint64_t end = now_us() + (uint64_t)ms * 1000;
	while (!strstr(a->text, "ready\n") && now_us() < end)
		attacker_read(a, 50);
}

static void attacker_stop(struct attacker *a)
{
	kill(a->pid, SIGTERM);
	uint64_t end = now_us() + 3000000;
	int st;
	while (waitpid(a->pid, &st, WNOHANG) == 0) {
		attacker_read(a, 20);
		if (now_us() > end) {
			kill(a->pid, SIGKILL);
			waitpid(a->pid, &st, 0);
			break;
		}
	}
	attacker_read(a, 0);
	close(a->out);
}

static unsigned long long reported(const struct attacker *a, const char *key)
{
	const char *p = strstr(a->text, key);
	return p ? strtoull(p + strlen(key) + 1, NULL, 10) : 0;
}

static void print_reports(const char *kind, const struct attacker *a)
{
	for (const char *p = a->text; *p;) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n && strncmp(p, "ready", 5))
			printf("hostile %s: %.*s\n", kind, (int)n, p);
		p += n + (e != NULL);
	}
}

struct hostile_opts {
	int ms, rounds, nconns;
	double p99_ratio;
	unsigned p99_slack_us;
	unsigned long slack_kb;
	unsigned max_conns_per_uid;
};

#define PROBE_INTERVAL_US 500
#define NOISY_P99_OVER_P50 8
#define STARVED_P99_FACTOR 4
#define STARVED_P99_SLACK_US 1000

/*
 * One attack: Ping latency without it and under it, in alternating rounds (so that what else the
 * machine does falls on both alike), and what the attack got and cost the daemon.
 */
static uint32_t median_u32(uint32_t *v, int n)
{
	qsort(v, (size_t)n, sizeof(uint32_t), cmp_u32);
	return v[n / 2];
}

/* What the quota attacker reported, summed over the rounds of its latest measurement. */
static struct {
	unsigned long long refused, succeeded, other, lost, ms;
	unsigned long long held_min, scm_open_min, scm_one_more_refused_min;
} quota_sum;

static void quota_sum_round(const struct attacker *a, int round)
{
	unsigned long long held = reported(a, "quota_conns_held"), scm = reported(a, "quota_scm_open"),
	                   more = reported(a, "quota_scm_one_more_refused");
	if (round == 0)
		memset(&quota_sum, 0, sizeof(quota_sum)), quota_sum.held_min = held, quota_sum.scm_open_min = scm,
		                                          quota_sum.scm_one_more_refused_min = more;
	quota_sum.refused += reported(a, "quota_creates_refused");
	quota_sum.succeeded += reported(a, "quota_creates_succeeded");
	quota_sum.other += reported(a, "quota_creates_other_errors");
	quota_sum.lost += reported(a, "quota_conns_lost");
	quota_sum.ms += reported(a, "quota_ms_under_way");
	if (held < quota_sum.held_min)
		quota_sum.held_min = held;
	if (scm < quota_sum.scm_open_min)
		quota_sum.scm_open_min = scm;
	if (more < quota_sum.scm_one_more_refused_min)
		quota_sum.scm_one_more_refused_min = more;
}

/* The rounds of one attack; returns whether its Ping p99 kept within the limit. */
static bool hostile_measure(sd_bus *pb, const char *kind, const struct hostile_opts *o, struct attacker *a,
                            struct sample *peak, char *reports, size_t rlen)
{
	struct lat base = {0}, att = {0};
	uint32_t rb[64], ra[64];
	int rounds = o->rounds > 64 ? 64 : o->rounds, per = o->ms / rounds;
	struct sample s0 = daemon_sample();
	for (int r = 0; r < rounds; r++) {
		size_t nb = base.n, na = att.n;
		probe_into(pb, per, PROBE_INTERVAL_US, &base);
		/* The quota attacker tries a few connections more than its uid may hold. */
		int n = !strcmp(kind, "noauth") ? 16 : !strcmp(kind, "quota") ? (int)o->max_conns_per_uid + 4 : o->nconns;
		attacker_start(a, kind, n);
		/* The connections attack is measured from its first connect; the others once under way. */
		if (strcmp(kind, "conns"))
			attacker_wait_ready(a, 5000);
		probe_into(pb, per, PROBE_INTERVAL_US, &att);
		attacker_wait_ready(a, 40000);
		struct sample s1 = daemon_sample();
		if (s1.fds > peak->fds)
			peak->fds = s1.fds;
		if (s1.rss_kb > peak->rss_kb)
			peak->rss_kb = s1.rss_kb;
		attacker_stop(a);
		settle(s0.fds, 5000);
		if (r == 0)
			snprintf(reports, rlen, "%s", a->text);
		if (!strcmp(kind, "quota"))
			quota_sum_round(a, r);
		/* This round's p99s (the pooled samples are sorted only at the end). */
		struct lat lb = {base.v + nb, base.n - nb, 0, 0}, la = {att.v + na, att.n - na, 0, 0};
		uint32_t *cb = malloc(lb.n * sizeof(uint32_t) + 1), *ca = malloc(la.n * sizeof(uint32_t) + 1);
		if (!cb || !ca)
			die("out of memory");
		memcpy(cb, lb.v, lb.n * sizeof(uint32_t));
		memcpy(ca, la.v, la.n * sizeof(uint32_t));
		lb.v = cb;
		la.v = ca;
		rb[r] = lat_stats(&lb).p99;
		ra[r] = lat_stats(&la).p99;
		free(cb);
		free(ca);
	}
	struct stats b = lat_stats(&base), d = lat_stats(&att);
	free(base.v);
	free(att.v);
	uint32_t mb = median_u32(rb, rounds), ma = median_u32(ra, rounds);
	printf("hostile %s: ping_n=%zu/%zu p50_us=%u/%u p99_us=%u/%u max_us=%u/%u failed=%u/%u median_round_p99_us=%u/%u "
	       "(without/under the attack, %d rounds)\n",
	       kind, b.n, d.n, b.p50, d.p50, b.p99, d.p99, b.max, d.max, b.failed, d.failed, mb, ma, rounds);
	CHECK(d.failed == 0 && b.failed == 0, "hostile %s: %u pings failed under the attack, %u without", kind, d.failed,
	      b.failed);
	/* Without any attack a quiet machine's Ping p99 is 2-3 times its p50. Far above that, something else
	 * has the cpus (in CI, the v2 VM beside this lane), and a 20% comparison would judge that, not the
	 * daemon: it is printed and left unjudged. */
	if (mb > NOISY_P99_OVER_P50 * b.p50) {
		/* Still, a client starved by the attack is not noise: tens of ms against one or two without it (one
		 * uid's busy connections once took the serving thread so) fail however busy the machine is. */
		bool starved = o->p99_ratio > 0 && ma > STARVED_P99_FACTOR * mb + STARVED_P99_SLACK_US;
		printf("hostile %s: p99 without the attack is %ux its p50: the machine is busy; latency not judged%s\n", kind,
		       b.p50 ? mb / b.p50 : 0, starved ? " but for starvation: the p99 under it is over 4x + 1 ms" : "");
		return !starved;
	}
	return ma <= mb * o->p99_ratio + o->p99_slack_us;
}

/*
 * One attack: Ping latency without it and under it, in alternating rounds (so that what else the machine
 * does falls on both alike; the check compares the median of the rounds' p99s, and a miss is measured
 * once more), and what the attack got and cost the daemon.
 */
static void hostile_one(sd_bus *pb, const char *kind, const struct hostile_opts *o)
{
	struct attacker a;
	struct sample s0 = daemon_sample(), peak = s0;
	char reports[4096] = "";
	/* A ratio of 0 reports the latencies without judging them (a daemon under valgrind, a VM's emulated cpu). */
	bool ok = hostile_measure(pb, kind, o, &a, &peak, reports, sizeof(reports)) || o->p99_ratio <= 0;
	if (!ok) {
		printf("hostile %s: p99 over the limit; measuring again\n", kind);
		ok = hostile_measure(pb, kind, o, &a, &peak, reports, sizeof(reports));
	}
	CHECK(ok, "hostile %s: Ping p99 under the attack above x%.2f + %u us of the p99 without it", kind, o->p99_ratio,
	      o->p99_slack_us);
	struct sample s2 = settle(s0.fds, 5000);
	printf("hostile %s: daemon fds=%u/%u/%u rss_kb=%lu/%lu/%lu hwm_kb=%lu/%lu (before/peak/after)\n", kind, s0.fds,
	       peak.fds, s2.fds, s0.rss_kb, peak.rss_kb, s2.rss_kb, s0.hwm_kb, s2.hwm_kb);
	snprintf(a.text, sizeof(a.text), "%s", reports);
	print_reports(kind, &a);
	CHECK(s2.fds <= s0.fds, "hostile %s: the daemon has %u fds afterwards, %u before", kind, s2.fds, s0.fds);
	CHECK(s2.rss_kb <= s0.rss_kb + o->slack_kb, "hostile %s: the daemon's RSS grew from %lu to %lu KiB", kind,
	      s0.rss_kb, s2.rss_kb);
	/* 16 MiB, or the slack where the allocator keeps what is freed (ASan's quarantine, valgrind). */
	unsigned long peak_slack_kb = o->slack_kb > 16384 ? o->slack_kb : 16384;
	if (!strcmp(kind, "bigmsg")) {
		/* Not read into memory: the peak RSS stays far below the 100 MiB. */
		CHECK(s2.hwm_kb < s0.hwm_kb + peak_slack_kb, "hostile bigmsg: the daemon's peak RSS rose from %lu to %lu KiB",
		      s0.hwm_kb, s2.hwm_kb);
		CHECK(reported(&a, "bigmsg_attempts") > 0 && reported(&a, "bigmsg_most_body_bytes_sent") < (8ULL << 20),
		      "hostile bigmsg: the daemon took %llu bytes of a 100 MiB body",
		      reported(&a, "bigmsg_most_body_bytes_sent"));
	} else if (!strcmp(kind, "flood")) {
		CHECK(reported(&a, "flood_stalled_polls") > 0, "hostile flood: the daemon never stopped reading");
		CHECK(peak.rss_kb < s0.rss_kb + peak_slack_kb, "hostile flood: the daemon's RSS grew from %lu to %lu KiB", s0.rss_kb,
		      peak.rss_kb);
	} else if (!strcmp(kind, "conns")) {
		unsigned long long held = reported(&a, "conns_held");
		CHECK(strstr(a.text, "conns_held=") && held <= o->max_conns_per_uid,
		      "hostile conns: %llu connections held (limit %u per uid)", held, o->max_conns_per_uid);
		CHECK(peak.fds < s0.fds + 4 * (o->max_conns_per_uid + 8), "hostile conns: the daemon had %u fds (%u before)",
		      peak.fds, s0.fds);
	} else if (!strcmp(kind, "quota")) {
		printf("hostile quota: over all rounds: creates_refused=%llu (%.0f/s) succeeded=%llu other_errors=%llu "
		       "conns_lost=%llu; each round held conns>=%llu scm_exchanges>=%llu\n",
		       quota_sum.refused, quota_sum.ms ? (double)quota_sum.refused * 1000 / (double)quota_sum.ms : 0.0,
		       quota_sum.succeeded, quota_sum.other, quota_sum.lost, quota_sum.held_min, quota_sum.scm_open_min);
		CHECK(quota_sum.refused > 0 && quota_sum.succeeded == 0 && quota_sum.other == 0,
		      "hostile quota: of the attacker's Creates %llu were refused at its quota, %llu succeeded, %llu failed "
		      "otherwise", quota_sum.refused, quota_sum.succeeded, quota_sum.other);
		CHECK(quota_sum.held_min == o->max_conns_per_uid && quota_sum.lost == 0,
		      "hostile quota: the attacker held %llu connections (the per-uid cap is %u), %llu lost", quota_sum.held_min,
		      o->max_conns_per_uid, quota_sum.lost);
		CHECK(quota_sum.scm_open_min == QUOTA_SCM && quota_sum.scm_one_more_refused_min == 1,
		      "hostile quota: the attacker kept %llu Scm exchanges under way (the per-uid cap is %d)%s",
		      quota_sum.scm_open_min, QUOTA_SCM, quota_sum.scm_one_more_refused_min ? "" : "; one more was not refused");
		/* A connection that has made calls holds 5 fds (SERVER_FDS_PER_CONN without fds in flight), an Scm
		 * exchange 2, a count of the cgroups a few more while it walks. */
		CHECK(peak.fds < s0.fds + 5 * (o->max_conns_per_uid + 8) + 2 * QUOTA_SCM + 16,
		      "hostile quota: the daemon had %u fds (%u before)", peak.fds, s0.fds);
	}
}

static int run_hostile(const struct hostile_opts *o, const char *only)
{
	if (isolate)
		isolate_apply(true);
	sd_bus *pb = bus_open();
	if (!pb)
		die("cannot connect the probe");
	/* Warm the probe's path up. */
	probe(pb, 200, PROBE_INTERVAL_US);
	bool all = !only || !*only;
	struct attacker hold;
	uint64_t t0 = now_us();
	/* Connections that never authenticate stay through everything else; they must go at the deadline. */
	if (all || strstr(only, "noauth")) {
		attacker_start(&hold, "noauth", 2);
		attacker_wait_ready(&hold, 5000);
	}
	/* quota needs what the test made (a uid's many cgroups): it runs only when asked for. */
	const char *kinds[] = {"noauth", "bigmsg", "flood", "conns", "quota"};
	for (int i = 0; i < 5; i++)
		if ((all && i < 4) || (only && strstr(only, kinds[i])))
			hostile_one(pb, kinds[i], o);
	if (all || strstr(only, "noauth")) {
		uint64_t end = t0 + 14000000;
		while (!strstr(hold.text, "noauth_conns=") && now_us() < end)
			attacker_read(&hold, 100);
		attacker_stop(&hold);
		print_reports("noauth (held)", &hold);
		unsigned long long first = reported(&hold, "noauth_first_closed_ms"),
		                   last = reported(&hold, "noauth_last_closed_ms");
		CHECK(strstr(hold.text, "noauth_still_open=0") && first >= 9500 && last <= 12500,
		      "hostile noauth: connections that never authenticate closed after %llu..%llu ms (deadline 10 s)", first,
		      last);
	}
	CHECK(bus_ping(pb) >= 0 && fresh_ping() == 0, "hostile: the daemon does not answer afterwards");
	sd_bus_flush_close_unref(pb);
	if (isolate)
		isolate_apply(false);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: cgm-load --socket PATH --daemon-pid PID [--uid UID] mixed|kill-storm|hostile [OPTIONS]\n"
	           "  mixed:      --clients N --requests M [--window W] [--max-errors N]\n"
	           "  kill-storm: --clients N [--parallel P]\n"
	           "  hostile:    [--seconds S] [--conns N] [--only KINDS] [--p99-ratio R] [--p99-slack-us U]\n"
	           "              [--max-conns-per-uid N] [--quota-hierarchy NAME]\n"
	           "  all:        [--rss-slack-kb K]\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"socket", required_argument, NULL, 's'},      {"daemon-pid", required_argument, NULL, 'p'},
		{"uid", required_argument, NULL, 'u'},         {"clients", required_argument, NULL, 'c'},
		{"requests", required_argument, NULL, 'r'},    {"window", required_argument, NULL, 'w'},
		{"parallel", required_argument, NULL, 'P'},    {"seconds", required_argument, NULL, 'S'},
		{"conns", required_argument, NULL, 'n'},       {"max-errors", required_argument, NULL, 'e'},
		{"rss-slack-kb", required_argument, NULL, 'k'}, {"p99-ratio", required_argument, NULL, 'R'},
		{"p99-slack-us", required_argument, NULL, 'U'}, {"only", required_argument, NULL, 'o'},
		{"max-conns-per-uid", required_argument, NULL, 'm'}, {"help", no_argument, NULL, 'h'},
		{"ping-only", no_argument, NULL, 'O'},         {"isolate-cpus", no_argument, NULL, 'i'},
		{"attacker-cpus", required_argument, NULL, 'C'}, {"kind", required_argument, NULL, 'K'},
		{"rounds", required_argument, NULL, 'x'},      {"attacker-idle", no_argument, NULL, 'I'},
		{"quota-hierarchy", required_argument, NULL, 'Q'},
		{0},
	};
	int clients = 16, parallel = 32, c;
	uint64_t requests = 100000, max_errors = 0;
	unsigned window = 4;
	const char *only = NULL, *kind = "none";
	struct hostile_opts ho = {.ms = 3000, .rounds = 5, .nconns = 4096, .p99_ratio = 1.2, .slack_kb = 2048,
	                          .max_conns_per_uid = 128};

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's': sock_path = optarg; break;
		case 'p': daemon_pid = (pid_t)atoi(optarg); break;
		case 'u': client_uid = (uid_t)strtoul(optarg, NULL, 10); break;
		case 'c': clients = atoi(optarg); break;
		case 'r': requests = strtoull(optarg, NULL, 10); break;
		case 'w': window = (unsigned)atoi(optarg); break;
		case 'P': parallel = atoi(optarg); break;
		case 'S': ho.ms = (int)(atof(optarg) * 1000); break;
		case 'n': ho.nconns = atoi(optarg); break;
		case 'e': max_errors = strtoull(optarg, NULL, 10); break;
		case 'k': ho.slack_kb = strtoul(optarg, NULL, 10); break;
		case 'R': ho.p99_ratio = atof(optarg); break;
		case 'U': ho.p99_slack_us = (unsigned)atoi(optarg); break;
		case 'o': only = optarg; break;
		case 'm': ho.max_conns_per_uid = (unsigned)atoi(optarg); break;
		case 'O': ping_only = true; break;
		case 'i': isolate = true; break;
		case 'C': {
			/* An attacker: the cpus the probe and the daemon do not use (a mask). */
			unsigned long long mask = strtoull(optarg, NULL, 16);
			CPU_ZERO(&attacker_cpus);
			for (int b = 0; b < 64; b++)
				if (mask & (1ULL << b))
					CPU_SET(b, &attacker_cpus);
			isolate = true;
			break;
		}
		case 'K': kind = optarg; break;
		case 'x': ho.rounds = atoi(optarg) < 1 ? 1 : atoi(optarg); break;
		case 'I': attacker_idle = true; break;
		case 'Q': quota_hierarchy = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!sock_path || daemon_pid <= 0 || optind + 1 != argc) {
		usage(stderr);
		return 2;
	}
	if (window < 1)
		window = 1;
	/* Room for the connections attack and the clients (raised as root, inherited by the clients). */
	struct rlimit rl = {.rlim_cur = 16384, .rlim_max = 16384};
	setrlimit(RLIMIT_NOFILE, &rl);
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *mode = argv[optind];
	if (!strcmp(mode, "hostile") && isolate && !isolate_setup()) {
		printf("hostile: one cpu only: the attackers share it with the daemon and the probe\n");
		isolate = false;
	}
	if (!strcmp(mode, "attack"))
		return attacker_main(kind, ho.nconns);
	if (!strcmp(mode, "mixed"))
		run_mixed(clients, requests, window, max_errors, ho.slack_kb);
	else if (!strcmp(mode, "kill-storm"))
		run_kill_storm(clients, parallel, ho.slack_kb);
	else if (!strcmp(mode, "hostile"))
		run_hostile(&ho, only);
	else {
		usage(stderr);
		return 2;
	}
	printf("%s: %s\n", mode, failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
