#include "cgmanager.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

#include "common/cgmanager_wire.h"

struct cgm_client {
	sd_bus *bus;
	sd_bus *key_bus;  /* where a cgproxy sent the key API: the host daemon, which identifies us itself */
	char *path;       /* the sockets they were made to, to connect again when the daemon restarts */
	char *key_path;
	pid_t pid;        /* the process that connected: only it connects again (the daemon judges by who connected) */
	int reconnect_r;  /* why connecting again failed before this call, 0 if it did not */
	const char *reconnect_path;
	cgm1_event_fn on_event; /* cgm1_on_event's */
	void *on_event_data;
	sd_bus *event_bus;      /* the connection the watches went on, and the filter there that reads Event */
	sd_bus_slot *event_filter;
	int dispatched;         /* events handed over by this cgm1_process_events */
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
	static const char *const known[] = {CGMANAGER_SOCKET_SYS_FS_CGROUP, CGMANAGER_SOCKET_RUN};
	const char *env = getenv(CGM_ENV_SOCKET);
	if (env && *env)
		return env;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (access(known[i], F_OK) == 0)
			return known[i];
	return known[1];
}

static int open_bus(const char *path, sd_bus **out)
{
	char address[4200];
	int r;
	snprintf(address, sizeof(address), "unix:path=%s", path);
	if ((r = sd_bus_new(out)) < 0 || (r = sd_bus_set_address(*out, address)) < 0 ||
	    (r = sd_bus_negotiate_fds(*out, 1)) < 0 || (r = sd_bus_start(*out)) < 0) {
		*out = sd_bus_unref(*out);
		return r;
	}
	return 0;
}

int cgm_connect(const char *socket_path, cgm_client **out, cgm_error *err)
{
	cgm_client *c = calloc(1, sizeof(*c));
	int r;

	if (!c)
		return set_error(err, NULL, NULL, -ENOMEM);
	if (!socket_path)
		socket_path = cgm_default_socket();
	if ((r = open_bus(socket_path, &c->bus)) < 0) {
		char msg[4300];
		snprintf(msg, sizeof(msg), "cannot connect to cgmanager at %s: %s", socket_path, strerror(-r));
		free(c);
		return set_error(err, "org.freedesktop.DBus.Error.NoServer", msg, r);
	}
	if (!(c->path = strdup(socket_path))) {
		cgm_disconnect(c);
		return set_error(err, NULL, NULL, -ENOMEM);
	}
	c->pid = getpid();
	*out = c;
	return 0;
}

void cgm_disconnect(cgm_client *c)
{
	if (!c)
		return;
	sd_bus_slot_unref(c->event_filter);
	sd_bus_flush_close_unref(c->key_bus);
	sd_bus_flush_close_unref(c->bus);
	free(c->path);
	free(c->key_path);
	free(c);
}

/*
 * Reconnection. A daemon that stops or restarts (SIGTERM, SIGKILL, an
 * upgrade) closes every connection; the kernel reports that on our end of
 * the socket (POLLRDHUP) before we send anything. So before each call a
 * connection the daemon has closed is made again, to the same socket path,
 * and the call goes to the new daemon: nothing is sent twice. A call whose
 * connection is lost while the daemon works on it is not sent again (it may
 * or may not have been done); it fails, and the next call connects again.
 */
static bool hung_up(sd_bus *bus)
{
	struct pollfd p = {.events = POLLRDHUP};
	if (sd_bus_is_open(bus) <= 0 || (p.fd = sd_bus_get_fd(bus)) < 0)
		return true;
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL));
}

static void ensure_open(cgm_client *c, sd_bus **bus, const char *path)
{
	sd_bus *fresh = NULL;
	int r;
	if (!*bus || !path || !hung_up(*bus) || getpid() != c->pid)
		return;
	if ((r = open_bus(path, &fresh)) < 0) {
		c->reconnect_r = r; /* the dead connection stays, so the next call tries again */
		c->reconnect_path = path;
		return;
	}
	sd_bus_close_unref(*bus);
	*bus = fresh;
}

