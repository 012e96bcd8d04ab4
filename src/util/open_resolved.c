#include "util/open_resolved.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/cleanup.h"

/* The mount an fd is on: the mount id where the kernel reports it (5.8+), else the device. */
static int mount_of(int fd, uint64_t *id)
{
	struct statx stx;
	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &stx) < 0)
		return -errno;
	*id = (stx.stx_mask & STATX_MNT_ID) ? stx.stx_mnt_id
	                                    : ((uint64_t)stx.stx_dev_major << 32 | stx.stx_dev_minor);
	return 0;
}

int open_resolved_walk(int dirfd, const char *path, int flags, uint64_t resolve)
{
	bool no_xdev = resolve & RESOLVE_NO_XDEV;
	uint64_t start_mnt = 0, mnt;
	const char *p = path;
	int r, cur;

	if (*p == '/') {
		if (resolve & (RESOLVE_BENEATH | RESOLVE_IN_ROOT))
			return -EXDEV;
		while (*p == '/')
			p++;
		cur = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	} else {
		cur = openat(dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	if (cur < 0)
		return -errno;
	if (no_xdev && (r = mount_of(cur, &start_mnt)) < 0)
		goto fail;
	while (*p) {
		size_t n = strcspn(p, "/");
		char comp[256];
		if (n >= sizeof(comp)) {
			r = -ENAMETOOLONG;
			goto fail;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		bool dir = p[n] == '/'; /* "name/" must be a directory, also at the end */
		for (p += n; *p == '/'; p++)
			;
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			r = -EXDEV; /* what openat2 says for ".." under RESOLVE_BENEATH */
			goto fail;
		}
		int next = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			r = -errno;
			goto fail;
		}
		close(cur);
		cur = next;
		struct stat st;
		if (fstat(cur, &st) < 0) {
			r = -errno;
			goto fail;
		}
		/* No component may be a symlink; every one but the last must be a directory. */
		if (S_ISLNK(st.st_mode) || (dir && !S_ISDIR(st.st_mode))) {
			r = S_ISLNK(st.st_mode) ? -ELOOP : -ENOTDIR;
			goto fail;
		}
		if (no_xdev) {
			if ((r = mount_of(cur, &mnt)) < 0)
				goto fail;
			if (mnt != start_mnt) {
				r = -EXDEV;
				goto fail;
			}
		}
	}
	if (flags & O_PATH)
		return cur;
	/* The callers open directories; "." of the walked fd reopens it with the access asked for. */
	r = openat(cur, ".", flags | O_CLOEXEC);
	r = r < 0 ? -errno : r;
fail:
	close(cur);
	return r;
}

int open_resolved(int dirfd, const char *path, int flags, uint64_t resolve)
{
	struct open_how how = {.flags = (uint64_t)flags, .resolve = resolve};
	int fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	if (fd >= 0)
		return fd;
	if (errno != ENOSYS)
		return -errno;
	return open_resolved_walk(dirfd, path, flags, resolve);
}
