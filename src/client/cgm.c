/*
 * cgm: the command line of cgmanager, with the verbs and argument order of
 * cgmanager 0.42; the verbs of the key API (cgmanager1) are in cgm_keys.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgm.h"

bool opt_json;

int parse_int(const char *s, const char *what, long min, long max, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < min || v > max) {
		fprintf(stderr, "cgm: %s '%s' is not a number from %ld to %ld\n", what, s, min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int parse_mode(const char *s, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 8);
	if (!*s || *end || errno || v < 0 || v > 07777) {
		fprintf(stderr, "cgm: mode '%s' is not an octal mode\n", s);
		return -EINVAL;
	}
	*out = (int)v;
	return 0;
}

static void print_strv(char **v)
{
	for (char **p = v; p && *p; p++)
		printf("%s\n", *p);
}

static int v_ping(cgm_client *c, char **a, int n, cgm_error *err)
{
	return cgm_ping(c, err);
}

static int v_apiversion(cgm_client *c, char **a, int n, cgm_error *err)
{
	int v, r;
	if ((r = cgm_api_version(c, &v, err)) == 0)
		printf("%d\n", v);
	return r;
}

static int v_create(cgm_client *c, char **a, int n, cgm_error *err)
{
	int existed, r;
	if ((r = cgm_create(c, a[0], a[1], &existed, err)) == 0 && existed == 1)
		printf("Path existed\n");
	return r;
}

static int v_chown(cgm_client *c, char **a, int n, cgm_error *err)
{
	long uid, gid;
	if (parse_int(a[2], "uid", 0, INT_MAX - 1, &uid) < 0 || parse_int(a[3], "gid", 0, INT_MAX - 1, &gid) < 0)
		return -EINVAL;
	return cgm_chown(c, a[0], a[1], (uid_t)uid, (gid_t)gid, err);
}

static int v_chmod(cgm_client *c, char **a, int n, cgm_error *err)
{
	int mode;
	if (parse_mode(a[2], &mode) < 0)
		return -EINVAL;
	return cgm_chmod(c, a[0], a[1], "", mode, err);
}

static int v_chmodfile(cgm_client *c, char **a, int n, cgm_error *err)
{
	int mode;
	if (parse_mode(a[3], &mode) < 0)
		return -EINVAL;
	return cgm_chmod(c, a[0], a[1], a[2], mode, err);
}

static int v_remove(cgm_client *c, char **a, int n, cgm_error *err)
{
	long recursive = 1;
	int existed, r;
	if (n > 2 && parse_int(a[2], "recursive flag", 0, 1, &recursive) < 0)
		return -EINVAL;
	if ((r = cgm_remove(c, a[0], a[1], (int)recursive, &existed, err)) == 0 && existed == -1)
		printf("Path did not exist\n");
	return r;
}

static int pid_cgroup(cgm_client *c, char **a, cgm_error *err, bool absolute)
{
	long pid;
	char *out = NULL;
	int r;
	if (parse_int(a[1], "pid", 1, INT_MAX, &pid) < 0)
		return -EINVAL;
	r = absolute ? cgm_get_pid_cgroup_abs(c, a[0], (pid_t)pid, &out, err)
	             : cgm_get_pid_cgroup(c, a[0], (pid_t)pid, &out, err);
	if (r == 0)
		printf("%s\n", out);
	free(out);
	return r;
}

static int v_getpidcgroup(cgm_client *c, char **a, int n, cgm_error *err)
{
	return pid_cgroup(c, a, err, false);
}

static int v_getpidcgroupabs(cgm_client *c, char **a, int n, cgm_error *err)
{
	return pid_cgroup(c, a, err, true);
}

static int move(cgm_client *c, char **a, cgm_error *err, bool absolute)
{
	long pid;
	if (parse_int(a[2], "pid", 1, INT_MAX, &pid) < 0)
		return -EINVAL;
	return absolute ? cgm_move_pid_abs(c, a[0], a[1], (pid_t)pid, err) : cgm_move_pid(c, a[0], a[1], (pid_t)pid, err);
}

static int v_movepid(cgm_client *c, char **a, int n, cgm_error *err)
{
	return move(c, a, err, false);
}

static int v_movepidabs(cgm_client *c, char **a, int n, cgm_error *err)
{
	return move(c, a, err, true);
}

static int v_getvalue(cgm_client *c, char **a, int n, cgm_error *err)
{
	char *v = NULL;
	int r;
	if ((r = cgm_get_value(c, a[0], a[1], a[2], &v, err)) == 0)
		printf("%s\n", v);
	free(v);
	return r;
}

static int v_setvalue(cgm_client *c, char **a, int n, cgm_error *err)
{
	return cgm_set_value(c, a[0], a[1], a[2], a[3], err);
}

static int tasks(cgm_client *c, char **a, int n, cgm_error *err, bool recursive)
{
	pid_t *pids = NULL;
	size_t np = 0;
	const char *cg = n > 1 ? a[1] : "";
	int r = recursive ? cgm_get_tasks_recursive(c, a[0], cg, &pids, &np, err)
	                  : cgm_get_tasks(c, a[0], cg, &pids, &np, err);
	for (size_t i = 0; r == 0 && i < np; i++)
		printf("%d\n", (int)pids[i]);
	free(pids);
	return r;
}

static int v_gettasks(cgm_client *c, char **a, int n, cgm_error *err)
{
	return tasks(c, a, n, err, false);
}

static int v_gettasksrecursive(cgm_client *c, char **a, int n, cgm_error *err)
{
	return tasks(c, a, n, err, true);
}

static int v_listchildren(cgm_client *c, char **a, int n, cgm_error *err)
{
	char **v = NULL;
	int r = cgm_list_children(c, a[0], n > 1 ? a[1] : "", &v, err);
	if (r == 0)
		print_strv(v);
	cgm_strv_free(v);
	return r;
}

static int v_removeonempty(cgm_client *c, char **a, int n, cgm_error *err)
{
	return cgm_remove_on_empty(c, a[0], a[1], err);
}

static int v_prune(cgm_client *c, char **a, int n, cgm_error *err)
{
	return cgm_prune(c, a[0], n > 1 ? a[1] : "", err);
}

static int v_listcontrollers(cgm_client *c, char **a, int n, cgm_error *err)
{
	char **v = NULL;
	int r = cgm_list_controllers(c, &v, err);
	if (r == 0)
		print_strv(v);
	cgm_strv_free(v);
	return r;
}

static int v_listkeys(cgm_client *c, char **a, int n, cgm_error *err)
{
	cgm_key *k = NULL;
	size_t nk = 0;
	int r = cgm_list_keys(c, a[0], n > 1 ? a[1] : "", &k, &nk, err);
	for (size_t i = 0; r == 0 && i < nk; i++)
		printf("%s %u %u %o\n", k[i].name, k[i].uid, k[i].gid, k[i].mode);
	cgm_keys_free(k, nk);
	return r;
}

static const struct verb verbs[] = {
	{"ping", 0, 0, "", "Check that the daemon answers.", v_ping, NULL},
	{"apiversion", 0, 0, "", "Print the daemon's api_version.", v_apiversion, NULL},
	{"create", 2, 2, "CONTROLLER CGROUP", "Create CGROUP (and missing parents); prints 'Path existed' if it was there.",
	 v_create, NULL},
	{"chown", 4, 4, "CONTROLLER CGROUP UID GID",
	 "Hand CGROUP over to UID:GID (the directory and its task files, not its limits).", v_chown, NULL},
	{"chmod", 3, 3, "CONTROLLER CGROUP MODE", "Set the octal MODE of the CGROUP directory.", v_chmod, NULL},
	{"chmodfile", 4, 4, "CONTROLLER CGROUP FILE MODE", "Set the octal MODE of FILE in CGROUP.", v_chmodfile,
	 NULL},
	{"remove", 2, 3, "CONTROLLER CGROUP [0|1]",
	 "Remove CGROUP, recursively unless 0 is given; prints 'Path did not exist' if it was not there.", v_remove,
	 NULL},
	{"getpidcgroup", 2, 2, "CONTROLLER PID", "Print PID's cgroup relative to yours ('/' for your own).",
	 v_getpidcgroup, NULL},
	{"getpidcgroupabs", 2, 2, "CONTROLLER PID", "Print PID's cgroup relative to the daemon's root.",
	 v_getpidcgroupabs, NULL},
	{"movepid", 3, 3, "CONTROLLER CGROUP PID", "Move PID (one of your own tasks) into CGROUP.", v_movepid, NULL},
	{"movepidabs", 3, 3, "CONTROLLER CGROUP PID", "Root only: move PID into CGROUP named from the daemon's root.",
	 v_movepidabs, NULL},
	{"getvalue", 3, 3, "CONTROLLER CGROUP KEY", "Print the value of cgroupfs file KEY.", v_getvalue, NULL},
	{"setvalue", 4, 4, "CONTROLLER CGROUP KEY VALUE", "Write VALUE to cgroupfs file KEY.", v_setvalue, NULL},
	{"gettasks", 1, 2, "CONTROLLER [CGROUP]", "Print the pids in CGROUP, one per line.", v_gettasks, NULL},
	{"gettasksrecursive", 1, 2, "CONTROLLER [CGROUP]", "Print the pids in CGROUP and beneath it.",
	 v_gettasksrecursive, NULL},
	{"listchildren", 1, 2, "CONTROLLER [CGROUP]", "Print the child cgroups of CGROUP.", v_listchildren, NULL},
	{"removeonempty", 2, 2, "CONTROLLER CGROUP", "Remove CGROUP once its last task has left.", v_removeonempty,
	 NULL},
	{"prune", 1, 2, "CONTROLLER [CGROUP]",
	 "Remove the empty cgroups of CGROUP's subtree; mark the others remove-on-empty.", v_prune, NULL},
	{"listcontrollers", 0, 0, "", "Print the hierarchies the daemon serves.", v_listcontrollers, NULL},
	{"listkeys", 1, 2, "CONTROLLER [CGROUP]", "Print the files of CGROUP as 'name uid gid mode' (mode in octal).",
	 v_listkeys, NULL},
};

#define NVERBS (sizeof(verbs) / sizeof(verbs[0]))

static void usage(FILE *f)
{
	fprintf(f, "Usage: cgm [--socket PATH] [--json] VERB ARGS...\n"
	           "       cgm help [VERB]\n"
	           "       cgm --version\n\n"
	           "CONTROLLER is one controller, systemd, unified, a comma-separated list or 'all';\n"
	           "CGROUP is relative to your own cgroup ('' names it).\n"
	           "The socket is PATH, else $" CGM_ENV_SOCKET ", else the daemon's default.\n\nVerbs:\n");
	for (size_t i = 0; i < NVERBS; i++)
		fprintf(f, "  %-18s %s\n", verbs[i].name, verbs[i].args);
	fprintf(f, "\nKey API verbs (cgmanager1): NAME is a cgroup relative to yours, the same in every\n"
	           "hierarchy ('' names yours); KEY is one of 'cgm keys' (memory.limit, pids.limit, ...).\n"
	           "--json makes get, ls, tasks, pid, keys and controllers print JSON.\n\n");
	for (size_t i = 0; i < n_key_verbs; i++)
		fprintf(f, "  %-18s %s\n", key_verbs[i].name, key_verbs[i].args);
}

void verb_usage(const struct verb *v)
{
	fprintf(stderr, "Usage: cgm %s %s\n", v->name, v->args);
}

static const struct verb *find_verb(const char *name)
{
	for (size_t i = 0; i < NVERBS; i++)
		if (strcmp(verbs[i].name, name) == 0)
			return &verbs[i];
	for (size_t i = 0; i < n_key_verbs; i++)
		if (strcmp(key_verbs[i].name, name) == 0)
			return &key_verbs[i];
	return NULL;
}

static int help(int argc, char **argv)
{
	const struct verb *v;
	if (argc < 1) {
		usage(stdout);
		return 0;
	}
	if (!(v = find_verb(argv[0]))) {
		fprintf(stderr, "cgm: unknown verb '%s'\n", argv[0]);
		return 1;
	}
	printf("Usage: cgm %s %s\n%s\n", v->name, v->args, v->help);
	return 0;
}

int main(int argc, char **argv)
{
	const char *socket_path = NULL;
	const struct verb *v;
	cgm_client *c = NULL;
	cgm_error err = {0};
	int i = 1, r, nargs;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if ((strcmp(argv[i], "--socket") == 0 || strcmp(argv[i], "-s") == 0) && i + 1 < argc)
			socket_path = argv[++i];
		else if (strncmp(argv[i], "--socket=", 9) == 0)
			socket_path = argv[i] + 9;
		else if (strcmp(argv[i], "--json") == 0)
			opt_json = true;
		else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return help(0, NULL);
		else if (strcmp(argv[i], "--version") == 0 || strcmp(argv[i], "-V") == 0) {
			printf("cgm %s\n", CGMANAGER_VERSION);
			return 0;
		}
		else {
			fprintf(stderr, "cgm: unknown option '%s'\n", argv[i]);
			usage(stderr);
			return 1;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return 1;
	}
	if (strcmp(argv[i], "help") == 0)
		return help(argc - i - 1, argv + i + 1);
	if (!(v = find_verb(argv[i]))) {
		fprintf(stderr, "cgm: unknown verb '%s' (see 'cgm help')\n", argv[i]);
		return 1;
	}
	nargs = argc - i - 1;
	if (nargs < v->min_args || nargs > v->max_args) {
		verb_usage(v);
		return 1;
	}
	if (v->check && v->check(v, argv + i + 1, nargs) < 0)
		return 1;
	if ((r = cgm_connect(socket_path, &c, &err)) == 0)
		r = v->run(c, argv + i + 1, nargs, &err);
	if (r < 0 && err.message)
		fprintf(stderr, "cgm: %s: %s (%s)\n", v->name, err.message, err.name);
	cgm_error_clear(&err);
	cgm_disconnect(c);
	return r == 0 ? 0 : 1;
}