/* The connection a call of iface goes on, made again first if the daemon closed it. */
static sd_bus *bus_for(cgm_client *c, const char *iface)
{
	bool key = c->key_bus && strcmp(iface, CGMANAGER_IFACE1) == 0;
	c->reconnect_r = 0;
	if (key)
		ensure_open(c, &c->key_bus, c->key_path);
	else
		ensure_open(c, &c->bus, c->path);
	return key ? c->key_bus : c->bus;
}

/* sd-bus reports a closed connection as an errno, or as its own Disconnected error. */
static bool connection_lost(int r, const sd_bus_error *e)
{
	if (sd_bus_error_is_set(e))
		return sd_bus_error_has_name(e, SD_BUS_ERROR_DISCONNECTED);
	return r == -ECONNRESET || r == -ENOTCONN || r == -EPIPE || r == -ESHUTDOWN || r == -ECONNREFUSED;
}

/* A call that failed because the daemon went away, worded as what happened and what the next call does. */
static int lost_error(cgm_client *c, cgm_error *err, int r)
{
	char msg[4400];
	if (c->reconnect_r < 0)
		snprintf(msg, sizeof(msg), "cannot reach cgmanager at %s: it closed the connection (stopped or restarting) "
		         "and connecting again failed: %s", c->reconnect_path, strerror(-c->reconnect_r));
	else
		snprintf(msg, sizeof(msg), "the connection to cgmanager was lost during the call (the daemon stopped or "
		         "restarted), so the call may or may not have been done; the next call connects again: %s",
		         strerror(-r));
	return set_error(err, "org.freedesktop.DBus.Error.NoServer", msg, c->reconnect_r < 0 ? c->reconnect_r : r);
}


/*
 * A cgproxy answers the key API with CGM1_ERROR_UPSTREAM, naming the host
 * daemon's socket: it cannot vouch for us there, but the daemon can see who
 * we are from our own connection. Connects there and sends m again.
 */
static int follow_upstream(cgm_client *c, sd_bus_message *m, const sd_bus_error *e, sd_bus_error *e2,
                           sd_bus_message **rep)
{
	const char *path = e->message ? strstr(e->message, CGM1_UPSTREAM_MARK) : NULL;
	sd_bus_message *again = NULL;
	int r;
	if (!path || c->key_bus)
		return -EPROTO;
	path += strlen(CGM1_UPSTREAM_MARK);
	free(c->key_path);
	if (!(c->key_path = strdup(path)))
		return -ENOMEM;
	if ((r = open_bus(path, &c->key_bus)) < 0)
		return r;
	r = sd_bus_message_new_method_call(c->key_bus, &again, NULL, CGMANAGER_OBJECT_PATH, CGMANAGER_IFACE1,
	                                   sd_bus_message_get_member(m));
	if (r >= 0)
		r = sd_bus_message_rewind(m, 1);
	if (r >= 0)
		r = sd_bus_message_copy(again, m, 1);
	if (r >= 0)
		r = sd_bus_call(c->key_bus, again, 0, e2, rep);
	sd_bus_message_unref(again);
	return r;
}

/* Sends m, built so far with status r, and unrefs it; *reply (if given) is the answer to read. */
static int send_call(cgm_client *c, sd_bus_message *m, int r, sd_bus_message **reply, cgm_error *err)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *rep = NULL;
	if (r >= 0)
		r = sd_bus_call(sd_bus_message_get_bus(m), m, 0, &e, &rep);
	if (r < 0 && sd_bus_error_has_name(&e, CGM1_ERROR_UPSTREAM)) {
		sd_bus_error e2 = SD_BUS_ERROR_NULL;
		int r2 = follow_upstream(c, m, &e, &e2, &rep);
		if (r2 >= 0 || sd_bus_error_is_set(&e2)) {
			sd_bus_error_free(&e);
			e = e2;
			r = r2;
		}
	}
	sd_bus_message_unref(m);
	if (r < 0 && (c->reconnect_r < 0 || connection_lost(r, &e))) {
		sd_bus_error_free(&e);
		return lost_error(c, err, r);
	}
	if (r < 0)
		return from_bus_error(err, &e, r);
	if (reply)
		*reply = rep;
	else
		sd_bus_message_unref(rep);
	return 0;
}

