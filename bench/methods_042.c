/*
 * Every method of org.linuxcontainers.cgmanager0_0 through libcgmanager,
 * each beside its floor: the same kernel work done directly on cgroupfs.
 * Client k works in memory:bench/c<k> (children a and b, its sleeper in a).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

#define MEM "memory"
#define SOFT "memory.soft_limit_in_bytes"

static void cg(const struct cl *c, const char *sub, char *out)
{
	snprintf(out, 128, "bench/c%d%s%s", c->k, sub ? "/" : "", sub ? sub : "");
}

/* The client's scratch cgroup "n", made directly (untimed) for an operation that removes it. */
static int fresh_cg(const struct cl *c, char *rel)
{
	cg(c, "n", rel);
	return mkdir_cg(env.mem, rel);
}

static void dpath(const struct cl *c, const char *sub, const char *file, char *out)
{
	char rel[128];
	cg(c, sub, rel);
	hpath(env.mem, rel, file, out);
}

static int64_t o_ping(struct cl *c, int i)
{
	T_START();
	int r = cgm_ping(c->c, NULL);
	return T_END(r);
}

static int64_t o_api_version(struct cl *c, int i)
{
	int v;
	T_START();
	int r = cgm_api_version(c->c, &v, NULL);
	return T_END(r);
}

static int64_t o_list_controllers(struct cl *c, int i)
{
	char **v = NULL;
	T_START();
	int r = cgm_list_controllers(c->c, &v, NULL);
	int64_t t = T_END(r);
	cgm_strv_free(v);
	return t;
}

static int64_t pid_cgroup(struct cl *c, bool abs_)
{
	char *out = NULL;
	T_START();
	int r = abs_ ? cgm_get_pid_cgroup_abs(c->c, MEM, c->sleeper, &out, NULL)
	             : cgm_get_pid_cgroup(c->c, MEM, c->sleeper, &out, NULL);
	int64_t t = T_END(r);
	free(out);
	return t;
}
static int64_t o_get_pid_cgroup(struct cl *c, int i)
{
	return pid_cgroup(c, false);
}
static int64_t o_get_pid_cgroup_abs(struct cl *c, int i)
{
	return pid_cgroup(c, true);
}
int64_t f_proc_cgroup(struct cl *c, int i)
{
	char p[64], buf[4096];
	snprintf(p, sizeof(p), "/proc/%d/cgroup", (int)c->sleeper);
	T_START();
	int r = fread_buf(p, buf, sizeof(buf));
	return T_END(r);
}

static int64_t o_create(struct cl *c, int i)
{
	char rel[128];
	int existed;
	cg(c, "n", rel);
	T_START();
	int r = cgm_create(c->c, MEM, rel, &existed, NULL);
	int64_t t = T_END(r);
	return rmdir_cg(env.mem, rel) < 0 ? -1 : t;
}
static int64_t f_mkdir(struct cl *c, int i)
{
	char rel[128];
	cg(c, "n", rel);
	T_START();
	int r = mkdir_cg(env.mem, rel);
	int64_t t = T_END(r);
	return rmdir_cg(env.mem, rel) < 0 ? -1 : t;
}

static int64_t o_remove(struct cl *c, int i)
{
	char rel[128];
	int existed;
	if (fresh_cg(c, rel) < 0)
		return -1;
	T_START();
	int r = cgm_remove(c->c, MEM, rel, 0, &existed, NULL);
	return T_END(r);
}
static int64_t f_rmdir(struct cl *c, int i)
{
	char rel[128];
	if (fresh_cg(c, rel) < 0)
		return -1;
	T_START();
	int r = rmdir_cg(env.mem, rel);
	return T_END(r);
}

static int64_t o_chown(struct cl *c, int i)
{
	char rel[128];
	cg(c, "a", rel);
	T_START();
	int r = cgm_chown(c->c, MEM, rel, 0, 0, NULL);
	return T_END(r);
}
static int64_t f_chown(struct cl *c, int i)
{
	char d[PATHMAX], p1[PATHMAX], p2[PATHMAX];
	dpath(c, "a", NULL, d);
	dpath(c, "a", "cgroup.procs", p1);
	dpath(c, "a", "tasks", p2);
	T_START();
	int r = chown(p1, 0, 0) | chown(p2, 0, 0) | chown(d, 0, 0);
	return T_END(r);
}

static int64_t o_chmod(struct cl *c, int i)
{
	char rel[128];
	cg(c, NULL, rel);
	T_START();
	int r = cgm_chmod(c->c, MEM, rel, SOFT, i & 1 ? 0644 : 0640, NULL);
	return T_END(r);
}
static int64_t f_chmod(struct cl *c, int i)
{
	char p[PATHMAX];
	dpath(c, NULL, SOFT, p);
	T_START();
	int r = chmod(p, i & 1 ? 0644 : 0640);
	return T_END(r);
}

