/* The openat2-less walk of util/open_resolved.c gives openat2's answers (stricter only about symlinks). */
#include "check.h"
#include "util/open_resolved.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static char top[64];
static int topfd = -1;

static void tree(void)
{
	snprintf(top, sizeof(top), "/tmp/cgm-resolve.XXXXXX");
	CHECK(mkdtemp(top) != NULL);
	topfd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	CHECK(mkdirat(topfd, "a", 0755) == 0);
	CHECK(mkdirat(topfd, "a/b", 0755) == 0);
	CHECK(symlinkat("b", topfd, "a/link") == 0);
	CHECK(symlinkat("/tmp", topfd, "a/abs") == 0);
	int f = openat(topfd, "a/file", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	CHECK(f >= 0);
	close(f);
}

static int kernel(const char *path, int flags, uint64_t resolve)
{
	struct open_how how = {.flags = (uint64_t)flags, .resolve = resolve};
	int fd = (int)syscall(SYS_openat2, topfd, path, &how, sizeof(how));
	return fd < 0 ? -errno : fd;
}

/* Same success or the same errno; the walk may refuse ".." (-EXDEV) and, with NO_SYMLINKS dropped, a symlink (-ELOOP). */
static void same(const char *path, int flags, uint64_t resolve)
{
	int k = kernel(path, flags, resolve), w = open_resolved_walk(topfd, path, flags, resolve);
	if (k == -ENOSYS)
		return;
	bool ok = (k >= 0) == (w >= 0) && (k >= 0 || k == w);
	if (!(resolve & RESOLVE_NO_SYMLINKS) && w == -ELOOP)
		ok = true;
	if (strstr(path, "..") && w == -EXDEV)
		ok = true;
	if (!ok)
		fprintf(stderr, "    %s resolve=%#llx: openat2 %d, walk %d\n", path, (unsigned long long)resolve, k, w);
	CHECK(ok);
	if (k >= 0)
		close(k);
	if (w >= 0)
		close(w);
}

static void walk_agrees_with_openat2(void)
{
	const char *paths[] = {".", "a", "a/b", "a//b/", "./a/./b", "a/link", "a/link/", "a/abs", "a/file", "a/file/",
	                       "a/missing", "..", "a/..", "a/b/../..", "/tmp", "/", "a/b/c"};
	const uint64_t beneath = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;
	for (size_t i = 0; i < sizeof(paths) / sizeof(*paths); i++) {
		same(paths[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC, beneath);
		same(paths[i], O_PATH | O_CLOEXEC, RESOLVE_BENEATH | RESOLVE_NO_XDEV | RESOLVE_NO_MAGICLINKS);
	}
}

static void walk_refuses_another_mount(void)
{
	/* /proc is a mount of its own wherever the tests run. */
	int fd = open_resolved_walk(AT_FDCWD, "/proc/self", O_PATH | O_CLOEXEC, RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS);
	CHECK(fd == -EXDEV || fd == -ELOOP);
	fd = open_resolved_walk(AT_FDCWD, "/proc/sys", O_RDONLY | O_DIRECTORY | O_CLOEXEC, RESOLVE_NO_SYMLINKS);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
}

static void walk_opens_with_the_access_asked(void)
{
	int fd = open_resolved_walk(topfd, "a/b", O_RDONLY | O_DIRECTORY | O_CLOEXEC, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS);
	CHECK(fd >= 0);
	CHECK(fd < 0 || (fcntl(fd, F_GETFL) & O_PATH) == 0);
	CHECK(fd < 0 || mkdirat(fd, "new", 0755) == 0);
	if (fd >= 0)
		close(fd);
	struct stat st;
	CHECK(fstatat(topfd, "a/b/new", &st, 0) == 0 && S_ISDIR(st.st_mode));
}

int main(void)
{
	tree();
	RUN(walk_agrees_with_openat2);
	RUN(walk_refuses_another_mount);
	RUN(walk_opens_with_the_access_asked);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", top);
	return CHECK_EXIT();
}
