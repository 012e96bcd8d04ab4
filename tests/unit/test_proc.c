#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgfs/proc.h"
#include "check.h"
#include "ops/target.h"

static void parses_hybrid_cgroup_file(void)
{
	struct proc_cgroups pc;
	const char *text = "9:name=systemd:/\n4:memory:/process_api/x\n1:cpu,cpuacct:/a b\n0::/user.slice\n";
	CHECK(proc_cgroups_parse(text, &pc) == 0);
	CHECK(pc.n == 4);
	CHECK_STR(proc_cgroups_path(&pc, 4), "/process_api/x");
	CHECK_STR(proc_cgroups_path(&pc, 1), "/a b");
	CHECK_STR(proc_cgroups_path(&pc, 0), "/user.slice");
	CHECK(proc_cgroups_path(&pc, 7) == NULL);
	proc_cgroups_free(&pc);
}

static void rejects_malformed_cgroup_file(void)
{
	struct proc_cgroups pc;
	CHECK(proc_cgroups_parse("x:memory:/\n", &pc) < 0);
	CHECK(proc_cgroups_parse("4:memory\n", &pc) < 0);
	CHECK(proc_cgroups_parse("4:memory:relative\n", &pc) < 0);
	CHECK(proc_cgroups_parse("-1::/\n", &pc) < 0);
}

static void parses_status_ids(void)
{
	struct proc_ids ids;
	const char *text = "Name:\tbash\nUmask:\t0022\nUid:\t1000\t1001\t1002\t1003\nGid:\t50\t51\t52\t53\n";
	CHECK(proc_status_parse_ids(text, &ids) == 0);
	CHECK(ids.uid[0] == 1000 && ids.uid[1] == 1001 && ids.uid[2] == 1002 && ids.uid[3] == 1003);
	CHECK(ids.gid[0] == 50 && ids.gid[3] == 53);
	CHECK(proc_status_parse_ids("Name:\tx\n", &ids) < 0);
	CHECK(proc_status_parse_ids("Uid:\t1\t2\nGid:\t1\t2\t3\t4\n", &ids) < 0);
	/* A process whose name holds "Uid:" (comm is the process's to set) is read by its real lines. */
	text = "Name:\txUid:\nUmask:\t0022\nUid:\t7\t7\t7\t7\nGid:\t8\t8\t8\t8\n";
	CHECK(proc_status_parse_ids(text, &ids) == 0 && ids.uid[1] == 7 && ids.gid[1] == 8);
	text = "Name:\tUid:0000000000\nUid:\t7\t7\t7\t7\nGid:\t8\t8\t8\t8\n";
	CHECK(proc_status_parse_ids(text, &ids) == 0 && ids.uid[0] == 7);
}

static bool same_cgroups(const struct proc_cgroups *a, const struct proc_cgroups *b)
{
	if (a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++)
		if (a->e[i].id != b->e[i].id || strcmp(a->e[i].path, b->e[i].path) != 0)
			return false;
	return true;
}

/* A requester's /proc/PID/cgroup kept open reads afresh every time, and only the task it was opened for. */
static void kept_cgroup_fd_reads_its_task_only(void)
{
	struct proc_cgroups by_path = {0}, by_fd = {0};
	struct err e;
	pid_t child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	int fd = proc_cgroups_open(child);
	int pidfd = (int)syscall(SYS_pidfd_open, child, 0);
	CHECK(fd >= 0);
	struct requester r = {.pid = child, .pidfd = pidfd, .cgroup_fd = fd};
	CHECK(requester_still_alive(&r, &e) == 0);
	for (int round = 0; round < 3; round++) {
		CHECK(proc_cgroups_read(child, &by_path, &e) == 0);
		CHECK(proc_cgroups_read_fd(fd, child, &by_fd, &e) == 0);
		CHECK(by_fd.n > 0 && same_cgroups(&by_path, &by_fd));
		proc_cgroups_free(&by_path);
		proc_cgroups_free(&by_fd);
	}
	kill(child, SIGKILL);
	/* An exited task that nobody reaped yet is no requester: its cgroups would read as the root's. */
	struct pollfd p = {.fd = pidfd, .events = POLLIN};
	CHECK(pidfd < 0 || poll(&p, 1, 5000) == 1);
	CHECK(pidfd < 0 || requester_still_alive(&r, &e) < 0);
	waitpid(child, NULL, 0);
	CHECK(proc_cgroups_read_fd(fd, child, &by_fd, &e) < 0);
	close(fd);
	if (pidfd >= 0)
		close(pidfd);
}

int main(void)
{
	RUN(parses_hybrid_cgroup_file);
	RUN(rejects_malformed_cgroup_file);
	RUN(parses_status_ids);
	RUN(kept_cgroup_fd_reads_its_task_only);
	return CHECK_EXIT();
}
