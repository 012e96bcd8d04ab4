/*
 * cgm: the verbs of the key API, org.linuxcontainers.cgmanager1. A cgroup is
 * named once for every hierarchy, and set through the abstract keys that
 * 'cgm keys' lists instead of cgroupfs files.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cgm.h"

/* What the arguments of a verb say, once options are taken out. */
struct key_args {
	char **pos; /* the other arguments, NULL-terminated */
	int npos;
	char **ctrls; /* the -c lists split at commas, NULL-terminated; NULL without -c */
	size_t nctrls;
	bool recursive, force;
};

static void key_args_free(struct key_args *ka)
{
	free(ka->pos);
	cgm_strv_free(ka->ctrls);
	*ka = (struct key_args){0};
}

static int add_ctrls(struct key_args *ka, const char *list)
{
	const char *p = list;
	do {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char **n = realloc(ka->ctrls, (ka->nctrls + 2) * sizeof(char *));
		if (!n)
			return -ENOMEM;
		ka->ctrls = n;
		if (!(n[ka->nctrls] = strndup(p, len)))
			return -ENOMEM;
		n[++ka->nctrls] = NULL;
		p = comma ? comma + 1 : NULL;
	} while (p);
	return 0;
}

/*
 * Splits a into options and other arguments. opts lists the options v takes:
 * 'c' (-c LIST, --controllers LIST), 'r' (-r, --recursive), 'f' (-f, --force);
 * "--" ends them. v NULL: the arguments were checked already.
 */
static int parse_args(const struct verb *v, char **a, int n, const char *opts, int min_pos, int max_pos,
                      struct key_args *ka)
{
	bool options = true;
	int r = 0;

	*ka = (struct key_args){0};
	if (!(ka->pos = calloc((size_t)n + 1, sizeof(char *))))
		return -ENOMEM;
	for (int i = 0; i < n && r == 0; i++) {
		const char *s = a[i];
		if (!options || s[0] != '-' || !s[1])
			ka->pos[ka->npos++] = a[i];
		else if (strcmp(s, "--") == 0)
			options = false;
		else if (strchr(opts, 'r') && (strcmp(s, "-r") == 0 || strcmp(s, "--recursive") == 0))
			ka->recursive = true;
		else if (strchr(opts, 'f') && (strcmp(s, "-f") == 0 || strcmp(s, "--force") == 0))
			ka->force = true;
		else if (strchr(opts, 'c') && strncmp(s, "--controllers=", 14) == 0)
			r = add_ctrls(ka, s + 14);
		else if (strchr(opts, 'c') && strncmp(s, "-c", 2) == 0 && s[2])
			r = add_ctrls(ka, s + 2);
		else if (strchr(opts, 'c') && (strcmp(s, "-c") == 0 || strcmp(s, "--controllers") == 0)) {
			if (i + 1 < n)
				r = add_ctrls(ka, a[++i]);
			else {
				if (v)
					fprintf(stderr, "cgm: %s: option '%s' needs a list of controllers\n", v->name, s);
				r = -EINVAL;
			}
		} else {
			if (v)
				fprintf(stderr, "cgm: %s: unknown option '%s'\n", v->name, s);
			r = -EINVAL;
		}
	}
	if (r == 0 && (ka->npos < min_pos || ka->npos > max_pos)) {
		if (v)
			verb_usage(v);
		r = -EINVAL;
	}
	if (r < 0)
		key_args_free(ka);
	return r;
}

/*
 * The daemon resolves /dev paths only for clients in its own mount
 * namespace; cgm sends MAJ:MIN, so that paths (and /dev/disk/by-id links)
 * mean the devices this process sees, in a container too. In a device rule
 * ("/dev/null rw") the node's type comes first: "c 1:3 rw".
 */
