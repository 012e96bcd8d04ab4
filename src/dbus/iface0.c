/* org.linuxcontainers.cgmanager0_0: the method names, signatures and meanings of cgmanager 0.42. */
#include <stdlib.h>

#include "dbus/conn.h"
#include "dbus/errors.h"
#include "dbus/scm_server.h"

/*
 * A 0.42 call's leading arguments, parsed once: the hierarchies its controller argument names and, for the calls
 * that have one, the cgroup. The handlers below work on these, not on the message.
 */
struct call {
	struct ops *ops;
	const struct requester *req;
	struct hierarchy_set set;
	const char *cgroup;
	struct err e;
};

/*
 * Reads the controller argument into q->set. A name no hierarchy has is kept there: the operation reports it
 * after its checks of the other arguments, so that the error a client gets is the one 0.42 gives.
 */
static int read_controller(sd_bus_message *m, struct conn *c, struct call *q, sd_bus_error *ret)
{
	const char *ctrl;
	int r = sd_bus_message_read(m, "s", &ctrl);
	*q = (struct call){.ops = conn_ops(c), .req = &c->req};
	if (r < 0)
		return r;
	hierarchies_parse(&q->ops->hs, ctrl, &q->set);
	return 0;
}

/* The controller and the cgroup that most 0.42 calls start with. */
static int read_target(sd_bus_message *m, struct conn *c, struct call *q, sd_bus_error *ret)
{
	int r = read_controller(m, c, q, ret);
	return r < 0 ? r : sd_bus_message_read(m, "s", &q->cgroup);
}

static int m_ping(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	int junk;
	int r = sd_bus_message_read(m, "i", &junk);
	if (r < 0)
		return r;
	return sd_bus_reply_method_return(m, "");
}

static int get_pid_cgroup(sd_bus_message *m, struct conn *c, bool absolute, sd_bus_error *ret)
{
	struct call q;
	char *out = NULL;
	int pid, r = read_controller(m, c, &q, ret);
	if (r < 0 || (r = sd_bus_message_read(m, "i", &pid)) < 0)
		return r;
	if (ops_get_pid_cgroup(q.ops, q.req, &q.set, pid, absolute, &out, &q.e) < 0)
		return reply_error(m, &q.e);
	r = sd_bus_reply_method_return(m, "s", out);
	free(out);
	return r;
}

static int m_get_pid_cgroup(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	return get_pid_cgroup(m, u, false, ret);
}

static int m_get_pid_cgroup_abs(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	return get_pid_cgroup(m, u, true, ret);
}

static int m_create(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct call q;
	int existed, r = read_target(m, u, &q, ret);
	if (r < 0)
		return r;
	if (ops_create(q.ops, q.req, &q.set, q.cgroup, &existed, &q.e) < 0)
		return reply_error(m, &q.e);
	return sd_bus_reply_method_return(m, "i", existed);
}

static int m_chown(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct call q;
	int uid, gid, r = read_target(m, u, &q, ret);
	if (r < 0 || (r = sd_bus_message_read(m, "ii", &uid, &gid)) < 0)
		return r;
	if (uid < 0 || gid < 0)
		return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_INVALID_ARGS, "uid %d and gid %d must not be negative", uid,
		                                  gid);
	if (ops_chown(q.ops, q.req, &q.set, q.cgroup, (uid_t)uid, (gid_t)gid, &q.e) < 0)
		return reply_error(m, &q.e);
	return sd_bus_reply_method_return(m, "");
}

static int m_chmod(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct call q;
	const char *file;
	int mode, r = read_target(m, u, &q, ret);
	if (r < 0 || (r = sd_bus_message_read(m, "si", &file, &mode)) < 0)
		return r;
	if (ops_chmod(q.ops, q.req, &q.set, q.cgroup, file, mode, &q.e) < 0)
		return reply_error(m, &q.e);
	return sd_bus_reply_method_return(m, "");
}

static int move_pid(sd_bus_message *m, struct conn *c, bool absolute, sd_bus_error *ret)
{
	struct call q;
	int pid, r = read_target(m, c, &q, ret);
	if (r < 0 || (r = sd_bus_message_read(m, "i", &pid)) < 0)
		return r;
	if (ops_move_pid(q.ops, q.req, &q.set, q.cgroup, pid, absolute, &q.e) < 0)
		return reply_error(m, &q.e);
	return sd_bus_reply_method_return(m, "");
}

static int m_move_pid(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	return move_pid(m, u, false, ret);
}

static int m_move_pid_abs(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	return move_pid(m, u, true, ret);
}

static int m_get_value(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct call q;
	const char *key;
	char *out = NULL;
	int r = read_target(m, u, &q, ret);
	if (r < 0 || (r = sd_bus_message_read(m, "s", &key)) < 0)
		return r;
	if (ops_get_value(q.ops, q.req, &q.set, q.cgroup, key, &out, &q.e) < 0)
		return reply_error(m, &q.e);
	r = sd_bus_reply_method_return(m, "s", out);
	free(out);
	return r;
}

static int m_set_value(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct call q;
	const char *key, *value;
	int r = read_target(m, u, &q, ret);
	if (r < 0 || (r = sd_bus_message_read(m, "ss", &key, &value)) < 0)
		return r;
	if (ops_set_value(q.ops, q.req, &q.set, q.cgroup, key, value, &q.e) < 0)
		return reply_error(m, &q.e);
	return sd_bus_reply_method_return(m, "");
}

static int m_remove(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct call q;
	int recursive, existed, r = read_target(m, u, &q, ret);
	if (r < 0 || (r = sd_bus_message_read(m, "i", &recursive)) < 0)
		return r;
	if (ops_remove(q.ops, q.req, &q.set, q.cgroup, recursive != 0, &existed, &q.e) < 0)
		return reply_error(m, &q.e);
	return sd_bus_reply_method_return(m, "i", existed);
}

