#include "ops/release.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgfs/cgdir.h"
#include "cgfs/cgtree.h"
#include "util/cgname.h"
#include "util/cleanup.h"
#include "util/log.h"

#define V1_CHECK_INTERVAL_MS 1000

struct mark {
	struct hierarchy *h;
	char *rel;
	int wd;               /* inotify watch on cgroup.events (cgroup2), else -1 */
	ino_t ino;            /* the marked cgroup's own: a cgroup made again under its name is not it */
	bool seen_populated;
};

struct release_watch {
	int ifd;
	struct mark *marks;
	size_t n;
	struct timespec next_tick;
};

struct release_watch *release_watch_new(struct err *e)
{
	struct release_watch *rw = calloc(1, sizeof(*rw));
	if (!rw) {
		err_set(e, ERR_LIMIT, "out of memory");
		return NULL;
	}
	rw->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (rw->ifd < 0) {
		err_errno(e, errno, "inotify_init1");
		free(rw);
		return NULL;
	}
	return rw;
}

void release_watch_free(struct release_watch *rw)
{
	if (!rw)
		return;
	for (size_t i = 0; i < rw->n; i++)
		free(rw->marks[i].rel);
	free(rw->marks);
	close(rw->ifd);
	free(rw);
}

int release_watch_fd(const struct release_watch *rw)
{
	return rw->ifd;
}

static bool has_v1_marks(const struct release_watch *rw)
{
	for (size_t i = 0; i < rw->n; i++)
		if (!rw->marks[i].h->unified)
			return true;
	return false;
}

int release_watch_timeout_ms(const struct release_watch *rw)
{
	struct timespec now;
	long ms;
	if (!has_v1_marks(rw))
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (rw->next_tick.tv_sec - now.tv_sec) * 1000 + (rw->next_tick.tv_nsec - now.tv_nsec) / 1000000;
	return ms < 0 ? 0 : (int)ms;
}

static void drop_mark(struct release_watch *rw, size_t i)
{
	if (rw->marks[i].wd >= 0)
		inotify_rm_watch(rw->ifd, rw->marks[i].wd);
	free(rw->marks[i].rel);
	rw->marks[i] = rw->marks[--rw->n];
}

/*
 * Returns true when the mark is done with (removed, or gone). An event on
 * cgroup.events means populated changed: if it reads 0 now, tasks came and
 * went even if we never saw the 1.
 */
static bool check_mark(struct mark *m, bool events_changed)
{
	_cleanup_close_ int fd = cgdir_open_beneath(m->h->root_fd, m->rel);
	char parent[CGNAME_MAX];
	const char *base;
	struct stat st;
	int populated, r;

	if (fd < 0)
		return true;
	/* Removed behind the daemon's back (and perhaps made again): the mark was for the cgroup that is gone. */
	if (fstat(fd, &st) == 0 && st.st_ino != m->ino) {
		log_info("%s:/%s was removed by someone else; its remove-on-empty mark is dropped", m->h->name, m->rel);
		return true;
	}
	populated = cgtree_populated(fd, m->h->unified);
	if (populated < 0)
		return false;
	if (populated) {
		m->seen_populated = true;
		return false;
	}
	if (!m->seen_populated && !events_changed)
		return false;
	snprintf(parent, sizeof(parent), "%s", m->rel);
	char *slash = strrchr(parent, '/');
	if (slash) {
		*slash = '\0';
		base = slash + 1;
	} else {
		parent[0] = '\0';
		base = m->rel;
	}
	_cleanup_close_ int pfd = cgdir_open_beneath(m->h->root_fd, parent);
	r = pfd < 0 ? pfd : cgtree_remove(pfd, base);
	if (r < 0)
		log_warn("remove-on-empty of %s:/%s failed: %s", m->h->name, m->rel, strerror(-r));
	else
		log_info("removed empty %s:/%s", m->h->name, m->rel);
	return r >= 0 || r == -ENOENT;
}

int release_watch_add(struct release_watch *rw, struct hierarchy *h, const char *rel, int cgfd, struct err *e)
{
	struct mark m = {.h = h, .wd = -1};
	struct stat st;
	int populated;

	if (fstat(cgfd, &st) < 0)
		return err_errno(e, errno, "cannot stat %s:/%s", h->name, rel);
	m.ino = st.st_ino;
	for (size_t i = 0; i < rw->n; i++)
		if (rw->marks[i].h == h && strcmp(rw->marks[i].rel, rel) == 0) {
			if (rw->marks[i].ino == m.ino)
				return 0;
			drop_mark(rw, i); /* a mark of a cgroup of that name that is gone */
			break;
		}
	populated = cgtree_populated(cgfd, h->unified);
	if (populated < 0)
		return err_errno(e, -populated, "cannot tell whether %s:/%s has tasks", h->name, rel);
	m.seen_populated = populated;
	if (h->unified) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/self/fd/%d/cgroup.events", cgfd);
		m.wd = inotify_add_watch(rw->ifd, path, IN_MODIFY);
		if (m.wd < 0)
			return err_errno(e, errno, "cannot watch %s:/%s/cgroup.events", h->name, rel);
	} else if (!has_v1_marks(rw)) {
		clock_gettime(CLOCK_MONOTONIC, &rw->next_tick);
	}
	m.rel = strdup(rel);
	struct mark *nm = m.rel ? realloc(rw->marks, (rw->n + 1) * sizeof(*nm)) : NULL;
	if (!nm) {
		if (m.wd >= 0)
			inotify_rm_watch(rw->ifd, m.wd);
		free(m.rel);
		return err_set(e, ERR_LIMIT, "out of memory");
	}
	rw->marks = nm;
	rw->marks[rw->n++] = m;
	return 0;
}

void release_watch_process(struct release_watch *rw)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t len;

	while ((len = read(rw->ifd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + len;) {
			struct inotify_event *ev = (struct inotify_event *)p;
			for (size_t i = 0; i < rw->n; i++) {
				if (rw->marks[i].wd != ev->wd)
					continue;
				if ((ev->mask & IN_IGNORED)) {
					rw->marks[i].wd = -1; /* the kernel dropped it with the cgroup */
					drop_mark(rw, i);
				} else if (check_mark(&rw->marks[i], true)) {
					drop_mark(rw, i);
				}
				break;
			}
			p += sizeof(*ev) + ev->len;
		}
	}
}

void release_watch_entered(struct release_watch *rw, const struct hierarchy *h, const char *rel)
{
	for (size_t i = 0; i < rw->n; i++) {
		struct mark *m = &rw->marks[i];
		size_t len = strlen(m->rel);
		if (m->h == h && !h->unified && strncmp(rel, m->rel, len) == 0 && (rel[len] == '\0' || rel[len] == '/'))
			m->seen_populated = true;
	}
}

void release_watch_tick(struct release_watch *rw)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec < rw->next_tick.tv_sec ||
	    (now.tv_sec == rw->next_tick.tv_sec && now.tv_nsec < rw->next_tick.tv_nsec))
		return;
	for (size_t i = 0; i < rw->n;) {
		if (!rw->marks[i].h->unified && check_mark(&rw->marks[i], false))
			drop_mark(rw, i);
		else
			i++;
	}
	rw->next_tick = now;
	rw->next_tick.tv_sec += V1_CHECK_INTERVAL_MS / 1000;
}
