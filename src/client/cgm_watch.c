/* cgm watch: one line per event of a cgroup (--json: one JSON object per line) until interrupted. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cgm.h"

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/* The watch's id, and whether its cgroup went (the watch has ended then). */
struct watching {
	uint32_t id;
	const char *top;
	bool ended;
};

static void print_event(const cgm1_event *ev, void *data)
{
	struct watching *w = data;
	if (ev->id == w->id && !strcmp(ev->event, "removed") && w->top && !strcmp(ev->name, w->top))
		w->ended = true;
	if (opt_json) {
		printf("{\"id\":%u,\"name\":", ev->id);
		json_string(stdout, ev->name);
		printf(",\"event\":");
		json_string(stdout, ev->event);
		if (ev->has_count)
			printf(",\"count\":%llu", (unsigned long long)ev->count);
		printf(",\"time_us\":%llu}\n", (unsigned long long)ev->time_us);
	} else {
		/* The caller's own cgroup is '/', as getpidcgroup prints it; lost has no name. */
		printf("%s %s", ev->event, *ev->name ? ev->name : "/");
		if (ev->has_count)
			printf(" %llu", (unsigned long long)ev->count);
		putchar('\n');
	}
	fflush(stdout);
}

int cgm_watch_run(cgm_client *c, char **a, int n, cgm_error *err)
{
	const char *events[n + 1];
	struct sigaction sa = {.sa_handler = on_stop};
	struct watching w = {.top = a[0]};
	int r;

	for (int i = 1; i < n; i++)
		events[i - 1] = a[i];
	events[n - 1] = NULL;
	/* No SA_RESTART: a signal ends the wait, and the watch ends with the connection. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	cgm1_on_event(c, print_event, &w);
	/* Interrupted before the daemon answered: the user ended it, nothing was refused. */
	if ((r = cgm1_watch(c, a[0], events, &w.id, err)) < 0)
		return stop ? 0 : r;
	/* On stderr, so that a script (and the tests) can wait for the watch to be in place. */
	fprintf(stderr, "watching %s (watch %u)\n", *a[0] ? a[0] : "/", w.id);
	while (!stop && !w.ended) {
		r = cgm1_process_events(c, UINT64_MAX, err);
		if (r < 0 && !stop)
			return r;
	}
	return 0;
}
