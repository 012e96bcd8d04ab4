/*
 * The daemon's side of the Scm calls: after the immediate empty D-Bus reply,
 * each exchange lives on in the event loop (non-blocking, with a deadline)
 * until the client's credentials have arrived and the result is out.
 */
#pragma once
#include <systemd/sd-bus.h>

#include "ops/ops.h"
#include "scm/scm_methods.h"

struct conn;
struct loop;
struct scm_exchange;

/* The exchanges one server has under way: their sockets and deadlines are in its loop; ops runs them. */
struct scm_registry {
	struct loop *loop;
	struct ops *ops;
	struct scm_exchange *head;
	unsigned count;
};

void scm_registry_init(struct scm_registry *reg, struct loop *loop, struct ops *ops);
/* Handles an XxxScm method call on c, in c's registry (c->scm); replies to m. */
int scm_exchange_start(struct conn *c, sd_bus_message *m, const struct scm_method *method);
/* The connection that started them closed: the exchanges still waiting for credentials end (a datagram
 * socket does not tell when its peer is gone, so they would wait for their deadline). */
void scm_registry_cancel_conn(struct scm_registry *reg, unsigned conn_serial);
void scm_registry_free(struct scm_registry *reg);
