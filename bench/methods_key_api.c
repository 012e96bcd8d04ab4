/*
 * Every method of the key API (org.linuxcontainers.cgmanager1) through
 * libcgmanager, each beside its floor. A key-API name is the same cgroup in
 * every hierarchy, so each floor does the kernel work in every hierarchy the
 * name exists in. Client k works on bench/k<k> (children a and b, its
 * sleeper in a), which exists in every hierarchy.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"

static const cgm1_value soft64[] = {{"memory.soft_limit", "64M"}};
static const cgm1_value soft128[] = {{"memory.soft_limit", "128M"}};

static void name(const struct cl *c, const char *sub, char *out)
{
	snprintf(out, 128, "bench/k%d%s%s", c->k, sub ? "/" : "", sub ? sub : "");
}

static int64_t k_list_controllers(struct cl *c, int i)
{
	cgm1_controller *v = NULL;
	size_t n = 0;
	T_START();
	int r = cgm1_list_controllers(c->c, &v, &n, NULL);
	int64_t t = T_END(r);
	cgm1_controllers_free(v, n);
	return t;
}

static int64_t k_list_keys(struct cl *c, int i)
{
	cgm1_key *v = NULL;
	size_t n = 0;
	T_START();
	int r = cgm1_list_keys(c->c, &v, &n, NULL);
	int64_t t = T_END(r);
	cgm1_keys_free(v, n);
	return t;
}

static int64_t k_create(struct cl *c, int i)
{
	char n[128];
	int created;
	name(c, "n", n);
	T_START();
	int r = cgm1_create(c->c, n, NULL, soft64, 1, &created, NULL);
	int64_t t = T_END(r);
	return rmdir_all(n) < 0 ? -1 : t;
}
static int64_t kf_create(struct cl *c, int i)
{
	char n[128], p[PATHMAX];
	name(c, "n", n);
	hpath(env.mem, n, "memory.soft_limit_in_bytes", p);
	T_START();
	int r = mkdir_all(n);
	if (r == 0)
		r = fwrite_str(p, "67108864");
	int64_t t = T_END(r);
	return rmdir_all(n) < 0 ? -1 : t;
}

static int64_t k_delete(struct cl *c, int i)
{
	char n[128];
	name(c, "n", n);
	if (mkdir_all(n) < 0)
		return -1;
	T_START();
	int r = cgm1_delete(c->c, n, 0, NULL);
	return T_END(r);
}
static int64_t kf_delete(struct cl *c, int i)
{
	char n[128];
	name(c, "n", n);
	if (mkdir_all(n) < 0)
		return -1;
	T_START();
	int r = rmdir_all(n);
	return T_END(r);
}

static int64_t k_set_values(struct cl *c, int i)
{
	char n[128];
	name(c, NULL, n);
	T_START();
	int r = cgm1_set_values(c->c, n, i & 1 ? soft64 : soft128, 1, NULL);
	return T_END(r);
}
static int64_t kf_write(struct cl *c, int i)
{
	char n[128], p[PATHMAX];
	name(c, NULL, n);
	hpath(env.mem, n, "memory.soft_limit_in_bytes", p);
	T_START();
	int r = fwrite_str(p, i & 1 ? "67108864" : "134217728");
	return T_END(r);
}

static int64_t k_get_values(struct cl *c, int i)
{
	char n[128];
	const char *keys[] = {"memory.soft_limit", NULL};
	cgm1_value *v = NULL;
	size_t nv = 0;
	name(c, NULL, n);
	T_START();
	int r = cgm1_get_values(c->c, n, keys, &v, &nv, NULL);
	int64_t t = T_END(r);
	cgm1_values_free(v, nv);
	return t;
}
static int64_t kf_read(struct cl *c, int i)
{
	char n[128], p[PATHMAX], buf[256];
	name(c, NULL, n);
	hpath(env.mem, n, "memory.soft_limit_in_bytes", p);
	T_START();
	int r = fread_buf(p, buf, sizeof(buf));
	return T_END(r);
}

static int64_t k_list_children(struct cl *c, int i)
{
	char n[128], **v = NULL;
	name(c, NULL, n);
	T_START();
	int r = cgm1_list_children(c->c, n, &v, NULL);
	int64_t t = T_END(r);
	cgm_strv_free(v);
	return t;
}
static int64_t kf_readdir_all(struct cl *c, int i)
{
	char n[128], p[MAX_HIER][PATHMAX];
	name(c, NULL, n);
	for (int h = 0; h < env.nhier; h++)
		hpath(h, n, NULL, p[h]);
	T_START();
	int r = 0;
	for (int h = 0; h < env.nhier; h++)
		r |= count_dir(p[h]);
	return T_END(r);
}

static int64_t list_tasks(struct cl *c, const char *sub, bool recursive)
{
	char n[128];
	pid_t *pids = NULL;
	size_t np = 0;
	name(c, sub, n);
	T_START();
	int r = cgm1_list_tasks(c->c, n, recursive, &pids, &np, NULL);
	int64_t t = T_END(r);
	free(pids);
	return t;
}
static int64_t k_list_tasks(struct cl *c, int i)
{
	return list_tasks(c, "a", false);
}
static int64_t k_list_tasks_rec(struct cl *c, int i)
{
	return list_tasks(c, NULL, true);
}
static int64_t kf_procs_all(struct cl *c, int i)
{
	char n[128], p[MAX_HIER][PATHMAX];
	name(c, "a", n);
	for (int h = 0; h < env.nhier; h++)
		hpath(h, n, NULL, p[h]);
	T_START();
	int r = 0;
	for (int h = 0; h < env.nhier; h++)
		r |= read_procs(p[h]);
	return T_END(r);
}
/* In every hierarchy, the recursive walk: cgroup.procs and a readdir of the cgroup and its two children. */
static int walk_all(struct cl *c)
{
	char n[128], p[PATHMAX];
	int r = 0;
	name(c, NULL, n);
	for (int h = 0; h < env.nhier; h++) {
		hpath(h, n, NULL, p);
		r |= walk_procs(p);
	}
	return r;
}
static int64_t kf_walk_all(struct cl *c, int i)
{
	T_START();
	int r = walk_all(c);
	return T_END(r);
}

