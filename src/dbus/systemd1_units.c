/* The systemd1 interface's units (the ones it made), their object paths and properties, and their callers. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgfs/proc.h"
#include "dbus/peer.h"
#include "dbus/systemd1_internal.h"
#include "ops/identity.h"
#include "ops/target.h"
#include "util/list.h"
#include "util/log.h"

void sd1_requester_forget(struct systemd1 *s)
{
	if (!s->req_of)
		return;
	if (s->req_rc == 0)
		peer_requester_drop(&s->req);
	sd_bus_message_unref(s->req_of);
	s->req_of = NULL;
	free(s->req_sender);
	s->req_sender = NULL;
}

/*
 * The process of pid pinned (*fd; -1 on a kernel without pidfds, as peer.c takes it), if it still runs as uid:
 * the bus saw that uid when it connected. Its effective gid is read there too, as a dbus-daemon gives none.
 */
static int pin(pid_t pid, uid_t uid, gid_t *gid, int *fd, struct err *e)
{
	struct proc_ids ids;
	*fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (*fd < 0 && errno != ENOSYS)
		return err_errno(e, errno, "cannot pin the caller, pid %d", (int)pid);
	if (proc_ids_read(pid, &ids, e) < 0 || ids.uid[1] != uid) {
		if (e->kind == ERR_NONE)
			err_set(e, ERR_ACCESS, "pid %d, which the bus names as the caller, no longer runs as uid %u", (int)pid,
			        (unsigned)uid);
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return -1;
	}
	if (*gid == (gid_t)-1)
		*gid = ids.gid[1];
	return 0;
}

static int read_requester(struct systemd1 *s, sd_bus_message *m, struct requester *r, struct err *e)
{
	sd_bus_creds *c = NULL;
	uid_t uid;
	gid_t gid = (gid_t)-1;
	pid_t pid;
	int rc = sd_bus_query_sender_creds(m, SD_BUS_CREDS_PID | SD_BUS_CREDS_EUID | SD_BUS_CREDS_UID | SD_BUS_CREDS_EGID,
	                                   &c);
	*r = (struct requester){.pidfd = -1, .cgroup_fd = -1, .names_from_root = true};
	if (rc < 0)
		return err_errno(e, -rc, "the bus gave no credentials of the caller");
	if (sd_bus_creds_get_euid(c, &uid) < 0 && sd_bus_creds_get_uid(c, &uid) < 0)
		rc = err_set(e, ERR_ACCESS, "the bus gave no uid of the caller");
	else if (sd_bus_creds_get_pid(c, &pid) < 0 || pid <= 0)
		rc = err_set(e, ERR_ACCESS, "the bus gave no pid of the caller (it is outside the bus's pid namespace)");
	sd_bus_creds_get_egid(c, &gid);
	sd_bus_creds_unref(c);
	if (rc < 0)
		return -1;
	r->pid = pid;
	r->cred.uid = uid;
	if (pin(pid, uid, &gid, &r->pidfd, e) < 0)
		return -1;
	r->cred.gid = gid;
	if (requester_identify(s->ops, r, e) < 0) {
		if (r->pidfd >= 0)
			close(r->pidfd);
		return -1;
	}
	return 0;
}

const struct requester *sd1_requester(struct systemd1 *s, sd_bus_message *m, struct err *e)
{
	const char *sender = sd_bus_message_get_sender(m);
	/* The bus gives a unique name to one connection only, and the credentials it vouches for are those of its
	 * connect: a caller read once is the same for its next calls (its pidfd says when it is gone). */
	bool same = s->req_of == m || (s->req_rc == 0 && s->req_sender && sender && strcmp(s->req_sender, sender) == 0);
	if (!same) {
		sd1_requester_forget(s);
		s->req_of = sd_bus_message_ref(m);
		s->req_err = (struct err){0};
		s->req_rc = read_requester(s, m, &s->req, &s->req_err);
		if (s->req_rc == 0 && sender)
			s->req_sender = strdup(sender);
	}
	if (s->req_rc < 0) {
		*e = s->req_err;
		return NULL;
	}
	return &s->req;
}

