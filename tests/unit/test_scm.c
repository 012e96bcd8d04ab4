/* The Scm side channel: its decoder of received control data (scm/scm_io.h), its methods (scm/scm_methods.h). */
#include <stdalign.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "scm/scm_io.h"
#include "scm/scm_methods.h"

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

/* The reply signature each result kind can fill (cgproxy's reply_result reads the result into it). */
static bool reply_fits_result(const char *reply, enum scm_result result)
{
	switch (result) {
	case SCM_RES_STATUS:
		return !strcmp(reply, "");
	case SCM_RES_CREATE:
	case SCM_RES_REMOVE:
		return !strcmp(reply, "") || !strcmp(reply, "i");
	case SCM_RES_STRING:
		return !strcmp(reply, "s");
	case SCM_RES_PIDS:
		return !strcmp(reply, "ai");
	case SCM_RES_NAMES:
		return !strcmp(reply, "as");
	case SCM_RES_KEYS:
		return !strcmp(reply, "a(suuu)");
	}
	return false;
}

/* Every row is filled, found by both its names, and its signatures agree with how its result travels. */
static void method_rows_are_whole(void)
{
	for (unsigned i = 0; i < SCM_METHOD_COUNT; i++) {
		const struct scm_method *m = &scm_methods[i];
		char scm_name[64];
		CHECK(m->name && m->plain && m->args && m->plain_args && m->plain_reply);
		if (!m->name || !m->plain || !m->args || !m->plain_args || !m->plain_reply)
			continue;
		snprintf(scm_name, sizeof(scm_name), "%sScm", m->plain);
		CHECK_STR(m->name, scm_name);
		CHECK(scm_method_by_name(m->name) == m && scm_method_by_plain(m->plain) == m);
		CHECK(scm_method_id(m) == (enum scm_method_id)i);
		/* The Scm call takes the plain call's first arguments; the rest travel as the second credential. */
		CHECK(strncmp(m->plain_args, m->args, strlen(m->args)) == 0);
		CHECK((m->second == SCM_SECOND_NONE) == (strlen(m->args) == strlen(m->plain_args)));
		CHECK(reply_fits_result(m->plain_reply, m->result));
	}
	CHECK(scm_method_by_name("Create") == NULL && scm_method_by_plain("CreateScm") == NULL);
}

int main(void)
{
	RUN(decodes_credential_and_fds);
	RUN(stops_at_lying_headers);
	RUN(reports_every_fd_that_fits);
	RUN(method_rows_are_whole);
	return CHECK_EXIT();
}
