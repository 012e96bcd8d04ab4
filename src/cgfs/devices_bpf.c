#include "devices_bpf.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "libbpf_lazy.h"

#define MAJOR_MAX 4095    /* 12 bits */
#define MINOR_MAX 1048575 /* 20 bits */
#define ATTACHED_MAX 64   /* BPF_CGROUP_MAX_PROGS: the kernel attaches no more to one cgroup and hook */

/* --- rules as text --- */

static bool access_valid(const char *a)
{
	bool seen[3] = {false, false, false};
	size_t i;
	for (i = 0; i < sizeof(((struct dev_rule *)0)->access) && a[i]; i++) {
		const char *p = strchr("rwm", a[i]);
		if (!p || seen[p - "rwm"])
			return false;
		seen[p - "rwm"] = true;
	}
	return i > 0 && i < sizeof(((struct dev_rule *)0)->access);
}

bool devices_rule_valid(const struct dev_rule *r)
{
	return (r->type == 'a' || r->type == 'b' || r->type == 'c') && r->major >= -1 && r->major <= MAJOR_MAX &&
	       r->minor >= -1 && r->minor <= MINOR_MAX && access_valid(r->access);
}

static void format_number(int v, char out[12])
{
	if (v < 0)
		strcpy(out, "*");
	else
		snprintf(out, 12, "%d", v);
}

void devices_rule_format(const struct dev_rule *r, char *out, size_t len)
{
	char maj[12], min[12], acc[4];
	size_t k = 0;
	/* The access in canonical order, whatever order the rule holds it in. */
	for (const char *c = "rwm"; *c; c++)
		if (memchr(r->access, *c, strnlen(r->access, sizeof(r->access))))
			acc[k++] = *c;
	acc[k] = '\0';
	format_number(r->major, maj);
	format_number(r->minor, min);
	snprintf(out, len, "%c %s:%s %s %s", r->type, maj, min, acc, r->allow ? "allow" : "deny");
}

/* "*" -> -1, or a decimal number 0..max without sign or junk. */
static int parse_number(const char *s, size_t len, int max, int *out)
{
	long v = 0;
	if (len == 1 && s[0] == '*') {
		*out = -1;
		return 0;
	}
	if (len == 0 || len > 7)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (v > max)
		return -1;
	*out = (int)v;
	return 0;
}

int devices_rule_parse(const char *line, struct dev_rule *r)
{
	const char *tok[5];
	size_t toklen[5], nt = 0;
	const char *p = line, *colon;
	struct dev_rule out = {0};

	while (*p) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		if (nt == 4)
			return -1;
		tok[nt] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n')
			p++;
		toklen[nt] = (size_t)(p - tok[nt]);
		nt++;
	}
	if (nt != 4 || toklen[0] != 1)
		return -1;
	out.type = tok[0][0];
	colon = memchr(tok[1], ':', toklen[1]);
	if (!colon || parse_number(tok[1], (size_t)(colon - tok[1]), MAJOR_MAX, &out.major) < 0 ||
	    parse_number(colon + 1, toklen[1] - (size_t)(colon + 1 - tok[1]), MINOR_MAX, &out.minor) < 0)
		return -1;
	if (toklen[2] >= sizeof(out.access))
		return -1;
	memcpy(out.access, tok[2], toklen[2]);
	if (toklen[3] == 5 && memcmp(tok[3], "allow", 5) == 0)
		out.allow = true;
	else if (toklen[3] == 4 && memcmp(tok[3], "deny", 4) == 0)
		out.allow = false;
	else
		return -1;
	if (!devices_rule_valid(&out))
		return -1;
	*r = out;
	return 0;
}

/* The cgroup as the messages name it: the path of the fd, as /proc tells it. */
static const char *cg_name(int cgfd, char *buf, size_t len)
{
	char link[64];
	ssize_t n;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", cgfd);
	n = readlink(link, buf, len - 1);
	if (n <= 0) {
		snprintf(buf, len, "the cgroup of fd %d", cgfd);
		return buf;
	}
	buf[n] = '\0';
	return buf;
}

/* --- the stored rules --- */

/*
 * A failed xattr call on cgfd: errno's reason, and where this cgroupfs keeps no trusted.* xattrs at all, what
 * that means (doing: "read the device rules stored on", "store the device rules on"; what for the rest).
 */
