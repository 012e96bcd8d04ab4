/*
 * A raw D-Bus method call, built by the fuzzer, through the daemon's real event loop (server_turn), its
 * sd-bus server connection, the iface0/iface1/bus-driver vtables, their argument reading and validation and
 * the ops layer, to exactly one reply.
 *
 * The ops layer runs on a fake host: each hierarchy's root_fd is a plain directory under a temporary
 * directory this target makes (on /dev/shm where it can, else /tmp) and remakes for every input, never the
 * host's cgroupfs. That is safe because the ops layer writes only through fds beneath root_fd and never
 * creates a file (no O_CREAT anywhere); GetPidCgroup reads the real /proc, read-only. The fake tree's task
 * files (cgroup.procs, tasks) start empty, so no Kill finds a task, and a seccomp filter refuses this
 * process any signal but 0 all the same (guard_signals); without the filter (another architecture) the
 * tree has no task files at all. Hierarchy ids and root paths are this process's own
 * (/proc/self/cgroup), so that the requester, this process, stands at the roots as a client of a real
 * daemon would.
 *
 * Input: byte 0 bit 0 picks the host (v1+v2 as /proc/self/cgroup has them, or cgroup2 only), bit 1 the
 * requester's uid (0 or 1000, as SO_PEERCRED sees it at connect), bits 2-4 all set send the call with
 * NO_REPLY_EXPECTED; byte 1 the method (from the real vtables, plus sd-bus's own interfaces and a method
 * nobody has); byte 2 bit 0 whether the arguments follow the method's signature or one the fuzzer makes
 * up, the other bits the object path; the rest are values. An Scm call given a datagram socket is then
 * driven through its side channel with credentials the fuzzer picks.
 *
 * Checked: every call gets exactly one reply (none with NO_REPLY_EXPECTED), an error has a name; every
 * Scm exchange that got its credentials answers; a directory beside the roots is never touched (no path
 * leaves its root_fd); nothing leaks (LeakSanitizer); no sanitizer report.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <limits.h>
#include <poll.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "fuzz.h"
#include "cgfs/hierarchy_parse.h"
#include "cgfs/proc.h"
#include "dbus/conn.h"
#include "dbus/loop.h"
#include "dbus/server.h"
#include "ops/ops.h"
#include "ops/quota.h"
#include "ops/release.h"
#include "ops/watch.h"
#include "scm/scm_io.h"
#include "scm/scm_methods.h"
#include "util/log.h"

/* ---- the fuzzer's bytes ---- */

struct input {
	const uint8_t *p;
	size_t n;
};

