/* The serving loop: one thread, one epoll set, every client non-blocking; connections come from the acceptor's thread (dbus/acceptor.h). */
#pragma once
#include <stddef.h>
#include <systemd/sd-bus.h>

#include "dbus/deferred.h"
#include "dbus/intake.h"
#include "ops/key_api.h"
#include "ops/ops.h"
#include "util/err.h"

struct server;

/*
 * What one client, one uid and everyone together may hold (see "LIMITS" in
 * cgmanager(8)). 0 for a count means the default.
 */
struct server_limits {
	unsigned max_conns;         /* every connection; default from RLIMIT_NOFILE */
	unsigned max_conns_per_uid; /* of each uid but root, which only max_conns bounds */
	size_t max_message;         /* bytes of one incoming message, header included */
};
#define SERVER_DEFAULT_CONNS_PER_UID 128
#define SERVER_DEFAULT_MAX_MESSAGE (128 * 1024)
#define SERVER_MAX_MESSAGE_MAX (64 * 1024 * 1024) /* the largest --max-message-size */
/*
 * The client's socket, its pidfd, its /proc/PID/cgroup and the intake's socketpair, and the client's own fds in flight: up to
 * INTAKE_FDS_MAX with the message sd-bus is reading and as many with the next one relayed to it; and the pidfds its
 * one waiting Kill keeps (DEFERRED_PER_CONN).
 */
#define SERVER_FDS_PER_CONN (5 + 2 * INTAKE_FDS_MAX + DEFERRED_PER_CONN * OPS_JOB_PIDFDS_MAX)
#define SERVER_FDS_RESERVED 1024  /* for Scm exchanges, requests and the hierarchies */
#define SERVER_ROOT_RESERVED_CONNS 16 /* of max_conns, that uids other than root cannot take */
#define SERVER_AUTH_TIMEOUT_SEC 10
#define SERVER_QUEUED_REPLIES_MAX 16 /* replies held for a client that does not read (beyond its socket) */

/*
 * Each connection serves iface0 (the cgmanager0_0 vtable; its userdata is
 * the struct conn) and, unless NULL, iface1 (cgmanager1) on the cgmanager object. o is the daemon's ops, or NULL
 * in cgproxy, whose handlers find their own state through server_app().
 */
struct server *server_new(struct ops *o, const sd_bus_vtable *iface0, const sd_bus_vtable *iface1, void *app,
                          int listen_fd, struct err *e);
/* Replaces the defaults (taken from RLIMIT_NOFILE when the server was made); zeros keep them. */
void server_set_limits(struct server *s, const struct server_limits *l);
void server_get_limits(struct server *s, struct server_limits *l);
/* The default of max_conns under the current (soft) file descriptor limit. */
unsigned server_default_max_conns(void);
void *server_app(struct server *s);
/* The server's event loop, for what else the daemon serves from it (dbus/systemd1.h). */
struct loop *server_loop(struct server *s);
/* Serves until SIGTERM or SIGINT; returns 0 on a clean stop. */
int server_run(struct server *s);
/*
 * One turn of server_run: waits up to timeout_ms (-1: no limit) for events, but
 * not beyond what is due, handles them and whatever is due. The first turn starts
 * the thread that accepts connections (under the limits set by then). 0, 1 on SIGTERM or SIGINT, -1 on failure. For a
 * caller that drives the loop itself (tests/fuzz/fuzz_dispatch.c).
 */
int server_turn(struct server *s, int timeout_ms);
/* Whether the serving thread has taken over any connection (the acceptor hands them over authenticated). */
bool server_serves_any(const struct server *s);
/* Whether calls wait on the kernel (dbus/deferred.h): a turn then ends by the time the next is stepped. */
bool server_has_waiting_calls(const struct server *s);
void server_free(struct server *s);
