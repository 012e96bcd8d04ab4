#include "dbus/listen_socket.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/un.h>
#include <unistd.h>
#include <linux/magic.h>

#include "util/cleanup.h"

const char *default_socket_path(void)
{
	struct statfs sfs;
	if (statfs("/sys/fs/cgroup", &sfs) == 0 && sfs.f_type == TMPFS_MAGIC)
		return "/sys/fs/cgroup/cgmanager/sock";
	return "/run/cgmanager/sock";
}

static int mkdir_parents(const char *path)
{
	char buf[PATH_MAX];
	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

static int fill_addr(const char *path, struct sockaddr_un *sa)
{
	*sa = (struct sockaddr_un){.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	strcpy(sa->sun_path, path);
	return 0;
}

/* 1 if a live server answers at path, 0 if nothing does. */
static int someone_listens(const struct sockaddr_un *sa)
{
	_cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	return connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0;
}

int listen_socket_open(const char *path, ino_t *ino, struct err *e)
{
	struct sockaddr_un sa;
	struct stat st;
	_cleanup_close_ int fd = -1;
	int r;

	if ((r = fill_addr(path, &sa)) < 0)
		return err_errno(e, -r, "socket path %s", path);
	if ((r = mkdir_parents(path)) < 0)
		return err_errno(e, -r, "cannot create the directory of %s", path);
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return err_set(e, ERR_BUSY, "%s exists and is not a socket; not touching it", path);
		if (someone_listens(&sa) == 1)
			return err_set(e, ERR_BUSY, "a daemon already answers on %s", path);
		if (unlink(path) < 0)
			return err_errno(e, errno, "cannot remove the stale socket %s", path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return err_errno(e, errno, "socket");
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return err_errno(e, errno, "cannot bind %s", path);
	if (chmod(path, 0666) < 0 || lstat(path, &st) < 0)
		return err_errno(e, errno, "cannot make %s world-connectable", path);
	if (listen(fd, SOMAXCONN) < 0)
		return err_errno(e, errno, "listen on %s", path);
	*ino = st.st_ino;
	return take_fd(&fd);
}

void listen_socket_remove(const char *path, ino_t ino)
{
	struct stat st;
	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_ino == ino)
		unlink(path);
}
