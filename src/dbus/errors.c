#include "dbus/errors.h"

const char *dbus_error_name(enum err_kind kind)
{
	switch (kind) {
	case ERR_ACCESS:
		return SD_BUS_ERROR_ACCESS_DENIED;
	case ERR_INVALID:
		return SD_BUS_ERROR_INVALID_ARGS;
	case ERR_NOT_FOUND:
		return SD_BUS_ERROR_FILE_NOT_FOUND;
	case ERR_BUSY:
		return "org.linuxcontainers.cgmanager.Error.Busy";
	case ERR_NOT_SUPPORTED:
		return SD_BUS_ERROR_NOT_SUPPORTED;
	case ERR_LIMIT:
		return SD_BUS_ERROR_LIMITS_EXCEEDED;
	default:
		return SD_BUS_ERROR_FAILED;
	}
}

int reply_error(sd_bus_message *m, const struct err *e)
{
	return sd_bus_reply_method_errorf(m, dbus_error_name(e->kind), "%s", e->msg[0] ? e->msg : "request failed");
}

int reply_pids(sd_bus_message *m, const pidv *p)
{
	sd_bus_message *reply = NULL;
	int r = sd_bus_message_new_method_return(m, &reply);
	if (r >= 0)
		r = sd_bus_message_append_array(reply, 'i', p->v, p->n * sizeof(pid_t));
	if (r >= 0)
		r = sd_bus_send(NULL, reply, NULL);
	sd_bus_message_unref(reply);
	return r;
}

int reply_strv(sd_bus_message *m, const strv *s)
{
	sd_bus_message *reply = NULL;
	char *empty[] = {NULL};
	int r = sd_bus_message_new_method_return(m, &reply);
	if (r >= 0)
		r = sd_bus_message_append_strv(reply, s->v ? s->v : empty);
	if (r >= 0)
		r = sd_bus_send(NULL, reply, NULL);
	sd_bus_message_unref(reply);
	return r;
}

int reply_array_open(sd_bus_message *m, const char *contents, sd_bus_message **reply)
{
	int r = sd_bus_message_new_method_return(m, reply);
	return r < 0 ? r : sd_bus_message_open_container(*reply, 'a', contents);
}

int reply_array_send(sd_bus_message *reply, int r)
{
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	if (r >= 0)
		r = sd_bus_send(NULL, reply, NULL);
	sd_bus_message_unref(reply);
	return r;
}
