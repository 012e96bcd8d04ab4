/* The operation tables (methods_042.c, scm.c, methods_key_api.c) run with 1, 4, 16... clients, each row beside its floor. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static int64_t roundtrip(struct cl *c, int i)
{
	T_START();
	int r = sd_bus_call_method(c->raw, NULL, "/org/linuxcontainers/cgmanager", "org.freedesktop.DBus.Peer", "Ping",
	                           NULL, NULL, "");
	return T_END(r);
}

int fixtures_setup(int maxc)
{
	char rel[128];
	if (mkdir_all("bench") < 0)
		return -1;
	for (int k = 0; k < maxc; k++) {
		static const char *const subs[] = {"", "/a", "/b"};
		for (int s = 0; s < 3; s++) {
			snprintf(rel, sizeof(rel), "bench/c%d%s", k, subs[s]);
			if (mkdir_cg(env.mem, rel) < 0)
				return -1;
			snprintf(rel, sizeof(rel), "bench/k%d%s", k, subs[s]);
			if (mkdir_all(rel) < 0)
				return -1;
		}
		snprintf(rel, sizeof(rel), "bench/r%d-%d", k, (int)getpid());
		if (mkdir_cg(env.mem, rel) < 0)
			return -1;
		sleepers[k] = spawn_sleeper();
		sleepers1[k] = spawn_sleeper();
		sleepers2[k] = spawn_sleeper();
	}
	return 0;
}

/* Puts every sleeper back where the operations expect it. */
static void fixtures_reset(int maxc)
{
	char rel[128];
	for (int k = 0; k < maxc; k++) {
		snprintf(rel, sizeof(rel), "bench/c%d/a", k);
		move_to(env.mem, rel, sleepers[k]);
		snprintf(rel, sizeof(rel), "bench/k%d/a", k);
		for (int h = 0; h < env.nhier; h++)
			move_to(h, rel, sleepers1[k]);
		/*
		 * RemoveOnEmpty marks bench/r<k>-<our pid>, which this one keeps populated. The mark outlives the
		 * run (the daemon removes the cgroup once it is empty), so each run has names of its own.
		 */
		snprintf(rel, sizeof(rel), "bench/r%d-%d", k, (int)getpid());
		move_to(env.mem, rel, sleepers2[k]);
	}
}

void fixtures_teardown(int maxc)
{
	for (int k = 0; k < maxc; k++) {
		end_sleeper(sleepers[k]);
		end_sleeper(sleepers1[k]);
		end_sleeper(sleepers2[k]);
		sleepers[k] = sleepers1[k] = sleepers2[k] = 0;
	}
	for (int h = 0; h < env.nhier; h++)
		rmtree_cg(h, "bench");
}

static void table(const char *title, const struct op *ops, size_t n, int clients, int maxc)
{
	printf("\n%s, %d client(s):\n\n", title, clients);
	print_head();
	const char *only = getenv("CGM_BENCH_OP"); /* one row alone, for profiling: its exact name */
	for (size_t i = 0; i < n; i++) {
		if (only && strcmp(only, ops[i].name) != 0)
			continue;
		fixtures_reset(maxc);
		struct result rt = run_op(roundtrip, clients, ops[i].div);
		struct result fl = {0};
		if (ops[i].floor)
			fl = run_op(ops[i].floor, clients, ops[i].div);
		fixtures_reset(maxc);
		struct result r = run_op(ops[i].fn, clients, ops[i].div);
		char what[160];
		snprintf(what, sizeof(what), "round trip%s%s", ops[i].floor ? " + " : "",
		         ops[i].floor ? ops[i].floor_what : "");
		print_row(clients, ops[i].name, &r, &rt, ops[i].floor ? &fl : NULL, what);
	}
}

int bench_ops(const int *clients, int nc, const char *which)
{
	int maxc = 0;
	for (int i = 0; i < nc; i++)
		if (clients[i] > maxc)
			maxc = clients[i];
	if (fixtures_setup(maxc) < 0) {
		warnx_("cannot set up the benchmark's cgroups");
		fixtures_teardown(maxc);
		return -1;
	}
	printf("## operations: %d iterations per row, shared by the clients; ratio = p50 / floor p50, where the floor "
	       "is a bare sd-bus round trip (Peer.Ping, answered by sd-bus) + the direct kernel work, measured just "
	       "before the row\n",
	       env.iterations);
	for (int i = 0; i < nc; i++) {
		struct result rt = run_op(roundtrip, clients[i], 1);
		printf("\nsd-bus round trip with %d client(s): %.0f/s, p50 %.1f µs, p99 %.1f µs\n", clients[i], rt.per_sec,
		       rt.p50_us, rt.p99_us);
		if (!strcmp(which, "all") || strchr(which, '0'))
			table("### cgmanager0_0 (0.42)", methods_042, nmethods_042, clients[i], maxc);
		if (!strcmp(which, "all") || strstr(which, "scm"))
			table("### cgmanager0_0 Scm methods", methods_scm, nmethods_scm, clients[i], maxc);
		if (!strcmp(which, "all") || strchr(which, '1'))
			table("### cgmanager1 (key API)", methods_key_api, nmethods_key_api, clients[i], maxc);
	}
	fixtures_teardown(maxc);
	return 0;
}
