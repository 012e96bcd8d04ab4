/*
 * One cgmanager0_0 XxxScm call, done the way a 0.42 client does it, written
 * independently of the daemon's own Scm code so that the suite checks the
 * protocol rather than agreeing with itself.
 *
 *   scm-client SOCKET METHOD [OPTION...] ARG...
 *
 * ARGs are the method's arguments before the fd. One end of an AF_UNIX
 * SOCK_DGRAM socketpair goes as the fd; each '1' kick from the daemon is
 * answered with a 'p' datagram carrying SCM_CREDENTIALS.
 *
 *   --second PID       the victim of GetPidCgroup*, MovePid*
 *   --second UID:GID   the new owner of ChownScm
 *   --as PID:UID:GID   the requester credential to claim (default: our own);
 *                      the kernel refuses what we may not claim
 *   --no-cred          never answer the kick; report what came in 7 s
 *   --stream           pass a SOCK_STREAM socket, which the daemon must refuse
 *
 * Prints status bytes as they come ('0', '1', '2'), strings as they are,
 * lists as "count N" and an item a line, a failure's reason (the daemon's
 * 'E' datagram) as "error NAME: MESSAGE", a refused credential as
 * "kernel refused: STRERROR". Exit status: 0 when the exchange ran, 2 when
 * the D-Bus call itself failed ("dbus-error NAME: MESSAGE"), 3 when the
 * kernel refused a credential, 1 on a protocol violation by the daemon.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

enum result { R_BYTE, R_STRING, R_PIDS, R_NAMES, R_KEYS };
enum second { S_NONE, S_PID, S_IDS };

struct method {
	const char *name;
	const char *sig; /* arguments before the fd */
	enum second second;
	enum result result;
};

static const struct method methods[] = {
	{ "GetPidCgroupScm", "s", S_PID, R_STRING },     { "GetPidCgroupAbsScm", "s", S_PID, R_STRING },
	{ "CreateScm", "ss", S_NONE, R_BYTE },           { "ChownScm", "ss", S_IDS, R_BYTE },
	{ "ChmodScm", "sssi", S_NONE, R_BYTE },          { "MovePidScm", "ss", S_PID, R_BYTE },
	{ "MovePidAbsScm", "ss", S_PID, R_BYTE },        { "GetValueScm", "sss", S_NONE, R_STRING },
	{ "SetValueScm", "ssss", S_NONE, R_BYTE },       { "RemoveScm", "ssi", S_NONE, R_BYTE },
	{ "GetTasksScm", "ss", S_NONE, R_PIDS },         { "GetTasksRecursiveScm", "ss", S_NONE, R_PIDS },
	{ "ListChildrenScm", "ss", S_NONE, R_NAMES },    { "RemoveOnEmptyScm", "ss", S_NONE, R_BYTE },
	{ "PruneScm", "ss", S_NONE, R_BYTE },            { "ListKeysScm", "ss", S_NONE, R_KEYS },
};

#define TIMEOUT_MS 5000

/* File-scope so that every exit path, exit() included, frees them (the suite runs this under LeakSanitizer). */
static sd_bus *bus;
static sd_bus_message *call, *reply;
static sd_bus_error error = SD_BUS_ERROR_NULL;

static void release_bus(void)
{
	sd_bus_error_free(&error);
	sd_bus_message_unref(call);
	sd_bus_message_unref(reply);
	sd_bus_flush_close_unref(bus);
}

static void die(const char *what)
{
	fprintf(stderr, "scm-client: %s\n", what);
	exit(1);
}

/* One datagram (NUL-terminated in buf) and its credentials, if any came. Returns its length, -1 on timeout. */
static ssize_t recv_datagram(int fd, char *buf, size_t size, struct ucred *cred, bool *has_cred, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	if (poll(&p, 1, timeout_ms) <= 0)
		return -1;
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(struct ucred))];
	} control;
	struct iovec iov = { .iov_base = buf, .iov_len = size - 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control, .msg_controllen = sizeof(control) };
	ssize_t n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n < 0 && errno == EAGAIN)
		return -1;
	if (n < 0) {
		printf("recvmsg: %s\n", strerror(errno));
		exit(1);
	}
	buf[n] = '\0';
	if (has_cred)
		*has_cred = false;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS && cred && has_cred) {
			memcpy(cred, CMSG_DATA(c), sizeof(*cred));
			*has_cred = true;
		}
	}
	return n;
}