static uint8_t take_u8(struct input *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static uint32_t take_u32(struct input *in)
{
	uint32_t v = 0;
	for (int i = 0; i < 4; i++)
		v = v << 8 | take_u8(in);
	return v;
}

/*
 * A string: a length byte, that many bytes (cut at a NUL); then, if the next byte is 0xf0 or more, it and
 * one more say how often the string repeats (up to 4096 times: up to 1 MB), so that huge strings and deep
 * paths cost the fuzzer few bytes. Caller frees.
 */
static char *take_str(struct input *in)
{
	size_t len = take_u8(in), reps = 1;
	if (len > in->n)
		len = in->n;
	const uint8_t *nul = memchr(in->p, 0, len);
	size_t used = len, n = nul ? (size_t)(nul - in->p) : len;
	const uint8_t *src = in->p;
	in->p += used, in->n -= used;
	uint8_t flag = in->n ? in->p[0] : 0;
	if (flag >= 0xf0) {
		take_u8(in);
		reps = 1 + (((size_t)(flag & 0x0f) << 8) | take_u8(in));
	}
	char *s = malloc(n * reps + 1);
	FUZZ_CHECK(s);
	for (size_t r = 0; r < reps; r++)
		memcpy(s + r * n, src, n);
	s[n * reps] = '\0';
	return s;
}

/* ---- the fake host ---- */

/* On tmpfs where there is one: the tree is remade for every input, and inodes cost less there. */
static char base[64];
static struct ops o;
static struct hierarchies layouts[2];
static const char *const v2_controllers = "cpuset cpu io memory pids";
static int listen_fd = -1;
static struct sockaddr_un addr;
static socklen_t addr_len;

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

static void rm_tree(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void cleanup(void)
{
	rm_tree(base);
}

static void write_file(int dirfd, const char *name, const char *text)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
}

/*
 * Belt and braces for the task files below: this process may send no signal but 0 (a liveness probe, as
 * ops/target.c and ops/move.c use pidfd_send_signal), to any process, itself included: so whatever a
 * call writes into a fake cgroup.procs, no Kill can reach the task. Nothing here needs more: raise and
 * abort use tgkill, libFuzzer's timeouts an itimer, LeakSanitizer ptrace. (libFuzzer's -fork mode, whose
 * parent signals its children, does not work with this target; -jobs does.) The filter has no pid in it,
 * so the -jobs workers, which inherit it through exec, add the same one. Only where the filter's argument
 * offsets are known (little-endian x86_64 and aarch64); elsewhere the fake tree has no task files.
 */
#if defined(__x86_64__)
#define FUZZ_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define FUZZ_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif
static bool signals_guarded;

static void guard_signals(void)
{
#ifdef FUZZ_AUDIT_ARCH
	struct sock_filter f[] = {
		/* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FUZZ_AUDIT_ARCH, 1, 0),
		/* 2 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		/* 3 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		/* 4 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pidfd_send_signal, 1, 0),
		/* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_kill, 0, 3),
		/* 6 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])), /* the signal */
		/* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0),
		/* 8 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		/* 9 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) < 0)
		return;
	/* Proven, not assumed: a signal is refused, the probe is not. */
	int self = (int)syscall(SYS_pidfd_open, getpid(), 0);
	FUZZ_CHECK(self >= 0);
	FUZZ_CHECK(syscall(SYS_pidfd_send_signal, self, SIGCONT, NULL, 0) < 0 && errno == EPERM);
	FUZZ_CHECK(syscall(SYS_pidfd_send_signal, self, 0, NULL, 0) == 0);
	FUZZ_CHECK(kill(getpid(), SIGCONT) < 0 && errno == EPERM && kill(-1, SIGCONT) < 0 && errno == EPERM);
	FUZZ_CHECK(kill(getpid(), 0) == 0);
	close(self);
	signals_guarded = true;
#endif
}

/*
 * Files a cgroup of h would show. The task files (cgroup.procs, tasks) are there, empty, only with the
 * signal guard: a call may write a pid into them, and nothing in the same call reads it back to signal
 * (the tree is remade before the next), but the guard does not rely on that.
 */
static void fill_cgroup(const struct hierarchy *h, int fd)
{
	if (signals_guarded) {
		write_file(fd, "cgroup.procs", "");
		if (!h->unified)
			write_file(fd, "tasks", "");
	}
	if (h->unified) {
		write_file(fd, "cgroup.controllers", v2_controllers);
		write_file(fd, "cgroup.subtree_control", "");
		write_file(fd, "cgroup.events", "populated 0\nfrozen 0\n");
		write_file(fd, "cgroup.type", "domain\n");
		write_file(fd, "cgroup.max.depth", "max\n");
		write_file(fd, "cgroup.max.descendants", "max\n");
		write_file(fd, "memory.max", "max\n");
		write_file(fd, "memory.current", "4096\n");
		write_file(fd, "cpu.weight", "100\n");
		write_file(fd, "cpu.max", "max 100000\n");
		write_file(fd, "cpuset.cpus", "0-1\n");
		write_file(fd, "pids.max", "max\n");
		write_file(fd, "io.max", "");
		return;
	}
	if (strv_contains(&h->controllers, "memory")) {
		write_file(fd, "memory.limit_in_bytes", "9223372036854771712\n");
		write_file(fd, "memory.usage_in_bytes", "4096\n");
	}
	if (strv_contains(&h->controllers, "cpu"))
		write_file(fd, "cpu.shares", "1024\n");
	if (strv_contains(&h->controllers, "cpuset")) {
		write_file(fd, "cpuset.cpus", "0-1\n");
		write_file(fd, "cpuset.mems", "0\n");
	}
	if (strv_contains(&h->controllers, "freezer"))
		write_file(fd, "freezer.state", "THAWED\n");
	if (strv_contains(&h->controllers, "pids"))
		write_file(fd, "pids.max", "max\n");
	write_file(fd, "notify_on_release", "0\n");
}

/* Makes hierarchy i's tree afresh: its root with files and children a and a/b, and opens root_fd. */
static void make_tree(struct hierarchy *h, size_t i)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/h%zu", base, i);
	rm_tree(path);
	FUZZ_CHECK(mkdir(path, 0755) == 0);
	h->root_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	FUZZ_CHECK(h->root_fd >= 0);
	fill_cgroup(h, h->root_fd);
	/* a has files, a/b none: rmdir(2) of a plain directory with files fails, of a cgroup it would not. */
	FUZZ_CHECK(mkdirat(h->root_fd, "a", 0755) == 0 && mkdirat(h->root_fd, "a/b", 0755) == 0);
	int a = openat(h->root_fd, "a", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	FUZZ_CHECK(a >= 0);
	fill_cgroup(h, a);
	close(a);
}

/* Hierarchies as /proc/self/cgroup shows them (so that the requester, this process, is at their roots). */
static void load_layout(struct hierarchies *hs, bool unified_only)
{
	char *text = NULL;
	FUZZ_CHECK(read_small_file_at(AT_FDCWD, "/proc/self/cgroup", &text) == 0);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		struct hierarchy h;
		if (hierarchy_parse_self_line(&h, line) < 0)
			continue;
		if (unified_only != h.unified) {
			hierarchy_clear(&h);
			continue;
		}
		if (h.unified)
			FUZZ_CHECK(hierarchy_parse_controllers(&h, v2_controllers) == 0);
		hs->h = realloc(hs->h, (hs->n + 1) * sizeof(*hs->h));
		FUZZ_CHECK(hs->h);
		hs->h[hs->n++] = h;
	}
	free(text);
	/* A host whose /proc/self/cgroup lacks the kind: one hierarchy of it, at "/", all the same. */
	if (hs->n == 0) {
		struct hierarchy h;
		FUZZ_CHECK(hierarchy_parse_self_line(&h, unified_only ? "0::/" : "1:memory:/") == 0);
		if (h.unified)
			FUZZ_CHECK(hierarchy_parse_controllers(&h, v2_controllers) == 0);
		hs->h = malloc(sizeof(*hs->h));
		FUZZ_CHECK(hs->h);
		hs->h[hs->n++] = h;
	}
}

/* A run that crashed (abort skips atexit) left its tree: remove those whose process is gone. */
static void sweep_stale(const char *tmp)
{
	char pattern[64];
	glob_t g;
	snprintf(pattern, sizeof(pattern), "%s/cgm-fuzz-dispatch.*", tmp);
	if (glob(pattern, GLOB_NOSORT, NULL, &g) != 0)
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		int pid = atoi(g.gl_pathv[i] + strlen(tmp) + strlen("/cgm-fuzz-dispatch."));
		if (pid > 0 && kill(pid, 0) < 0 && errno == ESRCH)
			rm_tree(g.gl_pathv[i]);
	}
	globfree(&g);
}

