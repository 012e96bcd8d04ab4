/*
 * The org.freedesktop.systemd1 subset (cgmanager --systemd1): the daemon as a client of a message bus,
 * owning org.freedesktop.systemd1 there and serving the part of systemd's Manager, Unit, Scope and Slice
 * interfaces that systemd-run --scope and the container runtimes' systemd drivers use, through the same ops
 * and policy as the other interfaces. Unit names map beneath the daemon's root (systemd1/unit_name.h).
 */
#pragma once
#include "ops/ops.h"
#include "util/err.h"

#define SYSTEMD1_DEFAULT_ADDRESS "unix:path=/run/dbus/system_bus_socket"

struct loop;
struct systemd1;

/*
 * Connects to the bus at address and takes the name; its fd joins loop. Fails when the bus cannot be reached
 * or another connection owns the name (another cgmanager, or systemd itself). Once running, a bus that goes
 * away is logged and connected to again.
 */
struct systemd1 *systemd1_new(struct ops *o, struct loop *l, const char *address, struct err *e);
void systemd1_free(struct systemd1 *s);
