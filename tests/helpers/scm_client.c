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
 *   --as PID:UID:GID   the requester credential to claim (default: our own;
 *                      PID self: our pid);
 *                      the kernel refuses what we may not claim
 *   --second-as PID:UID:GID  the whole second credential to claim (default:
 *                      our own, with --second's pid or ids in it)
 *   --no-cred          never answer the kick; report what came in 7 s
 *   --stream           pass a SOCK_STREAM socket, which the daemon must refuse
 *   --unconnected      pass a SOCK_DGRAM socket connected to nothing
 *   --other-fd         send the credentials on a socketpair other than the one
 *                      passed; report what came on the passed one in 7 s
 *   --early            send every credential before the call, none when asked
 *   --extra N          with --early: N more of our credentials nobody asked
 *                      for; report any datagram that follows the answer
 *                      within 1 s
 *
 * Sockets wired so that the daemon hears itself (the attacks on its trust in
 * SCM_CREDENTIALS: the kernel vouches for the sender, and the daemon sends
 * too, as root). None of them sends a credential of ours to the call:
 *   --self-connected   pass a datagram socket bound to an abstract name and
 *                      connected to itself; the daemon's kicks come back to it
 *   --crosswire        first start a ListChildrenScm (memory, "") on one end of
 *                      a socketpair, then the call on the other end: each
 *                      exchange reads the other's kicks
 *   --replay-tasks CG  first a GetTasksScm (memory, CG), answered honestly; its
 *                      count is read off and its pid datagrams (which the
 *                      daemon sends with uid 0) are left queued on the socket
 *                      then passed to the call
 * In these modes the answer is read from the other end after the exchanges
 * have run (1 s), skipping the daemon's kicks where their number is known.
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
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
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
static sd_bus_error error = SD_BUS_ERROR_NULL;

static void release_bus(void)
{
	sd_bus_error_free(&error);
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

/* Sends n credential datagrams in one system call; exits 3 when the kernel refuses one. */
static void send_creds(int fd, const struct ucred *creds, int n)
{
	union control {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(struct ucred))];
	} control[10];
	struct mmsghdr msgs[10];
	struct iovec iov[10];
	char byte = 'p';
	if (n > 10)
		die("too many credentials");
	memset(control, 0, sizeof(control));
	memset(msgs, 0, sizeof(msgs));
	for (int i = 0; i < n; i++) {
		iov[i] = (struct iovec){ .iov_base = &byte, .iov_len = 1 };
		msgs[i].msg_hdr = (struct msghdr){ .msg_iov = &iov[i], .msg_iovlen = 1, .msg_control = &control[i],
		                                   .msg_controllen = sizeof(control[i]) };
		struct cmsghdr *c = CMSG_FIRSTHDR(&msgs[i].msg_hdr);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_CREDENTIALS;
		c->cmsg_len = CMSG_LEN(sizeof(creds[i]));
		memcpy(CMSG_DATA(c), &creds[i], sizeof(creds[i]));
	}
	for (int done = 0; done < n;) {
		int r = sendmmsg(fd, msgs + done, (unsigned)(n - done), MSG_NOSIGNAL);
		if (r <= 0) {
			printf("kernel refused: %s\n", strerror(r < 0 ? errno : EIO));
			exit(3);
		}
		done += r;
	}
}