static int xattr_failed(int cgfd, const char *doing, const char *consequence, struct err *e)
{
	char name[256];
	cg_name(cgfd, name, sizeof(name));
	if (errno == EOPNOTSUPP)
		return err_errno(e, errno, "cannot %s %s: this cgroupfs keeps no trusted.* xattrs%s", doing, name,
		                 consequence);
	return err_errno(e, errno, "cannot %s %s (the xattr %s)", doing, name, DEVICES_BPF_XATTR);
}

/* The xattr's value as a heap string; *out = NULL when there is none. */
static int xattr_read(int cgfd, char **out, struct err *e)
{
	char name[256];
	*out = NULL;
	for (int tries = 0; tries < 8; tries++) {
		ssize_t size = fgetxattr(cgfd, DEVICES_BPF_XATTR, NULL, 0), got;
		char *buf;
		if (size < 0) {
			if (errno == ENODATA)
				return 0;
			return xattr_failed(cgfd, "read the device rules stored on", "", e);
		}
		if (!(buf = malloc((size_t)size + 1)))
			return err_set(e, ERR_LIMIT, "out of memory");
		got = fgetxattr(cgfd, DEVICES_BPF_XATTR, buf, (size_t)size);
		if (got >= 0) {
			buf[got] = '\0';
			*out = buf;
			return 0;
		}
		free(buf);
		if (errno == ENODATA)
			return 0;
		if (errno != ERANGE) /* ERANGE: it grew in between */
			return xattr_failed(cgfd, "read the device rules stored on", "", e);
	}
	return err_set(e, ERR_FAILED, "cannot read the xattr %s of %s: it keeps changing", DEVICES_BPF_XATTR,
	               cg_name(cgfd, name, sizeof(name)));
}

/* text NULL: remove the xattr. */
static int xattr_write(int cgfd, const char *text, struct err *e)
{
	char name[256];
	if (!text) {
		if (fremovexattr(cgfd, DEVICES_BPF_XATTR) == 0 || errno == ENODATA || errno == EOPNOTSUPP)
			return 0;
		return err_errno(e, errno, "cannot remove the device rules stored on %s", cg_name(cgfd, name, sizeof(name)));
	}
	if (fsetxattr(cgfd, DEVICES_BPF_XATTR, text, strlen(text), 0) == 0)
		return 0;
	return xattr_failed(cgfd, "store the device rules on", ", so the rules could not be read back or extended", e);
}

int devices_bpf_rules(int cgfd, struct dev_rule **rules, size_t *n, struct err *e)
{
	char *text, *save = NULL, name[256];
	size_t cnt = 0, cap = 0, lineno = 0;
	struct dev_rule *v = NULL;

	*rules = NULL;
	*n = 0;
	if (xattr_read(cgfd, &text, e) < 0)
		return -1;
	if (!text)
		return 0;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		if (cnt == cap) {
			struct dev_rule *nv = realloc(v, (cap = cap ? cap * 2 : 16) * sizeof(*v));
			if (!nv) {
				free(v);
				free(text);
				return err_set(e, ERR_LIMIT, "out of memory");
			}
			v = nv;
		}
		if (devices_rule_parse(line, &v[cnt]) < 0) {
			err_set(e, ERR_FAILED, "the device rules stored in the xattr %s of %s are corrupt: line %zu is '%.64s'",
			        DEVICES_BPF_XATTR, cg_name(cgfd, name, sizeof(name)), lineno, line);
			free(v);
			free(text);
			return -1;
		}
		cnt++;
	}
	free(text);
	if (cnt == 0) {
		free(v);
		v = NULL;
	}
	*rules = v;
	*n = cnt;
	return 0;
}

/* --- the program --- */

/* The few instruction encodings the program takes (cf. the kernel's filter.h), as struct bpf_insn. */
#define INSN(c, d, s, o, i) ((struct bpf_insn){.code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i)})
#define LDX_W(dst, src, off) INSN(BPF_LDX | BPF_MEM | BPF_W, dst, src, off, 0)
#define MOV_REG(dst, src) INSN(BPF_ALU64 | BPF_MOV | BPF_X, dst, src, 0, 0)
#define MOV_IMM(dst, imm) INSN(BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, imm)
#define ALU_IMM(op, dst, imm) INSN(BPF_ALU64 | (op) | BPF_K, dst, 0, 0, imm)
#define JMP_IMM(op, dst, imm, off) INSN(BPF_JMP | (op) | BPF_K, dst, 0, off, imm)
#define EXIT() INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/* Registers: r1 the context; r2 device type, r3 major, r4 minor, r5 access wanted, all scratch. */
enum { R0, R1, R2, R3, R4, R5 };

