#include "dbus/peer.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

int peer_requester(int fd, struct requester *out)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);
	gid_t groups[POLICY_MAX_GROUPS];
	int pidfd = -1;

	*out = (struct requester){.pidfd = -1};
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
	len = sizeof(pidfd);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) == 0)
		out->pidfd = pidfd;
	return 0;
}
