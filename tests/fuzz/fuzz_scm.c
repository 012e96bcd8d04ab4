/*
 * The Scm side channel's receiving end (scm/scm_io.h): scm_control_decode on control data the fuzzer
 * writes as it likes (headers whose lengths lie included), and scm_recv on a real datagram socketpair
 * carrying the fuzzer's payload, a credential and fds, as the kernel delivers them.
 *
 * Input: byte 0 picks what runs (bit 0: the decoder on the rest as control data; else a real datagram:
 * bit 1 with a credential, bits 2-4 that many fds, bit 5 the receiver without SO_PASSCRED), the rest is the
 * control data or the payload.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdalign.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"
#include "scm/scm_io.h"

/* The encoding scm_send and the kernel use: a credential, then the fds. */
static size_t encode(const struct scm_control *c, char *buf, size_t cap)
{
	struct msghdr msg = {.msg_control = buf, .msg_controllen = cap};
	size_t used = 0;
	memset(buf, 0, cap);
	struct cmsghdr *h = CMSG_FIRSTHDR(&msg);
	if (c->have_cred) {
		h->cmsg_level = SOL_SOCKET, h->cmsg_type = SCM_CREDENTIALS, h->cmsg_len = CMSG_LEN(sizeof(c->cred));
		memcpy(CMSG_DATA(h), &c->cred, sizeof(c->cred));
		used += CMSG_SPACE(sizeof(c->cred));
		h = c->nfds ? CMSG_NXTHDR(&msg, h) : NULL;
	}
	if (c->nfds) {
		FUZZ_CHECK(h);
		h->cmsg_level = SOL_SOCKET, h->cmsg_type = SCM_RIGHTS, h->cmsg_len = CMSG_LEN(c->nfds * sizeof(int));
		memcpy(CMSG_DATA(h), c->fds, c->nfds * sizeof(int));
		used += CMSG_SPACE(c->nfds * sizeof(int));
	}
	return used;
}

static void check_decode(const uint8_t *data, size_t size)
{
	struct scm_control got, again;
	/* Exactly the input's size, on the heap and aligned as a control buffer must be: ASan sees any overread. */
	void *buf = size ? aligned_alloc(alignof(struct cmsghdr), (size + 7) & ~(size_t)7) : NULL;
	if (size)
		memcpy(buf, data, size);
	struct msghdr msg = {.msg_control = buf, .msg_controllen = size};
	scm_control_decode(&msg, &got);
	FUZZ_CHECK(got.nfds <= SCM_MAX_FDS);
	/* A credential and every fd reported are bytes of the input. */
	if (got.have_cred)
		FUZZ_CHECK(memmem(data, size, &got.cred, sizeof(got.cred)));
	for (size_t i = 0; i < got.nfds; i++)
		FUZZ_CHECK(memmem(data, size, &got.fds[i], sizeof(int)));
	/* What was decoded, encoded as the kernel would, decodes to the same. */
	char enc[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int) * SCM_MAX_FDS)]
		__attribute__((aligned(alignof(struct cmsghdr))));
	struct msghdr m2 = {.msg_control = enc, .msg_controllen = encode(&got, enc, sizeof(enc))};
	scm_control_decode(&m2, &again);
	FUZZ_CHECK(again.have_cred == got.have_cred && again.nfds == got.nfds);
	FUZZ_CHECK(!got.have_cred || memcmp(&again.cred, &got.cred, sizeof(got.cred)) == 0);
	FUZZ_CHECK(memcmp(again.fds, got.fds, got.nfds * sizeof(int)) == 0);
	free(buf);
}

/* The lowest fd not open: fds scm_recv failed to close would show as a higher one. */
static int lowest_free_fd(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	FUZZ_CHECK(fd >= 0);
	close(fd);
	return fd;
}

static void check_recv(uint8_t how, const uint8_t *data, size_t size)
{
	int sv[2], nfds = (how >> 2) & 7, sent_fds[8];
	bool with_cred = how & 2, passcred = !(how & 0x20);
	char buf[512];
	struct ucred cred = {.pid = getpid(), .uid = getuid(), .gid = getgid()}, seen;
	bool have;

	if (size > sizeof(buf))
		size = sizeof(buf);
	FUZZ_CHECK(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) == 0);
	if (passcred)
		FUZZ_CHECK(scm_enable_passcred(sv[0]) == 0);
	int before = lowest_free_fd();

	/* sendmsg by hand here: scm_send sends no fds, and a client may. */
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int) * 8)];
	} control;
	struct scm_control c = {.have_cred = with_cred, .cred = cred, .nfds = (size_t)nfds};
	for (int i = 0; i < nfds; i++)
		c.fds[i] = sent_fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	struct iovec iov = {.iov_base = (void *)data, .iov_len = size};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.b,
	                     .msg_controllen = encode(&c, control.b, sizeof(control.b))};
	if (!msg.msg_controllen)
		msg.msg_control = NULL;
	FUZZ_CHECK(sendmsg(sv[1], &msg, MSG_DONTWAIT) == (ssize_t)size);
	for (int i = 0; i < nfds; i++)
		close(sent_fds[i]);

	char got[sizeof(buf)];
	ssize_t n = scm_recv(sv[0], got, sizeof(got), &seen, &have);
	FUZZ_CHECK(n == (ssize_t)size && memcmp(got, data, size) == 0);
	/* Only a receiver with SO_PASSCRED gets one, and then whether or not the sender sent it. */
	FUZZ_CHECK(have == passcred);
	if (have)
		FUZZ_CHECK(seen.pid == cred.pid && seen.uid == cred.uid && seen.gid == cred.gid);
	FUZZ_CHECK(lowest_free_fd() == before); /* every fd the client pushed was closed */
	FUZZ_CHECK(scm_recv(sv[0], got, sizeof(got), &seen, &have) == -EAGAIN);
	close(sv[0]);
	close(sv[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] & 1)
		check_decode(data + 1, size - 1);
	else
		check_recv(data[0], data + 1, size - 1);
	return 0;
}