static int access_bits(const char *a)
{
	int bits = 0;
	for (size_t i = 0; i < sizeof(((struct dev_rule *)0)->access) && a[i]; i++)
		bits |= a[i] == 'r' ? BPF_DEVCG_ACC_READ : a[i] == 'w' ? BPF_DEVCG_ACC_WRITE : BPF_DEVCG_ACC_MKNOD;
	return bits;
}

/*
 * Each rule's block loads from the context what it compares, so that no register but r1 (the context) is live
 * from one block to the next: the verifier then finds every path into a block equivalent and checks the
 * program in time linear in the rules. (With the fields loaded once, each path would carry what earlier
 * comparisons taught it about them, and the paths multiply: 1024 rules exceed its limit of a million
 * instructions explored.)
 */
#define RULE_INSNS_MAX 13 /* type 3, major 2, minor 2, access 4, verdict 2 */
#define EPILOGUE_INSNS 2

/* Instructions deciding rules[0..n) (the last rule first); *cnt set. */
static struct bpf_insn *program(const struct dev_rule *rules, size_t n, size_t *cnt)
{
	struct bpf_insn *p = calloc(RULE_INSNS_MAX * n + EPILOGUE_INSNS, sizeof(*p));
	size_t k = 0;
	if (!p)
		return NULL;
	for (size_t i = n; i-- > 0;) {
		const struct dev_rule *r = &rules[i];
		size_t jumps[4], nj = 0;
		int acc = access_bits(r->access);
		if (r->type != 'a') {
			/* The device type: the low 16 bits of access_type. */
			p[k++] = LDX_W(R2, R1, offsetof(struct bpf_cgroup_dev_ctx, access_type));
			p[k++] = ALU_IMM(BPF_AND, R2, 0xffff);
			jumps[nj++] = k;
			p[k++] = JMP_IMM(BPF_JNE, R2, r->type == 'b' ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR, 0);
		}
		if (r->major >= 0) {
			p[k++] = LDX_W(R3, R1, offsetof(struct bpf_cgroup_dev_ctx, major));
			jumps[nj++] = k;
			p[k++] = JMP_IMM(BPF_JNE, R3, r->major, 0);
		}
		if (r->minor >= 0) {
			p[k++] = LDX_W(R4, R1, offsetof(struct bpf_cgroup_dev_ctx, minor));
			jumps[nj++] = k;
			p[k++] = JMP_IMM(BPF_JNE, R4, r->minor, 0);
		}
		/* The access wanted: the high 16 bits of access_type. */
		p[k++] = LDX_W(R5, R1, offsetof(struct bpf_cgroup_dev_ctx, access_type));
		p[k++] = ALU_IMM(BPF_RSH, R5, 16);
		if (r->allow) {
			/* Allow only if nothing is wanted beyond the rule's access. */
			p[k++] = ALU_IMM(BPF_AND, R5, ~acc);
			jumps[nj++] = k;
			p[k++] = JMP_IMM(BPF_JNE, R5, 0, 0);
		} else {
			/* Deny if anything wanted is in the rule's access. */
			p[k++] = ALU_IMM(BPF_AND, R5, acc);
			jumps[nj++] = k;
			p[k++] = JMP_IMM(BPF_JEQ, R5, 0, 0);
		}
		p[k++] = MOV_IMM(R0, r->allow ? 1 : 0);
		p[k++] = EXIT();
		for (size_t j = 0; j < nj; j++)
			p[jumps[j]].off = (__s16)(k - jumps[j] - 1);
	}
	p[k++] = MOV_IMM(R0, 1);
	p[k++] = EXIT();
	*cnt = k;
	return p;
}

/* --- what is attached --- */

struct attached {
	int ours[ATTACHED_MAX]; /* fds of our programs, in attach order */
	size_t nours, nothers;
	__u32 flags; /* the cgroup's attach flags for the hook */
};

static void attached_close(struct attached *a)
{
	for (size_t i = 0; i < a->nours; i++)
		close(a->ours[i]);
	a->nours = 0;
}