static ssize_t recv_or_die(int fd, char *buf, size_t size, struct ucred *cred, bool *has_cred)
{
	ssize_t n = recv_datagram(fd, buf, size, cred, has_cred, TIMEOUT_MS);
	if (n < 0) {
		printf("no datagram from the daemon within %d s\n", TIMEOUT_MS / 1000);
		exit(1);
	}
	return n;
}

static void expect_kick(int fd)
{
	char buf[16];
	ssize_t n = recv_or_die(fd, buf, sizeof(buf), NULL, NULL);
	if (n != 1 || buf[0] != '1') {
		printf("unexpected kick of %zd bytes\n", n);
		exit(1);
	}
}

static void send_cred(int fd, struct ucred cred)
{
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(struct ucred))];
	} control = { 0 };
	char byte = 'p';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control, .msg_controllen = sizeof(control) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_CREDENTIALS;
	c->cmsg_len = CMSG_LEN(sizeof(cred));
	memcpy(CMSG_DATA(c), &cred, sizeof(cred));
	if (sendmsg(fd, &msg, MSG_NOSIGNAL) < 0) {
		printf("kernel refused: %s\n", strerror(errno));
		exit(3);
	}
}

/* After a failure the daemon may add an 'E' datagram: error name NUL message NUL. */
static void print_reason(int fd)
{
	char buf[4096];
	ssize_t n = recv_datagram(fd, buf, sizeof(buf), NULL, NULL, 1000);
	if (n < 0)
		return;
	if (n > 0 && buf[0] == 'E') {
		const char *name = buf + 1;
		const char *text = name + strlen(name) + 1;
		printf("error %s: %s\n", name, text < buf + n ? text : "");
	} else {
		printf("unexpected datagram of %zd bytes\n", n);
	}
}

static int32_t recv_int32(int fd)
{
	char buf[16];
	int32_t v;
	if (recv_or_die(fd, buf, sizeof(buf), NULL, NULL) != sizeof(v))
		die("expected a 4-byte count");
	memcpy(&v, buf, sizeof(v));
	return v;
}

static void print_list(int fd, enum result result)
{
	int32_t count = recv_int32(fd);
	printf("count %d\n", count);
	if (count < 0) {
		print_reason(fd);
		return;
	}
	if (result == R_PIDS) {
		for (int32_t i = 0; i < count; i++) {
			char buf[16];
			struct ucred cred;
			bool has_cred;
			recv_or_die(fd, buf, sizeof(buf), &cred, &has_cred);
			if (has_cred)
				printf("%d\n", (int)cred.pid);
			else
				printf("no-credentials\n");
		}
		return;
	}
	if (count == 0)
		return;
	uint32_t length = (uint32_t)recv_int32(fd);
	static char blob[1 << 20];
	ssize_t n = recv_or_die(fd, blob, sizeof(blob), NULL, NULL);
	if ((uint32_t)n != length)
		printf("length %u but %zd bytes\n", length, n);
	if (result == R_NAMES) {
		for (char *p = blob; p < blob + n; p += strlen(p) + 1)
			printf("%s\n", p);
		return;
	}
	/* ListKeys: name, uid, gid, mode per key, newline-separated. */
	char *save = NULL, *f[4];
	char *line = strtok_r(blob, "\n", &save);
	for (int32_t k = 0; k < count && line; k++) {
		for (int j = 0; j < 4; j++) {
			f[j] = line ? line : "?";
			line = strtok_r(NULL, "\n", &save);
		}
		printf("%s %s %s %o\n", f[0], f[1], f[2], (unsigned)strtoul(f[3], NULL, 10));
	}
}

