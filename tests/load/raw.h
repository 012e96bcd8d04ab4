/*
 * A raw D-Bus client for cgm-load: marshalled by hand on a plain unix
 * socket, so that a client can stop (or be killed) at any byte of the
 * protocol, and the Scm side channel of the 0.42 *Scm methods.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define RAW_PATH "/org/linuxcontainers/cgmanager"
#define RAW_IFACE0 "org.linuxcontainers.cgmanager0_0"
#define RAW_IFACE1 "org.linuxcontainers.cgmanager1"

/* One argument of a call: 's' (s), 'i' (i), 'h' (an fd index, i). */
struct raw_arg {
	char t;
	const char *s;
	int32_t i;
};

/* A connected, blocking socket with send and receive timeouts of ms; -1 on failure. */
int raw_connect(const char *path, int timeout_ms);
/* The auth line alone, then (if begin) the rest up to BEGIN. 0, or -1 when the daemon refused or hung up. */
int raw_auth_start(int fd);
int raw_auth_finish(int fd);
/* Marshals a method call into out (at most cap bytes); returns its length, 0 if it does not fit. */
size_t raw_call(uint8_t *out, size_t cap, uint32_t serial, const char *iface, const char *member,
                const struct raw_arg *args, int nargs, int nfds);
/* As raw_call, but the header announces a body of body_len bytes (the body is not written). */
size_t raw_header(uint8_t *out, size_t cap, uint32_t serial, const char *member, uint32_t body_len);
/* Writes all of p (with fd, if >= 0, on the first byte); 0 or -1. */
int raw_send(int fd, const void *p, size_t len, int pass_fd);
/* Reads one message; returns its type (2 return, 3 error, ...) or -1. */
int raw_read(int fd);
/* The same; *rest, *len: what followed the fixed header (fields and body), kept until the next read (NULL
 * if it was over 1 MiB). */
int raw_read_body(int fd, const uint8_t **rest, size_t *len);
/* One call and its answer: the answer's type, or -1. */
int raw_roundtrip(int fd, uint32_t serial, const char *iface, const char *member, const struct raw_arg *args,
                  int nargs);

/* The Scm side channel: sends SCM_CREDENTIALS of ours on the datagram socket. */
int raw_scm_cred(int sock);
/* Waits up to ms for one datagram (its length, -1 on timeout or error). */
ssize_t raw_scm_recv(int sock, void *buf, size_t len, int ms);
