/* One client connection: its sd-bus server object and the requester behind it. */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "common/cgmanager_wire.h"
#include "ops/ops.h"

#include "dbus/intake.h"

struct server;
struct uid_slot;

struct conn {
	int kind; /* LOOP_ITEM_CONN */
	struct server *srv;
	sd_bus *bus;
	int fd;                 /* the client's socket: read by the intake, written by sd-bus */
	struct intake in;
	struct requester req;
	struct uid_slot *slot;  /* its account's connection count (dbus/admission.h) */
	uint32_t epoll_events;
	bool busy;              /* to be processed again next turn (on the server's busy list) */
	bool drained;           /* sd-bus has read and answered everything relayed to it */
	bool throttled;         /* too many replies wait unread: the client is not read until it reads */
	unsigned objects;       /* which of its objects are registered on its bus (each with its first call) */
	unsigned serial;        /* for the unique name Hello hands out, and to tell connections apart */
	struct conn *prev, *next;           /* every connection */
	struct conn *busy_prev, *busy_next;
};

/* The interfaces a connection serves; userdata is the struct conn. */
extern const sd_bus_vtable iface0_vtable[];
extern const sd_bus_vtable iface1_vtable[];
extern const sd_bus_vtable bus_driver_vtable[];
struct ops *conn_ops(const struct conn *c);

/* What the Scm side channel needs of the server it runs in. */
struct scm_registry;
struct ops *server_ops(struct server *s);
int server_epoll_fd(struct server *s);
struct scm_registry *server_scm(struct server *s);
/* The calls whose answer waits (dbus/deferred.h), and a nudge once one was answered on c. */
struct deferred_registry *server_deferred(struct server *s);
void server_conn_wake(struct conn *c);
uint64_t now_usec(void);
