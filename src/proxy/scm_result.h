/*
 * An Scm result read datagram by datagram as it arrives, into the plain method's reply: cgproxy's loop
 * hands each datagram over as the socket has one, and never waits for the next.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

#include "scm/scm_methods.h"

/* The daemon sent a failure result; its reason follows. Not an errno. */
#define SCM_RESULT_REFUSED 1
/* The reply is complete. */
#define SCM_RESULT_DONE 2

struct scm_reader {
	const struct scm_method *m;
	sd_bus_message *reply; /* the plain method's return, its signature's array open */
	int parts;             /* datagrams taken */
	int32_t count;         /* of pids, names or keys */
	uint32_t len;          /* of the names' or keys' block */
	char *block;           /* the block, NUL-ended */
};

/* Starts the reply to call (the client's plain call); 0 or -errno. */
int scm_result_begin(struct scm_reader *r, sd_bus_message *call, const struct scm_method *m);
/* Where the next datagram goes: scratch, or the block once its length is known. */
void scm_result_buffer(struct scm_reader *r, void *scratch, size_t scratch_len, void **buf, size_t *len);
/* The next datagram, of n bytes, is in the buffer (which has room for a NUL after it): 0 (more to come), SCM_RESULT_DONE, SCM_RESULT_REFUSED or -errno. */
int scm_result_take(struct scm_reader *r, char *buf, size_t n, const struct ucred *c, bool have);
void scm_result_free(struct scm_reader *r);

/* The reason the daemon sent after a failure (NULL without one: 0.42 daemons send none), answered to call. */
int scm_result_reply_refusal(sd_bus_message *call, const struct scm_method *m, char *buf, ssize_t n);