/*
 * A cgroup-like directory beside the hierarchies' roots, which no request may reach: every path is resolved
 * beneath a root_fd. Checked after every call, so that an escape (a ".." that got through) is a finding.
 */
static int sentinel_fd = -1;

static void make_sentinel(void)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/sentinel", base);
	FUZZ_CHECK(mkdir(path, 0755) == 0);
	sentinel_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	FUZZ_CHECK(sentinel_fd >= 0 && mkdirat(sentinel_fd, "a", 0755) == 0);
	write_file(sentinel_fd, "memory.limit_in_bytes", "1\n");
	write_file(sentinel_fd, "cpu.shares", "1\n");
}

static void check_sentinel(void)
{
	struct stat d, a, f;
	char *text = NULL;
	FUZZ_CHECK(fstat(sentinel_fd, &d) == 0 && d.st_nlink > 0 && (d.st_mode & 07777) == 0755 && d.st_uid == 0);
	FUZZ_CHECK(fstatat(sentinel_fd, "a", &a, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(a.st_mode) &&
	           (a.st_mode & 07777) == 0755 && a.st_uid == 0 && a.st_gid == 0);
	FUZZ_CHECK(fstatat(sentinel_fd, "memory.limit_in_bytes", &f, 0) == 0 && (f.st_mode & 07777) == 0644 &&
	           f.st_uid == 0);
	FUZZ_CHECK(read_small_file_at(sentinel_fd, "memory.limit_in_bytes", &text) == 0 && strcmp(text, "1\n") == 0);
	free(text);
	FUZZ_CHECK(read_small_file_at(sentinel_fd, "cpu.shares", &text) == 0 && strcmp(text, "1\n") == 0);
	free(text);
}

static ino_t ns_ino(const char *ns)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/self/ns/%s", ns);
	FUZZ_CHECK(stat(path, &st) == 0);
	return st.st_ino;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	log_setup(getenv("FUZZ_DISPATCH_VERBOSE") ? LOG_LVL_DEBUG : LOG_LVL_ERROR, false);
	struct stat st;
	const char *tmp = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0
		? "/dev/shm" : "/tmp";
	sweep_stale(tmp);
	snprintf(base, sizeof(base), "%s/cgm-fuzz-dispatch.%d.XXXXXX", tmp, (int)getpid());
	FUZZ_CHECK(mkdtemp(base));
	atexit(cleanup);
	guard_signals();
	make_sentinel();
	load_layout(&layouts[0], false);
	load_layout(&layouts[1], true);
	o.pidns = ns_ino("pid");
	o.userns = ns_ino("user");
	/* A listening socket the client connects to, so that the daemon's own accept path runs. */
	listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	FUZZ_CHECK(listen_fd >= 0);
	addr.sun_family = AF_UNIX;
	/* Abstract, so that a requester of another uid may connect too. */
	snprintf(addr.sun_path + 1, sizeof(addr.sun_path) - 1, "%s/sock", base);
	addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(addr.sun_path + 1));
	FUZZ_CHECK(bind(listen_fd, (struct sockaddr *)&addr, addr_len) == 0 && listen(listen_fd, 16) == 0);
	return 0;
}

