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
/* Waits up to timeout_ms for fd to be readable; 0, -ETIMEDOUT or -errno. */
int scm_wait_readable(int fd, int timeout_ms);
