/*
 * The few org.freedesktop.DBus calls that bus clients make before anything
 * else (busctl --address, gdbus --address), answered on a peer-to-peer
 * connection where no bus daemon exists.
 */
#include <stdio.h>

#include "dbus/conn.h"

static int m_hello(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct conn *c = u;
	char name[32];
	snprintf(name, sizeof(name), ":1.%u", c->serial);
	return sd_bus_reply_method_return(m, "s", name);
}

static int m_ignore(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	return sd_bus_reply_method_return(m, "");
}

static int m_get_name_owner(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	return sd_bus_reply_method_return(m, "s", ":1.0");
}

const sd_bus_vtable bus_driver_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("Hello", "", "s", m_hello, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("AddMatch", "s", "", m_ignore, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("RemoveMatch", "s", "", m_ignore, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("GetNameOwner", "s", "s", m_get_name_owner, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_VTABLE_END,
};
