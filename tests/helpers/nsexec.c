/*
 * nsexec: runs a command as root of a new user namespace (with the uid and
 * gid maps given, written from outside as a container runtime does) and in
 * new pid, mount and cgroup namespaces, with a fresh /proc. A test's
 * container; it changes nothing outside the namespaces it makes.
 *
 *   nsexec [--map "INSIDE OUTSIDE COUNT"] [--pidfile FILE] -- CMD [ARGS...]
 *
 * --map applies to uids and gids alike. --pidfile receives the pid (in the
 * caller's pid namespace) of the container's init, for nsenter.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "nsexec: %s: %s\n", what, strerror(errno));
	_exit(125);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die(path);
	close(fd);
}

static int wait_status(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 125;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
	const char *map = NULL, *pidfile = NULL;
	int to_parent[2], to_child[2], i;
	char c;
	pid_t child;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--map") == 0 && i + 1 < argc)
			map = argv[++i];
		else if (strcmp(argv[i], "--pidfile") == 0 && i + 1 < argc)
			pidfile = argv[++i];
		else {
			fprintf(stderr, "usage: nsexec [--map 'IN OUT COUNT'] [--pidfile FILE] -- CMD [ARGS...]\n");
			return 125;
		}
	}
	if (i + 1 >= argc || !map) {
		fprintf(stderr, "nsexec: a --map and a command are needed\n");
		return 125;
	}
	argv += i + 1;
	if (pipe2(to_parent, O_CLOEXEC) < 0 || pipe2(to_child, O_CLOEXEC) < 0)
		die("pipe");
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWCGROUP) < 0)
			die("unshare");
		if (write(to_parent[1], "u", 1) != 1 || read(to_child[0], &c, 1) != 1)
			die("sync");
		pid_t init = fork();
		if (init < 0)
			die("fork");
		if (init == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			/* Now mapped: become the namespace's root, which makes our host uid the mapped one. */
			if (setresgid(0, 0, 0) < 0 || setgroups(0, NULL) < 0 || setresuid(0, 0, 0) < 0)
				die("becoming root of the new user namespace");
			if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
				die("making / private");
			if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
				die("mounting /proc");
			execvp(argv[0], argv);
			die(argv[0]);
		}
		/* Still the caller's host uid here (unmapped inside): the pidfile is written as the caller. */
		if (pidfile) {
			char buf[32];
			int fd = open(pidfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
			snprintf(buf, sizeof(buf), "%d\n", (int)init);
			if (fd < 0 || write(fd, buf, strlen(buf)) < 0)
				die(pidfile);
			close(fd);
		}
		_exit(wait_status(init));
	}
	if (read(to_parent[0], &c, 1) != 1)
		die("sync");
	char path[64], text[128];
	snprintf(text, sizeof(text), "%s\n", map);
	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)child);
	write_file(path, text);
	snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)child);
	write_file(path, text);
	if (write(to_child[1], "m", 1) != 1)
		die("sync");
	return wait_status(child);
}
