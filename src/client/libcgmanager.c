#include "cgmanager.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

#define PATH "/org/linuxcontainers/cgmanager"
#define IFACE "org.linuxcontainers.cgmanager0_0"

struct cgm_client {
	sd_bus *bus;
};

void cgm_error_clear(cgm_error *err)
{
	if (!err)
		return;
	free(err->name);
	free(err->message);
	err->name = err->message = NULL;
}

static int set_error(cgm_error *err, const char *name, const char *message, int r)
{
	if (err) {
		cgm_error_clear(err);
		err->name = strdup(name ? name : "org.freedesktop.DBus.Error.Failed");
		err->message = strdup(message ? message : strerror(r < 0 ? -r : r));
	}
	return r < 0 ? r : -EIO;
}

static int from_bus_error(cgm_error *err, sd_bus_error *e, int r)
{
	int rc = set_error(err, e->name, e->message, r);
	sd_bus_error_free(e);
	return rc;
}

const char *cgm_default_socket(void)
{
	static const char *const known[] = {"/sys/fs/cgroup/cgmanager/sock", "/run/cgmanager/sock"};
	const char *env = getenv(CGM_ENV_SOCKET);
	if (env && *env)
		return env;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (access(known[i], F_OK) == 0)
			return known[i];
	return known[1];
}

int cgm_connect(const char *socket_path, cgm_client **out, cgm_error *err)
{
	cgm_client *c = calloc(1, sizeof(*c));
	char address[4200];
	int r;

	if (!c)
		return set_error(err, NULL, NULL, -ENOMEM);
	if (!socket_path)
		socket_path = cgm_default_socket();
	snprintf(address, sizeof(address), "unix:path=%s", socket_path);
	if ((r = sd_bus_new(&c->bus)) < 0 || (r = sd_bus_set_address(c->bus, address)) < 0 ||
	    (r = sd_bus_negotiate_fds(c->bus, 1)) < 0 || (r = sd_bus_start(c->bus)) < 0) {
		char msg[4300];
		snprintf(msg, sizeof(msg), "cannot connect to cgmanager at %s: %s", socket_path, strerror(-r));
		sd_bus_unref(c->bus);
		free(c);
		return set_error(err, "org.freedesktop.DBus.Error.NoServer", msg, r);
	}
	*out = c;
	return 0;
}

void cgm_disconnect(cgm_client *c)
{
	if (!c)
		return;
	sd_bus_flush_close_unref(c->bus);
	free(c);
}

/* Calls member with the va-list arguments; *reply (if given) is the answer to read. */
static int call(cgm_client *c, const char *member, sd_bus_message **reply, cgm_error *err, const char *types, ...)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL, *rep = NULL;
	va_list ap;
	int r = sd_bus_message_new_method_call(c->bus, &m, NULL, PATH, IFACE, member);
	if (r >= 0) {
		va_start(ap, types);
		r = sd_bus_message_appendv(m, types, ap);
		va_end(ap);
	}
	if (r >= 0)
		r = sd_bus_call(c->bus, m, 0, &e, &rep);
	sd_bus_message_unref(m);
	if (r < 0)
		return from_bus_error(err, &e, r);
	if (reply)
		*reply = rep;
	else
		sd_bus_message_unref(rep);
	return 0;
}

static int read_reply(sd_bus_message *rep, cgm_error *err, int r)
{
	sd_bus_message_unref(rep);
	if (r < 0)
		return set_error(err, "org.freedesktop.DBus.Error.InvalidSignature", "unexpected reply from cgmanager", r);
	return 0;
}

int cgm_ping(cgm_client *c, cgm_error *err)
{
	return call(c, "Ping", NULL, err, "i", 0);
}

int cgm_api_version(cgm_client *c, int *version, cgm_error *err)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int32_t v;
	int r = sd_bus_get_property_trivial(c->bus, NULL, PATH, IFACE, "api_version", &e, 'i', &v);
	if (r < 0)
		return from_bus_error(err, &e, r);
	*version = v;
	return 0;
}

static int string_call(cgm_client *c, const char *member, char **out, cgm_error *err, sd_bus_message *rep, int r)
{
	const char *s;
	(void)c;
	(void)member;
	if (r < 0)
		return r;
	r = sd_bus_message_read(rep, "s", &s);
	if (r >= 0 && !(*out = strdup(s)))
		r = -ENOMEM;
	return read_reply(rep, err, r);
}

int cgm_get_pid_cgroup(cgm_client *c, const char *controller, pid_t pid, char **out, cgm_error *err)
{
	sd_bus_message *rep = NULL;
	int r = call(c, "GetPidCgroup", &rep, err, "si", controller, (int32_t)pid);
	return string_call(c, "GetPidCgroup", out, err, rep, r);
}

int cgm_get_pid_cgroup_abs(cgm_client *c, const char *controller, pid_t pid, char **out, cgm_error *err)
{
	sd_bus_message *rep = NULL;
	int r = call(c, "GetPidCgroupAbs", &rep, err, "si", controller, (int32_t)pid);
	return string_call(c, "GetPidCgroupAbs", out, err, rep, r);
}

static int int_reply(sd_bus_message *rep, int *out, cgm_error *err, int r)
{
	int32_t v = 0;
	if (r < 0)
		return r;
	r = sd_bus_message_read(rep, "i", &v);
	if (out)
		*out = v;
	return read_reply(rep, err, r);
}

int cgm_create(cgm_client *c, const char *controller, const char *cgroup, int *existed, cgm_error *err)
{
	sd_bus_message *rep = NULL;
	int r = call(c, "Create", &rep, err, "ss", controller, cgroup);
	return int_reply(rep, existed, err, r);
}

