#include "scm/scm_io.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

int scm_enable_passcred(int fd)
{
	int one = 1;
	return setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0 ? -errno : 0;
}

int scm_send(int fd, const void *buf, size_t len, const struct ucred *cred)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(struct ucred))];
	} control;
	struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	ssize_t n;

	if (cred) {
		memset(&control, 0, sizeof(control));
		msg.msg_control = control.buf;
		msg.msg_controllen = sizeof(control.buf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_CREDENTIALS;
		c->cmsg_len = CMSG_LEN(sizeof(struct ucred));
		memcpy(CMSG_DATA(c), cred, sizeof(*cred));
	}
	do
		n = sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

void scm_control_decode(const struct msghdr *msg, struct scm_control *out)
{
	const char *base = msg->msg_control;
	*out = (struct scm_control){0};
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR((struct msghdr *)msg, c)) {
		/* CMSG_FIRSTHDR and CMSG_NXTHDR check that a header fits, not that its data does. */
		size_t room = msg->msg_controllen - (size_t)((const char *)c - base);
		if (c->cmsg_len < CMSG_LEN(0) || c->cmsg_len > room)
			break;
		if (c->cmsg_level != SOL_SOCKET)
			continue;
		if (c->cmsg_type == SCM_CREDENTIALS && c->cmsg_len == CMSG_LEN(sizeof(struct ucred))) {
			memcpy(&out->cred, CMSG_DATA(c), sizeof(out->cred));
			out->have_cred = true;
		} else if (c->cmsg_type == SCM_RIGHTS) {
			size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (size_t i = 0; i < n && out->nfds < SCM_MAX_FDS; i++)
				memcpy(&out->fds[out->nfds++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
		}
	}
}

ssize_t scm_recv(int fd, void *buf, size_t len, struct ucred *cred, bool *have_cred)
{
	union {
		struct cmsghdr h;
		char buf[SCM_CONTROL_SPACE];
	} control;
	struct iovec iov = {.iov_base = buf, .iov_len = len};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
	                     .msg_controllen = sizeof(control.buf)};
	struct scm_control got;
	ssize_t n;

	*have_cred = false;
	do
		n = recvmsg(fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	scm_control_decode(&msg, &got);
	for (size_t i = 0; i < got.nfds; i++)
		close(got.fds[i]); /* never keep what a client pushes at us */
	if (got.have_cred) {
		*cred = got.cred;
		*have_cred = true;
	}
	return n;
}

int scm_wait_readable(int fd, int timeout_ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int r;
	do
		r = poll(&p, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	return r == 0 ? -ETIMEDOUT : 0;
}
