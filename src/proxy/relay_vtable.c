/* What cgproxy serves: the cgmanager0_0 interface, every plain call relayed upstream as its Scm form. */
#include "proxy/relay_vtable.h"

#include "client/cgmanager.h"
#include "dbus/conn.h"
#include "dbus/server.h"
#include "ops/victim.h"
#include "proxy/upstream.h"

static int p_relay(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct conn *c = u;
	struct upstream *up = server_app(c->srv);
	const struct scm_method *method = scm_method_by_plain(sd_bus_message_get_member(m));
	if (!method)
		return upstream_relay_plain(up, m);
	struct scm_request q = {
		.m = method,
		.plain = m,
		.requester = {.pid = c->req.pid, .uid = c->req.cred.uid, .gid = c->req.cred.gid},
		.requester_pidfd = c->req.pidfd,
	};
	if (!pidfd_alive(c->req.pidfd))
		return upstream_refuse_gone_requester(m, c->req.pid);
	return upstream_relay(up, &q);
}

static int p_no_chain(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_NOT_SUPPORTED,
	                                  "cgproxy does not relay %s: a proxy cannot vouch for a requester another proxy "
	                                  "relayed; send Scm calls to the host's cgmanager socket",
	                                  sd_bus_message_get_member(m));
}

static int p_api_version(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                         void *u, sd_bus_error *ret)
{
	return sd_bus_message_append(reply, "i", (int32_t)CGMANAGER_API_VERSION);
}

#define R(name, in, out) SD_BUS_METHOD(name, in, out, p_relay, SD_BUS_VTABLE_UNPRIVILEGED)
#define N(name, in) SD_BUS_METHOD(name, in, "", p_no_chain, SD_BUS_VTABLE_UNPRIVILEGED)

const sd_bus_vtable relay_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("api_version", "i", p_api_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	R("Ping", "i", ""),
	R("GetPidCgroup", "si", "s"),
	R("GetPidCgroupAbs", "si", "s"),
	R("Create", "ss", "i"),
	R("Chown", "ssii", ""),
	R("Chmod", "sssi", ""),
	R("MovePid", "ssi", ""),
	R("MovePidAbs", "ssi", ""),
	R("GetValue", "sss", "s"),
	R("SetValue", "ssss", ""),
	R("Remove", "ssi", "i"),
	R("GetTasks", "ss", "ai"),
	R("GetTasksRecursive", "ss", "ai"),
	R("ListChildren", "ss", "as"),
	R("RemoveOnEmpty", "ss", ""),
	R("Prune", "ss", ""),
	R("ListControllers", "", "as"),
	R("ListKeys", "ss", "a(suuu)"),
	N("GetPidCgroupScm", "sh"),
	N("GetPidCgroupAbsScm", "sh"),
	N("CreateScm", "ssh"),
	N("ChownScm", "ssh"),
	N("ChmodScm", "sssih"),
	N("MovePidScm", "ssh"),
	N("MovePidAbsScm", "ssh"),
	N("GetValueScm", "sssh"),
	N("SetValueScm", "ssssh"),
	N("RemoveScm", "ssih"),
	N("GetTasksScm", "ssh"),
	N("GetTasksRecursiveScm", "ssh"),
	N("ListChildrenScm", "ssh"),
	N("RemoveOnEmptyScm", "ssh"),
	N("PruneScm", "ssh"),
	N("ListKeysScm", "ssh"),
	SD_BUS_VTABLE_END,
};

/*
 * The key API is not relayed: its calls need no pid or id translated by a
 * proxy (pids travel as pidfds, ids are translated by the daemon from the
 * caller's own maps), so the daemon can serve a container's caller directly
 * and know it better than a proxy could vouch for it.
 */
static int p_key_api_upstream(sd_bus_message *m, void *u, sd_bus_error *ret)
{
	struct conn *c = u;
	struct upstream *up = server_app(c->srv);
	return sd_bus_reply_method_errorf(m, CGM1_ERROR_UPSTREAM,
	                                  "cgproxy does not relay the key API (%s); " CGM1_UPSTREAM_MARK "%s",
	                                  sd_bus_message_get_member(m), up->path);
}

#define K(name, in, out) SD_BUS_METHOD(name, in, out, p_key_api_upstream, SD_BUS_VTABLE_UNPRIVILEGED)

const sd_bus_vtable key_api_upstream_vtable[] = {
	SD_BUS_VTABLE_START(0),
	K("ListControllers", "", "a(ss)"),
	K("ListKeys", "", "a(sssss)"),
	K("Create", "sasa{ss}", "b"),
	K("SetValues", "sa{ss}", ""),
	K("GetValues", "sas", "a{ss}"),
	K("ListChildren", "s", "as"),
	K("ListTasks", "sb", "ai"),
	K("Chown", "suu", ""),
	K("Move", "sh", ""),
	K("MovePid", "si", ""),
	K("Delete", "sb", ""),
	K("Kill", "si", ""),
	K("Freeze", "s", ""),
	K("Thaw", "s", ""),
	K("Watch", "sas", "u"),
	K("Unwatch", "u", ""),
	SD_BUS_VTABLE_END,
};
