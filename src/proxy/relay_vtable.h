#pragma once
#include <systemd/sd-bus.h>

/* Userdata: the struct conn; server_app() is the struct upstream. */
extern const sd_bus_vtable relay_vtable[];
/* cgmanager1 on a cgproxy: every call answered with the host daemon's socket to call instead. */
extern const sd_bus_vtable key_api_upstream_vtable[];
