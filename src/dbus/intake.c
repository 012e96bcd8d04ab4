#include "dbus/intake.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int intake_init(struct intake *in, size_t max_message, int *bus_end)
{
	int sp[2];
	*in = (struct intake){.bus_fd = -1, .max_message = max_message, .pend_fd_at = SIZE_MAX};
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sp) < 0)
		return -errno;
	in->bus_fd = sp[1];
	*bus_end = sp[0];
	return 0;
}

static void close_fds(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		close(fds[i]);
}

void intake_free(struct intake *in)
{
	if (in->bus_fd >= 0)
		close(in->bus_fd);
	in->bus_fd = -1;
	close_fds(in->pend_fds, in->pend_nfds);
	in->pend_nfds = 0;
	free(in->pend);
	in->pend = NULL;
	in->pend_len = in->pend_off = 0;
}

bool intake_pending(const struct intake *in)
{
	return in->pend_off < in->pend_len;
}

/* Sends len bytes (with fds, if any) to sd-bus; returns how many went, or -errno. */
static ssize_t send_bus(struct intake *in, const uint8_t *p, size_t len, const int *fds, int nfds)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * INTAKE_FDS_MAX)];
	} ctl;
	struct iovec iov = {.iov_base = (void *)p, .iov_len = len};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	if (nfds > 0) {
		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	ssize_t k = sendmsg(in->bus_fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (k < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	return k;
}

/* Passes on what waits; 1 once nothing does, 0 while the bus socket is full, or -errno. */
static int flush_pending(struct intake *in)
{
	while (in->pend_off < in->pend_len) {
		bool with_fds = in->pend_off == in->pend_fd_at;
		size_t end = !with_fds && in->pend_fd_at < in->pend_len ? in->pend_fd_at : in->pend_len;
		ssize_t k = send_bus(in, in->pend + in->pend_off, end - in->pend_off, in->pend_fds,
		                     with_fds ? in->pend_nfds : 0);
		if (k < 0)
			return (int)k;
		if (k == 0)
			return 0;
		if (with_fds) {
			/* The fds went with the first byte; the socket holds its own references now. */
			close_fds(in->pend_fds, in->pend_nfds);
			in->pend_nfds = 0;
			in->pend_fd_at = SIZE_MAX;
		}
		in->pend_off += (size_t)k;
	}
	free(in->pend);
	in->pend = NULL;
	in->pend_len = in->pend_off = 0;
	return 1;
}

/*
 * Relays p[0..len) with fds attached at offset fd_at (SIZE_MAX: none); keeps what does not fit, and what
 * is from hold on (SIZE_MAX: nothing), for the next pump.
 */
static int relay(struct intake *in, const uint8_t *p, size_t len, size_t fd_at, int *fds, int nfds, size_t hold)
{
	size_t done = 0, limit = hold < len ? hold : len;
	while (done < limit) {
		bool with_fds = nfds > 0 && done == fd_at;
		size_t end = nfds > 0 && !with_fds && fd_at < limit ? fd_at : limit;
		ssize_t k = send_bus(in, p + done, end - done, fds, with_fds ? nfds : 0);
		if (k < 0) {
			close_fds(fds, nfds);
			return (int)k;
		}
		if (k == 0)
			break;
		if (with_fds) {
			close_fds(fds, nfds);
			nfds = 0;
		}
		done += (size_t)k;
	}
	if (done == len) {
		close_fds(fds, nfds); /* none, unless they came with no byte after them (refused before) */
		return 0;
	}
	/* The rest waits for sd-bus to read; it is taken before the client is read again. */
	if (!(in->pend = malloc(len - done))) {
		close_fds(fds, nfds);
		return -ENOMEM;
	}
	memcpy(in->pend, p + done, len - done);
	in->pend_len = len - done;
	in->pend_off = 0;
	in->pend_fd_at = nfds > 0 ? fd_at - done : SIZE_MAX;
	memcpy(in->pend_fds, fds, sizeof(int) * nfds);
	in->pend_nfds = nfds;
	return 0;
}

/* The auth exchange: a NUL, then lines ending in \r\n, the last one BEGIN (sd-bus reads it the same way). */
static int scan_auth(struct intake *in, const uint8_t *p, size_t len, size_t *used, const char **why)
{
	size_t i = 0;
	for (; i < len && !in->running; i++) {
		if (++in->auth_bytes > INTAKE_AUTH_MAX) {
			*why = "the auth exchange is too long";
			return -EPROTO;
		}
		if (in->auth_bytes == 1) {
			if (p[i] != 0) {
				*why = "the auth exchange does not start with a NUL byte";
				return -EPROTO;
			}
			continue;
		}
		if (p[i] == '\n' && in->cr) {
			in->running = in->line_len == 6 && memcmp(in->line, "BEGIN\r", 6) == 0;
			in->line_len = 0;
			in->cr = false;
			continue;
		}
		/* Only a line's first bytes matter: is it BEGIN? */
		if (in->line_len < sizeof(in->line))
			in->line[in->line_len] = (char)p[i];
		if (in->line_len < UINT32_MAX)
			in->line_len++;
		in->cr = p[i] == '\r';
	}
	*used = i;
	return 0;
}

static uint32_t header_u32(const uint8_t *h, int off)
{
	uint32_t v;
	memcpy(&v, h + off, sizeof(v));
	return h[0] == 'l' ? le32toh(v) : be32toh(v);
}

/*
 * Walks the messages in p[0..len): every header is checked once its 16 bytes are in. *last_start is
 * the offset of the last message that starts in p (SIZE_MAX if none): fds belong to it.
 */
static int scan_messages(struct intake *in, const uint8_t *p, size_t len, size_t *last_start, const char **why)
{
	size_t i = 0;
	while (i < len) {
		if (in->left > 0) {
			size_t take = in->left < len - i ? (size_t)in->left : len - i;
			in->left -= take;
			i += take;
			continue;
		}
		if (in->hdr_len == 0)
			*last_start = i;
		in->hdr[in->hdr_len++] = p[i++];
		if (in->hdr_len < sizeof(in->hdr))
			continue;
		in->hdr_len = 0;
		if (in->hdr[0] != 'l' && in->hdr[0] != 'B') {
			*why = "a message with no valid byte order";
			return -EPROTO;
		}
		uint64_t fields = header_u32(in->hdr, 12), body = header_u32(in->hdr, 4);
		uint64_t total = 16 + ((fields + 7) & ~(uint64_t)7) + body;
		if (total > in->max_message) {
			*why = "a message over the size limit";
			return -EMSGSIZE;
		}
		in->left = total - 16;
	}
	return 0;
}

int intake_pump(struct intake *in, int client_fd, bool bus_running, uint8_t buf[INTAKE_CHUNK], const char **why)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * INTAKE_FDS_MAX)];
	} ctl;
	struct iovec iov = {.iov_base = buf, .iov_len = INTAKE_CHUNK};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf)};
	int fds[INTAKE_FDS_MAX], nfds = 0, r = 0;
	size_t used = 0, last_start = SIZE_MAX;
	bool was_running = in->running;

	if (in->await_bus) {
		if (!bus_running) {
			*why = "the client sent BEGIN before it was authenticated";
			return -EPROTO;
		}
		in->await_bus = false;
	}
	*why = "cannot relay to the bus";
	/* What waited counts as relayed: sd-bus has something new to read. */
	int had = intake_pending(in);
	if ((r = flush_pending(in)) <= 0)
		return r < 0 ? r : had;
	if (in->eof)
		return had;
	ssize_t n = recvmsg(client_fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return had;
		if (errno == ECONNRESET) {
			in->eof = true;
			return had;
		}
		*why = "cannot read from the client";
		return -errno;
	}
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		for (int j = 0; j < k; j++) {
			int fd;
			memcpy(&fd, CMSG_DATA(c) + j * sizeof(int), sizeof(int));
			if (nfds < INTAKE_FDS_MAX)
				fds[nfds++] = fd;
			else
				close(fd);
		}
	}
	if (mh.msg_flags & MSG_CTRUNC) {
		close_fds(fds, nfds);
		*why = "too many file descriptors in one message";
		return -EBADMSG;
	}
	if (n == 0) {
		close_fds(fds, nfds);
		in->eof = true;
		return had;
	}
	if (!in->running)
		r = scan_auth(in, buf, (size_t)n, &used, why);
	if (r >= 0 && in->running)
		r = scan_messages(in, buf + used, (size_t)n - used, &last_start, why);
	/* fds belong to a message; with no message byte after the auth they came with the auth. */
	if (r >= 0 && nfds > 0 && (!in->running || used == (size_t)n)) {
		*why = "file descriptors during the auth exchange";
		r = -EPROTO;
	}
	/* The kernel ends a read at data that carried fds, so one message can bring fds in many reads. */
	if (r >= 0 && in->running) {
		if (last_start != SIZE_MAX)
			in->msg_fds = 0;
		in->msg_fds += nfds;
		if (in->msg_fds > INTAKE_FDS_MAX) {
			*why = "too many file descriptors in one message";
			r = -EPROTO;
		}
	}
	if (r < 0) {
		close_fds(fds, nfds);
		return r;
	}
	*why = "cannot relay to the bus";
	/* The kernel ends a read with the data that carried fds: they belong to the last message begun in it. */
	size_t fd_at = nfds == 0 ? SIZE_MAX : used + (last_start == SIZE_MAX ? 0 : last_start);
	/* What follows BEGIN waits for the next pump, which comes once sd-bus has handled BEGIN. */
	size_t hold = SIZE_MAX;
	if (!was_running && in->running) {
		hold = used;
		in->await_bus = true;
	}
	if ((r = relay(in, buf, (size_t)n, fd_at, fds, nfds, hold)) < 0)
		return r;
	return 1;
}
