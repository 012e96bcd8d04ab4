/* org.linuxcontainers.cgmanager1: the key-based interface (data/org.linuxcontainers.cgmanager1.xml). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dbus/admission.h"
#include "dbus/conn.h"
#include "dbus/deferred.h"
#include "dbus/errors.h"
#include "dbus/events.h"
#include "keys/keys.h"
#include "ops/key_api.h"
#include "ops/watch.h"

/* What sd_bus_message_read_strv hands out. */
static void free_strv(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static int read_kvv(sd_bus_message *m, kvv *out)
{
	const char *k, *v;
	int r = sd_bus_message_enter_container(m, 'a', "{ss}");
	while (r >= 0 && (r = sd_bus_message_read(m, "{ss}", &k, &v)) > 0) {
		char *copy = strdup(v);
		if (!copy || kvv_push(out, k, copy) < 0)
			return -ENOMEM;
	}
	return r < 0 ? r : sd_bus_message_exit_container(m);
}

static int reply_kvv(sd_bus_message *m, const kvv *k)
{
	sd_bus_message *reply = NULL;
	int r = reply_array_open(m, "{ss}", &reply);
	for (size_t i = 0; r >= 0 && i < k->n; i++)
		r = sd_bus_message_append(reply, "{ss}", k->v[i].key, k->v[i].value);
	return reply_array_send(reply, r);
}

static int m_list_controllers(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	strv names = {0}, versions = {0};
	struct err e = {0};
	sd_bus_message *reply = NULL;
	int r;
	if (ops_key_list_controllers(conn_ops(u), &names, &versions, &e) < 0) {
		r = reply_error(m, &e);
	} else {
		r = reply_array_open(m, "(ss)", &reply);
		for (size_t i = 0; r >= 0 && i < names.n; i++)
			r = sd_bus_message_append(reply, "(ss)", names.v[i], versions.v[i]);
		r = reply_array_send(reply, r);
	}
	strv_free(&names);
	strv_free(&versions);
	return r;
}

static int host_version_of(void *ctx, const char *controller)
{
	int version;
	return hierarchy_for_controller(ctx, controller, &version) ? version : 0;
}

static int m_list_keys(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct key_host h = {.version_of = host_version_of, .ctx = conn_ops(u)};
	sd_bus_message *reply = NULL;
	int r = reply_array_open(m, "(sssss)", &reply);
	for (size_t i = 0; r >= 0 && i < key_doc_count(); i++) {
		const struct key_doc *d = key_doc_at(i);
		r = sd_bus_message_append(reply, "(sssss)", d->name, d->access & KEY_WRITE ? "rw" : "r",
		                          key_file_here(&h, d), d->syntax, d->meaning);
	}
	return reply_array_send(reply, r);
}

/* A key-API call's name, read once, beside what every handler passes to its operation. */
struct call {
	struct ops *ops;
	const struct requester *req;
	const char *name;
	struct err e;
};

static int read_name(sd_bus_message *m, struct conn *c, struct call *q)
{
	*q = (struct call){.ops = conn_ops(c), .req = &c->req};
	return sd_bus_message_read(m, "s", &q->name);
}

static int m_create(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct call q;
	char **ctrls = NULL;
	kvv values = {0};
	bool created = false;
	int r = read_name(m, u, &q);
	if (r >= 0)
		r = sd_bus_message_read_strv(m, &ctrls);
	if (r >= 0)
		r = read_kvv(m, &values);
	if (r >= 0)
		r = ops_key_create(q.ops, q.req, q.name, (const char *const *)ctrls, &values, &created, &q.e) < 0
		            ? reply_error(m, &q.e)
		            : sd_bus_reply_method_return(m, "b", (int)created);
	free_strv(ctrls);
	kvv_free(&values);
	return r;
}

static int m_set_values(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct call q;
	kvv values = {0};
	int r = read_name(m, u, &q);
	if (r >= 0)
		r = read_kvv(m, &values);
	if (r >= 0)
		r = ops_key_set_values(q.ops, q.req, q.name, &values, &q.e) < 0 ? reply_error(m, &q.e)
		                                                                : sd_bus_reply_method_return(m, "");
	kvv_free(&values);
	return r;
}

static int m_get_values(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct call q;
	char **keys = NULL, *none[] = {NULL};
	kvv out = {0};
	int r = read_name(m, u, &q);
	if (r >= 0)
		r = sd_bus_message_read_strv(m, &keys);
	if (r >= 0)
		r = ops_key_get_values(q.ops, q.req, q.name, (const char *const *)(keys ? keys : none), &out, &q.e) < 0
		            ? reply_error(m, &q.e)
		            : reply_kvv(m, &out);
	free_strv(keys);
	kvv_free(&out);
	return r;
}

static int m_list_children(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct call q;
	strv out = {0};
	int r = read_name(m, u, &q);
	if (r >= 0)
		r = ops_key_list_children(q.ops, q.req, q.name, &out, &q.e) < 0 ? reply_error(m, &q.e) : reply_strv(m, &out);
	strv_free(&out);
	return r;
}

static int m_list_tasks(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct call q;
	int recursive;
	pidv pids = {0};
	int r = read_name(m, u, &q);
	if (r < 0 || (r = sd_bus_message_read(m, "b", &recursive)) < 0)
		return r;
	r = ops_key_list_tasks(q.ops, q.req, q.name, recursive, &pids, &q.e) < 0 ? reply_error(m, &q.e)
	                                                                         : reply_pids(m, &pids);
	pidv_free(&pids);
	return r;
}

static int m_chown(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct call q;
	uint32_t uid, gid;
	int r = read_name(m, u, &q);
	if (r < 0 || (r = sd_bus_message_read(m, "uu", &uid, &gid)) < 0)
		return r;
	if (ops_key_chown(q.ops, q.req, q.name, uid, gid, &q.e) < 0)
		return reply_error(m, &q.e);
	return sd_bus_reply_method_return(m, "");
}

/* The methods that take a name and one integer (an fd or a pid) and answer nothing. */
typedef int (*name_int_op)(struct ops *o, const struct requester *r, const char *name, int arg, struct err *e);

static int name_and_int(sd_bus_message *m, struct conn *c, const char *sig, name_int_op op)
{
	struct call q;
	int arg, r = read_name(m, c, &q);
	if (r < 0 || (r = sd_bus_message_read(m, sig, &arg)) < 0)
		return r;
	if (op(q.ops, q.req, q.name, arg, &q.e) < 0)
		return reply_error(m, &q.e);
	return sd_bus_reply_method_return(m, "");
}

static int m_move(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	return name_and_int(m, u, "h", ops_key_move);
}

static int m_move_pid(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	return name_and_int(m, u, "i", ops_key_move_pid);
}

/* The methods that take one integer (a pid or an fd) and answer a name. */
typedef int (*int_name_op)(struct ops *o, const struct requester *r, int arg, char **out, struct err *e);

static int name_of_int(sd_bus_message *m, struct conn *c, const char *sig, int_name_op op)
{
	struct err e = {0};
	char *name = NULL;
	int arg, r = sd_bus_message_read(m, sig, &arg);
	if (r < 0)
		return r;
	r = op(conn_ops(c), &c->req, arg, &name, &e) < 0 ? reply_error(m, &e) : sd_bus_reply_method_return(m, "s", name);
	free(name);
	return r;
}

static int m_get_pid_cgroup(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	return name_of_int(m, u, "i", ops_key_pid_cgroup);
}

static int m_get_pidfd_cgroup(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	return name_of_int(m, u, "h", ops_key_pidfd_cgroup);
}

static int job_step(struct ops *o, const struct requester *r, void *job, struct err *e)
{
	return ops_job_step(o, r, job, e);
}

static unsigned job_wake(const void *job, int *fds, unsigned max)
{
	return ops_job_wake_fds(job, fds, max);
}

static void job_free(void *job)
{
	ops_job_free(job);
}

/* Answers now when start left no job, else once the job's steps are done (dbus/deferred.h). */
static int reply_or_defer(sd_bus_message *m, struct conn *c, int rc, struct ops_job *job, const struct err *e)
{
	if (rc < 0)
		return reply_error(m, e);
	if (!job)
		return sd_bus_reply_method_return(m, "");
	return deferred_start(c, m, job_step, job_wake, job, job_free);
}

static int m_delete(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct call q;
	struct ops_job *job = NULL;
	int force, r = read_name(m, u, &q);
	if (r < 0 || (r = sd_bus_message_read(m, "b", &force)) < 0)
		return r;
	r = ops_key_delete_start(q.ops, q.req, q.name, force, &job, &q.e);
	return reply_or_defer(m, u, r, job, &q.e);
}

static int m_kill(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct call q;
	struct ops_job *job = NULL;
	int sig, r = read_name(m, u, &q);
	if (r < 0 || (r = sd_bus_message_read(m, "i", &sig)) < 0)
		return r;
	r = ops_key_kill_start(q.ops, q.req, q.name, sig, &job, &q.e);
	return reply_or_defer(m, u, r, job, &q.e);
}

static int freeze(sd_bus_message *m, struct conn *c, bool frozen)
{
	struct call q;
	struct ops_job *job = NULL;
	int r = read_name(m, c, &q);
	if (r < 0)
		return r;
	r = ops_key_freeze_start(q.ops, q.req, q.name, frozen, &job, &q.e);
	return reply_or_defer(m, c, r, job, &q.e);
}

static int m_freeze(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	return freeze(m, u, true);
}

static int m_thaw(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	return freeze(m, u, false);
}

static int m_watch(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct conn *c = u;
	struct call q;
	char **events = NULL;
	struct watch_wants want;
	uint32_t id = 0;
	int r = read_name(m, c, &q);
	if (r >= 0)
		r = sd_bus_message_read_strv(m, &events);
	if (r >= 0 && (watch_wants_parse((const char *const *)events, &want, &q.e) < 0 ||
	               ops_watch(q.ops, q.req, c, admission_account(c->slot), q.name, &want, &id, &q.e) < 0)) {
		r = reply_error(m, &q.e);
	} else if (r >= 0) {
		event_pump_watched(c->events);
		r = sd_bus_reply_method_return(m, "u", id);
	}
	free_strv(events);
	return r;
}

static int m_unwatch(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct conn *c = u;
	struct err e = {0};
	uint32_t id;
	int r = sd_bus_message_read(m, "u", &id);
	if (r < 0)
		return r;
	if (ops_unwatch(conn_ops(c), c, id, &e) < 0)
		return reply_error(m, &e);
	events_unwatched(c, id);
	return sd_bus_reply_method_return(m, "");
}

#define M(name, in, out, fn) SD_BUS_METHOD(name, in, out, fn, SD_BUS_VTABLE_UNPRIVILEGED)

const sd_bus_vtable iface1_vtable[] = {
	SD_BUS_VTABLE_START(0),
	M("ListControllers", "", "a(ss)", m_list_controllers),
	M("ListKeys", "", "a(sssss)", m_list_keys),
	M("Create", "sasa{ss}", "b", m_create),
	M("SetValues", "sa{ss}", "", m_set_values),
	M("GetValues", "sas", "a{ss}", m_get_values),
	M("ListChildren", "s", "as", m_list_children),
	M("ListTasks", "sb", "ai", m_list_tasks),
	M("Chown", "suu", "", m_chown),
	M("Move", "sh", "", m_move),
	M("MovePid", "si", "", m_move_pid),
	M("GetPidCgroup", "i", "s", m_get_pid_cgroup),
	M("GetPidfdCgroup", "h", "s", m_get_pidfd_cgroup),
	M("Delete", "sb", "", m_delete),
	M("Kill", "si", "", m_kill),
	M("Freeze", "s", "", m_freeze),
	M("Thaw", "s", "", m_thaw),
	M("Watch", "sas", "u", m_watch),
	M("Unwatch", "u", "", m_unwatch),
	SD_BUS_SIGNAL_WITH_NAMES("Event", "ussa{sv}", SD_BUS_PARAM(id) SD_BUS_PARAM(name) SD_BUS_PARAM(event)
	                         SD_BUS_PARAM(details), 0),
	SD_BUS_VTABLE_END,
};
