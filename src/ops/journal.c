#include "ops/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgfs/cgtree.h"
#include "ops/release.h"
#include "util/cleanup.h"
#include "util/log.h"

/*
 * One line a note, its fields split by tabs (a cgroup name has no control
 * characters): "mkdir", "chown" or "rmdir", the hierarchy, the daemon's root
 * in it, the cgroup relative to that root, then for chown and rmdir the
 * directory's inode (a cgroup removed and made again meanwhile is not the
 * one noted) and for chown the new uid and gid; or "go". Each note is one
 * write(2) before what it announces, so a line cut short by the kill (no
 * newline) announces nothing that happened, and is ignored.
 */
#define JOURNAL_MAX (1 << 20)

static int note(struct ops *o, struct err *e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int note(struct ops *o, struct err *e, const char *fmt, ...)
{
	_cleanup_free_ char *line = NULL;
	va_list ap;
	ssize_t w;
	int n;

	if (o->journal.fd < 0)
		return 0;
	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return err_set(e, ERR_LIMIT, "out of memory");
	w = write(o->journal.fd, line, (size_t)n);
	if (w != n) {
		int saved = w < 0 ? errno : EIO;
		/* A part written is taken back; with O_APPEND the next note then starts where this one did. */
		if (ftruncate(o->journal.fd, o->journal.len) < 0)
			log_error("cannot take back a part note in the journal %s: %s", o->journal.path, strerror(errno));
		return err_errno(e, saved, "cannot note the operation in the journal %s, so nothing was changed",
		                 o->journal.path);
	}
	o->journal.last = o->journal.len;
	o->journal.len += n;
	return 0;
}

/* A tab or a newline in a name would cut its note into other fields or lines: such a name is not noted. */
static int notable(struct ops *o, const char *what, const char *rel, struct err *e)
{
	if (o->journal.fd >= 0 && strpbrk(rel, "\t\n"))
		return err_set(e, ERR_INVALID, "%s has a tab or a newline in its name (your own cgroup's, made directly on "
		               "cgroupfs): the daemon could not note the operation to finish it after a restart, so it "
		               "does not start it", what);
	return 0;
}

int journal_note_mkdir(struct ops *o, const struct hierarchy *h, const char *rel, uid_t uid, gid_t gid,
                       struct err *e)
{
	char what[WHAT_MAX];
	snprintf(what, sizeof(what), "%s:/%s", h->name, rel);
	if (notable(o, what, rel, e) < 0)
		return -1;
	return note(o, e, "mkdir\t%s\t%s\t%s\t%u\t%u\n", h->name, h->root_path, rel, (unsigned)uid, (unsigned)gid);
}

static int note_target(struct ops *o, const char *kind, const struct target *t, const char *tail, struct err *e)
{
	struct stat st;
	if (notable(o, t->what, t->rel, e) < 0)
		return -1;
	if (fstat(t->fd, &st) < 0)
		return err_errno(e, errno, "cannot stat %s", t->what);
	return note(o, e, "%s\t%s\t%s\t%s\t%llu%s\n", kind, t->h->name, t->h->root_path, t->rel,
	            (unsigned long long)st.st_ino, tail);
}

int journal_note_chown(struct ops *o, const struct target *t, uid_t uid, gid_t gid, struct err *e)
{
	char ids[32];
	snprintf(ids, sizeof(ids), "\t%u\t%u", (unsigned)uid, (unsigned)gid);
	return note_target(o, "chown", t, ids, e);
}

int journal_note_rmdir(struct ops *o, const struct target *t, struct err *e)
{
	return note_target(o, "rmdir", t, "", e);
}

int journal_go(struct ops *o, struct err *e)
{
	return note(o, e, "go\n");
}

void journal_drop_last(struct ops *o)
{
	if (o->journal.fd < 0 || o->journal.last == o->journal.len)
		return;
	if (ftruncate(o->journal.fd, o->journal.last) < 0)
		log_error("cannot take a note back in the journal %s: %s", o->journal.path, strerror(errno));
	o->journal.len = o->journal.last;
}

void journal_end(struct ops *o)
{
	if (o->journal.fd < 0 || o->journal.len == 0)
		return;
	/* Left full, a journal would have the next daemon undo (Create) or redo what was done and answered. */
	if (ftruncate(o->journal.fd, 0) < 0)
		log_error("cannot empty the journal %s: %s", o->journal.path, strerror(errno));
	o->journal.len = o->journal.last = 0;
}

/* --- replay, by the next daemon --- */

struct noted {
	char kind; /* 'm', 'c', 'r' */
	struct hierarchy *h;
	const char *rel;
	unsigned long long ino;
	unsigned uid, gid;
};

static struct hierarchy *hierarchy_of(struct ops *o, const char *name, const char *root)
{
	for (size_t i = 0; i < o->hs.n; i++)
		if (strcmp(o->hs.h[i].name, name) == 0 && strcmp(o->hs.h[i].root_path, root) == 0)
			return &o->hs.h[i];
	return NULL;
}

/* Parses one line (modified in place); false if it is not a note this daemon can act on (logged). */
static bool parse(struct ops *o, char *line, struct noted *n, bool *go)
{
	char *f[8], *rest = line, *end;
	int nf = 0;
	char canon[CGNAME_MAX];
	const char *why;

	if (strcmp(line, "go") == 0) {
		*go = true;
		return false;
	}
	/* strsep, not strtok: the daemon's root itself (Chown of "") is an empty field. */
	while (rest && nf < 8)
		f[nf++] = strsep(&rest, "\t");
	if (nf < 4 || !((strcmp(f[0], "mkdir") == 0 && nf == 6) || (strcmp(f[0], "rmdir") == 0 && nf == 5) ||
	                (strcmp(f[0], "chown") == 0 && nf == 7))) {
		log_warn("journal: a line that is no note is ignored");
		return false;
	}
	*n = (struct noted){.kind = f[0][0] == 'm' ? 'm' : f[0][0] == 'c' ? 'c' : 'r', .rel = f[3]};
	/* Only what the daemon serves here, from the same root, and never its own cgroup. */
	if (!(n->h = hierarchy_of(o, f[1], f[2]))) {
		log_warn("journal: %s:%s/%s is not in a tree this daemon serves; left as it is", f[1], f[2], f[3]);
		return false;
	}
	if (cgname_normalize(n->rel, canon, &why) < 0 || strcmp(canon, n->rel) != 0 ||
	    (n->kind != 'c' && !n->rel[0]) || rel_is_beneath(n->rel, DAEMON_LEAF)) {
		log_warn("journal: %s:/%s is not a cgroup name it may note; left as it is", f[1], f[3]);
		return false;
	}
	if (n->kind != 'm') {
		errno = 0;
		n->ino = strtoull(f[4], &end, 10);
		if (errno || *end)
			return false;
	}
	/* The ids: a chown's new owner, or the creator of what a mkdir made (which it owns, cgroupfs made it so). */
	if (nf >= 6) {
		unsigned long uid = strtoul(f[nf - 2], &end, 10), gid;
		if (*end || uid > (uid_t)-2)
			return false;
		gid = strtoul(f[nf - 1], &end, 10);
		if (*end || gid > (gid_t)-2)
			return false;
		n->uid = (unsigned)uid;
		n->gid = (unsigned)gid;
	}
	return true;
}

/* The noted cgroup's subtree goes: what a cut-short Create made, or what a Remove was taking. */
static void remove_noted(const struct noted *n, const char *doing)
{
	char parent[CGNAME_MAX];
	const char *base = n->rel, *slash = strrchr(n->rel, '/');
	snprintf(parent, sizeof(parent), "%.*s", slash ? (int)(slash - n->rel) : 0, n->rel);
	if (slash)
		base = slash + 1;
	_cleanup_close_ int pfd = cgdir_open_beneath(n->h->root_fd, parent);
	struct stat st;
	/*
	 * What a Create made is its creator's: a cgroup of someone else's that took its name since (cgroup v1
	 * lets the parent's owner rename) is left as it is.
	 */
	if (n->kind == 'm' && pfd >= 0 && fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    (st.st_uid != n->uid || st.st_gid != n->gid)) {
		log_warn("journal: %s:/%s is not what the daemon before was making (it is uid %u's, not uid %u's); left as "
		         "it is", n->h->name, n->rel, (unsigned)st.st_uid, n->uid);
		return;
	}
	int r = pfd < 0 ? pfd : cgtree_remove(pfd, base);
	if (r == -ENOENT)
		return;
	if (r < 0)
		log_warn("journal: %s %s:/%s, which the daemon before was killed in the middle of, failed: %s", doing,
		         n->h->name, n->rel, strerror(-r));
	else
		log_info("journal: %s %s:/%s, which the daemon before was killed in the middle of", doing, n->h->name,
		         n->rel);
}

static void redo(struct ops *o, const struct noted *n)
{
	struct target t = {.h = n->h, .req_fd = -1, .fd = -1};
	struct stat st;
	struct err e = {0};

	snprintf(t.rel, sizeof(t.rel), "%s", n->rel);
	snprintf(t.what, sizeof(t.what), "%s:/%s", n->h->name, n->rel);
	t.fd = cgdir_open_beneath(n->h->root_fd, n->rel);
	if (t.fd < 0 || fstat(t.fd, &st) < 0 || (unsigned long long)st.st_ino != n->ino) {
		if (t.fd != -ENOENT)
			log_warn("journal: %s was removed or replaced since it was noted; left as it is", t.what);
		target_close(&t);
		return;
	}
	if (n->kind == 'r') {
		target_close(&t);
		remove_noted(n, "finished removing");
		return;
	}
	if (target_chown(o, &t, n->uid, n->gid, &e) < 0)
		log_warn("journal: finishing the chown of %s to %u:%u failed: %s", t.what, n->uid, n->gid, e.msg);
	else
		log_info("journal: finished the chown of %s to %u:%u, which the daemon before was killed in the middle of",
		         t.what, n->uid, n->gid);
	target_close(&t);
}

static void replay(struct ops *o, int fd, const char *path)
{
	struct stat st;
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ struct noted *notes = NULL;
	size_t len = 0, nn = 0, cap = 0;
	bool go = false;

	if (fstat(fd, &st) < 0 || st.st_size == 0)
		return;
	if (st.st_size > JOURNAL_MAX) {
		log_error("journal: %s is larger than any operation notes (%lld bytes); not replayed", path,
		          (long long)st.st_size);
		return;
	}
	if (!(buf = malloc((size_t)st.st_size + 1)))
		return;
	while (len < (size_t)st.st_size) {
		ssize_t r = pread(fd, buf + len, (size_t)st.st_size - len, (off_t)len);
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	buf[len] = '\0';
	/* Only whole lines: one cut short by the kill announced nothing that was done. */
	for (char *line = buf, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = '\0';
		if (nn == cap) {
			struct noted *more = realloc(notes, (cap = cap ? 2 * cap : 16) * sizeof(*notes));
			if (!more)
				return;
			notes = more;
		}
		if (parse(o, line, &notes[nn], &go))
			nn++;
	}
	/* A Create is undone, newest first; a checked Chown or Remove is carried through. */
	for (size_t i = nn; i-- > 0;)
		if (notes[i].kind == 'm')
			remove_noted(&notes[i], "undid the creation of");
	for (size_t i = 0; go && i < nn; i++)
		if (notes[i].kind != 'm')
			redo(o, &notes[i]);
}

int journal_open(struct ops *o, const char *path)
{
	struct stat st;
	int fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);

	if (fd < 0) {
		log_error("cannot open the journal %s: %s; an operation cut short by a kill will not be finished or undone",
		          path, strerror(errno));
		return -1;
	}
	/* Whoever could write it could have the daemon act on any cgroup of its tree. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022) || st.st_nlink != 1) {
		log_error("%s is not a file that only root may write; it is not used as the journal", path);
		close(fd);
		return -1;
	}
	if (!(o->journal.path = strdup(path))) {
		close(fd);
		return -1;
	}
	replay(o, fd, path);
	if (ftruncate(fd, 0) < 0) {
		log_error("cannot empty the journal %s: %s", path, strerror(errno));
		close(fd);
		free(o->journal.path);
		o->journal.path = NULL;
		return -1;
	}
	o->journal.fd = fd;
	o->journal.len = o->journal.last = 0;
	return 0;
}

void journal_close(struct ops *o)
{
	if (o->journal.fd >= 0)
		close(o->journal.fd);
	o->journal.fd = -1;
	free(o->journal.path);
	o->journal.path = NULL;
}