static bool parse_triple(const char *s, struct ucred *c)
{
	int pid;
	unsigned uid, gid;
	if (sscanf(s, "%d:%u:%u", &pid, &uid, &gid) != 3)
		return false;
	*c = (struct ucred){ .pid = pid, .uid = uid, .gid = gid };
	return true;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: scm-client SOCKET METHOD [--second PID|UID:GID] [--as PID:UID:GID] "
		                "[--no-cred] [--stream] ARG...\n");
		return 1;
	}
	const char *sock_path = argv[1];
	const struct method *m = NULL;
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (strcmp(methods[i].name, argv[2]) == 0)
			m = &methods[i];
	if (!m)
		die("unknown method");

	struct ucred self = { .pid = getpid(), .uid = getuid(), .gid = getgid() };
	struct ucred requester = self;
	const char *second = NULL, *args[8];
	size_t nargs = 0;
	bool no_cred = false;
	int kind = SOCK_DGRAM;
	for (int i = 3; i < argc; i++) {
		if (strcmp(argv[i], "--second") == 0 && i + 1 < argc)
			second = argv[++i];
		else if (strcmp(argv[i], "--as") == 0 && i + 1 < argc) {
			if (!parse_triple(argv[++i], &requester))
				die("--as takes PID:UID:GID");
		} else if (strcmp(argv[i], "--no-cred") == 0)
			no_cred = true;
		else if (strcmp(argv[i], "--stream") == 0)
			kind = SOCK_STREAM;
		else if (nargs < sizeof(args) / sizeof(args[0]))
			args[nargs++] = argv[i];
	}
	if (nargs != strlen(m->sig))
		die("wrong number of arguments for this method");
	if (m->second != S_NONE && !second && !no_cred)
		die("this method needs --second");

	char address[4200];
	snprintf(address, sizeof(address), "unix:path=%s", sock_path);
	int r;
	atexit(release_bus);
	if ((r = sd_bus_new(&bus)) < 0 || (r = sd_bus_set_address(bus, address)) < 0 ||
	    (r = sd_bus_negotiate_fds(bus, 1)) < 0 || (r = sd_bus_start(bus)) < 0) {
		fprintf(stderr, "scm-client: cannot connect to %s: %s\n", sock_path, strerror(-r));
		return 1;
	}
	int pair[2];
	if (socketpair(AF_UNIX, kind | SOCK_CLOEXEC, 0, pair) < 0)
		die("socketpair failed");
	int one = 1;
	setsockopt(pair[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one));

	r = sd_bus_message_new_method_call(bus, &call, NULL, "/org/linuxcontainers/cgmanager",
	                                   "org.linuxcontainers.cgmanager0_0", m->name);
	for (size_t i = 0; r >= 0 && i < nargs; i++) {
		if (m->sig[i] == 'i') {
			int32_t v = (int32_t)strtol(args[i], NULL, 0);
			r = sd_bus_message_append_basic(call, 'i', &v);
		} else {
			r = sd_bus_message_append_basic(call, 's', args[i]);
		}
	}
	if (r >= 0)
		r = sd_bus_message_append_basic(call, 'h', &pair[1]);
	if (r < 0)
		die("cannot build the call");
	r = sd_bus_call(bus, call, 10 * 1000000ULL, &error, &reply);
	if (r < 0) {
		printf("dbus-error %s: %s\n", error.name ? error.name : "?", error.message ? error.message : strerror(-r));
		return 2;
	}
	close(pair[1]);
	int fd = pair[0];
	expect_kick(fd);

	if (no_cred) {
		printf("kicked\n");
		fflush(stdout);
		/* Held past the daemon's deadline (5 s): nothing may come but the end of the exchange. */
		char buf[64];
		ssize_t n = recv_datagram(fd, buf, sizeof(buf), NULL, NULL, 7000);
		if (n < 0)
			printf("nothing after 7 s\n");
		else
			printf("unexpected datagram of %zd bytes\n", n);
		return 0;
	}
	send_cred(fd, requester);
	if (m->second != S_NONE) {
		expect_kick(fd);
		struct ucred victim = self;
		if (m->second == S_PID) {
			victim.pid = atoi(second);
		} else if (sscanf(second, "%u:%u", &victim.uid, &victim.gid) != 2) {
			die("--second takes UID:GID for ChownScm");
		}
		send_cred(fd, victim);
	}

	char buf[8192];
	ssize_t n;
	switch (m->result) {
	case R_BYTE:
		recv_or_die(fd, buf, sizeof(buf), NULL, NULL);
		printf("%s\n", buf);
		if (strcmp(buf, "0") == 0)
			print_reason(fd);
		break;
	case R_STRING:
		n = recv_or_die(fd, buf, sizeof(buf), NULL, NULL);
		if (n > 0) {
			printf("%s\n", buf);
		} else {
			printf("<failed>\n");
			print_reason(fd);
		}
		break;
	default:
		print_list(fd, m->result);
	}
	return 0;
}
