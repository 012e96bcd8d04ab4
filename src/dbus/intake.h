/*
 * What a client sends, checked before sd-bus reads it. sd-bus reads any
 * message up to 128 MiB into memory before it looks at it, so a connection's
 * sd-bus reads from a socketpair, and the server relays the client's bytes
 * into it: the auth exchange as it comes (at most INTAKE_AUTH_MAX bytes), then
 * the messages, each header checked against the size limit before any byte
 * of it is passed on. Output does not pass here: sd-bus writes to the client.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define INTAKE_CHUNK (64 * 1024) /* read from a client in one turn, at most */
#define INTAKE_AUTH_MAX 1024     /* the auth exchange, up to BEGIN; a real one is under 100 bytes */
#define INTAKE_FDS_MAX 8         /* fds one message may carry (the API passes at most one) */

struct intake {
	int bus_fd;         /* our end of the socketpair; sd-bus reads the other */
	size_t max_message; /* bytes, header included */
	bool running;       /* past the BEGIN line: the stream is messages */
	bool await_bus;     /* BEGIN was relayed: nothing more is until sd-bus says it is running */
	int msg_fds;        /* fds of the message being read so far */
	bool eof;           /* the client will send nothing more */
	bool cr;            /* the auth line read so far ends in \r */
	uint32_t auth_bytes, line_len;
	char line[8];       /* the start of the auth line being read */
	uint8_t hdr[16];    /* the fixed header of the next message, as far as it came */
	uint32_t hdr_len;
	uint64_t left;      /* bytes of the current message still to come after its header */
	/* What the bus socket did not take yet (rare: it is drained before each read); fds go at fd_at. */
	uint8_t *pend;
	size_t pend_len, pend_off, pend_fd_at;
	int pend_fds[INTAKE_FDS_MAX], pend_nfds;
};

/* Makes the socketpair; *bus_end is sd-bus's end. max_message bounds a message, header included. */
int intake_init(struct intake *in, size_t max_message, int *bus_end);
void intake_free(struct intake *in);
/* Bytes read from the client that the bus socket has not taken yet. */
bool intake_pending(const struct intake *in);
/*
 * Passes on what the bus socket did not take before, then reads once from the
 * client's fd (at most INTAKE_CHUNK, into buf: the calling thread's, reused
 * from one call to the next) and relays it. Call it only once sd-bus
 * has read and handled everything relayed before; bus_running says whether
 * sd-bus has finished the auth exchange. Returns 1 when bytes went to sd-bus,
 * 0 when none (nothing to read, the bus socket is full, or the client hung up:
 * in->eof), negative when the client broke a limit or the protocol: *why then
 * says how (a static string).
 *
 * The intake and sd-bus must agree on where the messages start: sd-bus stays
 * in the auth exchange after a BEGIN it refused (one before an accepted AUTH),
 * and would read as one message what the intake took for several. So nothing
 * after a BEGIN is relayed until sd-bus is running, and a client whose BEGIN
 * sd-bus did not take is refused.
 */
int intake_pump(struct intake *in, int client_fd, bool bus_running, uint8_t buf[INTAKE_CHUNK], const char **why);
