/* org.linuxcontainers.cgmanager0_0: the method names, signatures and meanings of cgmanager 0.42. */
#include <stdlib.h>

#include "dbus/conn.h"
#include "dbus/errors.h"
#include "dbus/scm_server.h"

#define OPS(c) conn_ops(c)

static int m_ping(sd_bus_message *m, void *userdata, sd_bus_error *ret)
{
	int junk;
	int r = sd_bus_message_read(m, "i", &junk);
	if (r < 0)
		return r;
	return sd_bus_reply_method_return(m, "");
}

static int get_pid_cgroup(sd_bus_message *m, struct conn *c, bool absolute)
{
	const char *ctrl;
	int pid;
	char *out = NULL;
	struct hierarchy_set set;
	struct err e = {0};
	int r = sd_bus_message_read(m, "si", &ctrl, &pid);
	if (r < 0)
		return r;
	if (hierarchies_select(&OPS(c)->hs, ctrl, &set, &e) < 0 ||
	    ops_get_pid_cgroup(OPS(c), &c->req, &set, pid, absolute, &out, &e) < 0)
		return reply_error(m, &e);
	r = sd_bus_reply_method_return(m, "s", out);
	free(out);
	return r;
}

static int m_get_pid_cgroup(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	return get_pid_cgroup(m, u, false);
}

static int m_get_pid_cgroup_abs(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	return get_pid_cgroup(m, u, true);
}

static int m_create(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct conn *c = u;
	const char *ctrl, *cg;
	int existed, r = sd_bus_message_read(m, "ss", &ctrl, &cg);
	struct hierarchy_set set;
	struct err e = {0};
	if (r < 0)
		return r;
	if (hierarchies_select(&OPS(c)->hs, ctrl, &set, &e) < 0 || ops_create(OPS(c), &c->req, &set, cg, &existed, &e) < 0)
		return reply_error(m, &e);
	return sd_bus_reply_method_return(m, "i", existed);
}

static int m_chown(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct conn *c = u;
	const char *ctrl, *cg;
	int uid, gid, r = sd_bus_message_read(m, "ssii", &ctrl, &cg, &uid, &gid);
	struct hierarchy_set set;
	struct err e = {0};
	if (r < 0)
		return r;
	if (uid < 0 || gid < 0)
		return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_INVALID_ARGS, "uid %d and gid %d must not be negative", uid,
		                                  gid);
	if (hierarchies_select(&OPS(c)->hs, ctrl, &set, &e) < 0 ||
	    ops_chown(OPS(c), &c->req, &set, cg, (uid_t)uid, (gid_t)gid, &e) < 0)
		return reply_error(m, &e);
	return sd_bus_reply_method_return(m, "");
}

static int m_chmod(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct conn *c = u;
	const char *ctrl, *cg, *file;
	int mode, r = sd_bus_message_read(m, "sssi", &ctrl, &cg, &file, &mode);
	struct hierarchy_set set;
	struct err e = {0};
	if (r < 0)
		return r;
	if (hierarchies_select(&OPS(c)->hs, ctrl, &set, &e) < 0 || ops_chmod(OPS(c), &c->req, &set, cg, file, mode, &e) < 0)
		return reply_error(m, &e);
	return sd_bus_reply_method_return(m, "");
}

static int move_pid(sd_bus_message *m, struct conn *c, bool absolute)
{
	const char *ctrl, *cg;
	int pid, r = sd_bus_message_read(m, "ssi", &ctrl, &cg, &pid);
	struct hierarchy_set set;
	struct err e = {0};
	if (r < 0)
		return r;
	if (hierarchies_select(&OPS(c)->hs, ctrl, &set, &e) < 0 ||
	    ops_move_pid(OPS(c), &c->req, &set, cg, pid, absolute, &e) < 0)
		return reply_error(m, &e);
	return sd_bus_reply_method_return(m, "");
}

static int m_move_pid(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	return move_pid(m, u, false);
}

static int m_move_pid_abs(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	return move_pid(m, u, true);
}

static int m_get_value(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct conn *c = u;
	const char *ctrl, *cg, *key;
	char *out = NULL;
	int r = sd_bus_message_read(m, "sss", &ctrl, &cg, &key);
	struct hierarchy_set set;
	struct err e = {0};
	if (r < 0)
		return r;
	if (hierarchies_select(&OPS(c)->hs, ctrl, &set, &e) < 0 ||
	    ops_get_value(OPS(c), &c->req, &set, cg, key, &out, &e) < 0)
		return reply_error(m, &e);
	r = sd_bus_reply_method_return(m, "s", out);
	free(out);
	return r;
}