static int64_t move(struct cl *c, int i, bool abs_)
{
	char rel[128];
	cg(c, i & 1 ? "a" : "b", rel);
	T_START();
	int r = abs_ ? cgm_move_pid_abs(c->c, MEM, rel, c->sleeper, NULL) : cgm_move_pid(c->c, MEM, rel, c->sleeper, NULL);
	return T_END(r);
}
static int64_t o_move_pid(struct cl *c, int i)
{
	return move(c, i, false);
}
static int64_t o_move_pid_abs(struct cl *c, int i)
{
	return move(c, i, true);
}
int64_t f_move(struct cl *c, int i)
{
	char p[PATHMAX], v[16];
	dpath(c, i & 1 ? "a" : "b", "cgroup.procs", p);
	snprintf(v, sizeof(v), "%d", (int)c->sleeper);
	T_START();
	int r = fwrite_str(p, v);
	return T_END(r);
}

/*
 * MovePid's floor with the reads its checks need (issue 18 counts them in the floor): the task's uids
 * (/proc/PID/status), cgroups (/proc/PID/cgroup) and state (/proc/PID/stat: not a zombie) and the requester's
 * cgroups, then the write.
 */
static int64_t f_move_checked(struct cl *c, int i)
{
	char p[PATHMAX], v[16], proc[64], buf[4096];
	dpath(c, i & 1 ? "a" : "b", "cgroup.procs", p);
	snprintf(v, sizeof(v), "%d", (int)c->sleeper);
	T_START();
	int r = 0;
	static const char *const files[] = {"status", "cgroup", "stat"};
	for (size_t k = 0; k < sizeof(files) / sizeof(files[0]) && r >= 0; k++) {
		snprintf(proc, sizeof(proc), "/proc/%d/%s", (int)c->sleeper, files[k]);
		r = fread_buf(proc, buf, sizeof(buf));
	}
	if (r >= 0)
		r = fread_buf("/proc/self/cgroup", buf, sizeof(buf));
	if (r >= 0)
		r = fwrite_str(p, v);
	return T_END(r);
}

static int64_t o_get_value(struct cl *c, int i)
{
	char rel[128], *v = NULL;
	cg(c, NULL, rel);
	T_START();
	int r = cgm_get_value(c->c, MEM, rel, SOFT, &v, NULL);
	int64_t t = T_END(r);
	free(v);
	return t;
}
int64_t f_read(struct cl *c, int i)
{
	char p[PATHMAX], buf[256];
	dpath(c, NULL, SOFT, p);
	T_START();
	int r = fread_buf(p, buf, sizeof(buf));
	return T_END(r);
}

static int64_t o_set_value(struct cl *c, int i)
{
	char rel[128];
	cg(c, NULL, rel);
	T_START();
	int r = cgm_set_value(c->c, MEM, rel, SOFT, i & 1 ? "64M" : "128M", NULL);
	return T_END(r);
}
int64_t f_write(struct cl *c, int i)
{
	char p[PATHMAX];
	dpath(c, NULL, SOFT, p);
	T_START();
	int r = fwrite_str(p, i & 1 ? "67108864" : "134217728");
	return T_END(r);
}

static int64_t tasks(struct cl *c, const char *sub, bool recursive)
{
	char rel[128];
	pid_t *pids = NULL;
	size_t n;
	cg(c, sub, rel);
	T_START();
	int r = recursive ? cgm_get_tasks_recursive(c->c, MEM, rel, &pids, &n, NULL)
	                  : cgm_get_tasks(c->c, MEM, rel, &pids, &n, NULL);
	int64_t t = T_END(r);
	free(pids);
	return t;
}
static int64_t o_get_tasks(struct cl *c, int i)
{
	return tasks(c, "a", false);
}
static int64_t f_read_procs(struct cl *c, int i)
{
	char p[PATHMAX];
	dpath(c, "a", NULL, p);
	T_START();
	int r = read_procs(p);
	return T_END(r);
}
static int64_t f_read_procs_r(struct cl *c, int i)
{
	char rel[128], p[PATHMAX];
	snprintf(rel, sizeof(rel), "bench/r%d-%d", c->k, (int)getppid());
	hpath(env.mem, rel, NULL, p);
	T_START();
	int r = read_procs(p);
	return T_END(r);
}
static int64_t o_get_tasks_recursive(struct cl *c, int i)
{
	return tasks(c, NULL, true);
}
/* The walk a program would do: at each cgroup, cgroup.procs and a readdir for its children. */
static int64_t f_walk_procs(struct cl *c, int i)
{
	char d[PATHMAX];
	dpath(c, NULL, NULL, d);
	T_START();
	int r = walk_procs(d);
	return T_END(r);
}