static void send_cred(int fd, struct ucred cred)
{
	send_creds(fd, &cred, 1);
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

/* PID:UID:GID; a PID of "self" is our own. */
static bool parse_triple(const char *s, struct ucred *c)
{
	int pid = getpid();
	unsigned uid, gid;
	if (strncmp(s, "self:", 5) == 0 ? sscanf(s + 5, "%u:%u", &uid, &gid) != 2
	                                 : sscanf(s, "%d:%u:%u", &pid, &uid, &gid) != 3)
		return false;
	*c = (struct ucred){ .pid = pid, .uid = uid, .gid = gid };
	return true;
}

static const struct method *method_named(const char *name)
{
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (strcmp(methods[i].name, name) == 0)
			return &methods[i];
	return NULL;
}

/* Calls m with args and fd; on a D-Bus error prints it and exits 2. The call's messages are freed at exit. */
static void call_scm(const struct method *m, const char *const *args, size_t nargs, int fd)
{
	sd_bus_message *c = NULL, *rep = NULL;
	int r = sd_bus_message_new_method_call(bus, &c, NULL, "/org/linuxcontainers/cgmanager",
	                                       "org.linuxcontainers.cgmanager0_0", m->name);
	for (size_t i = 0; r >= 0 && i < nargs; i++) {
		if (m->sig[i] == 'i') {
			int32_t v = (int32_t)strtol(args[i], NULL, 0);
			r = sd_bus_message_append_basic(c, 'i', &v);
		} else {
			r = sd_bus_message_append_basic(c, 's', args[i]);
		}
	}
	if (r >= 0)
		r = sd_bus_message_append_basic(c, 'h', &fd);
	if (r < 0)
		die("cannot build the call");
	r = sd_bus_call(bus, c, 10 * 1000000ULL, &error, &rep);
	sd_bus_message_unref(c);
	sd_bus_message_unref(rep);
	if (r < 0) {
		printf("dbus-error %s: %s\n", error.name ? error.name : "?", error.message ? error.message : strerror(-r));
		fflush(stdout);
		exit(2);
	}
}

/* Prints the answer of m as it comes on fd. */
static void print_answer(int fd, const struct method *m)
{
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
}

/* Reads (and drops) n datagrams: kicks whose number is known. */
static void skip_datagrams(int fd, int n)
{
	char buf[64];
	for (int i = 0; i < n; i++)
		recv_or_die(fd, buf, sizeof(buf), NULL, NULL);
}

static void dgram_pair(int kind, int pair[2])
{
	if (socketpair(AF_UNIX, kind | SOCK_CLOEXEC, 0, pair) < 0)
		die("socketpair failed");
	int one = 1;
	setsockopt(pair[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one));
}

/* A datagram socket bound to a fresh abstract name and connected to that name: to itself. */
static int self_connected_socket(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	                            (size_t)snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "scm-client-self-%d",
	                                             (int)getpid()));
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, len) < 0 || connect(fd, (struct sockaddr *)&a, len) < 0)
		die("cannot make a self-connected socket");
	return fd;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: scm-client SOCKET METHOD [--second PID|UID:GID] [--as PID:UID:GID] "
		                "[--second-as PID:UID:GID] [--no-cred] [--stream] [--unconnected] [--other-fd] [--early] "
		                "[--extra N] [--self-connected] [--crosswire] [--replay-tasks CGROUP] ARG...\n");
		return 1;
	}
	const char *sock_path = argv[1];
	const struct method *m = method_named(argv[2]);
	if (!m)
		die("unknown method");

	struct ucred self = { .pid = getpid(), .uid = getuid(), .gid = getgid() };
	struct ucred requester = self, second_as;
	const char *second = NULL, *args[8], *replay = NULL;
	size_t nargs = 0;
	bool no_cred = false, have_second_as = false, unconnected = false, other_fd = false, early = false;
	bool self_connected = false, crosswire = false;
	int kind = SOCK_DGRAM, extra = 0;
	for (int i = 3; i < argc; i++) {
		if (strcmp(argv[i], "--second") == 0 && i + 1 < argc)
			second = argv[++i];
		else if (strcmp(argv[i], "--as") == 0 && i + 1 < argc) {
			if (!parse_triple(argv[++i], &requester))
				die("--as takes PID:UID:GID");
		} else if (strcmp(argv[i], "--second-as") == 0 && i + 1 < argc) {
			if (!parse_triple(argv[++i], &second_as))
				die("--second-as takes PID:UID:GID");
			have_second_as = true;
		} else if (strcmp(argv[i], "--no-cred") == 0)
			no_cred = true;
		else if (strcmp(argv[i], "--stream") == 0)
			kind = SOCK_STREAM;
		else if (strcmp(argv[i], "--unconnected") == 0)
			unconnected = true;
		else if (strcmp(argv[i], "--other-fd") == 0)
			other_fd = true;
		else if (strcmp(argv[i], "--early") == 0)
			early = true;
		else if (strcmp(argv[i], "--extra") == 0 && i + 1 < argc)
			extra = atoi(argv[++i]);
		else if (strcmp(argv[i], "--self-connected") == 0)
			self_connected = true;
		else if (strcmp(argv[i], "--crosswire") == 0)
			crosswire = true;
		else if (strcmp(argv[i], "--replay-tasks") == 0 && i + 1 < argc)
			replay = argv[++i];
		else if (nargs < sizeof(args) / sizeof(args[0]))
			args[nargs++] = argv[i];
	}
	bool wired = self_connected || crosswire || replay;
	if (nargs != strlen(m->sig))
		die("wrong number of arguments for this method");
	if (m->second != S_NONE && !second && !have_second_as && !no_cred && !wired && !other_fd)
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

	if (self_connected) {
		int fd = self_connected_socket();
		call_scm(m, args, nargs, fd);
		/* The kicks land on this very socket: the daemon reads them before we look (it is told at once). */
		sleep(1);
		print_answer(fd, m);
		return 0;
	}
	if (crosswire) {
		int pair[2];
		const char *list_args[] = { "memory", "" };
		dgram_pair(SOCK_DGRAM, pair);
		call_scm(method_named("ListChildrenScm"), list_args, 2, pair[1]);
		call_scm(m, args, nargs, pair[0]);
		/* The call's answer comes out of pair[1]; the ListChildren exchange took the first kick there. */
		sleep(1);
		skip_datagrams(pair[1], m->second != S_NONE ? 1 : 0);
		print_answer(pair[1], m);
		return 0;
	}
	if (replay) {
		int pair[2];
		const char *task_args[] = { "memory", replay };
		dgram_pair(SOCK_DGRAM, pair);
		call_scm(method_named("GetTasksScm"), task_args, 2, pair[0]);
		expect_kick(pair[1]);
		send_cred(pair[1], self);
		int32_t count = recv_int32(pair[1]);
		printf("replaying %d pid datagrams\n", count);
		if (count < 1 + (m->second != S_NONE))
			die("too few tasks to replay");
		/* pair[1] now holds the daemon's pid datagrams; the call reads them as our credentials. */
		call_scm(m, args, nargs, pair[1]);
		skip_datagrams(pair[0], 1 + (m->second != S_NONE));
		print_answer(pair[0], m);
		return 0;
	}

	struct ucred victim = self;
	if (m->second != S_NONE && !no_cred && !other_fd) {
		if (have_second_as) {
			victim = second_as;
		} else if (m->second == S_PID) {
			victim.pid = atoi(second);
		} else if (sscanf(second, "%u:%u", &victim.uid, &victim.gid) != 2) {
			die("--second takes UID:GID for ChownScm");
		}
	}
	int pair[2];
	if (unconnected) {
		pair[0] = -1;
		pair[1] = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (pair[1] < 0)
			die("socket failed");
	} else {
		dgram_pair(kind, pair);
	}
	int fd = pair[0];
	if (early) {
		/*
		 * Every credential, and the extra ones, before the call: the daemon finds them queued when it starts.
		 * (Sent after the exchange ended, a datagram would make the kernel drop what we had not read yet, the
		 * answer included: unix_dgram_disconnected.)
		 */
		struct ucred creds[2 + 8];
		int n = 0;
		creds[n++] = requester;
		if (m->second != S_NONE)
			creds[n++] = victim;
		for (int i = 0; i < extra && n < (int)(sizeof(creds) / sizeof(creds[0])); i++)
			creds[n++] = self;
		send_creds(fd, creds, n);
	}
	call_scm(m, args, nargs, pair[1]);
	close(pair[1]);
	expect_kick(fd);

	if (no_cred || other_fd) {
		if (other_fd) {
			int elsewhere[2];
			dgram_pair(SOCK_DGRAM, elsewhere);
			send_cred(elsewhere[1], requester);
			printf("sent on another socket\n");
		} else {
			printf("kicked\n");
		}
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
	if (early) {
		if (m->second != S_NONE)
			expect_kick(fd);
	} else {
		send_cred(fd, requester);
		if (m->second != S_NONE) {
			expect_kick(fd);
			send_cred(fd, victim);
		}
	}
	print_answer(fd, m);
	if (extra > 0) {
		/* One answer per call, however many credentials came: nothing more may follow. */
		char buf[64];
		ssize_t n = recv_datagram(fd, buf, sizeof(buf), NULL, NULL, 1000);
		if (n >= 0)
			printf("unexpected datagram of %zd bytes\n", n);
	}
	return 0;
}