static int resolve_device_paths(const char *key, const char *value, char **out)
{
	bool rules = strcmp(key, "devices_whitelist") == 0 || strcmp(key, "devices_blacklist") == 0;
	bool per_device = strncmp(key, "blkio_weight_device", 19) == 0 || strncmp(key, "blkio_throttle_", 15) == 0;
	size_t cap = strlen(value) * 2 + 64, len = 0;
	char *res;

	*out = NULL;
	if ((!rules && !per_device) || !strstr(value, "/dev/"))
		return 0;
	if (!(res = malloc(cap)))
		return -ENOMEM;
	for (const char *p = value; *p;) {
		size_t n = strcspn(p, ",\n"), lead = strspn(p, " \t");
		const char *word = p + lead;
		size_t wlen = strcspn(word, " \t,\n");
		struct stat st;
		char path[4096];
		if (wlen < sizeof(path) && wlen > 5 && strncmp(word, "/dev/", 5) == 0) {
			memcpy(path, word, wlen);
			path[wlen] = '\0';
			if (stat(path, &st) < 0 || (!S_ISBLK(st.st_mode) && (per_device || !S_ISCHR(st.st_mode)))) {
				fprintf(stderr, "cgm: %s: %s is not a %s here\n", key, path, per_device ? "block device" : "device node");
				free(res);
				return -EINVAL;
			}
			if (rules)
				len += (size_t)snprintf(res + len, cap - len, "%c ", S_ISBLK(st.st_mode) ? 'b' : 'c');
			len += (size_t)snprintf(res + len, cap - len, "%u:%u", major(st.st_rdev), minor(st.st_rdev));
			len += (size_t)snprintf(res + len, cap - len, "%.*s", (int)(n - lead - wlen), word + wlen);
		} else {
			len += (size_t)snprintf(res + len, cap - len, "%.*s", (int)n, p);
		}
		p += n;
		if (*p)
			res[len++] = *p++;
		res[len] = '\0';
		if (len + 64 > cap) {
			free(res);
			return -E2BIG;
		}
	}
	*out = res;
	return 0;
}

/* KEY=VALUE arguments as values, allocated; v NULL: they were checked already. */
static int parse_values(const struct verb *v, char **a, int n, cgm1_value **out, size_t *nout)
{
	cgm1_value *vals = calloc((size_t)n + 1, sizeof(*vals));
	int r = vals ? 0 : -ENOMEM;

	*nout = 0;
	for (int i = 0; i < n && r == 0; i++) {
		const char *eq = strchr(a[i], '=');
		if (!eq || eq == a[i]) {
			if (v)
				fprintf(stderr, "cgm: %s: '%s' is not KEY=VALUE\n", v->name, a[i]);
			r = -EINVAL;
		} else if (!(vals[i].key = strndup(a[i], (size_t)(eq - a[i]))) || !(vals[i].value = strdup(eq + 1))) {
			r = -ENOMEM;
		} else {
			char *resolved;
			(*nout)++;
			if ((r = resolve_device_paths(vals[i].key, vals[i].value, &resolved)) == 0 && resolved) {
				free(vals[i].value);
				vals[i].value = resolved;
			}
		}
	}
	if (r < 0) {
		cgm1_values_free(vals, (size_t)n);
		*nout = 0;
		return r;
	}
	*out = vals;
	return 0;
}

static const struct {
	const char *name;
	int sig;
} signals[] = {
	{"HUP", SIGHUP},       {"INT", SIGINT},   {"QUIT", SIGQUIT},   {"ILL", SIGILL},   {"TRAP", SIGTRAP},
	{"ABRT", SIGABRT},     {"IOT", SIGIOT},   {"BUS", SIGBUS},     {"FPE", SIGFPE},   {"KILL", SIGKILL},
	{"USR1", SIGUSR1},     {"SEGV", SIGSEGV}, {"USR2", SIGUSR2},   {"PIPE", SIGPIPE}, {"ALRM", SIGALRM},
	{"TERM", SIGTERM},     {"CHLD", SIGCHLD}, {"CONT", SIGCONT},   {"STOP", SIGSTOP}, {"TSTP", SIGTSTP},
	{"TTIN", SIGTTIN},     {"TTOU", SIGTTOU}, {"URG", SIGURG},     {"XCPU", SIGXCPU}, {"XFSZ", SIGXFSZ},
	{"VTALRM", SIGVTALRM}, {"PROF", SIGPROF}, {"WINCH", SIGWINCH}, {"IO", SIGIO},     {"POLL", SIGPOLL},
	{"SYS", SIGSYS},
#ifdef SIGSTKFLT
	{"STKFLT", SIGSTKFLT},
#endif
#ifdef SIGPWR
	{"PWR", SIGPWR},
#endif
};

