/*
 * The Scm side channel of cgmanager 0.42: an AF_UNIX SOCK_DGRAM socketpair
 * whose datagrams carry SCM_CREDENTIALS, so that the kernel checks and
 * translates pids, uids and gids between pid and user namespaces.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

/* The byte that tells the client to send (the next) credential. */
#define SCM_KICK '1'
/* The byte a credential datagram carries. */
#define SCM_CRED_BYTE 'p'

int scm_enable_passcred(int fd);
/* Sends one datagram of len bytes, with credentials if cred is given; -errno. */
int scm_send(int fd, const void *buf, size_t len, const struct ucred *cred);
/*
 * Receives one datagram into buf (up to len); *cred set and *have_cred true
 * when it carried credentials. Returns its length or -errno (-EAGAIN when
 * none is queued on a non-blocking fd).
 */
ssize_t scm_recv(int fd, void *buf, size_t len, struct ucred *cred, bool *have_cred);

/*
 * The control buffer scm_recv receives into: room for one credential and 8
 * fds. Fds that do not fit arrive truncated (MSG_CTRUNC) and the kernel
 * closes them; those that fit are closed by scm_recv.
 */
#define SCM_CONTROL_SPACE (CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int) * 8))
/* As many fds as the buffer can hold (without a credential there is room for more than 8). */
#define SCM_MAX_FDS (SCM_CONTROL_SPACE / sizeof(int))

/* What the control data of one received datagram carried. */
struct scm_control {
	bool have_cred;
	struct ucred cred;  /* the last well-formed SCM_CREDENTIALS */
	int fds[SCM_MAX_FDS]; /* SCM_RIGHTS fds, for the caller to close: nobody is owed fds on this channel */
	size_t nfds;
};

/*
 * Decodes msg's control data (msg_control, msg_controllen) without touching
 * any fd. Never reads past msg_controllen, whatever the headers claim: a
 * header whose length runs past the buffer ends the decoding.
 */
void scm_control_decode(const struct msghdr *msg, struct scm_control *out);
/* Waits up to timeout_ms for fd to be readable; 0, -ETIMEDOUT or -errno. */
int scm_wait_readable(int fd, int timeout_ms);
