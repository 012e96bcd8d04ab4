/*
 * Event latency (issue 17): a task of ours moved into a watched cgroup and out again, each move a change of its
 * populated flag that the kernel notifies of at once; the time from the move (the write to cgroup.procs, within
 * which the kernel notifies) to the Event's arrival at a libcgmanager subscriber, split at the daemon's reading
 * of cgroup.events (the event's time). The moves are 30 ms apart: the kernel notifies of one file at most every
 * HZ/100 jiffies, rounded up (12 ms at HZ=250, as here), and defers what comes sooner, which would be measured
 * instead of the daemon.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define GAP_US 30000

struct seen {
	bool got;
	uint64_t event_us, arrival_us;
	char event[16];
};

static uint64_t realtime_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

static void on_event(const cgm1_event *ev, void *data)
{
	struct seen *s = data;
	s->arrival_us = realtime_us();
	s->event_us = ev->time_us;
	snprintf(s->event, sizeof(s->event), "%s", ev->event);
	s->got = true;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static void row(const char *what, uint64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_u64);
	printf("| %s | %d | %llu | %llu | %llu |\n", what, n, (unsigned long long)v[n / 2],
	       (unsigned long long)v[(n * 99) / 100], (unsigned long long)v[n - 1]);
}

void bench_events(void)
{
	const char *const words[] = {"populated", "empty", NULL};
	int h = 0, n = 0, errors = 0, iterations = env.iterations > 2000 ? 2000 : env.iterations;
	uint64_t *to_read = calloc((size_t)iterations, sizeof(uint64_t)), *to_arrival = calloc((size_t)iterations, 8),
	         *total = calloc((size_t)iterations, 8);
	struct seen seen = {0};
	cgm_client *c = NULL;
	uint32_t id;

	/* The watch's emptiness comes from cgroup2 where there is one. */
	for (int i = 0; i < env.nhier; i++)
		if (strcmp(env.hier_name[i], "unified") == 0)
			h = i;
	if (!to_read || !to_arrival || !total || mkdir_all("bench-ev") < 0 || mkdir_all("bench-ev-out") < 0)
		die("bench-ev");
	pid_t s = spawn_sleeper();
	if (move_to(h, "bench-ev-out", s) < 0 || cgm_connect(env.sock, &c, NULL) < 0)
		die("set-up");
	cgm1_on_event(c, on_event, &seen);
	if (cgm1_watch(c, "bench-ev", words, &id, NULL) < 0)
		die("Watch");
	for (int i = 0; i < iterations; i++) {
		usleep(GAP_US);
		seen.got = false;
		uint64_t t0 = realtime_us();
		if (move_to(h, i % 2 ? "bench-ev-out" : "bench-ev", s) < 0) {
			errors++;
			continue;
		}
		while (!seen.got && cgm1_process_events(c, 1000000, NULL) > 0)
			;
		if (!seen.got || strcmp(seen.event, i % 2 ? "empty" : "populated") != 0) {
			errors++;
			continue;
		}
		to_read[n] = seen.event_us - t0;
		to_arrival[n] = seen.arrival_us - seen.event_us;
		total[n++] = seen.arrival_us - t0;
	}
	printf("event latency: %d moves of a task in and out of a watched cgroup (%s), %d ms apart; errors: %d\n\n",
	       iterations, env.hier_name[h], GAP_US / 1000, errors);
	printf("| span | events | p50 µs | p99 µs | max µs |\n| --- | ---: | ---: | ---: | ---: |\n");
	if (n) {
		row("move (the kernel's notice) to the daemon's reading of cgroup.events", to_read, n);
		row("the daemon's reading to the Event's arrival at the subscriber", to_arrival, n);
		row("move to the Event's arrival", total, n);
	}
	cgm_disconnect(c);
	end_sleeper(s);
	rmdir_all("bench-ev");
	rmdir_all("bench-ev-out");
	free(to_read);
	free(to_arrival);
	free(total);
	if (errors)
		warnx_("%d moves brought no event", errors);
}
