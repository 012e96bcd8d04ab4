/* ops errors as D-Bus errors: a name a program can test, the message as ops worded it. */
#pragma once
#include <systemd/sd-bus.h>

#include "util/err.h"

const char *dbus_error_name(enum err_kind kind);
int reply_error(sd_bus_message *m, const struct err *e);
