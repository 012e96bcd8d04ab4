#include "raw.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

int raw_connect(const char *path, int timeout_ms)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct timeval tv = {.tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000};
	if (strlen(path) >= sizeof(sa.sun_path))
		return -1;
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int read_line(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	while (n + 1 < cap) {
		ssize_t k = read(fd, buf + n, 1);
		if (k <= 0)
			return -1;
		if (buf[n++] == '\n')
			break;
	}
	buf[n] = 0;
	return 0;
}

int raw_auth_start(int fd)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "%cAUTH EXTERNAL ", 0);
	char uid[16];
	int u = snprintf(uid, sizeof(uid), "%u", (unsigned)getuid());
	for (int i = 0; i < u; i++)
		n += snprintf(line + n, sizeof(line) - n, "%02x", (unsigned char)uid[i]);
	n += snprintf(line + n, sizeof(line) - n, "\r\n");
	return raw_send(fd, line, (size_t)n, -1);
}

int raw_auth_finish(int fd)
{
	char line[128];
	if (read_line(fd, line, sizeof(line)) < 0 || strncmp(line, "OK ", 3) != 0)
		return -1;
	if (raw_send(fd, "NEGOTIATE_UNIX_FD\r\n", 19, -1) < 0 || read_line(fd, line, sizeof(line)) < 0 ||
	    strncmp(line, "AGREE_UNIX_FD", 13) != 0)
		return -1;
	return raw_send(fd, "BEGIN\r\n", 7, -1);
}

/* A growing message; alignment is relative to its start, as the wire format's. */
struct mb {
	uint8_t *p;
	size_t n, cap;
	bool full;
};