int cgm_chown(cgm_client *c, const char *controller, const char *cgroup, uid_t uid, gid_t gid, cgm_error *err)
{
	return call(c, "Chown", NULL, err, "ssii", controller, cgroup, (int32_t)uid, (int32_t)gid);
}

int cgm_chmod(cgm_client *c, const char *controller, const char *cgroup, const char *file, int mode,
              cgm_error *err)
{
	return call(c, "Chmod", NULL, err, "sssi", controller, cgroup, file, (int32_t)mode);
}

int cgm_move_pid(cgm_client *c, const char *controller, const char *cgroup, pid_t pid, cgm_error *err)
{
	return call(c, "MovePid", NULL, err, "ssi", controller, cgroup, (int32_t)pid);
}

int cgm_move_pid_abs(cgm_client *c, const char *controller, const char *cgroup, pid_t pid, cgm_error *err)
{
	return call(c, "MovePidAbs", NULL, err, "ssi", controller, cgroup, (int32_t)pid);
}

int cgm_get_value(cgm_client *c, const char *controller, const char *cgroup, const char *key, char **value,
                  cgm_error *err)
{
	sd_bus_message *rep = NULL;
	int r = call(c, "GetValue", &rep, err, "sss", controller, cgroup, key);
	return string_call(c, "GetValue", value, err, rep, r);
}

int cgm_set_value(cgm_client *c, const char *controller, const char *cgroup, const char *key, const char *value,
                  cgm_error *err)
{
	return call(c, "SetValue", NULL, err, "ssss", controller, cgroup, key, value);
}

int cgm_remove(cgm_client *c, const char *controller, const char *cgroup, int recursive, int *existed,
               cgm_error *err)
{
	sd_bus_message *rep = NULL;
	int r = call(c, "Remove", &rep, err, "ssi", controller, cgroup, (int32_t)(recursive != 0));
	return int_reply(rep, existed, err, r);
}

static int pids_reply(sd_bus_message *rep, pid_t **pids, size_t *n, cgm_error *err, int r)
{
	const void *data;
	size_t size;
	if (r < 0)
		return r;
	r = sd_bus_message_read_array(rep, 'i', &data, &size);
	if (r >= 0) {
		*n = size / sizeof(int32_t);
		*pids = malloc(size ? size : 1);
		if (*pids)
			memcpy(*pids, data, size);
		else
			r = -ENOMEM;
	}
	return read_reply(rep, err, r);
}

int cgm_get_tasks(cgm_client *c, const char *controller, const char *cgroup, pid_t **pids, size_t *n,
                  cgm_error *err)
{
	sd_bus_message *rep = NULL;
	int r = call(c, "GetTasks", &rep, err, "ss", controller, cgroup);
	return pids_reply(rep, pids, n, err, r);
}

int cgm_get_tasks_recursive(cgm_client *c, const char *controller, const char *cgroup, pid_t **pids, size_t *n,
                            cgm_error *err)
{
	sd_bus_message *rep = NULL;
	int r = call(c, "GetTasksRecursive", &rep, err, "ss", controller, cgroup);
	return pids_reply(rep, pids, n, err, r);
}

void cgm_strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

static int strv_reply(sd_bus_message *rep, char ***out, cgm_error *err, int r)
{
	if (r < 0)
		return r;
	r = sd_bus_message_read_strv(rep, out);
	if (r >= 0 && !*out && !(*out = calloc(1, sizeof(char *))))
		r = -ENOMEM;
	return read_reply(rep, err, r);
}

int cgm_list_children(cgm_client *c, const char *controller, const char *cgroup, char ***out, cgm_error *err)
{
	sd_bus_message *rep = NULL;
	int r = call(c, "ListChildren", &rep, err, "ss", controller, cgroup);
	return strv_reply(rep, out, err, r);
}

int cgm_list_controllers(cgm_client *c, char ***out, cgm_error *err)
{
	sd_bus_message *rep = NULL;
	int r = call(c, "ListControllers", &rep, err, "");
	return strv_reply(rep, out, err, r);
}

int cgm_remove_on_empty(cgm_client *c, const char *controller, const char *cgroup, cgm_error *err)
{
	return call(c, "RemoveOnEmpty", NULL, err, "ss", controller, cgroup);
}

int cgm_prune(cgm_client *c, const char *controller, const char *cgroup, cgm_error *err)
{
	return call(c, "Prune", NULL, err, "ss", controller, cgroup);
}

void cgm_keys_free(cgm_key *keys, size_t n)
{
	for (size_t i = 0; keys && i < n; i++)
		free(keys[i].name);
	free(keys);
}

int cgm_list_keys(cgm_client *c, const char *controller, const char *cgroup, cgm_key **keys, size_t *n,
                  cgm_error *err)
{
	sd_bus_message *rep = NULL;
	size_t cap = 0;
	int r = call(c, "ListKeys", &rep, err, "ss", controller, cgroup);
	if (r < 0)
		return r;
	*keys = NULL;
	*n = 0;
	r = sd_bus_message_enter_container(rep, 'a', "(suuu)");
	while (r >= 0) {
		const char *name;
		uint32_t uid, gid, mode;
		r = sd_bus_message_read(rep, "(suuu)", &name, &uid, &gid, &mode);
		if (r <= 0)
			break;
		if (*n == cap) {
			cap = cap ? cap * 2 : 32;
			cgm_key *nk = realloc(*keys, cap * sizeof(**keys));
			if (!nk) {
				r = -ENOMEM;
				break;
			}
			*keys = nk;
		}
		(*keys)[*n] = (cgm_key){strdup(name), uid, gid, mode};
		(*n)++;
	}
	if (r < 0) {
		cgm_keys_free(*keys, *n);
		*keys = NULL;
		*n = 0;
	}
	return read_reply(rep, err, r);
}
