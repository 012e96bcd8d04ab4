/* Replies: ops errors as D-Bus errors (a name a program can test, the message as ops worded it), and lists. */
#pragma once
#include <systemd/sd-bus.h>

#include "util/err.h"

const char *dbus_error_name(enum err_kind kind);
int reply_error(sd_bus_message *m, const struct err *e);

#include "cgfs/cgdir.h"
#include "util/strv.h"

int reply_strv(sd_bus_message *m, const strv *s);
int reply_pids(sd_bus_message *m, const pidv *p);
/*
 * An array reply in two halves around the caller's appends: the method return with the array opened (element
 * type contents), then closed, sent and freed. Each half passes on a failure it is handed (r < 0).
 */
int reply_array_open(sd_bus_message *m, const char *contents, sd_bus_message **reply);
int reply_array_send(sd_bus_message *reply, int r);
