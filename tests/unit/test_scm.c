/* The Scm side channel's decoder of received control data (scm/scm_io.h). */
#include <stdalign.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "scm/scm_io.h"

static union {
	struct cmsghdr h;
	char b[256];
} buf;

static struct cmsghdr *put(size_t off, size_t len, int level, int type)
{
	struct cmsghdr *c = (struct cmsghdr *)(buf.b + off);
	c->cmsg_len = len, c->cmsg_level = level, c->cmsg_type = type;
	return c;
}

static void decodes_credential_and_fds(void)
{
	struct ucred cred = {.pid = 42, .uid = 1000, .gid = 1001};
	int fds[3] = {5, 6, 7};
	struct scm_control got;
	memset(&buf, 0, sizeof(buf));
	memcpy(CMSG_DATA(put(0, CMSG_LEN(sizeof(cred)), SOL_SOCKET, SCM_CREDENTIALS)), &cred, sizeof(cred));
	size_t off = CMSG_SPACE(sizeof(cred));
	memcpy(CMSG_DATA(put(off, CMSG_LEN(sizeof(fds)), SOL_SOCKET, SCM_RIGHTS)), fds, sizeof(fds));
	struct msghdr msg = {.msg_control = buf.b, .msg_controllen = off + CMSG_SPACE(sizeof(fds))};
	scm_control_decode(&msg, &got);
	CHECK(got.have_cred && got.cred.pid == 42 && got.cred.uid == 1000 && got.cred.gid == 1001);
	CHECK(got.nfds == 3 && got.fds[0] == 5 && got.fds[2] == 7);
}

/* A header claiming more than the buffer holds ends the decoding (it used to be read past the buffer). */
static void stops_at_lying_headers(void)
{
	struct scm_control got;
	memset(&buf, 0, sizeof(buf));
	put(0, 0xffff, SOL_SOCKET, SCM_RIGHTS);
	struct msghdr msg = {.msg_control = buf.b, .msg_controllen = CMSG_LEN(2 * sizeof(int))};
	scm_control_decode(&msg, &got);
	CHECK(got.nfds == 0 && !got.have_cred);
	put(0, 3, SOL_SOCKET, SCM_RIGHTS); /* shorter than a header */
	scm_control_decode(&msg, &got);
	CHECK(got.nfds == 0);
	struct msghdr none = {0};
	scm_control_decode(&none, &got);
	CHECK(got.nfds == 0 && !got.have_cred);
}

/* Without a credential there is room for more than 8 fds: every one must be reported, to be closed. */
static void reports_every_fd_that_fits(void)
{
	struct scm_control got;
	size_t n = (SCM_CONTROL_SPACE - CMSG_LEN(0)) / sizeof(int);
	memset(&buf, 0, sizeof(buf));
	struct cmsghdr *c = put(0, CMSG_LEN(n * sizeof(int)), SOL_SOCKET, SCM_RIGHTS);
	for (size_t i = 0; i < n; i++)
		memcpy(CMSG_DATA(c) + i * sizeof(int), &(int){(int)i + 100}, sizeof(int));
	struct msghdr msg = {.msg_control = buf.b, .msg_controllen = CMSG_LEN(n * sizeof(int))};
	scm_control_decode(&msg, &got);
	CHECK(n > 8 && got.nfds == n && got.fds[n - 1] == (int)n + 99);
}

int main(void)
{
	RUN(decodes_credential_and_fds);
	RUN(stops_at_lying_headers);
	RUN(reports_every_fd_that_fits);
	return CHECK_EXIT();
}
