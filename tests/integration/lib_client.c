/*
 * lib-client: calls every function of libcgmanager against the daemon named
 * by $CGMANAGER_SOCKET and checks each result.
 *
 *   lib-client CGROUP MEMORY_DIR UID
 *
 * CGROUP is a scratch name beneath the caller's cgroup (it must not exist),
 * MEMORY_DIR the caller's cgroup directory in the memory hierarchy (to check
 * results with stat), UID an unprivileged uid to chown to. Prints "ok: ..."
 * or "FAIL: ..." per check and exits with the number of failures.
 * $SOFT_FILE names the memory soft limit file (default the v1 one); with
 * $PURE_V2 set there is no name=systemd hierarchy to expect.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgmanager.h"

static int failures;

static void check(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(int cond, const char *fmt, ...)
{
	va_list ap;
	printf("%s: ", cond ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!cond)
		failures++;
}

/* A call that must succeed; prints the daemon's reason if it did not. */
static int ok(int r, cgm_error *err, const char *what)
{
	check(r == 0, "%s (r=%d%s%s%s%s)", what, r, err->name ? " " : "", err->name ? err->name : "",
	      err->message ? ": " : "", err->message ? err->message : "");
	cgm_error_clear(err);
	return r == 0;
}

/* A call that must fail with the D-Bus error name. */
static void refused(int r, cgm_error *err, const char *name, const char *what)
{
	check(r < 0 && err->name && strcmp(err->name, name) == 0 && err->message && *err->message,
	      "%s is refused with %s (r=%d, got %s: %s)", what, name, r, err->name ? err->name : "no name",
	      err->message ? err->message : "no message");
	cgm_error_clear(err);
	check(!err->name && !err->message, "cgm_error_clear empties the error");
}

static int strv_has(char **v, const char *s)
{
	for (char **p = v; p && *p; p++)
		if (strcmp(*p, s) == 0)
			return 1;
	return 0;
}

static size_t strv_len(char **v)
{
	size_t n = 0;
	while (v && v[n])
		n++;
	return n;
}

static const cgm_key *find_key(const cgm_key *k, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(k[i].name, name) == 0)
			return &k[i];
	return NULL;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static void expect_pid_cgroup(cgm_client *c, const char *ctrl, pid_t pid, const char *want, const char *want_abs)
{
	cgm_error err = {0};
	char *out = NULL;
	if (ok(cgm_get_pid_cgroup(c, ctrl, pid, &out, &err), &err, "cgm_get_pid_cgroup"))
		check(strcmp(out, want) == 0, "cgm_get_pid_cgroup %s of %d is '%s' (got '%s')", ctrl, (int)pid, want, out);
	free(out);
	out = NULL;
	if (ok(cgm_get_pid_cgroup_abs(c, ctrl, pid, &out, &err), &err, "cgm_get_pid_cgroup_abs"))
		check(strcmp(out, want_abs) == 0, "cgm_get_pid_cgroup_abs %s of %d is '%s' (got '%s')", ctrl, (int)pid,
		      want_abs, out);
	free(out);
}

