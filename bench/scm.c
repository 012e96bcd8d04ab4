/*
 * The Scm methods of cgmanager0_0, done as a 0.42 client (or cgproxy) does
 * them: the call carries one end of a datagram socketpair; the daemon kicks
 * ('1'), we answer with SCM_CREDENTIALS (and again for the second pid), then
 * the result comes as a datagram. Floors as the plain methods': the
 * exchange is one D-Bus round trip plus one or two datagram round trips.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench.h"

static int recv_dgram(int fd, char *buf, size_t size)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	if (poll(&p, 1, 5000) <= 0)
		return -ETIMEDOUT;
	ssize_t n = recv(fd, buf, size - 1, 0);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return (int)n;
}

static int send_cred(int fd, pid_t pid)
{
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(struct ucred))];
	} control = {0};
	struct ucred cred = {.pid = pid, .uid = getuid(), .gid = getgid()};
	char byte = 'p';
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control, .msg_controllen = sizeof(control)};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_CREDENTIALS;
	c->cmsg_len = CMSG_LEN(sizeof(cred));
	memcpy(CMSG_DATA(c), &cred, sizeof(cred));
	return sendmsg(fd, &msg, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

static int kicked(int fd)
{
	char b[8];
	int n = recv_dgram(fd, b, sizeof(b));
	return n == 1 && b[0] == '1' ? 0 : -EPROTO;
}

int scm_call(sd_bus *bus, const char *method, const char *const *sargs, int nargs, pid_t second, char *out,
             size_t outlen)
{
	sd_bus_message *m = NULL;
	int pair[2], r;
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, pair) < 0)
		return -errno;
	r = sd_bus_message_new_method_call(bus, &m, NULL, "/org/linuxcontainers/cgmanager",
	                                   "org.linuxcontainers.cgmanager0_0", method);
	for (int i = 0; r >= 0 && i < nargs; i++)
		r = sd_bus_message_append_basic(m, 's', sargs[i]);
	if (r >= 0)
		r = sd_bus_message_append_basic(m, 'h', &pair[1]);
	if (r >= 0)
		r = sd_bus_call(bus, m, 0, NULL, NULL);
	sd_bus_message_unref(m);
	close(pair[1]);
	if (r >= 0)
		r = kicked(pair[0]);
	if (r >= 0)
		r = send_cred(pair[0], getpid());
	if (r >= 0 && second > 0 && (r = kicked(pair[0])) >= 0)
		r = send_cred(pair[0], second);
	if (r >= 0)
		r = recv_dgram(pair[0], out, outlen);
	/* A list: an int32 count, then (if any) its length and the names. */
	if (r == 4 && strcmp(method, "ListChildrenScm") == 0) {
		int32_t count;
		memcpy(&count, out, sizeof(count));
		for (int k = 0; k < 2 && count > 0 && r > 0; k++)
			r = recv_dgram(pair[0], out, outlen);
		r = count < 0 ? -EIO : 1;
	}
	/* '0' (failed) and the empty failure datagram of string results. */
	if (r == 0 || (r == 1 && out[0] == '0'))
		r = -EIO;
	close(pair[0]);
	return r < 0 ? r : 0;
}

static int64_t s_get_value(struct cl *c, int i)
{
	char rel[64], out[256];
	snprintf(rel, sizeof(rel), "bench/c%d", c->k);
	const char *a[] = {"memory", rel, "memory.soft_limit_in_bytes"};
	T_START();
	int r = scm_call(c->raw, "GetValueScm", a, 3, 0, out, sizeof(out));
	return T_END(r);
}

static int64_t s_set_value(struct cl *c, int i)
{
	char rel[64], out[256];
	snprintf(rel, sizeof(rel), "bench/c%d", c->k);
	const char *a[] = {"memory", rel, "memory.soft_limit_in_bytes", i & 1 ? "64M" : "128M"};
	T_START();
	int r = scm_call(c->raw, "SetValueScm", a, 4, 0, out, sizeof(out));
	return T_END(r);
}

static int64_t s_move_pid(struct cl *c, int i)
{
	char rel[64], out[256];
	snprintf(rel, sizeof(rel), "bench/c%d/%s", c->k, i & 1 ? "a" : "b");
	const char *a[] = {"memory", rel};
	T_START();
	int r = scm_call(c->raw, "MovePidScm", a, 2, c->sleeper, out, sizeof(out));
	return T_END(r);
}

static int64_t s_get_pid_cgroup(struct cl *c, int i)
{
	char out[4096];
	const char *a[] = {"memory"};
	T_START();
	int r = scm_call(c->raw, "GetPidCgroupScm", a, 1, c->sleeper, out, sizeof(out));
	return T_END(r);
}

static int64_t s_list_children(struct cl *c, int i)
{
	char rel[64], out[4096];
	snprintf(rel, sizeof(rel), "bench/c%d", c->k);
	const char *a[] = {"memory", rel};
	T_START();
	/* The result is a count, a length, then the names: the first datagram says it worked. */
	int r = scm_call(c->raw, "ListChildrenScm", a, 2, 0, out, sizeof(out));
	return T_END(r);
}

/* The floors are the plain methods' (methods_042.c). */
const struct op methods_scm[] = {
	{"GetValueScm", s_get_value, f_read, "read the file", 0},
	{"SetValueScm", s_set_value, f_write, "write the file", 0},
	{"MovePidScm", s_move_pid, f_move, "write cgroup.procs", 0},
	{"GetPidCgroupScm", s_get_pid_cgroup, f_proc_cgroup, "read /proc/PID/cgroup", 0},
	{"ListChildrenScm", s_list_children, f_readdir, "readdir", 0},
};
const size_t nmethods_scm = sizeof(methods_scm) / sizeof(methods_scm[0]);