static void put(struct mb *b, const void *d, size_t n)
{
	if (b->n + n > b->cap) {
		b->full = true;
		return;
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void align(struct mb *b, size_t a)
{
	static const uint8_t zero[8];
	if (b->n % a)
		put(b, zero, a - b->n % a);
}

static void put_u32(struct mb *b, uint32_t v)
{
	align(b, 4);
	put(b, &v, 4);
}

static void put_str(struct mb *b, const char *s)
{
	put_u32(b, (uint32_t)strlen(s));
	put(b, s, strlen(s) + 1);
}

static void put_sig(struct mb *b, const char *s)
{
	uint8_t l = (uint8_t)strlen(s);
	put(b, &l, 1);
	put(b, s, l + 1u);
}

static void field(struct mb *b, uint8_t code, char type, const char *s, uint32_t u)
{
	char sig[2] = {type, 0};
	align(b, 8);
	put(b, &code, 1);
	put_sig(b, sig);
	if (type == 'g')
		put_sig(b, s);
	else if (type == 'u')
		put_u32(b, u);
	else
		put_str(b, s);
}

static size_t build(uint8_t *out, size_t cap, uint32_t serial, const char *iface, const char *member,
                    const struct raw_arg *args, int nargs, int nfds, bool announce_only, uint32_t body_len)
{
	struct mb b = {out, 0, cap, false};
	char sig[32] = "";
	uint8_t fixed[4] = {'l', 1, 0, 1};
	for (int i = 0; i < nargs && i < 31; i++)
		sig[i] = args[i].t;
	sig[nargs < 31 ? nargs : 31] = 0;
	put(&b, fixed, 4);
	put_u32(&b, 0); /* body length, below */
	put_u32(&b, serial);
	put_u32(&b, 0); /* fields length, below */
	size_t fields_at = b.n;
	field(&b, 1, 'o', RAW_PATH, 0);
	field(&b, 2, 's', iface, 0);
	field(&b, 3, 's', member, 0);
	field(&b, 6, 's', "org.linuxcontainers.cgmanager", 0);
	if (sig[0])
		field(&b, 8, 'g', sig, 0);
	if (nfds)
		field(&b, 9, 'u', NULL, (uint32_t)nfds);
	uint32_t flen = (uint32_t)(b.n - fields_at);
	align(&b, 8);
	size_t body_at = b.n;
	if (!announce_only)
		for (int i = 0; i < nargs; i++) {
			if (args[i].t == 's')
				put_str(&b, args[i].s);
			else
				put_u32(&b, (uint32_t)args[i].i);
		}
	if (b.full)
		return 0;
	uint32_t blen = announce_only ? body_len : (uint32_t)(b.n - body_at);
	memcpy(out + 4, &blen, 4);
	memcpy(out + 12, &flen, 4);
	return b.n;
}

size_t raw_call(uint8_t *out, size_t cap, uint32_t serial, const char *iface, const char *member,
                const struct raw_arg *args, int nargs, int nfds)
{
	return build(out, cap, serial, iface, member, args, nargs, nfds, false, 0);
}

size_t raw_header(uint8_t *out, size_t cap, uint32_t serial, const char *member, uint32_t body_len)
{
	struct raw_arg a = {'i', NULL, 0};
	return build(out, cap, serial, RAW_IFACE0, member, &a, 1, 0, true, body_len);
}

int raw_send(int fd, const void *p, size_t len, int pass_fd)
{
	const uint8_t *q = p;
	while (len > 0) {
		union {
			struct cmsghdr h;
			char buf[CMSG_SPACE(sizeof(int))];
		} ctl;
		struct iovec iov = {.iov_base = (void *)q, .iov_len = len};
		struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
		if (pass_fd >= 0) {
			memset(&ctl, 0, sizeof(ctl));
			mh.msg_control = ctl.buf;
			mh.msg_controllen = sizeof(ctl.buf);
			struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
			c->cmsg_level = SOL_SOCKET;
			c->cmsg_type = SCM_RIGHTS;
			c->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
		}
		ssize_t k = sendmsg(fd, &mh, MSG_NOSIGNAL);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		pass_fd = -1;
		q += k;
		len -= (size_t)k;
	}
	return 0;
}

static int read_exact(int fd, uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t k = read(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

int raw_read_body(int fd, const uint8_t **rest, size_t *len)
{
	static uint8_t buf[1 << 20];
	uint8_t h[16];
	uint32_t body, fields;
	if (rest)
		*rest = NULL, *len = 0;
	if (read_exact(fd, h, 16) < 0 || h[0] != 'l')
		return -1;
	memcpy(&body, h + 4, 4);
	memcpy(&fields, h + 12, 4);
	size_t total = ((16 + (size_t)fields + 7) & ~(size_t)7) - 16 + body, left = total;
	while (left > 0) {
		size_t k = left < sizeof(buf) ? left : sizeof(buf);
		if (read_exact(fd, buf, k) < 0)
			return -1;
		left -= k;
	}
	if (rest && total <= sizeof(buf))
		*rest = buf, *len = total;
	return h[1];
}

int raw_read(int fd)
{
	return raw_read_body(fd, NULL, NULL);
}

int raw_roundtrip(int fd, uint32_t serial, const char *iface, const char *member, const struct raw_arg *args,
                  int nargs)
{
	uint8_t msg[4096];
	size_t n = raw_call(msg, sizeof(msg), serial, iface, member, args, nargs, 0);
	if (!n || raw_send(fd, msg, n, -1) < 0)
		return -1;
	/* Skip what is not an answer (the daemon sends no signals, but be safe). */
	for (int i = 0; i < 4; i++) {
		int t = raw_read(fd);
		if (t != 4)
			return t;
	}
	return -1;
}

int raw_scm_cred(int sock)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(struct ucred))];
	} ctl;
	struct ucred uc = {.pid = getpid(), .uid = getuid(), .gid = getgid()};
	char byte = 'p';
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf)};
	memset(&ctl, 0, sizeof(ctl));
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_CREDENTIALS;
	c->cmsg_len = CMSG_LEN(sizeof(uc));
	memcpy(CMSG_DATA(c), &uc, sizeof(uc));
	return sendmsg(sock, &mh, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

ssize_t raw_scm_recv(int sock, void *buf, size_t len, int ms)
{
	struct pollfd p = {.fd = sock, .events = POLLIN};
	if (poll(&p, 1, ms) <= 0)
		return -1;
	return recv(sock, buf, len, MSG_DONTWAIT);
}