/* A signal number, or a name with or without SIG in any case (KILL, sigterm, RTMIN+2); a leading '-' is allowed. */
static int parse_signal(const char *s, int *out)
{
	const char *name = s[0] == '-' ? s + 1 : s;
	long v;

	if (*name >= '0' && *name <= '9') {
		if (parse_int(name, "signal", 1, SIGRTMAX, &v) < 0)
			return -EINVAL;
		*out = (int)v;
		return 0;
	}
	if (strncasecmp(name, "SIG", 3) == 0)
		name += 3;
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		if (strcasecmp(name, signals[i].name) == 0) {
			*out = signals[i].sig;
			return 0;
		}
	if (strncasecmp(name, "RTMIN", 5) == 0 || strncasecmp(name, "RTMAX", 5) == 0) {
		bool min = strncasecmp(name, "RTMIN", 5) == 0;
		const char *off = name + 5;
		char *end;
		long n = 0;
		if (*off == (min ? '+' : '-')) {
			errno = 0;
			n = strtol(off + 1, &end, 10);
			if (!off[1] || *end || errno || n < 0 || n > SIGRTMAX - SIGRTMIN)
				off = NULL;
		} else if (*off)
			off = NULL;
		if (off) {
			*out = min ? SIGRTMIN + (int)n : SIGRTMAX - (int)n;
			return 0;
		}
	}
	fprintf(stderr, "cgm: signal '%s' is not a signal number or name (KILL, TERM, HUP, ...)\n", s);
	return -EINVAL;
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	errno = ENOSYS;
	return -1;
#endif
}

/* Moves pid into name: by pidfd, or by pid where the kernel has no pidfd_open. */
static int move_process(cgm_client *c, const char *name, pid_t pid, cgm_error *err)
{
	int fd = open_pidfd(pid), r;
	if (fd < 0 && errno == ENOSYS)
		return cgm1_move_pid(c, name, pid, err);
	if (fd < 0) {
		r = -errno;
		fprintf(stderr, "cgm: cannot open process %d: %s\n", (int)pid, strerror(errno));
		return r;
	}
	r = cgm1_move(c, name, fd, err);
	close(fd);
	return r;
}

static int check_pid(const struct verb *v, char **a, int n)
{
	long pid;
	return parse_int(a[0], "pid", 1, INT_MAX, &pid);
}

/* PID's cgroup as a name relative to yours: asked by pidfd, or by pid where the kernel has no pidfd_open. */
static int k_pid(cgm_client *c, char **a, int n, cgm_error *err)
{
	long pid;
	char *name = NULL;
	int fd, r;
	if (parse_int(a[0], "pid", 1, INT_MAX, &pid) < 0)
		return -EINVAL;
	fd = open_pidfd((pid_t)pid);
	if (fd < 0 && errno == ENOSYS)
		r = cgm1_get_pid_cgroup(c, (pid_t)pid, &name, err);
	else if (fd < 0) {
		r = -errno;
		fprintf(stderr, "cgm: cannot open process %ld: %s\n", pid, strerror(errno));
	} else {
		r = cgm1_get_pidfd_cgroup(c, fd, &name, err);
		close(fd);
	}
	if (r == 0 && opt_json) {
		printf("{\"pid\":%ld,\"name\":", pid);
		json_string(stdout, name);
		fputs("}\n", stdout);
	} else if (r == 0)
		printf("%s\n", name);
	free(name);
	return r;
}

static int check_new(const struct verb *v, char **a, int n)
{
	struct key_args ka;
	cgm1_value *vals = NULL;
	size_t nv = 0;
	int r = parse_args(v, a, n, "c", 1, INT_MAX, &ka);
	if (r == 0 && (r = parse_values(v, ka.pos + 1, ka.npos - 1, &vals, &nv)) == 0)
		cgm1_values_free(vals, nv);
	key_args_free(&ka);
	return r;
}