/* ---- the methods ---- */

struct method {
	const char *iface, *member, *sig;
};

static struct method methods[128];
static size_t nmethods;

static void add_vtable(const char *iface, const sd_bus_vtable *vt)
{
	for (; vt->type != _SD_BUS_VTABLE_END; vt++)
		if (vt->type == _SD_BUS_VTABLE_METHOD && nmethods < sizeof(methods) / sizeof(methods[0]))
			methods[nmethods++] = (struct method){iface, vt->x.method.member, vt->x.method.signature};
}

static void load_methods(void)
{
	static const struct method extra[] = {
		{"org.freedesktop.DBus.Properties", "Get", "ss"},
		{"org.freedesktop.DBus.Properties", "GetAll", "s"},
		{"org.freedesktop.DBus.Properties", "Set", "ssv"},
		{"org.freedesktop.DBus.Introspectable", "Introspect", ""},
		{"org.freedesktop.DBus.Peer", "Ping", ""},
		{CGMANAGER_IFACE0, "NoSuchMethod", "s"},
	};
	add_vtable(CGMANAGER_IFACE0, iface0_vtable);
	add_vtable(CGMANAGER_IFACE1, iface1_vtable);
	add_vtable("org.freedesktop.DBus", bus_driver_vtable);
	for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++)
		methods[nmethods++] = extra[i];
}

/* ---- arguments ---- */

/* Fds a call may carry, and the far end of the datagram pair for the Scm side channel. */
struct fds {
	int dgram_peer;
	int open[8];
	int n;
};