static int callv(cgm_client *c, const char *iface, const char *member, sd_bus_message **reply, cgm_error *err,
                 const char *types, va_list ap)
{
	sd_bus_message *m = NULL;
	int r = sd_bus_message_new_method_call(bus_for(c, iface), &m, NULL, CGMANAGER_OBJECT_PATH, iface, member);
	if (r >= 0)
		r = sd_bus_message_appendv(m, types, ap);
	return send_call(c, m, r, reply, err);
}

/* Calls member of cgmanager0_0 with the va-list arguments; *reply (if given) is the answer to read. */
static int call(cgm_client *c, const char *member, sd_bus_message **reply, cgm_error *err, const char *types, ...)
{
	va_list ap;
	va_start(ap, types);
	int r = callv(c, CGMANAGER_IFACE0, member, reply, err, types, ap);
	va_end(ap);
	return r;
}

/* The same for cgmanager1. */
static int call1(cgm_client *c, const char *member, sd_bus_message **reply, cgm_error *err, const char *types, ...)
{
	va_list ap;
	va_start(ap, types);
	int r = callv(c, CGMANAGER_IFACE1, member, reply, err, types, ap);
	va_end(ap);
	return r;
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
	int r = sd_bus_get_property_trivial(bus_for(c, CGMANAGER_IFACE0), NULL, CGMANAGER_OBJECT_PATH, CGMANAGER_IFACE0,
	                                    "api_version", &e, 'i', &v);
	if (r < 0 && (c->reconnect_r < 0 || connection_lost(r, &e))) {
		sd_bus_error_free(&e);
		return lost_error(c, err, r);
	}
	if (r < 0)
		return from_bus_error(err, &e, r);
	*version = v;
	return 0;
}

