/* cgm-bench: shared declarations of the harness (harness.c) and the benchmarks (methods_042.c, methods_key_api.c, scm.c, scale.c, rss.c, startup.c, cli.c). */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

#include "cgmanager.h"

#define MAX_CLIENTS 64
#define MAX_HIER 16
#define PATHMAX 4200

/* What the benchmarks are told on the command line. */
struct bench_env {
	const char *sock;
	int nhier;
	char hier_name[MAX_HIER][64], hier_path[MAX_HIER][PATHMAX]; /* the daemon's root in each hierarchy */
	int mem;                                                      /* index of the memory hierarchy */
	int freezer;                                                  /* index of the freezer hierarchy, -1 if none */
	int iterations;                                               /* per operation, shared by the clients */
};
extern struct bench_env env;

/* One client process: its own connections, and what it works on. */
struct cl {
	int k;            /* client number */
	cgm_client *c;    /* libcgmanager */
	sd_bus *raw;      /* bare sd-bus */
	pid_t sleeper;    /* a task of ours this client moves (0.42 tests: in memory only) */
	pid_t sleeper1;   /* one for the key API (in every hierarchy) */
	int pidfd1;       /* pidfd of sleeper1 */
};

/* Does one operation at iteration i; returns the nanoseconds of the part that is timed, or -1 on error. */
typedef int64_t (*op_fn)(struct cl *c, int i);

struct op {
	const char *name;
	op_fn fn;
	op_fn floor;             /* the same kernel work done directly; NULL: the round trip alone is the floor */
	const char *floor_what;  /* what the floor does */
	int div;                 /* iterations / div for slow operations (0 means 1) */
};

struct result {
	double p50_us, p90_us, p99_us, per_sec;
	long n, errors;
};

uint64_t now_ns(void);
void die(const char *what);
void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Timed blocks: T_START(); ...; return T_END(rc) -- rc < 0 means failure. */
#define T_START() uint64_t t_start_ = now_ns()
#define T_END(rc) ((rc) < 0 ? -1 : (int64_t)(now_ns() - t_start_))

/* Direct cgroupfs helpers: return 0 or -errno. */
int fwrite_str(const char *path, const char *v);
int fread_buf(const char *path, char *buf, size_t size);
int read_procs(const char *path_of_cgroup); /* reads cgroup.procs of the cgroup; returns the count */
int count_dir(const char *path);           /* readdir; the subdirectories */
int walk_procs(const char *dir);           /* recursively: cgroup.procs and readdir of every cgroup */
int mkdir_cg(int h, const char *rel);      /* mkdir in hierarchy h (cpuset: cpus and mems copied from the parent) */
int rmdir_cg(int h, const char *rel);
int mkdir_all(const char *rel);            /* every hierarchy */
int rmdir_all(const char *rel);
int rmtree_cg(int h, const char *rel);     /* rmdir of the subtree, children first */
void hpath(int h, const char *rel, const char *file, char *out); /* hier_path[h]/rel[/file] */
int move_to(int h, const char *rel, pid_t pid);

/* Runs op with nclients processes (iterations shared between them); per-client fixtures ready. */
struct result run_op(op_fn fn, int nclients, int div);
/* A sleeping child of ours, ended by end_sleeper. */
pid_t spawn_sleeper(void);
void end_sleeper(pid_t p);
extern pid_t sleepers[MAX_CLIENTS], sleepers1[MAX_CLIENTS], sleepers2[MAX_CLIENTS];

/* Prints a table row in Markdown: r against the round trip rt plus the direct floor fl (NULL: none). */
void print_head(void);
void print_row(int clients, const char *name, const struct result *r, const struct result *rt,
               const struct result *fl, const char *floor_what);
int failures(void);
/* Event latency (events.c): env.iterations moves, at most 2000. */
void bench_events(void);
void count_failure(void);

/* Floors of methods_042.c that the Scm methods share. */
int64_t f_read(struct cl *c, int i);
int64_t f_write(struct cl *c, int i);
int64_t f_move(struct cl *c, int i);
int64_t f_proc_cgroup(struct cl *c, int i);
int64_t f_readdir(struct cl *c, int i);

/* The benchmark sections. */
extern const struct op methods_042[], methods_key_api[], methods_scm[];
extern const size_t nmethods_042, nmethods_key_api, nmethods_scm;
int bench_ops(const int *clients, int nclients_list, const char *which);
int fixtures_setup(int maxclients);
void fixtures_teardown(int maxclients);
int bench_scale(const int *sizes, int nsizes);
int bench_rss(pid_t daemon, int nconns);
int bench_startup(const char *daemon, const char *sockdir, int runs);
int bench_cli(const char *cgm, const char *noop, int runs);

/* The Scm side channel of 0.42, done as a 0.42 client does it (scm.c). out gets a string result. */
int scm_call(sd_bus *bus, const char *method, const char *const *sargs, int nargs, pid_t second, char *out,
             size_t outlen);