static int keep_fd(struct fds *f, int fd)
{
	FUZZ_CHECK(fd >= 0 && f->n < 8);
	f->open[f->n++] = fd;
	return fd;
}

static int make_fd(struct input *in, struct fds *f)
{
	int sv[2];
	switch (take_u8(in) % 4) {
	case 0: /* what an Scm call wants: a datagram socketpair, whose other end this target then speaks through */
		FUZZ_CHECK(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) == 0);
		if (f->dgram_peer < 0)
			f->dgram_peer = keep_fd(f, sv[1]);
		else
			keep_fd(f, sv[1]);
		return keep_fd(f, sv[0]);
	case 1: /* a stream socket, which the Scm calls refuse */
		FUZZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
		keep_fd(f, sv[1]);
		return keep_fd(f, sv[0]);
	case 2: /* a pidfd, what Move takes: this process, which the fake tree has nowhere to put */
		return keep_fd(f, (int)syscall(SYS_pidfd_open, getpid(), 0));
	default:
		return keep_fd(f, open("/dev/null", O_RDONLY | O_CLOEXEC));
	}
}

/* Length of the single complete type at sig (sig is a valid signature). */
static size_t type_len(const char *sig)
{
	if (*sig == 'a')
		return 1 + type_len(sig + 1);
	if (*sig == '(' || *sig == '{') {
		size_t n = 1;
		while (sig[n] != ')' && sig[n] != '}')
			n += type_len(sig + n);
		return n + 1;
	}
	return 1;
}

/* A string as sd-bus takes it: valid UTF-8, else the same bytes with the top bit cleared. */
static int append_string(sd_bus_message *m, char type, char *s)
{
	int r = sd_bus_message_append_basic(m, type, s);
	if (r != -EINVAL)
		return r;
	if (type == 'o')
		return sd_bus_message_append_basic(m, type, "/");
	if (type == 'g')
		return sd_bus_message_append_basic(m, type, "");
	for (char *p = s; *p; p++)
		*p = (char)((*p & 0x7f) ? *p & 0x7f : '?');
	return sd_bus_message_append_basic(m, type, s);
}

static int append_type(sd_bus_message *m, const char *sig, size_t len, struct input *in, struct fds *f, int depth);

static int append_all(sd_bus_message *m, const char *sig, size_t len, struct input *in, struct fds *f, int depth)
{
	for (size_t k = 0; k < len; k += type_len(sig + k)) {
		int r = append_type(m, sig + k, type_len(sig + k), in, f, depth);
		if (r < 0)
			return r;
	}
	return 0;
}

static int append_type(sd_bus_message *m, const char *sig, size_t len, struct input *in, struct fds *f, int depth)
{
	char inner[256];
	int r;
	switch (*sig) {
	case 's':
	case 'o':
	case 'g': {
		char *s = take_str(in);
		r = append_string(m, *sig, s);
		free(s);
		return r;
	}
	case 'i':
	case 'u': {
		uint32_t v = take_u32(in);
		return sd_bus_message_append_basic(m, *sig, &v);
	}
	case 'b': {
		int v = take_u8(in) & 1;
		return sd_bus_message_append_basic(m, 'b', &v);
	}
	case 'y': {
		uint8_t v = take_u8(in);
		return sd_bus_message_append_basic(m, 'y', &v);
	}
	case 'n':
	case 'q': {
		uint16_t v = (uint16_t)take_u32(in);
		return sd_bus_message_append_basic(m, *sig, &v);
	}
	case 'x':
	case 't':
	case 'd': {
		uint64_t v = (uint64_t)take_u32(in) << 32 | take_u32(in);
		return sd_bus_message_append_basic(m, *sig, &v);
	}
	case 'h': {
		int fd = f->n < 7 ? make_fd(in, f) : f->open[0];
		return sd_bus_message_append_basic(m, 'h', &fd);
	}
	case 'v': {
		static const char *const contents[] = {"s", "i", "as", "u", "b", "(ss)", "a{ss}"};
		const char *c = contents[take_u8(in) % 7];
		if ((r = sd_bus_message_open_container(m, 'v', c)) < 0 ||
		    (depth < 8 && (r = append_all(m, c, strlen(c), in, f, depth + 1)) < 0))
			return r;
		return sd_bus_message_close_container(m);
	}
	case 'a': {
		/* Mostly short arrays, now and then long ones; element count from the input, bounded by it. */
		uint8_t c = take_u8(in);
		size_t n = c < 0xf0 ? c % 8 : (size_t)(c & 0x0f) * 64;
		snprintf(inner, sizeof(inner), "%.*s", (int)(len - 1), sig + 1);
		if ((r = sd_bus_message_open_container(m, 'a', inner)) < 0)
			return r;
		for (size_t k = 0; k < n && (in->n || k < 2) && depth < 8; k++)
			if ((r = append_type(m, inner, len - 1, in, f, depth + 1)) < 0)
				return r;
		return sd_bus_message_close_container(m);
	}
	case '(':
	case '{':
		snprintf(inner, sizeof(inner), "%.*s", (int)(len - 2), sig + 1);
		if ((r = sd_bus_message_open_container(m, *sig == '(' ? 'r' : 'e', inner)) < 0)
			return r;
		if ((r = append_all(m, inner, len - 2, in, f, depth + 1)) < 0)
			return r;
		return sd_bus_message_close_container(m);
	}
	return -EINVAL;
}