static int string_call(cgm_client *c, const char *member, char **out, cgm_error *err, sd_bus_message *rep, int r)
{
	const char *s;
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

/*
 * Reads an "as" into a NULL-terminated array. Not sd_bus_message_read_strv,
 * which appends with strv_extend and so counts the array at every element:
 * quadratic, 20 ms of 30 for the 10000 children of one cgroup (BENCHMARKS.md).
 */
static int read_strv_linear(sd_bus_message *rep, char ***out)
{
	char **v = calloc(1, sizeof(char *));
	size_t n = 0, cap = 1;
	const char *s;
	int r = v ? sd_bus_message_enter_container(rep, 'a', "s") : -ENOMEM;
	while (r >= 0 && (r = sd_bus_message_read_basic(rep, 's', &s)) > 0) {
		if (n + 1 == cap) {
			char **nv = realloc(v, 2 * cap * sizeof(char *));
			if (!nv) {
				r = -ENOMEM;
				break;
			}
			v = nv;
			cap *= 2;
		}
		if (!(v[n] = strdup(s))) {
			r = -ENOMEM;
			break;
		}
		v[++n] = NULL;
	}
	if (r >= 0)
		r = sd_bus_message_exit_container(rep);
	if (r < 0) {
		cgm_strv_free(v);
		return r;
	}
	*out = v;
	return 0;
}

static int strv_reply(sd_bus_message *rep, char ***out, cgm_error *err, int r)
{
	if (r < 0)
		return r;
	r = read_strv_linear(rep, out);
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


/* org.linuxcontainers.cgmanager1 */

void cgm1_values_free(cgm1_value *values, size_t n)
{
	for (size_t i = 0; values && i < n; i++) {
		free(values[i].key);
		free(values[i].value);
	}
	free(values);
}

const char *cgm1_values_find(const cgm1_value *values, size_t n, const char *key)
{
	for (size_t i = 0; values && i < n; i++)
		if (values[i].key && strcmp(values[i].key, key) == 0)
			return values[i].value;
	return NULL;
}

void cgm1_controllers_free(cgm1_controller *controllers, size_t n)
{
	for (size_t i = 0; controllers && i < n; i++) {
		free(controllers[i].controller);
		free(controllers[i].version);
	}
	free(controllers);
}

void cgm1_keys_free(cgm1_key *keys, size_t n)
{
	for (size_t i = 0; keys && i < n; i++) {
		free(keys[i].key);
		free(keys[i].access);
		free(keys[i].file);
		free(keys[i].syntax);
		free(keys[i].meaning);
	}
	free(keys);
}

static void flat_free(char **flat, size_t n)
{
	for (size_t i = 0; flat && i < n; i++)
		free(flat[i]);
	free(flat);
}

/*
 * Reads an array of k-string structs (kind 'r') or dict entries (kind 'e'),
 * contents "ss..." (k of them), into *flat: *n elements of k strings each.
 */
static int read_tuples(sd_bus_message *rep, char kind, const char *contents, size_t k, char ***flat, size_t *n)
{
	char sig[16];
	size_t cap = 0, used = 0;
	int r;

	*flat = NULL;
	*n = 0;
	snprintf(sig, sizeof(sig), "%c%s%c", kind == 'e' ? '{' : '(', contents, kind == 'e' ? '}' : ')');
	r = sd_bus_message_enter_container(rep, 'a', sig);
	while (r > 0) {
		r = sd_bus_message_enter_container(rep, kind, contents);
		if (r <= 0)
			break;
		if (used + k > cap) {
			cap = cap ? cap * 2 : 16 * k;
			char **nf = realloc(*flat, cap * sizeof(char *));
			if (!nf) {
				r = -ENOMEM;
				break;
			}
			*flat = nf;
		}
		for (size_t i = 0; i < k && r >= 0; i++) {
			const char *s;
			r = sd_bus_message_read_basic(rep, 's', &s);
			if (r == 0)
				r = -EBADMSG;
			if (r > 0 && !((*flat)[used] = strdup(s)))
				r = -ENOMEM;
			if (r > 0)
				used++;
		}
		if (r >= 0)
			r = sd_bus_message_exit_container(rep);
		if (r >= 0)
			r = 1;
	}
	if (r >= 0)
		r = sd_bus_message_exit_container(rep);
	if (r < 0) {
		flat_free(*flat, used);
		*flat = NULL;
		return r;
	}
	*n = used / k;
	return 0;
}

static int values_reply(sd_bus_message *rep, cgm1_value **values, size_t *n, cgm_error *err, int r)
{
	char **flat = NULL;
	size_t nf = 0;
	if (r < 0)
		return r;
	*values = NULL;
	*n = 0;
	r = read_tuples(rep, 'e', "ss", 2, &flat, &nf);
	if (r >= 0 && !(*values = calloc(nf ? nf : 1, sizeof(**values)))) {
		flat_free(flat, nf * 2);
		r = -ENOMEM;
	}
	if (r >= 0) {
		for (size_t i = 0; i < nf; i++)
			(*values)[i] = (cgm1_value){flat[2 * i], flat[2 * i + 1]};
		*n = nf;
		free(flat);
	}
	return read_reply(rep, err, r);
}

static int append_strv(sd_bus_message *m, const char *const *v)
{
	int r = sd_bus_message_open_container(m, 'a', "s");
	for (; r >= 0 && v && *v; v++)
		r = sd_bus_message_append_basic(m, 's', *v);
	return r < 0 ? r : sd_bus_message_close_container(m);
}

static int append_values(sd_bus_message *m, const cgm1_value *values, size_t n)
{
	int r = sd_bus_message_open_container(m, 'a', "{ss}");
	for (size_t i = 0; r >= 0 && i < n; i++)
		r = sd_bus_message_append(m, "{ss}", values[i].key ? values[i].key : "",
		                          values[i].value ? values[i].value : "");
	return r < 0 ? r : sd_bus_message_close_container(m);
}

int cgm1_list_controllers(cgm_client *c, cgm1_controller **controllers, size_t *n, cgm_error *err)
{
	sd_bus_message *rep = NULL;
	char **flat = NULL;
	size_t nf = 0;
	int r = call1(c, "ListControllers", &rep, err, "");
	if (r < 0)
		return r;
	*controllers = NULL;
	*n = 0;
	r = read_tuples(rep, 'r', "ss", 2, &flat, &nf);
	if (r >= 0 && !(*controllers = calloc(nf ? nf : 1, sizeof(**controllers)))) {
		flat_free(flat, nf * 2);
		r = -ENOMEM;
	}
	if (r >= 0) {
		for (size_t i = 0; i < nf; i++)
			(*controllers)[i] = (cgm1_controller){flat[2 * i], flat[2 * i + 1]};
		*n = nf;
		free(flat);
	}
	return read_reply(rep, err, r);
}

int cgm1_list_keys(cgm_client *c, cgm1_key **keys, size_t *n, cgm_error *err)
{
	sd_bus_message *rep = NULL;
	char **flat = NULL;
	size_t nf = 0;
	int r = call1(c, "ListKeys", &rep, err, "");
	if (r < 0)
		return r;
	*keys = NULL;
	*n = 0;
	r = read_tuples(rep, 'r', "sssss", 5, &flat, &nf);
	if (r >= 0 && !(*keys = calloc(nf ? nf : 1, sizeof(**keys)))) {
		flat_free(flat, nf * 5);
		r = -ENOMEM;
	}
	if (r >= 0) {
		for (size_t i = 0; i < nf; i++) {
			char **f = flat + 5 * i;
			(*keys)[i] = (cgm1_key){f[0], f[1], f[2], f[3], f[4]};
		}
		*n = nf;
		free(flat);
	}
	return read_reply(rep, err, r);
}

int cgm1_create(cgm_client *c, const char *name, const char *const *controllers, const cgm1_value *values,
                size_t n, int *created, cgm_error *err)
{
	sd_bus_message *m = NULL, *rep = NULL;
	int v = 0;
	int r = sd_bus_message_new_method_call(bus_for(c, CGMANAGER_IFACE1), &m, NULL, CGMANAGER_OBJECT_PATH,
	                                       CGMANAGER_IFACE1, "Create");
	if (r >= 0)
		r = sd_bus_message_append_basic(m, 's', name);
	if (r >= 0)
		r = append_strv(m, controllers);
	if (r >= 0)
		r = append_values(m, values, n);
	if ((r = send_call(c, m, r, &rep, err)) < 0)
		return r;
	r = sd_bus_message_read_basic(rep, 'b', &v);
	if (r == 0)
		r = -EBADMSG;
	if (r > 0 && created)
		*created = v != 0;
	return read_reply(rep, err, r);
}

int cgm1_set_values(cgm_client *c, const char *name, const cgm1_value *values, size_t n, cgm_error *err)
{
	sd_bus_message *m = NULL;
	int r = sd_bus_message_new_method_call(bus_for(c, CGMANAGER_IFACE1), &m, NULL, CGMANAGER_OBJECT_PATH,
	                                       CGMANAGER_IFACE1, "SetValues");
	if (r >= 0)
		r = sd_bus_message_append_basic(m, 's', name);
	if (r >= 0)
		r = append_values(m, values, n);
	return send_call(c, m, r, NULL, err);
}

int cgm1_get_values(cgm_client *c, const char *name, const char *const *keys, cgm1_value **values, size_t *n,
                    cgm_error *err)
{
	sd_bus_message *m = NULL, *rep = NULL;
	int r = sd_bus_message_new_method_call(bus_for(c, CGMANAGER_IFACE1), &m, NULL, CGMANAGER_OBJECT_PATH,
	                                       CGMANAGER_IFACE1, "GetValues");
	if (r >= 0)
		r = sd_bus_message_append_basic(m, 's', name);
	if (r >= 0)
		r = append_strv(m, keys);
	r = send_call(c, m, r, &rep, err);
	return values_reply(rep, values, n, err, r);
}

int cgm1_list_children(cgm_client *c, const char *name, char ***children, cgm_error *err)
{
	sd_bus_message *rep = NULL;
	int r = call1(c, "ListChildren", &rep, err, "s", name);
	return strv_reply(rep, children, err, r);
}

int cgm1_list_tasks(cgm_client *c, const char *name, int recursive, pid_t **pids, size_t *n, cgm_error *err)
{
	sd_bus_message *rep = NULL;
	int r = call1(c, "ListTasks", &rep, err, "sb", name, recursive != 0);
	return pids_reply(rep, pids, n, err, r);
}

int cgm1_chown(cgm_client *c, const char *name, uid_t uid, gid_t gid, cgm_error *err)
{
	return call1(c, "Chown", NULL, err, "suu", name, (uint32_t)uid, (uint32_t)gid);
}

int cgm1_move(cgm_client *c, const char *name, int pidfd, cgm_error *err)
{
	if (!sd_bus_can_send(bus_for(c, CGMANAGER_IFACE1), 'h'))
		return set_error(err, "org.freedesktop.DBus.Error.NotSupported",
		                 "the connection to cgmanager cannot pass file descriptors", -EOPNOTSUPP);
	return call1(c, "Move", NULL, err, "sh", name, pidfd);
}

int cgm1_move_pid(cgm_client *c, const char *name, pid_t pid, cgm_error *err)
{
	return call1(c, "MovePid", NULL, err, "si", name, (int32_t)pid);
}

int cgm1_get_pid_cgroup(cgm_client *c, pid_t pid, char **name, cgm_error *err)
{
	sd_bus_message *rep = NULL;
	int r = call1(c, "GetPidCgroup", &rep, err, "i", (int32_t)pid);
	return string_call(c, "GetPidCgroup", name, err, rep, r);
}

int cgm1_get_pidfd_cgroup(cgm_client *c, int pidfd, char **name, cgm_error *err)
{
	sd_bus_message *rep = NULL;
	int r;
	if (!sd_bus_can_send(bus_for(c, CGMANAGER_IFACE1), 'h'))
		return set_error(err, "org.freedesktop.DBus.Error.NotSupported",
		                 "the connection to cgmanager cannot pass file descriptors", -EOPNOTSUPP);
	r = call1(c, "GetPidfdCgroup", &rep, err, "h", pidfd);
	return string_call(c, "GetPidfdCgroup", name, err, rep, r);
}

int cgm1_delete(cgm_client *c, const char *name, int force, cgm_error *err)
{
	return call1(c, "Delete", NULL, err, "sb", name, force != 0);
}

int cgm1_kill(cgm_client *c, const char *name, int sig, cgm_error *err)
{
	return call1(c, "Kill", NULL, err, "si", name, (int32_t)sig);
}

int cgm1_freeze(cgm_client *c, const char *name, cgm_error *err)
{
	return call1(c, "Freeze", NULL, err, "s", name);
}

int cgm1_thaw(cgm_client *c, const char *name, cgm_error *err)
{
	return call1(c, "Thaw", NULL, err, "s", name);
}

/* --- events --- */

static int read_event_details(sd_bus_message *m, cgm1_event *ev)
{
	const char *key;
	int r = sd_bus_message_enter_container(m, 'a', "{sv}");
	while (r >= 0 && (r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
		if ((r = sd_bus_message_read(m, "s", &key)) < 0)
			break;
		if (!strcmp(key, "time") || !strcmp(key, "count")) {
			uint64_t *to = !strcmp(key, "time") ? &ev->time_us : &ev->count;
			r = sd_bus_message_read(m, "v", "t", to);
			ev->has_count |= !strcmp(key, "count");
		} else {
			r = sd_bus_message_skip(m, "v");
		}
		if (r >= 0)
			r = sd_bus_message_exit_container(m);
	}
	return r < 0 ? r : sd_bus_message_exit_container(m);
}

/* The daemon sends Event only to connections that watch: no match rule is needed, a filter takes them. */
static int on_event_message(sd_bus_message *m, void *data, sd_bus_error *ret)
{
	cgm_client *c = data;
	cgm1_event ev = {0};
	if (!sd_bus_message_is_signal(m, CGMANAGER_IFACE1, "Event"))
		return 0;
	if (sd_bus_message_read(m, "uss", &ev.id, &ev.name, &ev.event) < 0 || read_event_details(m, &ev) < 0)
		return 0;
	c->dispatched++;
	if (c->on_event)
		c->on_event(&ev, c->on_event_data);
	return 1;
}

int cgm1_watch(cgm_client *c, const char *name, const char *const *events, uint32_t *id, cgm_error *err)
{
	sd_bus_message *m = NULL, *rep = NULL;
	sd_bus *bus = bus_for(c, CGMANAGER_IFACE1);
	int r = sd_bus_message_new_method_call(bus, &m, NULL, CGMANAGER_OBJECT_PATH, CGMANAGER_IFACE1, "Watch");
	if (r >= 0)
		r = sd_bus_message_append(m, "s", name);
	if (r >= 0)
		r = append_strv(m, events);
	r = send_call(c, m, r, &rep, err);
	if (r < 0)
		return r;
	r = sd_bus_message_read(rep, "u", id);
	sd_bus_message_unref(rep);
	if (r < 0)
		return set_error(err, NULL, "the daemon's answer to Watch could not be read", r);
	/* A cgproxy sent the call to the host's daemon: the events come on that connection. */
	bus = c->key_bus ? c->key_bus : c->bus;
	if (c->event_bus != bus) {
		c->event_filter = sd_bus_slot_unref(c->event_filter);
		if ((r = sd_bus_add_filter(bus, &c->event_filter, on_event_message, c)) < 0)
			return set_error(err, NULL, "cannot receive events", r);
		c->event_bus = bus;
	}
	return 0;
}

int cgm1_unwatch(cgm_client *c, uint32_t id, cgm_error *err)
{
	return call1(c, "Unwatch", NULL, err, "u", id);
}

void cgm1_on_event(cgm_client *c, cgm1_event_fn fn, void *data)
{
	c->on_event = fn;
	c->on_event_data = data;
}

int cgm1_events_fd(cgm_client *c)
{
	return c->event_bus ? sd_bus_get_fd(c->event_bus) : -EBADF;
}

int cgm1_process_events(cgm_client *c, uint64_t timeout_usec, cgm_error *err)
{
	int r;
	if (!c->event_bus)
		return set_error(err, "org.freedesktop.DBus.Error.InvalidArgs", "this client watches nothing", -EINVAL);
	c->dispatched = 0;
	for (bool waited = false;;) {
		while ((r = sd_bus_process(c->event_bus, NULL)) > 0)
			;
		if (r < 0 || c->dispatched || waited)
			break;
		if ((r = sd_bus_wait(c->event_bus, timeout_usec)) < 0)
			break;
		waited = true;
	}
	if (r < 0 && r != -EINTR)
		return set_error(err, "org.freedesktop.DBus.Error.NoServer",
		                 "the connection to cgmanager was lost (the daemon stopped or restarted): its watches ended",
		                 r);
	return c->dispatched;
}