int main(int argc, char **argv)
{
	cgm_client *c = NULL, *bad = NULL;
	cgm_error err = {0};
	char cg[512], sub[600], path[1200], *s = NULL, **v = NULL;
	const char *env = getenv(CGM_ENV_SOCKET);
	const char *soft = getenv("SOFT_FILE") ? getenv("SOFT_FILE") : "memory.soft_limit_in_bytes";
	bool pure_v2 = getenv("PURE_V2") != NULL;
	int existed = 0, version = 0;
	pid_t child, *pids = NULL;
	size_t n = 0;
	cgm_key *keys = NULL;
	struct stat st;
	uid_t uid;

	if (argc != 4) {
		fprintf(stderr, "usage: lib-client CGROUP MEMORY_DIR UID\n");
		return 100;
	}
	snprintf(cg, sizeof(cg), "%s", argv[1]);
	uid = (uid_t)strtoul(argv[3], NULL, 10);

	/* The socket: $CGMANAGER_SOCKET comes first. */
	check(env && cgm_default_socket() && strcmp(cgm_default_socket(), env) == 0,
	      "cgm_default_socket() is $CGMANAGER_SOCKET (%s)", cgm_default_socket());
	if (!ok(cgm_connect(NULL, &c, &err), &err, "cgm_connect(NULL) through $CGMANAGER_SOCKET"))
		return 100;
	check(cgm_connect("/nonexistent/cgmanager.sock", &bad, &err) < 0 && !bad && err.name &&
	          strcmp(err.name, "org.freedesktop.DBus.Error.NoServer") == 0 && err.message &&
	          strstr(err.message, "/nonexistent/cgmanager.sock"),
	      "cgm_connect to a missing socket fails with NoServer naming it (%s: %s)", err.name ? err.name : "-",
	      err.message ? err.message : "-");
	cgm_error_clear(&err);
	cgm_disconnect(NULL);

	ok(cgm_ping(c, &err), &err, "cgm_ping");
	check(cgm_ping(c, NULL) == 0, "cgm_ping with a NULL error");
	if (ok(cgm_api_version(c, &version, &err), &err, "cgm_api_version"))
		check(version == 10, "api_version is 10 (got %d)", version);

	if (ok(cgm_list_controllers(c, &v, &err), &err, "cgm_list_controllers"))
		check(strv_has(v, "memory") && strv_has(v, "pids") && (pure_v2 || strv_has(v, "name=systemd")) &&
		          !strv_has(v, "unified"),
		      "cgm_list_controllers has memory, pids and name=systemd, not unified (%zu entries)", strv_len(v));
	cgm_strv_free(v);
	v = NULL;

	/* create */
	snprintf(sub, sizeof(sub), "%s/a", cg);
	if (ok(cgm_create(c, "all", sub, &existed, &err), &err, "cgm_create all CG/a"))
		check(existed == -1, "cgm_create of a new cgroup: existed -1 (got %d)", existed);
	if (ok(cgm_create(c, "all", sub, &existed, &err), &err, "cgm_create all CG/a again"))
		check(existed == 1, "cgm_create of an existing cgroup: existed 1 (got %d)", existed);
	snprintf(path, sizeof(path), "%s/%s", argv[2], sub);
	check(stat(path, &st) == 0 && S_ISDIR(st.st_mode), "%s exists", path);

	/* chown, chmod */
	if (ok(cgm_chown(c, "memory", cg, uid, uid, &err), &err, "cgm_chown memory CG")) {
		snprintf(path, sizeof(path), "%s/%s", argv[2], cg);
		check(stat(path, &st) == 0 && st.st_uid == uid && st.st_gid == uid, "%s is owned by %u", path, (unsigned)uid);
	}
	if (ok(cgm_chmod(c, "memory", cg, "", 0750, &err), &err, "cgm_chmod memory CG '' 0750"))
		check(stat(path, &st) == 0 && (st.st_mode & 07777) == 0750, "%s has mode 750 (got %o)", path,
		      (unsigned)(st.st_mode & 07777));
	if (ok(cgm_chmod(c, "memory", cg, soft, 0600, &err), &err, "cgm_chmod of a file")) {
		snprintf(path, sizeof(path), "%s/%s/%s", argv[2], cg, soft);
		check(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600, "%s has mode 600 (got %o)", path,
		      (unsigned)(st.st_mode & 07777));
	}
	cgm_chmod(c, "memory", cg, "", 0755, NULL);

	/* list_keys */
	if (ok(cgm_list_keys(c, "memory", cg, &keys, &n, &err), &err, "cgm_list_keys")) {
		const cgm_key *k = find_key(keys, n, "cgroup.procs");
		check(k && k->uid == uid && k->gid == uid && S_ISREG(k->mode) && (k->mode & 0777) == 0644,
		      "cgroup.procs is listed as %u %u 100644 (got %u %u %o)", (unsigned)uid, (unsigned)uid,
		      k ? k->uid : 0, k ? k->gid : 0, k ? k->mode : 0);
		k = find_key(keys, n, soft);
		check(k && k->uid == 0 && (k->mode & 07777) == 0600, "%s is root's, mode 600", soft);
		check(!find_key(keys, n, "a"), "the child cgroup is not a key");
	}
	cgm_keys_free(keys, n);
	cgm_keys_free(NULL, 0);

	/* set_value, get_value */
	if (ok(cgm_set_value(c, "pids", cg, "pids.max", "42", &err), &err, "cgm_set_value pids.max 42") &&
	    ok(cgm_get_value(c, "pids", cg, "pids.max", &s, &err), &err, "cgm_get_value pids.max"))
		check(strcmp(s, "42") == 0, "pids.max reads 42 (got '%s')", s);
	free(s);
	s = NULL;
	refused(cgm_set_value(c, "pids", cg, "pids.max", "lots", &err), &err, "org.freedesktop.DBus.Error.InvalidArgs",
	        "a value the kernel refuses");
	refused(cgm_get_value(c, "memory", "no-such-cgroup-here", "memory.limit_in_bytes", &s, &err), &err,
	        "org.freedesktop.DBus.Error.FileNotFound", "cgm_get_value of a missing cgroup");
	refused(cgm_create(c, "nosuchcontroller", cg, &existed, &err), &err, "org.freedesktop.DBus.Error.FileNotFound",
	        "cgm_create with an unknown controller");
	refused(cgm_create(c, "memory", "../escape", &existed, &err), &err, "org.freedesktop.DBus.Error.InvalidArgs",
	        "cgm_create of ../escape");
	check(cgm_get_value(c, "memory", "no-such-cgroup-here", "tasks", &s, NULL) < 0, "a refusal with a NULL error");

	/* move_pid, move_pid_abs, get_pid_cgroup(_abs), get_tasks(_recursive) */
	child = fork();
	if (child == 0) {
		for (;;)
			pause();
	}
	check(child > 0, "fork a task to move");
	expect_pid_cgroup(c, "memory", child, "/", "/");
	snprintf(path, sizeof(path), "/%s", sub);
	if (ok(cgm_move_pid(c, "all", sub, child, &err), &err, "cgm_move_pid all CG/a")) {
		expect_pid_cgroup(c, "memory", child, sub, path);
		expect_pid_cgroup(c, "unified", child, sub, path);
	}
	if (ok(cgm_move_pid_abs(c, "memory", cg, child, &err), &err, "cgm_move_pid_abs memory CG")) {
		snprintf(path, sizeof(path), "/%s", cg);
		expect_pid_cgroup(c, "memory", child, cg, path);
	}
	if (ok(cgm_get_tasks(c, "memory", cg, &pids, &n, &err), &err, "cgm_get_tasks memory CG"))
		check(n == 1 && pids[0] == child, "cgm_get_tasks lists the moved task only (%zu pids)", n);
	free(pids);
	pids = NULL;
	if (ok(cgm_get_tasks(c, "memory", sub, &pids, &n, &err), &err, "cgm_get_tasks memory CG/a"))
		check(n == 0, "cgm_get_tasks of an empty cgroup is empty (%zu pids)", n);
	free(pids);
	pids = NULL;
	if (ok(cgm_get_tasks_recursive(c, "all", cg, &pids, &n, &err), &err, "cgm_get_tasks_recursive all CG"))
		check(n == 1 && pids[0] == child, "cgm_get_tasks_recursive lists the task once (%zu pids)", n);
	free(pids);
	pids = NULL;

	/* list_children */
	if (ok(cgm_list_children(c, "memory", cg, &v, &err), &err, "cgm_list_children memory CG"))
		check(strv_len(v) == 1 && strcmp(v[0], "a") == 0, "CG has the one child a (%zu)", strv_len(v));
	cgm_strv_free(v);
	v = NULL;
	if (ok(cgm_list_children(c, "memory", sub, &v, &err), &err, "cgm_list_children of a leaf"))
		check(v && strv_len(v) == 0, "a leaf has no children (an empty, NULL-terminated list)");
	cgm_strv_free(v);
	v = NULL;
	cgm_strv_free(NULL);

	/* remove on empty: the task goes back into CG/a, the mark is set, the task ends. */
	ok(cgm_move_pid(c, "memory", sub, child, &err), &err, "cgm_move_pid memory CG/a");
	ok(cgm_remove_on_empty(c, "memory", sub, &err), &err, "cgm_remove_on_empty memory CG/a");
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	for (int i = 0; i < 40; i++) {
		if (cgm_list_children(c, "memory", cg, &v, NULL) == 0 && strv_len(v) == 0)
			break;
		cgm_strv_free(v);
		v = NULL;
		sleep_ms(100);
	}
	check(v && strv_len(v) == 0, "memory CG/a was removed once empty");
	cgm_strv_free(v);
	v = NULL;

	/* prune */
	snprintf(sub, sizeof(sub), "%s/p/q", cg);
	ok(cgm_create(c, "memory", sub, &existed, &err), &err, "cgm_create memory CG/p/q");
	if (ok(cgm_prune(c, "memory", cg, &err), &err, "cgm_prune memory CG")) {
		snprintf(path, sizeof(path), "%s/%s", argv[2], cg);
		check(stat(path, &st) < 0 && errno == ENOENT, "prune removed the empty tree %s", path);
	}

	/* remove */
	/* Prune took CG from memory's hierarchy; where that is the only one, nothing is left to remove. */
	if (ok(cgm_remove(c, "all", cg, 1, &existed, &err), &err, "cgm_remove all CG recursively"))
		check(existed == (pure_v2 ? -1 : 1), "cgm_remove of CG where prune left it: existed %d (got %d)",
		      pure_v2 ? -1 : 1, existed);
	if (ok(cgm_remove(c, "all", cg, 0, &existed, &err), &err, "cgm_remove all CG again"))
		check(existed == -1, "cgm_remove of a missing cgroup: existed -1 (got %d)", existed);

	cgm_disconnect(c);
	printf("%d failures\n", failures);
	return failures > 99 ? 99 : failures;
}