static int64_t o_list_children(struct cl *c, int i)
{
	char rel[128], **v = NULL;
	cg(c, NULL, rel);
	T_START();
	int r = cgm_list_children(c->c, MEM, rel, &v, NULL);
	int64_t t = T_END(r);
	cgm_strv_free(v);
	return t;
}
int64_t f_readdir(struct cl *c, int i)
{
	char d[PATHMAX];
	dpath(c, NULL, NULL, d);
	T_START();
	int r = count_dir(d);
	return T_END(r);
}

static int64_t o_list_keys(struct cl *c, int i)
{
	char rel[128];
	cgm_key *keys = NULL;
	size_t n = 0;
	cg(c, NULL, rel);
	T_START();
	int r = cgm_list_keys(c->c, MEM, rel, &keys, &n, NULL);
	int64_t t = T_END(r);
	cgm_keys_free(keys, n);
	return t;
}
static int64_t f_readdir_stat(struct cl *c, int i)
{
	char d[PATHMAX];
	struct stat st;
	dpath(c, NULL, NULL, d);
	T_START();
	DIR *dir = opendir(d);
	struct dirent *de;
	int r = dir ? 0 : -1;
	while (dir && (de = readdir(dir)))
		if (de->d_type == DT_REG && fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			r = -1;
	if (dir)
		closedir(dir);
	return T_END(r);
}

static int64_t o_prune(struct cl *c, int i)
{
	char rel[128];
	if (fresh_cg(c, rel) < 0)
		return -1;
	T_START();
	int r = cgm_prune(c->c, MEM, rel, NULL);
	return T_END(r);
}
static int64_t f_prune(struct cl *c, int i)
{
	char rel[128], d[PATHMAX];
	cg(c, "n", rel);
	hpath(env.mem, rel, NULL, d);
	if (mkdir_cg(env.mem, rel) < 0)
		return -1;
	T_START();
	int r = count_dir(d);
	if (r >= 0)
		r = rmdir_cg(env.mem, rel);
	return T_END(r);
}

static int64_t o_remove_on_empty(struct cl *c, int i)
{
	char rel[128];
	snprintf(rel, sizeof(rel), "bench/r%d-%d", c->k, (int)getppid());
	T_START();
	int r = cgm_remove_on_empty(c->c, MEM, rel, NULL);
	return T_END(r);
}

const struct op methods_042[] = {
	{"Ping", o_ping, NULL, "round trip", 0},
	{"api_version (property)", o_api_version, NULL, "round trip", 0},
	{"ListControllers", o_list_controllers, NULL, "round trip", 0},
	{"GetPidCgroup", o_get_pid_cgroup, f_proc_cgroup, "read /proc/PID/cgroup", 0},
	{"GetPidCgroupAbs", o_get_pid_cgroup_abs, f_proc_cgroup, "read /proc/PID/cgroup", 0},
	{"GetValue", o_get_value, f_read, "read the file", 0},
	{"SetValue", o_set_value, f_write, "write the file", 0},
	{"MovePid", o_move_pid, f_move, "write cgroup.procs", 0},
	{"MovePidAbs", o_move_pid_abs, f_move, "write cgroup.procs", 0},
	{"MovePid (floor with its checks' reads)", o_move_pid, f_move_checked,
	 "read the task's /proc/PID/status, cgroup, stat and our /proc/self/cgroup + write cgroup.procs", 0},
	{"GetTasks", o_get_tasks, f_read_procs, "read cgroup.procs", 0},
	{"GetTasksRecursive", o_get_tasks_recursive, f_walk_procs, "recursive walk: cgroup.procs + readdir of 3 cgroups", 0},
	{"ListChildren", o_list_children, f_readdir, "readdir", 0},
	{"ListKeys", o_list_keys, f_readdir_stat, "readdir + fstatat each", 0},
	{"Chown", o_chown, f_chown, "chown dir, procs, tasks", 2},
	{"Chmod", o_chmod, f_chmod, "chmod the file", 0},
	{"Create", o_create, f_mkdir, "mkdir", 4},
	{"Remove", o_remove, f_rmdir, "rmdir", 4},
	{"Prune (one empty cgroup)", o_prune, f_prune, "readdir + rmdir", 4},
	{"RemoveOnEmpty (populated)", o_remove_on_empty, f_read_procs_r, "read cgroup.procs", 0},
};
const size_t nmethods_042 = sizeof(methods_042) / sizeof(methods_042[0]);
