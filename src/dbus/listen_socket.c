#include "dbus/listen_socket.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/un.h>
#include <unistd.h>
#include <linux/magic.h>

#include "common/cgmanager_wire.h"
#include "util/cleanup.h"
#include "util/log.h"

const char *default_socket_path(void)
{
	struct statfs sfs;
	if (statfs("/sys/fs/cgroup", &sfs) == 0 && sfs.f_type == TMPFS_MAGIC)
		return CGMANAGER_SOCKET_SYS_FS_CGROUP;
	return CGMANAGER_SOCKET_RUN;
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

/*
 * 1 if a live server answers at path, or is too busy to (a full backlog gives
 * EAGAIN: such a daemon must not lose its socket to a second one); 0 if
 * nothing does (ECONNREFUSED: the file a SIGKILLed daemon left behind).
 * Non-blocking, so a busy daemon does not stall the check.
 */
static int someone_listens(const struct sockaddr_un *sa)
{
	_cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0)
		return 1;
	return errno == EAGAIN || errno == EINPROGRESS;
}

/*
 * Two daemons started together on one path must not both find it stale:
 * the second would unlink the first's fresh socket and leave it serving a
 * name nobody can reach. The check, unlink, bind and listen run under an
 * flock(2) of the socket's directory, held for those few system calls only.
 * Anyone who can open the directory can hold that lock, so it is waited for
 * LOCK_WAIT_MS at most: a stranger's lock can bring back the race of two
 * daemons started at the same moment, never keep the daemon from starting.
 */
#define LOCK_WAIT_MS 2000
#define LOCK_RETRY_MS 10

static int lock_dir_of(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int fd;
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (int waited = 0; flock(fd, LOCK_EX | LOCK_NB) < 0; waited += LOCK_RETRY_MS) {
		if (errno != EWOULDBLOCK || waited >= LOCK_WAIT_MS) {
			if (errno == EWOULDBLOCK)
				log_warn("%s stayed locked by another process for %d ms; going on without the lock", dir,
				         LOCK_WAIT_MS);
			close(fd); /* a file system without locks, or a lock held too long: as before, unlocked */
			return -1;
		}
		usleep(LOCK_RETRY_MS * 1000);
	}
	return fd;
}

static int open_locked(const char *path, const struct sockaddr_un *sa, ino_t *ino, struct err *e)
{
	struct stat st;
	_cleanup_close_ int fd = -1;

	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return err_set(e, ERR_BUSY, "%s exists and is not a socket; not touching it", path);
		if (someone_listens(sa) == 1)
			return err_set(e, ERR_BUSY, "a daemon already answers on %s", path);
		if (unlink(path) < 0)
			return err_errno(e, errno, "cannot remove the stale socket %s", path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return err_errno(e, errno, "socket");
	if (bind(fd, (const struct sockaddr *)sa, sizeof(*sa)) < 0)
		return err_errno(e, errno, "cannot bind %s", path);
	if (chmod(path, 0666) < 0 || lstat(path, &st) < 0)
		return err_errno(e, errno, "cannot make %s world-connectable", path);
	if (listen(fd, SOMAXCONN) < 0)
		return err_errno(e, errno, "listen on %s", path);
	*ino = st.st_ino;
	return take_fd(&fd);
}

int listen_socket_open(const char *path, ino_t *ino, struct err *e)
{
	struct sockaddr_un sa;
	int r;

	if ((r = fill_addr(path, &sa)) < 0)
		return err_errno(e, -r, "socket path %s", path);
	if ((r = mkdir_parents(path)) < 0)
		return err_errno(e, -r, "cannot create the directory of %s", path);
	int lock = lock_dir_of(path);
	r = open_locked(path, &sa, ino, e);
	if (lock >= 0)
		close(lock); /* and with it the flock */
	return r;
}

void listen_socket_remove(const char *path, ino_t ino)
{
	struct stat st;
	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_ino == ino)
		unlink(path);
}