static int k_new(cgm_client *c, char **a, int n, cgm_error *err)
{
	struct key_args ka;
	cgm1_value *vals = NULL;
	size_t nv = 0;
	int r = parse_args(NULL, a, n, "c", 1, INT_MAX, &ka);
	if (r == 0 && (r = parse_values(NULL, ka.pos + 1, ka.npos - 1, &vals, &nv)) == 0)
		r = cgm1_create(c, ka.pos[0], (const char *const *)ka.ctrls, vals, nv, NULL, err);
	cgm1_values_free(vals, nv);
	key_args_free(&ka);
	return r;
}

static int check_set(const struct verb *v, char **a, int n)
{
	cgm1_value *vals = NULL;
	size_t nv = 0;
	int r = parse_values(v, a + 1, n - 1, &vals, &nv);
	cgm1_values_free(vals, nv);
	return r;
}

static int k_set(cgm_client *c, char **a, int n, cgm_error *err)
{
	cgm1_value *vals = NULL;
	size_t nv = 0;
	int r = parse_values(NULL, a + 1, n - 1, &vals, &nv);
	if (r == 0)
		r = cgm1_set_values(c, a[0], vals, nv, err);
	cgm1_values_free(vals, nv);
	return r;
}

/* value and a newline, unless it ends in one. */
static void print_value(const char *value)
{
	size_t len = strlen(value);
	fputs(value, stdout);
	if (!len || value[len - 1] != '\n')
		putchar('\n');
}

static int k_get(cgm_client *c, char **a, int n, cgm_error *err)
{
	cgm1_value *vals = NULL;
	size_t nv = 0;
	int r = cgm1_get_values(c, a[0], (const char *const *)(a + 1), &vals, &nv, err);
	for (int i = 1; r == 0 && i < n; i++)
		if (!cgm1_values_find(vals, nv, a[i])) {
			fprintf(stderr, "cgm: get: the daemon's answer has no value for '%s'\n", a[i]);
			r = -EBADMSG;
		}
	if (r == 0 && opt_json) {
		putchar('{');
		for (int i = 1; i < n; i++) {
			bool dup = false;
			for (int j = 1; j < i && !dup; j++)
				dup = strcmp(a[i], a[j]) == 0;
			if (dup)
				continue;
			if (i > 1)
				putchar(',');
			json_string(stdout, a[i]);
			putchar(':');
			json_key_value(stdout, a[i], cgm1_values_find(vals, nv, a[i]));
		}
		fputs("}\n", stdout);
	} else if (r == 0 && n == 2)
		print_value(cgm1_values_find(vals, nv, a[1]));
	else
		for (int i = 1; r == 0 && i < n; i++) {
			printf("%s ", a[i]);
			print_value(cgm1_values_find(vals, nv, a[i]));
		}
	cgm1_values_free(vals, nv);
	return r;
}

/* Appends to *out the children of base/rel, then (recursive) theirs, as paths relative to base. */
static int collect_children(cgm_client *c, const char *base, const char *rel, bool recursive, char ***out,
                            size_t *n, cgm_error *err)
{
	char *name = NULL, **kids = NULL;
	int r;
	if (asprintf(&name, "%s%s%s", base, *base && *rel ? "/" : "", rel) < 0)
		return -ENOMEM;
	r = cgm1_list_children(c, name, &kids, err);
	free(name);
	for (char **k = kids; r == 0 && k && *k; k++) {
		char *path = NULL, **grown = realloc(*out, (*n + 2) * sizeof(char *));
		if (!grown || asprintf(&path, "%s%s%s", rel, *rel ? "/" : "", *k) < 0) {
			if (grown)
				*out = grown;
			r = -ENOMEM;
			break;
		}
		*out = grown;
		(*out)[(*n)++] = path;
		(*out)[*n] = NULL;
		if (recursive)
			r = collect_children(c, base, path, true, out, n, err);
	}
	cgm_strv_free(kids);
	return r;
}

static int check_ls(const struct verb *v, char **a, int n)
{
	struct key_args ka;
	int r = parse_args(v, a, n, "r", 0, 1, &ka);
	key_args_free(&ka);
	return r;
}

