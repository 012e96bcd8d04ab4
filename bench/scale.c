/*
 * Cost as the tree grows: memory:bench/scale/t with N empty children, N =
 * 100, 1000, 10000 (built and removed directly). ListChildren, GetTasksRecursive
 * and Prune of t, and Create of one more child, each beside the direct work a
 * program would do (readdir; readdir + every cgroup.procs; readdir + every
 * rmdir; mkdir). Per-cgroup cost that stays flat as N grows is linear.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

#define T "bench/scale/t"

static int build(int n)
{
	char rel[128];
	if (mkdir_cg(env.mem, T) < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		snprintf(rel, sizeof(rel), T "/%d", i);
		if (mkdir_cg(env.mem, rel) < 0)
			return -1;
	}
	return 0;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(double), cmp_d);
	return v[n / 2];
}

/* The direct removal of t: readdir, rmdir of every child, then of t. */
static int remove_direct(void)
{
	char d[PATHMAX], sub[PATHMAX + 300];
	hpath(env.mem, T, NULL, d);
	DIR *dir = opendir(d);
	struct dirent *de;
	int r = 0;
	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", d, de->d_name);
		r |= rmdir(sub);
	}
	closedir(dir);
	r |= rmdir(d);
	return r ? -1 : 0;
}

struct row {
	const char *op, *floor;
	double us, floor_us;
};

static void print_rows(int n, struct row *rows, int nrows, const double *base_per, double *per_out)
{
	for (int i = 0; i < nrows; i++) {
		double per = rows[i].us / n;
		per_out[i] = per;
		printf("| %d | %s | %.0f | %s | %.0f | %.2fx | %.2f | %.2f |\n", n, rows[i].op, rows[i].us, rows[i].floor,
		       rows[i].floor_us, rows[i].us / rows[i].floor_us, per, base_per ? per / base_per[i] : 1.0);
	}
	fflush(stdout);
}

