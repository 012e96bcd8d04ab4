#pragma once
#include <systemd/sd-bus.h>

/* Userdata: the struct conn; server_app() is the struct upstream. */
extern const sd_bus_vtable relay_vtable[];