static int64_t k_chown(struct cl *c, int i)
{
	char n[128];
	name(c, "a", n);
	T_START();
	int r = cgm1_chown(c->c, n, 0, 0, NULL);
	return T_END(r);
}
static int64_t kf_chown_all(struct cl *c, int i)
{
	char n[128], d[PATHMAX], f[PATHMAX];
	static const char *const v1[] = {"cgroup.procs", "tasks", NULL},
	                         *v2[] = {"cgroup.procs", "cgroup.threads", "cgroup.subtree_control", NULL};
	name(c, "a", n);
	T_START();
	int r = 0;
	for (int h = 0; h < env.nhier; h++) {
		const char *const *files = strcmp(env.hier_name[h], "unified") == 0 ? v2 : v1;
		for (int j = 0; files[j]; j++) {
			hpath(h, n, files[j], f);
			r |= chown(f, 0, 0);
		}
		hpath(h, n, NULL, d);
		r |= chown(d, 0, 0);
	}
	return T_END(r);
}

static int64_t k_move_pid(struct cl *c, int i)
{
	char n[128];
	name(c, i & 1 ? "a" : "b", n);
	T_START();
	int r = cgm1_move_pid(c->c, n, c->sleeper1, NULL);
	return T_END(r);
}
static int64_t k_move(struct cl *c, int i)
{
	char n[128];
	name(c, i & 1 ? "a" : "b", n);
	T_START();
	int r = cgm1_move(c->c, n, c->pidfd1, NULL);
	return T_END(r);
}
static int64_t kf_move_all(struct cl *c, int i)
{
	char n[128], p[MAX_HIER][PATHMAX], v[16];
	name(c, i & 1 ? "a" : "b", n);
	for (int h = 0; h < env.nhier; h++)
		hpath(h, n, "cgroup.procs", p[h]);
	snprintf(v, sizeof(v), "%d", (int)c->sleeper1);
	T_START();
	int r = 0;
	for (int h = 0; h < env.nhier; h++)
		r |= fwrite_str(p[h], v);
	return T_END(r);
}

static int64_t k_kill(struct cl *c, int i)
{
	char n[128];
	name(c, NULL, n);
	T_START();
	int r = cgm1_kill(c->c, n, SIGCONT, NULL);
	return T_END(r);
}
static int64_t kf_kill(struct cl *c, int i)
{
	T_START();
	int r = walk_all(c);
	if (r >= 0)
		r = (int)syscall(SYS_pidfd_send_signal, c->pidfd1, SIGCONT, NULL, 0);
	return T_END(r);
}

/* bench/k<k>/f with a sleeping child of ours in every hierarchy, made untimed; its pid, or -1. */
static pid_t populated(struct cl *c, char *n)
{
	name(c, "f", n);
	if (mkdir_all(n) < 0)
		return -1;
	pid_t p = spawn_sleeper();
	for (int h = 0; h < env.nhier; h++)
		if (move_to(h, n, p) < 0) {
			end_sleeper(p);
			rmdir_all(n);
			return -1;
		}
	return p;
}
/* Delete with force: SIGKILL to the task, its exit waited for, then the rmdirs. */
static int64_t k_delete_force(struct cl *c, int i)
{
	char n[128];
	pid_t p = populated(c, n);
	if (p < 0)
		return -1;
	T_START();
	int r = cgm1_delete(c->c, n, 1, NULL);
	int64_t t = T_END(r);
	end_sleeper(p);
	if (r < 0)
		rmdir_all(n);
	return t;
}
static int64_t kf_delete_force(struct cl *c, int i)
{
	char n[128], d[PATHMAX];
	pid_t p = populated(c, n);
	int fd = p < 0 ? -1 : pidfd_open(p, 0);
	if (fd < 0) {
		end_sleeper(p);
		return -1;
	}
	T_START();
	int r = 0;
	for (int h = 0; h < env.nhier; h++) {
		hpath(h, n, NULL, d);
		r |= walk_procs(d);
	}
	if (r >= 0)
		r = (int)syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0);
	if (r >= 0)
		r = poll(&(struct pollfd){.fd = fd, .events = POLLIN}, 1, 5000) == 1 ? 0 : -1;
	if (r >= 0)
		r = rmdir_all(n);
	int64_t t = T_END(r);
	close(fd);
	end_sleeper(p);
	if (r < 0)
		rmdir_all(n);
	return t;
}

