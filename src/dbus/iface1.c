/* org.linuxcontainers.cgmanager1: the key-based interface (data/org.linuxcontainers.cgmanager1.xml). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dbus/conn.h"
#include "dbus/deferred.h"
#include "dbus/errors.h"
#include "keys/keys.h"
#include "ops/key_api.h"

#define OPS(c) conn_ops(c)

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
	int r = sd_bus_message_new_method_return(m, &reply);
	if (r >= 0)
		r = sd_bus_message_open_container(reply, 'a', "{ss}");
	for (size_t i = 0; r >= 0 && i < k->n; i++)
		r = sd_bus_message_append(reply, "{ss}", k->v[i].key, k->v[i].value);
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	if (r >= 0)
		r = sd_bus_send(NULL, reply, NULL);
	sd_bus_message_unref(reply);
	return r;
}

static int m_list_controllers(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	strv names = {0}, versions = {0};
	struct err e = {0};
	sd_bus_message *reply = NULL;
	int r;
	if (ops_key_list_controllers(OPS(u), &names, &versions, &e) < 0) {
		r = reply_error(m, &e);
		goto out;
	}
	r = sd_bus_message_new_method_return(m, &reply);
	if (r >= 0)
		r = sd_bus_message_open_container(reply, 'a', "(ss)");
	for (size_t i = 0; r >= 0 && i < names.n; i++)
		r = sd_bus_message_append(reply, "(ss)", names.v[i], versions.v[i]);
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	if (r >= 0)
		r = sd_bus_send(NULL, reply, NULL);
out:
	sd_bus_message_unref(reply);
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
	struct key_host h = {.version_of = host_version_of, .ctx = OPS(u)};
	sd_bus_message *reply = NULL;
	int r = sd_bus_message_new_method_return(m, &reply);
	if (r >= 0)
		r = sd_bus_message_open_container(reply, 'a', "(sssss)");
	for (size_t i = 0; r >= 0 && i < key_doc_count(); i++) {
		const struct key_doc *d = key_doc_at(i);
		r = sd_bus_message_append(reply, "(sssss)", d->name, d->access & KEY_WRITE ? "rw" : "r",
		                          key_file_here(&h, d), d->syntax, d->meaning);
	}
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	if (r >= 0)
		r = sd_bus_send(NULL, reply, NULL);
	sd_bus_message_unref(reply);
	return r;
}

static int m_create(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct conn *c = u;
	const char *name;
	char **ctrls = NULL;
	kvv values = {0};
	struct err e = {0};
	bool created = false;
	int r = sd_bus_message_read(m, "s", &name);
	if (r >= 0)
		r = sd_bus_message_read_strv(m, &ctrls);
	if (r >= 0)
		r = read_kvv(m, &values);
	if (r >= 0) {
		if (ops_key_create(OPS(c), &c->req, name, (const char *const *)ctrls, &values, &created, &e) < 0)
			r = reply_error(m, &e);
		else
			r = sd_bus_reply_method_return(m, "b", (int)created);
	}
	free_strv(ctrls);
	kvv_free(&values);
	return r;
}

static int m_set_values(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct conn *c = u;
	const char *name;
	kvv values = {0};
	struct err e = {0};
	int r = sd_bus_message_read(m, "s", &name);
	if (r >= 0)
		r = read_kvv(m, &values);
	if (r >= 0)
		r = ops_key_set_values(OPS(c), &c->req, name, &values, &e) < 0 ? reply_error(m, &e)
		                                                              : sd_bus_reply_method_return(m, "");
	kvv_free(&values);
	return r;
}

static int m_get_values(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct conn *c = u;
	const char *name;
	char **keys = NULL;
	kvv out = {0};
	struct err e = {0};
	int r = sd_bus_message_read(m, "s", &name);
	if (r >= 0)
		r = sd_bus_message_read_strv(m, &keys);
	if (r >= 0) {
		char *none[] = {NULL};
		if (ops_key_get_values(OPS(c), &c->req, name, (const char *const *)(keys ? keys : none), &out, &e) < 0)
			r = reply_error(m, &e);
		else
			r = reply_kvv(m, &out);
	}
	free_strv(keys);
	kvv_free(&out);
	return r;
}

static int m_list_children(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct conn *c = u;
	const char *name;
	strv out = {0};
	struct err e = {0};
	int r = sd_bus_message_read(m, "s", &name);
	if (r >= 0)
		r = ops_key_list_children(OPS(c), &c->req, name, &out, &e) < 0 ? reply_error(m, &e) : reply_strv(m, &out);
	strv_free(&out);
	return r;
}

static int m_list_tasks(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct conn *c = u;
	const char *name;
	int recursive;
	pidv pids = {0};
	struct err e = {0};
	int r = sd_bus_message_read(m, "sb", &name, &recursive);
	if (r < 0)
		return r;
	r = ops_key_list_tasks(OPS(c), &c->req, name, recursive, &pids, &e) < 0 ? reply_error(m, &e) : reply_pids(m, &pids);
	pidv_free(&pids);
	return r;
}

static int m_chown(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct conn *c = u;
	const char *name;
	uint32_t uid, gid;
	struct err e = {0};
	int r = sd_bus_message_read(m, "suu", &name, &uid, &gid);
	if (r < 0)
		return r;
	if (ops_key_chown(OPS(c), &c->req, name, uid, gid, &e) < 0)
		return reply_error(m, &e);
	return sd_bus_reply_method_return(m, "");
}

/* The methods that take a name and one integer (an fd, a pid, a flag or a signal) and answer nothing. */
typedef int (*name_int_op)(struct ops *o, const struct requester *r, const char *name, int arg, struct err *e);

