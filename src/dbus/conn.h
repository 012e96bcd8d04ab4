/* One client connection: its sd-bus server object and the requester behind it. */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "common/cgmanager_wire.h"
#include "ops/ops.h"

#include "dbus/intake.h"
#include "dbus/loop.h"

struct deferred_registry;
struct event_pump;
struct scm_registry;
struct server;
struct subscriber;
struct uid_slot;

struct conn {
	struct server *srv;
	struct ops *ops;        /* the server's (NULL in cgproxy) */
	struct scm_registry *scm;           /* the server's Scm exchanges (dbus/scm_server.h) */
	struct deferred_registry *deferred; /* the server's calls that wait on the kernel (dbus/deferred.h) */
	struct event_pump *events;          /* the server's event source in its loop (dbus/events.h); NULL in cgproxy */
	struct subscriber *sub;             /* the Event signals waiting for it (dbus/events.h); NULL until one does */
	sd_bus *bus;
	int fd;                 /* the client's socket: read by the intake, written by sd-bus */
	struct loop_watch watch; /* fd in the server's loop */
	struct intake in;
	struct requester req;
	struct uid_slot *slot;  /* its account's connection count (dbus/admission.h) */
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

static inline struct ops *conn_ops(const struct conn *c)
{
	return c->ops;
}