static int get_tasks(sd_bus_message *m, struct conn *c, bool recursive, sd_bus_error *ret)
{
	struct call q;
	pidv pids = {0};
	int r = read_target(m, c, &q, ret);
	if (r < 0)
		return r;
	r = ops_get_tasks(q.ops, q.req, &q.set, q.cgroup, recursive, &pids, &q.e) < 0 ? reply_error(m, &q.e)
	                                                                              : reply_pids(m, &pids);
	pidv_free(&pids);
	return r;
}

static int m_get_tasks(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	return get_tasks(m, u, false, ret);
}

static int m_get_tasks_recursive(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	return get_tasks(m, u, true, ret);
}

static int m_list_children(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct call q;
	strv out = {0};
	int r = read_target(m, u, &q, ret);
	if (r < 0)
		return r;
	r = ops_list_children(q.ops, q.req, &q.set, q.cgroup, &out, &q.e) < 0 ? reply_error(m, &q.e)
	                                                                      : reply_strv(m, &out);
	strv_free(&out);
	return r;
}

static int m_remove_on_empty(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct call q;
	int r = read_target(m, u, &q, ret);
	if (r < 0)
		return r;
	if (ops_remove_on_empty(q.ops, q.req, &q.set, q.cgroup, &q.e) < 0)
		return reply_error(m, &q.e);
	return sd_bus_reply_method_return(m, "");
}

static int m_prune(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct call q;
	int existed, r = read_target(m, u, &q, ret);
	if (r < 0)
		return r;
	if (ops_prune(q.ops, q.req, &q.set, q.cgroup, &existed, &q.e) < 0)
		return reply_error(m, &q.e);
	return sd_bus_reply_method_return(m, "");
}

static int m_list_controllers(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	strv out = {0};
	struct err e = {0};
	int r = ops_list_controllers(conn_ops(u), &out, &e) < 0 ? reply_error(m, &e) : reply_strv(m, &out);
	strv_free(&out);
	return r;
}

static int m_list_keys(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct call q;
	keyv keys = {0};
	sd_bus_message *reply = NULL;
	int r = read_target(m, u, &q, ret);
	if (r < 0)
		return r;
	if (ops_list_keys(q.ops, q.req, &q.set, q.cgroup, &keys, &q.e) < 0) {
		r = reply_error(m, &q.e);
	} else {
		r = reply_array_open(m, "(suuu)", &reply);
		for (size_t i = 0; r >= 0 && i < keys.n; i++)
			r = sd_bus_message_append(reply, "(suuu)", keys.v[i].name, (uint32_t)keys.v[i].uid,
			                          (uint32_t)keys.v[i].gid, (uint32_t)keys.v[i].mode);
		r = reply_array_send(reply, r);
	}
	keyv_free(&keys);
	return r;
}

static int m_scm(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	const struct scm_method *method = scm_method_by_name(sd_bus_message_get_member(m));
	return scm_exchange_start(u, m, method);
}

static int p_api_version(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                         void *u, sd_bus_error *ret)
{
	return sd_bus_message_append(reply, "i", (int32_t)CGMANAGER_API_VERSION);
}

#define M(name, in, out, fn) SD_BUS_METHOD(name, in, out, fn, SD_BUS_VTABLE_UNPRIVILEGED)

const sd_bus_vtable iface0_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("api_version", "i", p_api_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	M("Ping", "i", "", m_ping),
	M("GetPidCgroup", "si", "s", m_get_pid_cgroup),
	M("GetPidCgroupAbs", "si", "s", m_get_pid_cgroup_abs),
	M("Create", "ss", "i", m_create),
	M("Chown", "ssii", "", m_chown),
	M("Chmod", "sssi", "", m_chmod),
	M("MovePid", "ssi", "", m_move_pid),
	M("MovePidAbs", "ssi", "", m_move_pid_abs),
	M("GetValue", "sss", "s", m_get_value),
	M("SetValue", "ssss", "", m_set_value),
	M("Remove", "ssi", "i", m_remove),
	M("GetTasks", "ss", "ai", m_get_tasks),
	M("GetTasksRecursive", "ss", "ai", m_get_tasks_recursive),
	M("ListChildren", "ss", "as", m_list_children),
	M("RemoveOnEmpty", "ss", "", m_remove_on_empty),
	M("Prune", "ss", "", m_prune),
	M("ListControllers", "", "as", m_list_controllers),
	M("ListKeys", "ss", "a(suuu)", m_list_keys),
	M("GetPidCgroupScm", "sh", "", m_scm),
	M("GetPidCgroupAbsScm", "sh", "", m_scm),
	M("CreateScm", "ssh", "", m_scm),
	M("ChownScm", "ssh", "", m_scm),
	M("ChmodScm", "sssih", "", m_scm),
	M("MovePidScm", "ssh", "", m_scm),
	M("MovePidAbsScm", "ssh", "", m_scm),
	M("GetValueScm", "sssh", "", m_scm),
	M("SetValueScm", "ssssh", "", m_scm),
	M("RemoveScm", "ssih", "", m_scm),
	M("GetTasksScm", "ssh", "", m_scm),
	M("GetTasksRecursiveScm", "ssh", "", m_scm),
	M("ListChildrenScm", "ssh", "", m_scm),
	M("RemoveOnEmptyScm", "ssh", "", m_scm),
	M("PruneScm", "ssh", "", m_scm),
	M("ListKeysScm", "ssh", "", m_scm),
	SD_BUS_VTABLE_END,
};