static int name_and_int(sd_bus_message *m, struct conn *c, const char *sig, name_int_op op)
{
	const char *name;
	int arg;
	struct err e = {0};
	int r = sd_bus_message_read(m, sig, &name, &arg);
	if (r < 0)
		return r;
	if (op(OPS(c), &c->req, name, arg, &e) < 0)
		return reply_error(m, &e);
	return sd_bus_reply_method_return(m, "");
}

static int m_move(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	return name_and_int(m, u, "sh", ops_key_move);
}

static int m_move_pid(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	return name_and_int(m, u, "si", ops_key_move_pid);
}

static int job_step(struct ops *o, const struct requester *r, void *job, struct err *e)
{
	return ops_job_step(o, r, job, e);
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
	return deferred_start(c, m, job_step, job, job_free);
}

static int m_delete(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct conn *c = u;
	struct ops_job *job = NULL;
	struct err e = {0};
	const char *name;
	int force, r = sd_bus_message_read(m, "sb", &name, &force);
	if (r < 0)
		return r;
	r = ops_key_delete_start(OPS(c), &c->req, name, force, &job, &e);
	return reply_or_defer(m, c, r, job, &e);
}

static int m_kill(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct conn *c = u;
	struct ops_job *job = NULL;
	struct err e = {0};
	const char *name;
	int sig, r = sd_bus_message_read(m, "si", &name, &sig);
	if (r < 0)
		return r;
	r = ops_key_kill_start(OPS(c), &c->req, name, sig, &job, &e);
	return reply_or_defer(m, c, r, job, &e);
}

static int freeze(sd_bus_message *m, struct conn *c, bool frozen)
{
	struct ops_job *job = NULL;
	struct err e = {0};
	const char *name;
	int r = sd_bus_message_read(m, "s", &name);
	if (r < 0)
		return r;
	r = ops_key_freeze_start(OPS(c), &c->req, name, frozen, &job, &e);
	return reply_or_defer(m, c, r, job, &e);
}

static int m_freeze(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	return freeze(m, u, true);
}

static int m_thaw(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	return freeze(m, u, false);
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
	M("Delete", "sb", "", m_delete),
	M("Kill", "si", "", m_kill),
	M("Freeze", "s", "", m_freeze),
	M("Thaw", "s", "", m_thaw),
	SD_BUS_VTABLE_END,
};
