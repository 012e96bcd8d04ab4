/*
 * A client's calls in the order it sent them: one relayed at a time per connection, the later ones waiting
 * here, so that a client that sends Create and then MovePid without waiting has them done in that order
 * (as the daemon, which answers a connection's calls in order, would).
 */
#pragma once
#include <systemd/sd-bus.h>

struct conn;
struct upstream;

/* Calls of one connection that may wait behind the one under way; later ones are refused (LimitsExceeded). */
#define CLIENT_CALLS_WAITING_MAX 16

/* Relays m, a call of c, once c's earlier calls are answered. 1 (handled) or -errno. */
int client_calls_relay(struct conn *c, struct upstream *u, sd_bus_message *m);
/* c is being freed (server_on_conn_gone): its waiting calls are dropped, the one under way answers no one. */
void client_calls_gone(struct conn *c);