int bench_scale(const int *sizes, int nsizes)
{
	cgm_client *c = NULL;
	char sp[PATHMAX], ch[PATHMAX];
	double base[4], per[4];
	int rc = 0;
	pid_t sleeper = spawn_sleeper();

	if (mkdir_all("bench") < 0 && errno != EEXIST) {
		warnx_("cannot create bench: %s", strerror(errno));
	}
	if (mkdir_cg(env.mem, "bench/scale") < 0 || cgm_connect(env.sock, &c, NULL) < 0) {
		warnx_("cannot set up the scaling benchmark");
		end_sleeper(sleeper);
		return -1;
	}
	/* The round trip every request pays, as in the operation tables: a bare sd-bus Peer.Ping. */
	sd_bus *raw = NULL;
	char addr[PATHMAX + 16];
	double rts[101];
	snprintf(addr, sizeof(addr), "unix:path=%s", env.sock);
	if (sd_bus_new(&raw) < 0 || sd_bus_set_address(raw, addr) < 0 || sd_bus_start(raw) < 0) {
		warnx_("cannot connect to %s", env.sock);
		rc = -1;
	}
	for (int i = 0; rc == 0 && i < 101; i++) {
		T_START();
		int r = sd_bus_call_method(raw, NULL, "/org/linuxcontainers/cgmanager", "org.freedesktop.DBus.Peer", "Ping",
		                           NULL, NULL, "");
		rts[i] = (double)T_END(r) / 1000.0;
	}
	double rt = median(rts, 101);
	sd_bus_flush_close_unref(raw);
	printf("## scaling: memory:" T " with N empty children (one holds a task); one client; median of R runs; "
	       "floor = the direct work + one sd-bus round trip (%.1f µs)\n\n",
	       rt);
	printf("| cgroups | operation | cgmanager µs | floor | floor µs | ratio | µs per cgroup | per cgroup vs %d |\n",
	       sizes[0]);
	printf("| ---: | --- | ---: | --- | ---: | ---: | ---: | ---: |\n");
	for (int s = 0; s < nsizes && rc == 0; s++) {
		int n = sizes[s], reps = n <= 100 ? 51 : n <= 1000 ? 15 : 5, preps = n <= 1000 ? 3 : 1;
		double *a = calloc((size_t)reps, sizeof(double)), *b = calloc((size_t)reps, sizeof(double));
		struct row rows[4] = {{"ListChildren", "readdir", 0, 0},
		                      {"GetTasksRecursive", "recursive walk: cgroup.procs + readdir of every cgroup", 0, 0},
		                      {"Create (one more child)", "mkdir", 0, 0},
		                      {"Prune (removes all N+1)", "readdir + every rmdir", 0, 0}};
		uint64_t t0 = now_ns();
		if (!a || !b || build(n) < 0) {
			warnx_("cannot build a tree of %d cgroups: %s", n, strerror(errno));
			rc = -1;
			free(a);
			free(b);
			break;
		}
		fprintf(stderr, "cgm-bench: built %d cgroups in %.0f ms\n", n, (double)(now_ns() - t0) / 1e6);
		move_to(env.mem, T "/0", sleeper);
		hpath(env.mem, T, NULL, sp);
		for (int i = 0; i < reps; i++) {
			char **kids = NULL;
			T_START();
			int r = cgm_list_children(c, "memory", T, &kids, NULL);
			a[i] = (double)T_END(r) / 1000.0;
			if (r < 0 || !kids)
				rc = -1;
			int got = 0;
			while (kids && kids[got])
				got++;
			if (got != n)
				warnx_("ListChildren answered %d children of %d", got, n), rc = -1;
			cgm_strv_free(kids);
			uint64_t f0 = now_ns();
			count_dir(sp);
			b[i] = (double)(now_ns() - f0) / 1000.0;
		}
		rows[0].us = median(a, reps);
		rows[0].floor_us = median(b, reps);
		for (int i = 0; i < reps; i++) {
			pid_t *pids = NULL;
			/* b: the recursive walk (cgroup.procs and readdir of every cgroup) */
			size_t np = 0;
			T_START();
			int r = cgm_get_tasks_recursive(c, "memory", T, &pids, &np, NULL);
			a[i] = (double)T_END(r) / 1000.0;
			if (r < 0 || np != 1)
				rc = -1;
			free(pids);
			uint64_t f0 = now_ns();
			walk_procs(sp);
			b[i] = (double)(now_ns() - f0) / 1000.0;
		}
		rows[1].us = median(a, reps);
		rows[1].floor_us = median(b, reps);
		hpath(env.mem, T "/new", NULL, ch);
		/* Create does not depend on N: always 51 runs, for a median as steady as the small trees'. */
		int creps = 51;
		double *ca = calloc((size_t)creps, sizeof(double)), *cb = calloc((size_t)creps, sizeof(double));
		if (!ca || !cb)
			die("calloc");
		for (int i = 0; i < creps; i++) {
			int existed;
			T_START();
			int r = cgm_create(c, "memory", T "/new", &existed, NULL);
			ca[i] = (double)T_END(r) / 1000.0;
			if (r < 0 || rmdir(ch) < 0)
				rc = -1;
			uint64_t f0 = now_ns();
			if (mkdir(ch, 0755) < 0)
				rc = -1;
			cb[i] = (double)(now_ns() - f0) / 1000.0;
			rmdir(ch);
		}
		rows[2].us = median(ca, creps);
		rows[2].floor_us = median(cb, creps);
		free(ca);
		free(cb);
		/* Prune takes the tree down; it is rebuilt for the floor and for the next run. */
		move_to(env.mem, "bench/scale", sleeper);
		for (int i = 0; i < preps && rc == 0; i++) {
			if (i > 0 && build(n) < 0)
				rc = -1;
			T_START();
			int r = cgm_prune(c, "memory", T, NULL);
			a[i] = (double)T_END(r) / 1000.0;
			if (r < 0 || access(sp, F_OK) == 0)
				warnx_("Prune left %s", sp), rc = -1;
			if (build(n) < 0)
				rc = -1;
			uint64_t f0 = now_ns();
			if (remove_direct() < 0)
				rc = -1;
			b[i] = (double)(now_ns() - f0) / 1000.0;
		}
		rows[3].us = median(a, preps);
		rows[3].floor_us = median(b, preps);
		for (int i = 0; i < 4; i++)
			rows[i].floor_us += rt;
		free(a);
		free(b);
		print_rows(n, rows, 4, s ? base : NULL, per);
		if (s == 0)
			memcpy(base, per, sizeof(base));
		rmtree_cg(env.mem, T);
	}
	if (rc < 0)
		count_failure();
	cgm_disconnect(c);
	end_sleeper(sleeper);
	rmtree_cg(env.mem, "bench/scale");
	for (int h = 0; h < env.nhier; h++)
		rmtree_cg(h, "bench");
	return rc;
}