static int k_ls(cgm_client *c, char **a, int n, cgm_error *err)
{
	struct key_args ka;
	char **v = NULL;
	size_t nv = 0;
	int r = parse_args(NULL, a, n, "r", 0, 1, &ka);
	if (r == 0)
		r = collect_children(c, ka.npos > 0 ? ka.pos[0] : "", "", ka.recursive, &v, &nv, err);
	if (r == 0 && opt_json) {
		char *none[] = {NULL};
		json_strv(stdout, v ? v : none);
	} else
		for (size_t i = 0; r == 0 && i < nv; i++)
			printf("%s\n", v[i]);
	cgm_strv_free(v);
	key_args_free(&ka);
	return r;
}

static int check_tasks(const struct verb *v, char **a, int n)
{
	struct key_args ka;
	int r = parse_args(v, a, n, "r", 0, 1, &ka);
	key_args_free(&ka);
	return r;
}

static int k_tasks(cgm_client *c, char **a, int n, cgm_error *err)
{
	struct key_args ka;
	pid_t *pids = NULL;
	size_t np = 0;
	int r = parse_args(NULL, a, n, "r", 0, 1, &ka);
	if (r == 0)
		r = cgm1_list_tasks(c, ka.npos > 0 ? ka.pos[0] : "", ka.recursive, &pids, &np, err);
	if (r == 0 && opt_json) {
		putchar('[');
		for (size_t i = 0; i < np; i++)
			printf(i ? ",%d" : "%d", (int)pids[i]);
		fputs("]\n", stdout);
	} else
		for (size_t i = 0; r == 0 && i < np; i++)
			printf("%d\n", (int)pids[i]);
	free(pids);
	key_args_free(&ka);
	return r;
}

static int check_own(const struct verb *v, char **a, int n)
{
	long id;
	if (parse_int(a[1], "uid", 0, INT_MAX - 1, &id) < 0 || parse_int(a[2], "gid", 0, INT_MAX - 1, &id) < 0)
		return -EINVAL;
	return 0;
}

static int k_own(cgm_client *c, char **a, int n, cgm_error *err)
{
	long uid, gid;
	if (parse_int(a[1], "uid", 0, INT_MAX - 1, &uid) < 0 || parse_int(a[2], "gid", 0, INT_MAX - 1, &gid) < 0)
		return -EINVAL;
	return cgm1_chown(c, a[0], (uid_t)uid, (gid_t)gid, err);
}

static int check_move(const struct verb *v, char **a, int n)
{
	long pid;
	return n > 1 ? parse_int(a[1], "pid", 1, INT_MAX, &pid) : 0;
}

static int k_move(cgm_client *c, char **a, int n, cgm_error *err)
{
	long pid = getppid();
	if (n > 1 && parse_int(a[1], "pid", 1, INT_MAX, &pid) < 0)
		return -EINVAL;
	return move_process(c, a[0], (pid_t)pid, err);
}

/*
 * 'exec NAME [KEY=VALUE... --] CMD [ARG...]': *nvals KEY=VALUE arguments
 * follow NAME when a "--" ends them; returns the index of CMD in a, or -1.
 */
static int exec_command(char **a, int n, int *nvals)
{
	int i;
	*nvals = 0;
	for (i = 1; i < n && strcmp(a[i], "--") != 0; i++)
		;
	if (i < n) {
		*nvals = i - 1;
		i++;
	} else {
		i = 1;
	}
	return i < n ? i : -1;
}

static int check_exec(const struct verb *v, char **a, int n)
{
	cgm1_value *vals = NULL;
	size_t nv = 0;
	int nvals, r;
	if (exec_command(a, n, &nvals) < 0) {
		verb_usage(v);
		return -EINVAL;
	}
	r = parse_values(v, a + 1, nvals, &vals, &nv);
	cgm1_values_free(vals, nv);
	return r;
}