static int m_set_value(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct conn *c = u;
	const char *ctrl, *cg, *key, *value;
	int r = sd_bus_message_read(m, "ssss", &ctrl, &cg, &key, &value);
	struct hierarchy_set set;
	struct err e = {0};
	if (r < 0)
		return r;
	if (hierarchies_select(&OPS(c)->hs, ctrl, &set, &e) < 0 ||
	    ops_set_value(OPS(c), &c->req, &set, cg, key, value, &e) < 0)
		return reply_error(m, &e);
	return sd_bus_reply_method_return(m, "");
}

static int m_remove(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct conn *c = u;
	const char *ctrl, *cg;
	int recursive, existed, r = sd_bus_message_read(m, "ssi", &ctrl, &cg, &recursive);
	struct hierarchy_set set;
	struct err e = {0};
	if (r < 0)
		return r;
	if (hierarchies_select(&OPS(c)->hs, ctrl, &set, &e) < 0 ||
	    ops_remove(OPS(c), &c->req, &set, cg, recursive != 0, &existed, &e) < 0)
		return reply_error(m, &e);
	return sd_bus_reply_method_return(m, "i", existed);
}

static int get_tasks(sd_bus_message *m, struct conn *c, bool recursive)
{
	const char *ctrl, *cg;
	pidv pids = {0};
	struct hierarchy_set set;
	struct err e = {0};
	int r = sd_bus_message_read(m, "ss", &ctrl, &cg);
	if (r < 0)
		return r;
	if (hierarchies_select(&OPS(c)->hs, ctrl, &set, &e) < 0 ||
	    ops_get_tasks(OPS(c), &c->req, &set, cg, recursive, &pids, &e) < 0)
		r = reply_error(m, &e);
	else
		r = reply_pids(m, &pids);
	pidv_free(&pids);
	return r;
}

static int m_get_tasks(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	return get_tasks(m, u, false);
}

static int m_get_tasks_recursive(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	return get_tasks(m, u, true);
}

static int m_list_children(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct conn *c = u;
	const char *ctrl, *cg;
	strv out = {0};
	struct hierarchy_set set;
	struct err e = {0};
	int r = sd_bus_message_read(m, "ss", &ctrl, &cg);
	if (r < 0)
		return r;
	if (hierarchies_select(&OPS(c)->hs, ctrl, &set, &e) < 0 ||
	    ops_list_children(OPS(c), &c->req, &set, cg, &out, &e) < 0)
		r = reply_error(m, &e);
	else
		r = reply_strv(m, &out);
	strv_free(&out);
	return r;
}

static int m_remove_on_empty(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct conn *c = u;
	const char *ctrl, *cg;
	struct hierarchy_set set;
	struct err e = {0};
	int r = sd_bus_message_read(m, "ss", &ctrl, &cg);
	if (r < 0)
		return r;
	if (hierarchies_select(&OPS(c)->hs, ctrl, &set, &e) < 0 || ops_remove_on_empty(OPS(c), &c->req, &set, cg, &e) < 0)
		return reply_error(m, &e);
	return sd_bus_reply_method_return(m, "");
}

static int m_prune(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct conn *c = u;
	const char *ctrl, *cg;
	struct hierarchy_set set;
	struct err e = {0};
	int existed, r = sd_bus_message_read(m, "ss", &ctrl, &cg);
	if (r < 0)
		return r;
	if (hierarchies_select(&OPS(c)->hs, ctrl, &set, &e) < 0 || ops_prune(OPS(c), &c->req, &set, cg, &existed, &e) < 0)
		return reply_error(m, &e);
	return sd_bus_reply_method_return(m, "");
}

static int m_list_controllers(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct conn *c = u;
	strv out = {0};
	struct err e = {0};
	int r;
	if (ops_list_controllers(OPS(c), &out, &e) < 0)
		r = reply_error(m, &e);
	else
		r = reply_strv(m, &out);
	strv_free(&out);
	return r;
}

static int m_list_keys(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct conn *c = u;
	const char *ctrl, *cg;
	keyv keys = {0};
	struct hierarchy_set set;
	struct err e = {0};
	sd_bus_message *reply = NULL;
	int r = sd_bus_message_read(m, "ss", &ctrl, &cg);
	if (r < 0)
		return r;
	if (hierarchies_select(&OPS(c)->hs, ctrl, &set, &e) < 0 ||
	    ops_list_keys(OPS(c), &c->req, &set, cg, &keys, &e) < 0) {
		r = reply_error(m, &e);
		goto out;
	}
	r = sd_bus_message_new_method_return(m, &reply);
	if (r >= 0)
		r = sd_bus_message_open_container(reply, 'a', "(suuu)");
	for (size_t i = 0; r >= 0 && i < keys.n; i++)
		r = sd_bus_message_append(reply, "(suuu)", keys.v[i].name, (uint32_t)keys.v[i].uid,
		                          (uint32_t)keys.v[i].gid, (uint32_t)keys.v[i].mode);
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	if (r >= 0)
		r = sd_bus_send(NULL, reply, NULL);
out:
	sd_bus_message_unref(reply);
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