static int attached_query(const struct libbpf *bpf, int cgfd, struct attached *a, struct err *e)
{
	__u32 ids[ATTACHED_MAX], cnt = ATTACHED_MAX;
	char name[256];
	int r;

	*a = (struct attached){.nours = 0};
	r = bpf->prog_query(cgfd, BPF_CGROUP_DEVICE, 0, &a->flags, ids, &cnt);
	if (r < 0)
		return err_errno(e, errno, "cannot list the device programs attached to %s%s", cg_name(cgfd, name, sizeof(name)),
		                 errno == EBADF ? " (not a cgroup2 directory)" : "");
	for (__u32 i = 0; i < cnt && i < ATTACHED_MAX; i++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf->prog_get_fd_by_id(ids[i]);
		if (fd < 0) {
			if (errno == ENOENT) /* detached and freed since the query */
				continue;
			err_errno(e, errno, "cannot open device program %u attached to %s", ids[i],
			          cg_name(cgfd, name, sizeof(name)));
			attached_close(a);
			return -1;
		}
		memset(&info, 0, sizeof(info));
		if (bpf->obj_get_info_by_fd(fd, &info, &len) < 0) {
			err_errno(e, errno, "cannot inspect device program %u attached to %s", ids[i],
			          cg_name(cgfd, name, sizeof(name)));
			close(fd);
			attached_close(a);
			return -1;
		}
		if (strncmp(info.name, DEVICES_BPF_PROG_NAME, sizeof(info.name)) == 0) {
			a->ours[a->nours++] = fd;
		} else {
			a->nothers++;
			close(fd);
		}
	}
	return 0;
}

int devices_bpf_count(int cgfd, size_t *ours, size_t *others, struct err *e)
{
	const struct libbpf *bpf = libbpf_lazy(e);
	struct attached a;
	if (!bpf || attached_query(bpf, cgfd, &a, e) < 0)
		return -1;
	*ours = a.nours;
	*others = a.nothers;
	attached_close(&a);
	return 0;
}

/* Detaches our programs a->ours[from..]. */
static int detach_ours(const struct libbpf *bpf, int cgfd, struct attached *a, size_t from, struct err *e)
{
	char name[256];
	for (size_t i = from; i < a->nours; i++)
		if (bpf->prog_detach2(a->ours[i], cgfd, BPF_CGROUP_DEVICE) < 0 && errno != ENOENT)
			return err_errno(e, errno, "cannot detach the device program from %s", cg_name(cgfd, name, sizeof(name)));
	return 0;
}

static char *rules_text(const struct dev_rule *rules, size_t n)
{
	char *text = malloc(n * DEVICES_RULE_MAX + 1);
	size_t len = 0;
	if (!text)
		return NULL;
	text[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		devices_rule_format(&rules[i], text + len, DEVICES_RULE_MAX);
		len += strlen(text + len);
		text[len++] = '\n';
		text[len] = '\0';
	}
	return text;
}

static int load(const struct libbpf *bpf, const struct dev_rule *rules, size_t n, int cgfd, struct err *e)
{
	char log[4096];
	char name[256];
	size_t cnt;
	struct bpf_insn *insns = program(rules, n, &cnt);
	int fd, saved;
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_buf = log, .log_size = sizeof(log));

	if (!insns)
		return err_set(e, ERR_LIMIT, "out of memory");
	log[0] = '\0';
	fd = bpf->prog_load(BPF_PROG_TYPE_CGROUP_DEVICE, DEVICES_BPF_PROG_NAME, "GPL", insns, cnt, &opts);
	saved = errno;
	free(insns);
	if (fd < 0) {
		char *nl;
		/* The last line of the verifier's log says why it refused. */
		while ((nl = strrchr(log, '\n')) && nl[1] == '\0')
			*nl = '\0';
		nl = strrchr(log, '\n');
		if (log[0])
			return err_errno(e, saved, "cannot load the device program for %s (verifier: %.200s)",
			                 cg_name(cgfd, name, sizeof(name)), nl ? nl + 1 : log);
		return err_errno(e, saved, "cannot load the device program for %s", cg_name(cgfd, name, sizeof(name)));
	}
	return fd;
}

/*
 * Refuses to attach where an ancestor's device program would stop applying. A program attached below
 * one that an ancestor attached without BPF_F_ALLOW_MULTI replaces it for the subtree (the kernel computes
 * the effective programs that way, and allows it under BPF_F_ALLOW_OVERRIDE): that would let whoever may
 * set rules here lift the ancestor's. Only the nearest ancestor with a program matters: one with
 * BPF_F_ALLOW_MULTI keeps applying, and those above it are shadowed already.
 */