const struct requester *sd1_root_requester(struct systemd1 *s, sd_bus_message *m, const char *what, struct err *e)
{
	const struct requester *r = sd1_requester(s, m, e);
	if (r && !policy_is_host_root(&r->cred)) {
		err_set(e, ERR_ACCESS, "only host root may %s, as of systemd's system manager; you are uid %u%s", what,
		        (unsigned)r->cred.uid, r->cred.in_userns ? " in a user namespace" : "");
		return NULL;
	}
	return r;
}

struct sd1_unit *sd1_unit_find(struct systemd1 *s, const char *name)
{
	for (struct sd1_unit *u = s->units; u; u = u->next)
		if (strcmp(u->name, name) == 0)
			return u;
	return NULL;
}

struct sd1_unit *sd1_unit_add(struct systemd1 *s, const char *name, enum unit_kind kind, const char *cgroup,
                              const char *slice)
{
	struct sd1_unit *u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	snprintf(u->name, sizeof(u->name), "%s", name);
	u->kind = kind;
	u->cgroup = strdup(cgroup);
	u->slice = slice ? strdup(slice) : NULL;
	if (!u->cgroup || (slice && !u->slice)) {
		free(u->cgroup);
		free(u->slice);
		free(u);
		return NULL;
	}
	u->s = s;
	sd_id128_randomize(&u->invocation);
	snprintf(u->device_policy, sizeof(u->device_policy), "auto");
	unit_kill_default(&u->kill);
	LIST_PREPEND(s->units, u, prev, next);
	return u;
}

void sd1_unit_remove(struct systemd1 *s, struct sd1_unit *u)
{
	LIST_REMOVE(s->units, u, prev, next);
	free(u->cgroup);
	free(u->slice);
	free(u->description);
	for (size_t i = 0; i < u->nallow; i++)
		free(u->allow[i].path);
	free(u->allow);
	free(u);
}

bool sd1_unit_alive(struct systemd1 *s, struct sd1_unit *u, const struct requester *r)
{
	pidv pids = {0};
	struct err e = {0};
	/* A unit whose stop is under way is loaded till the stop ends, whether its cgroup is there or not. */
	if (u->stop)
		return true;
	int rc = ops_key_list_tasks(s->ops, r, u->cgroup, false, &pids, &e);
	pidv_free(&pids);
	return rc == 0 || e.kind != ERR_NOT_FOUND;
}

struct sd1_unit *sd1_unit_of_cgroup(struct systemd1 *s, const char *rel)
{
	for (struct sd1_unit *u = s->units; u; u = u->next)
		if (u->kind == UNIT_KIND_SCOPE && strcmp(u->cgroup, rel) == 0)
			return u;
	for (struct sd1_unit *u = s->units; u; u = u->next)
		if (strcmp(u->cgroup, rel) == 0)
			return u;
	return NULL;
}

/* The unit an object path names for this message: /unit/self is the caller's own. */
static struct sd1_unit *unit_of_path(struct systemd1 *s, sd_bus *bus, const char *path, sd_bus_error *error)
{
	char name[UNIT_NAME_MAX + 1], *rel = NULL;
	struct err e = {0};
	struct sd1_unit *u = NULL;
	if (strcmp(path, UNIT_OBJECT_PREFIX "self") == 0) {
		const struct requester *r = sd1_requester(s, sd_bus_get_current_message(bus), &e);
		if (r && ops_key_pid_cgroup(s->ops, r, r->pid, &rel, &e) == 0)
			u = sd1_unit_of_cgroup(s, rel);
		free(rel);
		return u;
	}
	if (unit_name_of_object_path(path, name) < 0)
		return NULL;
	return sd1_unit_find(s, name);
}

static int find_any(sd_bus *bus, const char *path, const char *iface, void *userdata, void **found,
                    sd_bus_error *error)
{
	struct sd1_unit *u = unit_of_path(userdata, bus, path, error);
	*found = u;
	return u != NULL;
}

