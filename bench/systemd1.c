/*
 * cgm-bench-systemd1: the systemd1 interface as a client on the bus sees it. One row: StartTransientUnit of a
 * scope (a sleeping child of ours, MemoryMax and TasksMax) until its JobRemoved, then StopUnit until its
 * JobRemoved; beside it its floor, two org.freedesktop.DBus.Peer.Ping round trips to the name through the same
 * bus (answered by sd-bus in the daemon, none of its code). A fresh child is forked for each iteration, before
 * the timed part: StopUnit kills it.
 *   cgm-bench-systemd1 --bus ADDRESS [--iterations N]
 */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#define SD1 "org.freedesktop.systemd1"

static char awaited[128];
static int removed;

static uint64_t ns_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int on_job_removed(sd_bus_message *m, void *userdata, sd_bus_error *ret)
{
	uint32_t id;
	const char *path, *unit, *result;
	if (sd_bus_message_read(m, "uoss", &id, &path, &unit, &result) >= 0 && strcmp(path, awaited) == 0)
		removed = strcmp(result, "done") == 0 ? 1 : -1;
	return 0;
}

/* A call answering a job path, and that job's JobRemoved. */
static int job(sd_bus *bus, sd_bus_message *call)
{
	sd_bus_message *reply = NULL;
	const char *path;
	int r = sd_bus_call(bus, call, 0, NULL, &reply);
	if (r >= 0 && (r = sd_bus_message_read(reply, "o", &path)) >= 0) {
		snprintf(awaited, sizeof(awaited), "%s", path);
		removed = 0;
		while (r >= 0 && !removed)
			if ((r = sd_bus_process(bus, NULL)) == 0)
				r = sd_bus_wait(bus, UINT64_MAX);
	}
	sd_bus_message_unref(reply);
	return r < 0 ? r : removed < 0 ? -1 : 0;
}

/* The pair, each half's time in t[0] (start) and t[1] (stop). */
static int start_stop(sd_bus *bus, int i, pid_t child, uint64_t t[2])
{
	uint64_t t0 = ns_now();
	sd_bus_message *m = NULL;
	char name[64];
	snprintf(name, sizeof(name), "cgmbench-%d.scope", i);
	int r = sd_bus_message_new_method_call(bus, &m, SD1, "/org/freedesktop/systemd1", SD1 ".Manager",
	                                       "StartTransientUnit");
	if (r >= 0)
		r = sd_bus_message_append(m, "ssa(sv)a(sa(sv))", name, "fail", 3, "PIDs", "au", 1, (uint32_t)child,
		                          "MemoryMax", "t", (uint64_t)64 << 20, "TasksMax", "t", (uint64_t)64, 0);
	if (r >= 0)
		r = job(bus, m);
	sd_bus_message_unref(m);
	m = NULL;
	t[0] = ns_now() - t0;
	t0 = ns_now();
	if (r >= 0 && (r = sd_bus_message_new_method_call(bus, &m, SD1, "/org/freedesktop/systemd1", SD1 ".Manager",
	                                                  "StopUnit")) >= 0 &&
	    (r = sd_bus_message_append(m, "ss", name, "replace")) >= 0)
		r = job(bus, m);
	sd_bus_message_unref(m);
	t[1] = ns_now() - t0;
	return r;
}

static int ping_twice(sd_bus *bus)
{
	int r = 0;
	for (int k = 0; k < 2 && r >= 0; k++)
		r = sd_bus_call_method(bus, SD1, "/org/freedesktop/systemd1", "org.freedesktop.DBus.Peer", "Ping", NULL,
		                       NULL, "");
	return r;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void row(const char *what, uint64_t *t, int n, int errors)
{
	qsort(t, (size_t)n, sizeof(*t), cmp);
	printf("| %s | %.1f | %.1f | %.1f | %d | %d |\n", what, t[n / 2] / 1e3, t[n * 9 / 10] / 1e3, t[n * 99 / 100] / 1e3,
	       n, errors);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {{"bus", required_argument, NULL, 'b'},
	                                     {"iterations", required_argument, NULL, 'n'}, {0}};
	const char *address = NULL;
	int n = 1000, o, errors = 0, done = 0;
	sd_bus *bus = NULL;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (o == 'b')
			address = optarg;
		else if (o == 'n')
			n = atoi(optarg);
		else
			return 2;
	}
	if (!address || n <= 0) {
		fprintf(stderr, "usage: cgm-bench-systemd1 --bus ADDRESS [--iterations N]\n");
		return 2;
	}
	if (sd_bus_new(&bus) < 0 || sd_bus_set_address(bus, address) < 0 || sd_bus_set_bus_client(bus, 1) < 0 ||
	    sd_bus_start(bus) < 0 ||
	    sd_bus_match_signal(bus, NULL, SD1, "/org/freedesktop/systemd1", SD1 ".Manager", "JobRemoved",
	                        on_job_removed, NULL) < 0) {
		fprintf(stderr, "cgm-bench-systemd1: cannot connect to the bus at %s\n", address);
		return 1;
	}
	uint64_t *pair = calloc((size_t)n, sizeof(uint64_t)), *floor = calloc((size_t)n, sizeof(uint64_t));
	uint64_t *start = calloc((size_t)n, sizeof(uint64_t)), *stop = calloc((size_t)n, sizeof(uint64_t));
	if (!pair || !floor || !start || !stop)
		return 1;
	for (int i = 0; i < n; i++) {
		pid_t child = fork();
		if (child == 0) {
			pause();
			_exit(0);
		}
		uint64_t halves[2] = {0, 0}, t0 = ns_now();
		int r = start_stop(bus, i, child, halves);
		uint64_t t1 = ns_now();
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		if (r < 0) {
			errors++;
			continue;
		}
		pair[done] = t1 - t0;
		start[done] = halves[0];
		stop[done] = halves[1];
		t0 = ns_now();
		errors += ping_twice(bus) < 0;
		floor[done++] = ns_now() - t0;
	}
	if (!done)
		return 1;
	printf("| operation (µs) | p50 | p90 | p99 | n | errors |\n|---|---|---|---|---|---|\n");
	row("StartTransientUnit (scope, MemoryMax, TasksMax) to JobRemoved, then StopUnit to JobRemoved", pair, done,
	    errors);
	row("of which StartTransientUnit to JobRemoved", start, done, 0);
	row("of which StopUnit to JobRemoved", stop, done, 0);
	row("floor: two Peer.Ping round trips to " SD1 " through the bus", floor, done, 0);
	free(pair);
	free(floor);
	free(start);
	free(stop);
	sd_bus_flush_close_unref(bus);
	return errors ? 1 : 0;
}
