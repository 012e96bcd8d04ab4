/*
 * lib-session: one libcgmanager client, kept open for a whole test, that
 * makes a call per line of stdin and answers one line each on stdout
 * (t_faults.sh, to show that a client survives a daemon restart).
 *
 *   lib-session [SOCKET]        (default: cgm_default_socket())
 *
 * Lines: "ping", "get CTRL CGROUP FILE", "kget NAME KEY", "tasks CTRL CGROUP",
 * "create CTRL CGROUP", and "move-exited NAME": the key API's Move of a pidfd
 * whose process has exited and been reaped (a child of this one).
 * Answers: "ok [RESULT]" or "error NAME: MESSAGE".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgmanager.h"

static void answer(int r, cgm_error *err, const char *result)
{
	if (r == 0)
		printf("ok%s%s\n", result ? " " : "", result ? result : "");
	else
		printf("error %s: %s\n", err->name ? err->name : "?", err->message ? err->message : "?");
	fflush(stdout);
	cgm_error_clear(err);
}

int main(int argc, char **argv)
{
	cgm_client *c = NULL;
	cgm_error err = {0};
	char line[4096];

	if (cgm_connect(argc > 1 ? argv[1] : NULL, &c, &err) < 0) {
		answer(-1, &err, NULL);
		return 1;
	}
	printf("connected\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		char *save = NULL, *verb = strtok_r(line, " \n", &save);
		char *a = strtok_r(NULL, " \n", &save), *b = strtok_r(NULL, " \n", &save), *f = strtok_r(NULL, " \n", &save);
		if (!verb)
			continue;
		if (strcmp(verb, "ping") == 0) {
			answer(cgm_ping(c, &err), &err, NULL);
		} else if (strcmp(verb, "get") == 0 && f) {
			char *v = NULL;
			int r = cgm_get_value(c, a, b, f, &v, &err);
			answer(r, &err, v);
			free(v);
		} else if (strcmp(verb, "kget") == 0 && b) {
			const char *keys[] = {b, NULL};
			cgm1_value *vals = NULL;
			size_t n = 0;
			int r = cgm1_get_values(c, a, keys, &vals, &n, &err);
			answer(r, &err, r == 0 ? cgm1_values_find(vals, n, b) : NULL);
			cgm1_values_free(vals, n);
		} else if (strcmp(verb, "tasks") == 0 && b) {
			pid_t *pids = NULL;
			size_t n = 0;
			char out[4096] = "";
			int r = cgm_get_tasks(c, a, b, &pids, &n, &err);
			for (size_t i = 0; r == 0 && i < n; i++)
				snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%d", i ? "," : "", (int)pids[i]);
			answer(r, &err, out);
			free(pids);
		} else if (strcmp(verb, "create") == 0 && b) {
			int existed = 0;
			int r = cgm_create(c, a, b, &existed, &err);
			answer(r, &err, r == 0 ? (existed == 1 ? "existed" : "created") : NULL);
		} else if (strcmp(verb, "move-exited") == 0 && a) {
			pid_t kid = fork();
			if (kid == 0)
				_exit(0);
			int pidfd = kid > 0 ? (int)syscall(SYS_pidfd_open, kid, 0) : -1;
			waitpid(kid, NULL, 0);
			answer(pidfd < 0 ? -1 : cgm1_move(c, a, pidfd, &err), &err, NULL);
			if (pidfd >= 0)
				close(pidfd);
		} else {
			printf("error usage: %s\n", verb);
			fflush(stdout);
		}
	}
	cgm_disconnect(c);
	return 0;
}