static int find_scope(sd_bus *bus, const char *path, const char *iface, void *userdata, void **found,
                      sd_bus_error *error)
{
	struct sd1_unit *u = unit_of_path(userdata, bus, path, error);
	*found = u;
	return u && u->kind == UNIT_KIND_SCOPE;
}

static int find_slice(sd_bus *bus, const char *path, const char *iface, void *userdata, void **found,
                      sd_bus_error *error)
{
	struct sd1_unit *u = unit_of_path(userdata, bus, path, error);
	*found = u;
	return u && u->kind == UNIT_KIND_SLICE;
}

/* The properties. Each getter's userdata is the unit. */
static int get_string(sd_bus_message *reply, const char *v)
{
	return sd_bus_message_append(reply, "s", v ? v : "");
}

static int p_id(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                void *userdata, sd_bus_error *error)
{
	return get_string(reply, ((struct sd1_unit *)userdata)->name);
}

static int p_names(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                   void *userdata, sd_bus_error *error)
{
	char *names[] = {((struct sd1_unit *)userdata)->name, NULL};
	return sd_bus_message_append_strv(reply, names);
}

static int p_description(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                         void *userdata, sd_bus_error *error)
{
	struct sd1_unit *u = userdata;
	return get_string(reply, u->description ? u->description : u->name);
}

static int p_load_state(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                        void *userdata, sd_bus_error *error)
{
	return get_string(reply, "loaded");
}

/* Whether the unit's cgroup is there, as the caller of the message being answered may see it. */
static bool alive_for_caller(sd_bus *bus, struct sd1_unit *u)
{
	struct err e;
	const struct requester *r = sd1_requester(u->s, sd_bus_get_current_message(bus), &e);
	return r && sd1_unit_alive(u->s, u, r);
}

static int p_active_state(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                          void *userdata, sd_bus_error *error)
{
	struct sd1_unit *u = userdata;
	if (u->stop)
		return get_string(reply, "deactivating");
	return get_string(reply, alive_for_caller(bus, u) ? "active" : "inactive");
}

/* A stopping scope's SubState is systemd's: stop-sigterm while its tasks may leave, stop-sigkill at the end. */
static int p_sub_state(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                       void *userdata, sd_bus_error *error)
{
	struct sd1_unit *u = userdata;
	if (u->stop && u->kind == UNIT_KIND_SCOPE)
		return get_string(reply, u->stop->final ? "stop-sigkill" : "stop-sigterm");
	if (u->stop)
		return get_string(reply, "active");
	return get_string(reply, !alive_for_caller(bus, u) ? "dead" : u->kind == UNIT_KIND_SCOPE ? "running" : "active");
}

static int p_invocation(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                        void *userdata, sd_bus_error *error)
{
	struct sd1_unit *u = userdata;
	return sd_bus_message_append_array(reply, 'y', u->invocation.bytes, sizeof(u->invocation.bytes));
}

static int p_slice(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                   void *userdata, sd_bus_error *error)
{
	return get_string(reply, ((struct sd1_unit *)userdata)->slice);
}

static int p_control_group(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                           void *userdata, sd_bus_error *error)
{
	char cg[CGNAME_MAX + 1];
	display_path(((struct sd1_unit *)userdata)->cgroup, cg, sizeof(cg));
	return get_string(reply, cg);
}

/* A count read through the key API; systemd's "unknown" (UINT64_MAX) when it cannot be read. */
static int p_count(sd_bus *bus, const char *prop, sd_bus_message *reply, struct sd1_unit *u)
{
	const char *keys[] = {strcmp(prop, "MemoryCurrent") == 0 ? "memory.usage" : "pids.current", NULL};
	uint64_t v = UINT64_MAX;
	kvv out = {0};
	struct err e;
	const struct requester *r = sd1_requester(u->s, sd_bus_get_current_message(bus), &e);
	if (r && ops_key_get_values(u->s->ops, r, u->cgroup, keys, &out, &e) == 0 && out.n == 1)
		sscanf(out.v[0].value, "%" SCNu64, &v);
	kvv_free(&out);
	return sd_bus_message_append(reply, "t", v);
}

static int p_current(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                     void *userdata, sd_bus_error *error)
{
	return p_count(bus, prop, reply, userdata);
}

