/*
 * The daemon's side of the Scm calls: after the immediate empty D-Bus reply,
 * each exchange lives on in the event loop (non-blocking, with a deadline)
 * until the client's credentials have arrived and the result is out.
 */
#pragma once
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "scm/scm_methods.h"

struct conn;
struct scm_exchange;

#define LOOP_ITEM_CONN 1
#define LOOP_ITEM_SCM 2

/* Handles an XxxScm method call on c; replies to m. */
int scm_exchange_start(struct conn *c, sd_bus_message *m, const struct scm_method *method);
void scm_exchange_event(struct scm_exchange *x, uint32_t events);

/* The exchanges a server has under way. */
struct scm_registry {
	struct scm_exchange *head;
	unsigned count;
};
uint64_t scm_registry_next_deadline(const struct scm_registry *reg);
void scm_registry_expire(struct scm_registry *reg, uint64_t now);
/* The connection that started them closed: the exchanges still waiting for credentials end (a datagram
 * socket does not tell when its peer is gone, so they would wait for their deadline). */
void scm_registry_cancel_conn(struct scm_registry *reg, unsigned conn_serial);
void scm_registry_free(struct scm_registry *reg);