/* The freezer: v1 freezer.state, else cgroup2's cgroup.freeze and cgroup.events. */
static int freeze_direct(struct cl *c, bool frozen)
{
	char n[128], p[PATHMAX], buf[512];
	name(c, NULL, n);
	bool v1 = env.freezer >= 0;
	int h = v1 ? env.freezer : 0;
	if (!v1)
		for (int j = 0; j < env.nhier; j++)
			if (strcmp(env.hier_name[j], "unified") == 0)
				h = j;
	hpath(h, n, v1 ? "freezer.state" : "cgroup.freeze", p);
	int r = fwrite_str(p, v1 ? (frozen ? "FROZEN" : "THAWED") : (frozen ? "1" : "0"));
	if (!v1)
		hpath(h, n, "cgroup.events", p);
	for (int spins = 0; r == 0 && spins < 100000; spins++) {
		if (fread_buf(p, buf, sizeof(buf)) < 0)
			return -1;
		if (v1 ? strncmp(buf, frozen ? "FROZEN" : "THAWED", 6) == 0
		       : strstr(buf, frozen ? "frozen 1" : "frozen 0") != NULL)
			return 0;
		usleep(50);
	}
	return -1;
}
static int64_t k_freeze(struct cl *c, int i)
{
	char n[128];
	name(c, NULL, n);
	T_START();
	int r = cgm1_freeze(c->c, n, NULL);
	int64_t t = T_END(r);
	return freeze_direct(c, false) < 0 ? -1 : t;
}
static int64_t kf_freeze(struct cl *c, int i)
{
	T_START();
	int r = freeze_direct(c, true);
	int64_t t = T_END(r);
	return freeze_direct(c, false) < 0 ? -1 : t;
}
static int64_t k_thaw(struct cl *c, int i)
{
	char n[128];
	name(c, NULL, n);
	if (freeze_direct(c, true) < 0)
		return -1;
	T_START();
	int r = cgm1_thaw(c->c, n, NULL);
	return T_END(r);
}
static int64_t kf_thaw(struct cl *c, int i)
{
	if (freeze_direct(c, true) < 0)
		return -1;
	T_START();
	int r = freeze_direct(c, false);
	return T_END(r);
}

const struct op methods_key_api[] = {
	{"ListControllers", k_list_controllers, NULL, "round trip", 0},
	{"ListKeys", k_list_keys, NULL, "round trip", 0},
	{"GetValues (1 key)", k_get_values, kf_read, "read the file", 0},
	{"SetValues (1 key)", k_set_values, kf_write, "write the file", 0},
	{"ListChildren", k_list_children, kf_readdir_all, "readdir in every hierarchy", 0},
	{"ListTasks", k_list_tasks, kf_procs_all, "cgroup.procs in every hierarchy", 0},
	{"ListTasks (recursive)", k_list_tasks_rec, kf_walk_all, "recursive walk of 3 cgroups per hierarchy", 0},
	{"MovePid", k_move_pid, kf_move_all, "write cgroup.procs in every hierarchy", 0},
	{"Move (pidfd)", k_move, kf_move_all, "write cgroup.procs in every hierarchy", 0},
	{"Chown", k_chown, kf_chown_all, "chown dir + task files in every hierarchy", 2},
	{"Create (+1 value)", k_create, kf_create, "mkdir in every hierarchy + write", 8},
	{"Delete", k_delete, kf_delete, "rmdir in every hierarchy", 8},
	{"Kill (SIGCONT)", k_kill, kf_kill, "walk every hierarchy + pidfd_send_signal", 2},
	{"Delete force (1 task)", k_delete_force, kf_delete_force,
	 "walk every hierarchy + SIGKILL + its exit (pidfd) + rmdir in every hierarchy", 8},
	{"Freeze", k_freeze, kf_freeze, "write freezer state, poll until frozen", 4},
	{"Thaw", k_thaw, kf_thaw, "write freezer state, poll until thawed", 4},
};
const size_t nmethods_key_api = sizeof(methods_key_api) / sizeof(methods_key_api[0]);
