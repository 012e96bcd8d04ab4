#include "dbus/peer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/nsfs.h>

#include "cgfs/idmap.h"
#include "cgfs/proc.h"
#include "dbus/owner_reserve.h"
#include "ops/identity.h"
#include "ops/target.h"
#include "util/cleanup.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

/* The peer pinned by pidfd, unless it has exited already (newer kernels make a pidfd of an exited task too,
 * and of a zombie every kernel does). */
static int pinned(struct requester *r, int pidfd)
{
	struct err e;
	r->pidfd = pidfd;
	if (requester_still_alive(r, &e) < 0) {
		close(pidfd);
		r->pidfd = -1;
		return -ESRCH;
	}
	return 0;
}

/*
 * The process pinned by pid is the one that connected, as far as its uid tells (SO_PEERCRED gives the
 * effective uid at connect(2)); read before pinned() checks it is still alive, so it is that process's.
 */
static int same_user(const struct ucred *uc)
{
	struct proc_ids ids;
	struct err e;
	if (proc_ids_read(uc->pid, &ids, &e) < 0)
		return e.kind == ERR_LIMIT ? -EMFILE : -ESRCH;
	return ids.uid[1] == uc->uid ? 0 : -EPERM;
}

int peer_requester(int fd, struct requester *out)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);
	gid_t groups[POLICY_MAX_GROUPS];
	int pidfd = -1;

	*out = (struct requester){.pidfd = -1, .cgroup_fd = -1};
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0)
		return -errno;
	out->pid = uc.pid;
	out->cred.uid = uc.uid;
	out->cred.gid = uc.gid;
	len = sizeof(groups);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) == 0) {
		out->cred.ngroups = len / sizeof(gid_t);
		for (size_t i = 0; i < out->cred.ngroups; i++)
			out->cred.groups[i] = groups[i];
	}
	/* A peer in more groups than we hold keeps only its primary gid: never more rights than it has. */
	/* A peer outside our pid namespace (pid 0) is served nothing that needs its pid (requester_identify
	 * refuses it), Ping alone: nothing to pin. */
	if (uc.pid <= 0)
		return 0;
	len = sizeof(pidfd);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) == 0)
		return pinned(out, pidfd);
	/*
	 * Without a pidfd the peer's pid could name another process by the time a request comes: a peer
	 * that has gone (kernels that make no pidfd of an exited task say so) or one that cannot be pinned
	 * (out of fds) is not served. Before Linux 6.5 (ENOPROTOOPT) the daemon pins the pid
	 * itself, now: its pid could only have been handed out again (a full turn of pid_max) in the
	 * moment between connect(2) and this accept, not at any later time of a long connection; and
	 * then to a process of the same user, or the connection is refused.
	 */
	if (errno != ENOPROTOOPT)
		return -errno;
	if ((pidfd = (int)syscall(SYS_pidfd_open, uc.pid, 0)) >= 0) {
		int r = same_user(&uc);
		if (r == 0)
			return pinned(out, pidfd);
		close(pidfd);
		return r;
	}
	/* No pidfds at all (before Linux 5.3; valgrind): every check then goes by the pid (TESTING.md). */
	return errno == ENOSYS ? 0 : -errno;
}

void peer_requester_drop(struct requester *r)
{
	if (r->pidfd >= 0)
		close(r->pidfd);
	if (r->cgroup_fd >= 0)
		close(r->cgroup_fd);
	requester_release(r);
}

/* User namespaces nest at most 32 deep (the kernel's limit). */
#define USERNS_DEPTH_MAX 33

/* Whether the peer runs as owner, effectively and really: its real uid is read only when its effective one is. */
static bool runs_as(pid_t pid, uid_t uid, uid_t owner)
{
	struct proc_ids ids;
	struct err ignored;
	if (uid != owner || proc_ids_read(pid, &ids, &ignored) < 0)
		return false;
	return owner_is(uid, ids.uid[0], owner);
}

/* The host uid that uid 0 of pid's own user namespace is, (uid_t)-1 where it maps none. */
static uid_t ns_root_of(pid_t pid)
{
	struct idmap m;
	uint32_t host;
	if (idmap_read(pid, "uid_map", &m) < 0 || !idmap_to_host(&m, 0, &host))
		return (uid_t)-1;
	return host;
}

uint64_t peer_account(pid_t pid, uid_t uid, ino_t own_userns, bool *owner)
{
	char path[64];
	struct stat st;
	_cleanup_close_ int fd = -1;
	uid_t made_by = (uid_t)-1; /* set by the kernel; valgrind does not know NS_GET_OWNER_UID */

	/* Where the namespaces cannot be read, the peer is charged to its own uid, whose owner it is. */
	*owner = true;
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
	/* The common case, a peer in our namespace, in one system call. */
	if (pid <= 0 || stat(path, &st) < 0 || st.st_ino == own_userns)
		return uid;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || fstat(fd, &st) < 0)
		return uid;
	/* Up to the namespace whose parent is ours: the outermost one below the daemon's. */
	for (int depth = 0; depth < USERNS_DEPTH_MAX; depth++) {
		struct stat pst;
		_cleanup_close_ int parent = ioctl(fd, NS_GET_PARENT);
		if (parent < 0 || fstat(parent, &pst) < 0)
			return uid; /* not below ours (EPERM): the peer came through a socket made visible elsewhere */
		if (pst.st_ino == own_userns) {
			if (ioctl(fd, NS_GET_OWNER_UID, &made_by) < 0)
				return uid;
			/*
			 * The owners: the user who made it, and the root of a namespace made directly beneath ours, as a
			 * peer in that namespace itself sees it (its own map): a container's root, whether root or a user
			 * (unprivileged LXC) made the container. A member's own namespace is a level further down.
			 */
			*owner = (made_by != 0 && runs_as(pid, uid, made_by)) || (depth == 0 && runs_as(pid, uid, ns_root_of(pid)));
			return made_by != 0 ? made_by : PEER_ACCOUNT_USERNS | (uint64_t)st.st_ino;
		}
		close(fd);
		fd = parent;
		parent = -1;
		st = pst;
	}
	return uid;
}
