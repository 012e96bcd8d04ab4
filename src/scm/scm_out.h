/* Datagrams waiting to go out on an Scm fd: results are queued, then flushed as the socket takes them. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

struct scm_datagram {
	char *buf;
	size_t len;
	bool has_cred;
	struct ucred cred;
};

struct scm_out {
	struct scm_datagram *d;
	size_t n, cap, sent;
};

int scm_out_push(struct scm_out *q, const void *buf, size_t len, const struct ucred *cred);
int scm_out_byte(struct scm_out *q, char c);
int scm_out_string(struct scm_out *q, const char *s);   /* NULL: the empty failure datagram */
int scm_out_int32(struct scm_out *q, int32_t v);
/* The count, then one credential per pid: the kernel translates each into the receiver's pid namespace. */
int scm_out_pids(struct scm_out *q, const pid_t *pids, size_t n);
/* The count, the length, the entries one after the other. */
int scm_out_blob(struct scm_out *q, int32_t count, const char *data, size_t len);
int scm_out_reason(struct scm_out *q, const char *error_name, const char *message);
/* Sends what the socket takes: 1 when all is out, 0 when it would block, -errno. */
int scm_out_flush(struct scm_out *q, int fd);
void scm_out_free(struct scm_out *q);