/* The design's cgexec: NAME made if needed (with the values), cgm moved in, then the command run in its place. */
static int k_exec(cgm_client *c, char **a, int n, cgm_error *err)
{
	int nvals, i = exec_command(a, n, &nvals);
	char **cmd = a + i;
	cgm1_value *vals = NULL;
	size_t nv = 0;
	int r = parse_values(NULL, a + 1, nvals, &vals, &nv);
	if (r == 0)
		r = cgm1_create(c, a[0], NULL, vals, nv, NULL, err);
	cgm1_values_free(vals, nv);
	if (r == 0)
		r = move_process(c, a[0], getpid(), err);
	if (r < 0)
		return r;
	/* The connection is close-on-exec. */
	execvp(cmd[0], cmd);
	fprintf(stderr, "cgm: exec: %s: %s\n", cmd[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

static int check_delete(const struct verb *v, char **a, int n)
{
	struct key_args ka;
	int r = parse_args(v, a, n, "f", 1, 1, &ka);
	key_args_free(&ka);
	return r;
}

static int k_delete(cgm_client *c, char **a, int n, cgm_error *err)
{
	struct key_args ka;
	int r = parse_args(NULL, a, n, "f", 1, 1, &ka);
	if (r == 0)
		r = cgm1_delete(c, ka.pos[0], ka.force, err);
	key_args_free(&ka);
	return r;
}

static int check_kill(const struct verb *v, char **a, int n)
{
	int sig;
	return n > 1 ? parse_signal(a[1], &sig) : 0;
}

static int k_kill(cgm_client *c, char **a, int n, cgm_error *err)
{
	int sig = SIGKILL;
	if (n > 1 && parse_signal(a[1], &sig) < 0)
		return -EINVAL;
	return cgm1_kill(c, a[0], sig, err);
}

static int k_freeze(cgm_client *c, char **a, int n, cgm_error *err)
{
	return cgm1_freeze(c, a[0], err);
}

static int k_thaw(cgm_client *c, char **a, int n, cgm_error *err)
{
	return cgm1_thaw(c, a[0], err);
}

static int width(int w, const char *s)
{
	int len = (int)strlen(s);
	return len > w ? len : w;
}

static int k_keys(cgm_client *c, char **a, int n, cgm_error *err)
{
	cgm1_key *k = NULL;
	size_t nk = 0;
	int r = cgm1_list_keys(c, &k, &nk, err), wk = 3, wa = 6, wf = 4;
	if (r == 0 && opt_json) {
		putchar('[');
		for (size_t i = 0; i < nk; i++) {
			fputs(i ? ",{\"key\":" : "{\"key\":", stdout);
			json_string(stdout, k[i].key);
			fputs(",\"access\":", stdout);
			json_string(stdout, k[i].access);
			fputs(",\"file\":", stdout);
			json_string(stdout, k[i].file);
			fputs(",\"syntax\":", stdout);
			json_string(stdout, k[i].syntax);
			fputs(",\"meaning\":", stdout);
			json_string(stdout, k[i].meaning);
			putchar('}');
		}
		fputs("]\n", stdout);
	} else if (r == 0) {
		for (size_t i = 0; i < nk; i++) {
			wk = width(wk, k[i].key);
			wa = width(wa, k[i].access);
			wf = width(wf, *k[i].file ? k[i].file : "-");
		}
		printf("%-*s  %-*s  %-*s  %s\n", wk, "KEY", wa, "ACCESS", wf, "FILE", "SYNTAX");
		for (size_t i = 0; i < nk; i++)
			printf("%-*s  %-*s  %-*s  %s\n", wk, k[i].key, wa, k[i].access, wf, *k[i].file ? k[i].file : "-",
			       k[i].syntax);
	}
	cgm1_keys_free(k, nk);
	return r;
}

static int k_controllers(cgm_client *c, char **a, int n, cgm_error *err)
{
	cgm1_controller *v = NULL;
	size_t nv = 0;
	int r = cgm1_list_controllers(c, &v, &nv, err);
	if (r == 0 && opt_json) {
		putchar('[');
		for (size_t i = 0; i < nv; i++) {
			fputs(i ? ",{\"controller\":" : "{\"controller\":", stdout);
			json_string(stdout, v[i].controller);
			fputs(",\"version\":", stdout);
			json_string(stdout, v[i].version);
			putchar('}');
		}
		fputs("]\n", stdout);
	} else
		for (size_t i = 0; r == 0 && i < nv; i++)
			printf("%s %s\n", v[i].controller, v[i].version);
	cgm1_controllers_free(v, nv);
	return r;
}

const struct verb key_verbs[] = {
	{"new", 1, INT_MAX, "NAME [-c CTRL[,CTRL...]] [KEY=VALUE...]",
	 "Create NAME in the hierarchies of the controllers CTRL (default: every one) and set the KEYs,\n"
	 "all or nothing. Prints nothing, whether NAME is new or existed.",
	 k_new, check_new},
	{"set", 2, INT_MAX, "NAME KEY=VALUE...",
	 "Set the KEYs of NAME: every value is checked before any is written; a failed write undoes the others.",
	 k_set, check_set},
	{"get", 2, INT_MAX, "NAME KEY...",
	 "Print the values of the KEYs of NAME in canonical form: one 'KEY VALUE' line per KEY,\n"
	 "or, for one KEY, just its value. --json: an object.",
	 k_get, NULL},
	{"ls", 0, 2, "[-r|--recursive] [NAME]",
	 "Print the child cgroups of NAME (default: yours) in any hierarchy, one per line;\n"
	 "with -r also theirs, as paths relative to NAME.",
	 k_ls, check_ls},
	{"tasks", 0, 3, "[-r|--recursive] [NAME]",
	 "Print the pids in NAME (default: yours), with -r also those beneath it, one per line.", k_tasks,
	 check_tasks},
	{"own", 3, 3, "NAME UID GID",
	 "Hand NAME over to UID:GID in every hierarchy (the directory and its task files, not its limits).", k_own,
	 check_own},
	{"move", 1, 2, "NAME [PID]",
	 "Move process PID (default: cgm's parent, i.e. your shell) into NAME in every hierarchy.", k_move,
	 check_move},
	{"pid", 1, 1, "PID",
	 "Print the cgroup process PID is in, as a NAME relative to yours ('' for your own, an empty line),\n"
	 "the same in every hierarchy. --json: {\"pid\": PID, \"name\": NAME}.",
	 k_pid, check_pid},
	{"exec", 2, INT_MAX, "NAME [KEY=VALUE... --] CMD [ARG...]",
	 "Create NAME if needed and set the KEYs (as 'new' does), move cgm itself into it,\n"
	 "then run CMD in its place.",
	 k_exec, check_exec},
	{"delete", 1, 3, "[-f|--force] NAME",
	 "Remove NAME and the cgroups beneath it: without -f only if no task is in them; with -f they are killed first.",
	 k_delete, check_delete},
	{"kill", 1, 2, "NAME [SIGNAL]",
	 "Send SIGNAL (a number or a name: KILL, TERM, SIGHUP, ...; default KILL) to every task of NAME\n"
	 "and beneath it, new forks included.",
	 k_kill, check_kill},
	{"freeze", 1, 1, "NAME", "Freeze every task of NAME and beneath it; returns once all are frozen.", k_freeze,
	 NULL},
	{"thaw", 1, 1, "NAME", "Thaw the tasks of NAME and beneath it.", k_thaw, NULL},
	{"watch", 1, INT_MAX, "NAME [EVENT...] [subtree]",
	 "Print one line per event of NAME until interrupted: EVENT NAME [COUNT] ('/' for your own cgroup).\n"
	 "EVENTs: populated empty oom oom_kill high max pids_max frozen thawed removed (default: all);\n"
	 "subtree: of the cgroups beneath NAME too. --json: one object per line:\n"
	 "{\"id\":N,\"name\":NAME,\"event\":EVENT[,\"count\":N],\"time_us\":N}. Ends after 'removed' of NAME.",
	 cgm_watch_run, NULL},
	{"keys", 0, 0, "", "Print the key vocabulary: key, access (r or rw), the file behind it here ('-' if none), syntax.",
	 k_keys, NULL},
	{"controllers", 0, 0, "", "Print the controllers available, each with 'v1' or 'v2'.", k_controllers, NULL},
};

const size_t n_key_verbs = sizeof(key_verbs) / sizeof(key_verbs[0]);