/* A signature the fuzzer makes up: up to 6 complete types of a small grammar. */
static void make_sig(struct input *in, char *out, size_t cap)
{
	static const char *const types[] = {"s",  "i",      "u",  "b",    "h",     "as", "a{ss}", "ai",
	                                    "ay", "v",      "(ss)", "o",  "x",     "d",  "a(suuu)", "aas"};
	size_t n = take_u8(in) % 7;
	out[0] = '\0';
	for (size_t k = 0; k < n; k++) {
		const char *t = types[take_u8(in) % 16];
		if (strlen(out) + strlen(t) < cap)
			strcat(out, t);
	}
}

/* ---- one call ---- */

struct replies {
	uint64_t cookie;
	int n;
	bool error;
	char name[256], message[512];
};

static int on_message(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct replies *st = u;
	uint64_t cookie;
	if (sd_bus_message_get_reply_cookie(m, &cookie) < 0 || cookie != st->cookie)
		return 0;
	st->n++;
	if (sd_bus_message_is_method_error(m, NULL)) {
		const sd_bus_error *e = sd_bus_message_get_error(m);
		st->error = true;
		snprintf(st->name, sizeof(st->name), "%s", e && e->name ? e->name : "");
		snprintf(st->message, sizeof(st->message), "%s", e && e->message ? e->message : "");
	}
	return 0;
}

/*
 * Drives both ends until done(), or until nothing moves: a few turns without a call waiting on the kernel.
 * A waiting call (Kill, Freeze, Delete) is stepped when due, so the turn then sleeps until then (the loop
 * waits no longer than its nearest deadline); the real loop would too. Neither sd-bus nor the server blocks
 * here otherwise.
 */
static void pump(sd_bus *client, struct server *s, bool (*done)(void *), void *u, int idle_turns)
{
	int idle = 0;
	for (int t = 0; t < 2000 && idle < idle_turns && !(done && done(u)); t++) {
		while (sd_bus_process(client, NULL) > 0)
			;
		bool waiting = server_has_waiting_calls(s);
		/* Idle: no call waiting and nothing left to write (a long message takes several turns to go). */
		idle = !waiting && !(sd_bus_get_events(client) & POLLOUT) ? idle + 1 : 0;
		FUZZ_CHECK(server_turn(s, waiting ? -1 : 0) == 0);
	}
	while (sd_bus_process(client, NULL) > 0)
		;
}

static bool replied(void *u)
{
	return ((struct replies *)u)->n > 0;
}

