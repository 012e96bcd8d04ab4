/* The accept loop: one thread, one epoll set, every client non-blocking. */
#pragma once
#include <systemd/sd-bus.h>

#include "ops/ops.h"
#include "util/err.h"

struct server;

/*
 * Each connection serves iface0 (the cgmanager0_0 vtable; its userdata is
 * the struct conn) and, unless NULL, iface1 (cgmanager1) on the cgmanager object. o is the daemon's ops, or NULL
 * in cgproxy, whose handlers find their own state through server_app().
 */
struct server *server_new(struct ops *o, const sd_bus_vtable *iface0, const sd_bus_vtable *iface1, void *app,
                          int listen_fd, struct err *e);
void *server_app(struct server *s);
/* Serves until SIGTERM or SIGINT; returns 0 on a clean stop. */
int server_run(struct server *s);
void server_free(struct server *s);