static int p_delegate(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                      void *userdata, sd_bus_error *error)
{
	return sd_bus_message_append(reply, "b", (int)((struct sd1_unit *)userdata)->delegate);
}

static int p_device_policy(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                           void *userdata, sd_bus_error *error)
{
	return get_string(reply, ((struct sd1_unit *)userdata)->device_policy);
}

static int p_device_allow(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                          void *userdata, sd_bus_error *error)
{
	struct sd1_unit *u = userdata;
	int r = sd_bus_message_open_container(reply, 'a', "(ss)");
	for (size_t i = 0; r >= 0 && i < u->nallow; i++)
		r = sd_bus_message_append(reply, "(ss)", u->allow[i].path, u->allow[i].access);
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* How StopUnit stops the scope: KillMode, KillSignal, SendSIGKILL, TimeoutStopUSec. */
static int p_kill(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                  void *userdata, sd_bus_error *error)
{
	const struct unit_kill *k = &((struct sd1_unit *)userdata)->kill;
	if (strcmp(prop, "KillMode") == 0)
		return sd_bus_message_append(reply, "s", unit_kill_mode_name(k->mode));
	if (strcmp(prop, "KillSignal") == 0)
		return sd_bus_message_append(reply, "i", k->signal);
	if (strcmp(prop, "SendSIGKILL") == 0)
		return sd_bus_message_append(reply, "b", (int)k->send_sigkill);
	return sd_bus_message_append(reply, "t", k->timeout_usec);
}

#define P(name, sig, fn) SD_BUS_PROPERTY(name, sig, fn, 0, 0)

static const sd_bus_vtable sd1_unit_vtable[] = {
	SD_BUS_VTABLE_START(0),
	P("Id", "s", p_id),
	P("Names", "as", p_names),
	P("Description", "s", p_description),
	P("LoadState", "s", p_load_state),
	P("ActiveState", "s", p_active_state),
	P("SubState", "s", p_sub_state),
	P("InvocationID", "ay", p_invocation),
	SD_BUS_VTABLE_END,
};

/* A scope's and a slice's cgroup properties are the same. */
#define CGROUP_PROPERTIES                                                                                              \
	P("Slice", "s", p_slice), P("ControlGroup", "s", p_control_group), P("MemoryCurrent", "t", p_current),           \
	    P("TasksCurrent", "t", p_current), P("Delegate", "b", p_delegate), P("DevicePolicy", "s", p_device_policy),  \
	    P("DeviceAllow", "a(ss)", p_device_allow)

static const sd_bus_vtable sd1_scope_vtable[] = {
	SD_BUS_VTABLE_START(0),
	CGROUP_PROPERTIES,
	P("KillMode", "s", p_kill),
	P("KillSignal", "i", p_kill),
	P("SendSIGKILL", "b", p_kill),
	P("TimeoutStopUSec", "t", p_kill),
	SD_BUS_VTABLE_END,
};

static const sd_bus_vtable sd1_slice_vtable[] = {
	SD_BUS_VTABLE_START(0),
	CGROUP_PROPERTIES,
	SD_BUS_VTABLE_END,
};

static const struct {
	const char *iface;
	const sd_bus_vtable *vtable;
	sd_bus_object_find_t find;
} sd1_unit_objects[] = {
	{"org.freedesktop.systemd1.Unit", sd1_unit_vtable, find_any},
	{"org.freedesktop.systemd1.Scope", sd1_scope_vtable, find_scope},
	{"org.freedesktop.systemd1.Slice", sd1_slice_vtable, find_slice},
};

int sd1_units_register(struct systemd1 *s, sd_bus *bus)
{
	int r = 0;
	for (size_t i = 0; r >= 0 && i < sizeof(sd1_unit_objects) / sizeof(sd1_unit_objects[0]); i++)
		r = sd_bus_add_fallback_vtable(bus, NULL, "/org/freedesktop/systemd1/unit", sd1_unit_objects[i].iface,
		                               sd1_unit_objects[i].vtable, sd1_unit_objects[i].find, s);
	return r;
}