/* The Scm side channel: answer each kick with a credential the fuzzer picks, then wait for the answer. */
static void drive_scm(sd_bus *client, struct server *s, int peer, const struct scm_method *sm, struct input *in)
{
	char buf[4096];
	bool have;
	struct ucred seen;
	int needed = sm->second == SCM_SECOND_NONE ? 1 : 2, kicks = 0;
	bool answer = false;

	for (int t = 0; t < 64 && !answer; t++) {
		ssize_t n = scm_recv(peer, buf, sizeof(buf), &seen, &have);
		if (n >= 0 && kicks == needed) {
			answer = true; /* whatever comes after the last kick, an empty datagram too */
		} else if (n >= 0) {
			FUZZ_CHECK(n == 1 && buf[0] == SCM_KICK);
			uint8_t how = take_u8(in);
			struct ucred c = {.pid = getpid(), .uid = 0, .gid = 0};
			if (how & 1)
				c.pid = (how & 2) ? 1 : (pid_t)(take_u32(in) % 4194304);
			if (how & 4)
				c.uid = take_u32(in) % 70000, c.gid = take_u32(in) % 70000;
			/* The kernel refuses a pid that does not exist; then this process's goes. */
			if (scm_send(peer, (char[]){SCM_CRED_BYTE}, 1, &c) < 0) {
				c.pid = getpid();
				FUZZ_CHECK(scm_send(peer, (char[]){SCM_CRED_BYTE}, 1, &c) == 0);
			}
			kicks++;
		} else if (n != -EAGAIN) {
			break;
		}
		if (!answer)
			pump(client, s, NULL, NULL, 2);
	}
	FUZZ_CHECK(answer); /* every exchange that got its credentials answers */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = {data, size};
	if (!nmethods)
		load_methods();
	uint8_t b0 = take_u8(&in), b1 = take_u8(&in), b2 = take_u8(&in);
	bool v2_only = b0 & 1, as_user = b0 & 2, no_reply = (b0 & 0x1c) == 0x1c;
	const struct method *me = &methods[b1 % nmethods];
	static const char *const paths[] = {CGMANAGER_OBJECT_PATH, CGMANAGER_OBJECT_PATH, CGMANAGER_OBJECT_PATH,
	                                    "/", "/org/linuxcontainers/cgmanager/x", "/org/freedesktop/DBus"};
	const char *path = strcmp(me->iface, "org.freedesktop.DBus") == 0 ? "/org/freedesktop/DBus"
	                                                                     : paths[(b2 >> 1) % 6];
	char sig[256];
	struct fds f = {.dgram_peer = -1};
	struct replies st = {0};
	struct err e = {0};
	sd_bus *client = NULL;
	sd_bus_message *m = NULL;
	sigset_t mask;

	o.hs = layouts[v2_only];
	hierarchies_all(&o.hs, &o.all);
	for (size_t i = 0; i < o.hs.n; i++)
		make_tree(&o.hs.h[i], i);
	o.release = release_watch_new(&e);
	o.quotas = quotas_new(QUOTA_DEFAULT_CGROUPS, QUOTA_DEFAULT_DEPTH);
	o.watches = watches_new(&e);
	FUZZ_CHECK(o.release && o.quotas && o.watches);
	struct server *s = server_new(&o, iface0_vtable, iface1_vtable, NULL, listen_fd, &e);
	FUZZ_CHECK(s);
	/* The dispatch is fuzzed here, not the intake's size limit (the integration tests' huge-length and
	 * cgm-load's bigmsg): messages of any size the input can make (a few MiB) reach sd-bus. */
	struct server_limits lim;
	server_get_limits(s, &lim);
	lim.max_message = SERVER_MAX_MESSAGE_MAX;
	server_set_limits(s, &lim);
	/* server_new blocks these for its signalfd; libFuzzer wants them to stop a run. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_UNBLOCK, &mask, NULL);

	/* SO_PEERCRED takes the effective ids at connect(2): a requester of uid 1000 without forking. */
	int cfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	FUZZ_CHECK(cfd >= 0);
	if (as_user)
		FUZZ_CHECK(setresgid(-1, 1000, -1) == 0 && setresuid(-1, 1000, -1) == 0);
	int cr = connect(cfd, (struct sockaddr *)&addr, addr_len);
	if (as_user)
		FUZZ_CHECK(setresuid(-1, 0, -1) == 0 && setresgid(-1, 0, -1) == 0);
	FUZZ_CHECK(cr == 0);
	FUZZ_CHECK(sd_bus_new(&client) >= 0 && sd_bus_set_fd(client, cfd, cfd) >= 0 &&
	           sd_bus_negotiate_fds(client, 1) >= 0 && sd_bus_add_filter(client, NULL, on_message, &st) >= 0 &&
	           sd_bus_start(client) >= 0);

	/* Authenticated first: sd-bus would otherwise wait (blocking) for the fd-passing answer to send an fd.
	 * The server's acceptor thread runs the auth exchange and then hands the connection over, on a busy
	 * machine maybe slowly: turns of up to 100 ms (each returns as soon as something happens) for up to
	 * 10 s, until the client reads that it is authenticated and the server has taken the connection. */
	for (uint64_t until = now_usec() + 10000000; now_usec() < until;) {
		while (sd_bus_process(client, NULL) > 0)
			;
		if (sd_bus_is_ready(client) > 0 && server_serves_any(s))
			break;
		FUZZ_CHECK(server_turn(s, 100) == 0);
	}
	FUZZ_CHECK(sd_bus_is_ready(client) > 0 && server_serves_any(s));
	FUZZ_CHECK(sd_bus_message_new_method_call(client, &m, NULL, path, me->iface, me->member) >= 0);
	if (b2 & 1)
		make_sig(&in, sig, sizeof(sig));
	else
		snprintf(sig, sizeof(sig), "%s", me->sig);
	if (append_all(m, sig, strlen(sig), &in, &f, 0) < 0)
		goto out; /* only what sd-bus cannot express (too deep, too big): nothing to send */
	if (no_reply)
		FUZZ_CHECK(sd_bus_message_set_expect_reply(m, 0) >= 0);
	if (sd_bus_send(client, m, &st.cookie) < 0)
		goto out; /* over sd-bus's message size limit */
	/* Up to 400 turns without the client writing: the server relays 64 KiB of a connection per turn, and
	 * a message of a few MiB sits in the socket buffers meanwhile. */
	pump(client, s, replied, &st, 400);
	/* A few more turns: a second answer to the same call would show here. */
	pump(client, s, NULL, NULL, 2);
	/* FUZZ_DISPATCH_VERBOSE=1: what each input called and what came back, to check what seeds reach. */
	if (getenv("FUZZ_DISPATCH_VERBOSE"))
		fprintf(stderr, "%s.%s(%s) on %s as uid %d: %d replies%s%s%s%s\n", me->iface, me->member, sig,
		        v2_only ? "cgroup2" : "v1+v2", as_user ? 1000 : 0, st.n, st.error ? ", error " : "", st.name,
		        st.error ? ": " : "", st.message);
	if (no_reply) {
		FUZZ_CHECK(st.n == 0);
	} else {
		FUZZ_CHECK(st.n == 1);
		if (st.error)
			FUZZ_CHECK(st.name[0] && strchr(st.name, '.'));
		const struct scm_method *sm = scm_method_by_name(me->member);
		/* Only the method's own signature reaches the exchange, and its one fd is the first made. */
		if (!st.error && sm && strcmp(me->iface, CGMANAGER_IFACE0) == 0 && f.dgram_peer >= 0)
			drive_scm(client, s, f.dgram_peer, sm, &in);
	}
	check_sentinel();
out:
	sd_bus_message_unref(m);
	sd_bus_close_unref(client); /* no flush: what the server has not read is dropped */
	for (int i = 0; i < f.n; i++)
		close(f.open[i]);
	server_free(s);
	release_watch_free(o.release);
	quotas_free(o.quotas);
	watches_free(o.watches);
	o.release = NULL, o.quotas = NULL, o.watches = NULL;
	for (size_t i = 0; i < o.hs.n; i++) {
		close(o.hs.h[i].root_fd);
		o.hs.h[i].root_fd = -1;
	}
	return 0;
}
