/*
 * cgm-bench: the cost of cgmanager's operations, each against a floor
 * measured in the same run. bench/run.sh runs it in a sandbox (BENCHMARKS.md).
 *
 *   cgm-bench ops     --socket S --hier NAME=DIR... [--iterations N] [--clients 1,4,16] [--which all|0|scm|1]
 *   cgm-bench scale   --socket S --hier NAME=DIR... [--sizes 100,1000,10000]
 *   cgm-bench rss     --socket S --daemon-pid PID [--conns 1000]
 *   cgm-bench startup --daemon PATH --sockdir DIR [--runs 200]
 *   cgm-bench cli     --socket S --cgm PATH --noop PATH [--runs 200]
 *   cgm-bench events  --socket S --hier NAME=DIR... [--iterations N]
 *
 * Each DIR is the daemon's root in that hierarchy, and ours: the benchmark
 * works in DIR/bench only, and removes it.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench.h"

static int parse_list(const char *s, int *out, int max)
{
	int n = 0;
	char *copy = strdup(s), *save = NULL;
	for (char *t = strtok_r(copy, ",", &save); t && n < max; t = strtok_r(NULL, ",", &save))
		if ((out[n] = atoi(t)) > 0)
			n++;
	free(copy);
	return n;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"socket", required_argument, NULL, 's'},  {"hier", required_argument, NULL, 'H'},
		{"iterations", required_argument, NULL, 'n'}, {"clients", required_argument, NULL, 'c'},
		{"which", required_argument, NULL, 'w'},   {"sizes", required_argument, NULL, 'z'},
		{"daemon-pid", required_argument, NULL, 'p'}, {"conns", required_argument, NULL, 'C'},
		{"daemon", required_argument, NULL, 'd'},  {"sockdir", required_argument, NULL, 'D'},
		{"runs", required_argument, NULL, 'r'},    {"cgm", required_argument, NULL, 'g'},
		{"noop", required_argument, NULL, 'N'},    {0},
	};
	int clients[8] = {1, 4, 16}, nclients = 3, sizes[8] = {100, 1000, 10000}, nsizes = 3, o;
	int conns = 1000, runs = 200, dpid = 0;
	const char *which = "all", *daemon = NULL, *sockdir = NULL, *cgm = NULL, *noop = NULL;

	if (argc < 2) {
		fprintf(stderr, "usage: cgm-bench ops|scale|rss|startup|cli|events [OPTIONS] (see bench/main.c)\n");
		return 2;
	}
	const char *mode = argv[1];
	optind = 2;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 's':
			env.sock = optarg;
			break;
		case 'H': {
			const char *eq = strstr(optarg, "=/"); /* names may hold "=": name=systemd */
			if (!eq || env.nhier == MAX_HIER)
				return 2;
			snprintf(env.hier_name[env.nhier], sizeof(env.hier_name[0]), "%.*s", (int)(eq - optarg), optarg);
			snprintf(env.hier_path[env.nhier], sizeof(env.hier_path[0]), "%s", eq + 1);
			if (strcmp(env.hier_name[env.nhier], "memory") == 0)
				env.mem = env.nhier;
			if (strcmp(env.hier_name[env.nhier], "freezer") == 0)
				env.freezer = env.nhier;
			env.nhier++;
			break;
		}
		case 'n':
			env.iterations = atoi(optarg);
			break;
		case 'c':
			nclients = parse_list(optarg, clients, 8);
			break;
		case 'w':
			which = optarg;
			break;
		case 'z':
			nsizes = parse_list(optarg, sizes, 8);
			break;
		case 'p':
			dpid = atoi(optarg);
			break;
		case 'C':
			conns = atoi(optarg);
			break;
		case 'd':
			daemon = optarg;
			break;
		case 'D':
			sockdir = optarg;
			break;
		case 'r':
			runs = atoi(optarg);
			break;
		case 'g':
			cgm = optarg;
			break;
		case 'N':
			noop = optarg;
			break;
		default:
			return 2;
		}
	}
	for (int i = 0; i < nclients; i++)
		if (clients[i] > MAX_CLIENTS)
			return 2;
	/* A thousand connections need a thousand descriptors. */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(mode, "startup") == 0) {
		if (!daemon || !sockdir || runs <= 0)
			return 2;
		bench_startup(daemon, sockdir, runs);
	} else if (strcmp(mode, "cli") == 0) {
		if (!env.sock || !cgm || !noop || runs <= 0)
			return 2;
		bench_cli(cgm, noop, runs);
	} else if (strcmp(mode, "rss") == 0) {
		if (!env.sock || dpid <= 0 || conns <= 0)
			return 2;
		bench_rss(dpid, conns);
	} else {
		if (!env.sock || env.mem < 0 || env.iterations <= 0) {
			fprintf(stderr, "cgm-bench: --socket and --hier memory=DIR are needed\n");
			return 2;
		}
		if (strcmp(mode, "ops") == 0)
			bench_ops(clients, nclients, which);
		else if (strcmp(mode, "scale") == 0)
			bench_scale(sizes, nsizes);
		else if (strcmp(mode, "events") == 0)
			bench_events();
		else
			return 2;
	}
	return failures() ? 1 : 0;
}