static int ancestors_keep_applying(const struct libbpf *bpf, int cgfd, struct err *e)
{
	char name[256];
	struct stat here, up;
	int cur = fcntl(cgfd, F_DUPFD_CLOEXEC, 3), r = 0;

	if (cur < 0 || fstat(cur, &here) < 0)
		r = err_errno(e, errno, "cannot inspect %s", cg_name(cgfd, name, sizeof(name)));
	while (r == 0) {
		int parent = openat(cur, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		__u32 flags = 0, cnt = 0;
		if (parent < 0 || fstat(parent, &up) < 0) {
			r = err_errno(e, errno, "cannot inspect the parent of %s", cg_name(cur, name, sizeof(name)));
			if (parent >= 0)
				close(parent);
			break;
		}
		/* The root of the mount: ".." is itself, or (at a mount point) on another filesystem. */
		if (up.st_dev != here.st_dev || up.st_ino == here.st_ino) {
			close(parent);
			break;
		}
		close(cur);
		cur = parent;
		here = up;
		if (bpf->prog_query(cur, BPF_CGROUP_DEVICE, 0, &flags, NULL, &cnt) < 0) {
			r = err_errno(e, errno, "cannot list the device programs of %s", cg_name(cur, name, sizeof(name)));
			break;
		}
		if (cnt == 0)
			continue;
		if (!(flags & BPF_F_ALLOW_MULTI))
			r = err_set(e, ERR_ACCESS, "%s has a device program attached without BPF_F_ALLOW_MULTI; one attached "
			            "beneath it would %s, so device rules beneath it are refused",
			            cg_name(cur, name, sizeof(name)),
			            (flags & BPF_F_ALLOW_OVERRIDE) ? "replace it there" : "be refused by the kernel");
		break;
	}
	if (cur >= 0)
		close(cur);
	return r;
}

int devices_bpf_apply(int cgfd, const struct dev_rule *rules, size_t n, struct err *e)
{
	char name[256], *old = NULL, *text;
	struct attached a;
	int fd, r;

	for (size_t i = 0; i < n; i++)
		if (!devices_rule_valid(&rules[i]))
			return err_set(e, ERR_INVALID, "device rule %zu is invalid (type '%c', %d:%d, access '%.3s')", i + 1,
			               rules[i].type ? rules[i].type : '?', rules[i].major, rules[i].minor, rules[i].access);
	if (n > DEVICES_BPF_MAX_RULES)
		return err_set(e, ERR_LIMIT, "%zu device rules for one cgroup are too many (at most %d)", n,
		               DEVICES_BPF_MAX_RULES);

	const struct libbpf *bpf = libbpf_lazy(e);
	if (!bpf)
		return -1;
	if (n > 0 && ancestors_keep_applying(bpf, cgfd, e) < 0)
		return -1;
	if (attached_query(bpf, cgfd, &a, e) < 0)
		return -1;

	if (n == 0) {
		r = detach_ours(bpf, cgfd, &a, 0, e);
		attached_close(&a);
		return r < 0 ? -1 : xattr_write(cgfd, NULL, e);
	}

	if ((fd = load(bpf, rules, n, cgfd, e)) < 0) {
		attached_close(&a);
		return -1;
	}
	if (!(text = rules_text(rules, n))) {
		close(fd);
		attached_close(&a);
		return err_set(e, ERR_LIMIT, "out of memory");
	}
	/* Store first (which also finds out whether the cgroupfs can), and put the old text back on failure. */
	if (xattr_read(cgfd, &old, e) < 0 || xattr_write(cgfd, text, e) < 0) {
		free(old);
		free(text);
		close(fd);
		attached_close(&a);
		return -1;
	}
	free(text);

	LIBBPF_OPTS(bpf_prog_attach_opts, opts, .flags = BPF_F_ALLOW_MULTI);
	if (a.nours > 0) {
		opts.flags |= BPF_F_REPLACE;
		opts.replace_prog_fd = a.ours[0];
	}
	r = bpf->prog_attach_opts(fd, cgfd, BPF_CGROUP_DEVICE, &opts);
	if (r < 0) {
		int saved = errno;
		struct err ignored;
		if (a.nothers > 0 && !(a.flags & BPF_F_ALLOW_MULTI))
			err_errno(e, saved, "cannot attach the device program to %s, which has a device program attached "
			          "by another without BPF_F_ALLOW_MULTI", cg_name(cgfd, name, sizeof(name)));
		else
			err_errno(e, saved, "cannot attach the device program to %s", cg_name(cgfd, name, sizeof(name)));
		xattr_write(cgfd, old, &ignored);
		free(old);
		close(fd);
		attached_close(&a);
		return -1;
	}
	free(old);
	close(fd); /* the cgroup holds the program now */
	/* More than one of ours (left by an interrupted earlier daemon): only the one just put in place stays. */
	r = detach_ours(bpf, cgfd, &a, 1, e);
	attached_close(&a);
	return r;
}
