/*
 * org.freedesktop.systemd1.Manager as cgmanager serves it: transient scopes and slices, made, changed and
 * stopped through the key API's operations (names from the daemon's root), and the few lookups clients make.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dbus/errors.h"
#include "dbus/systemd1_internal.h"
#include "keys/keys.h"
#include "ops/job.h"
#include "util/log.h"

#ifndef CGMANAGER_VERSION
#define CGMANAGER_VERSION "unknown"
#endif
/* The Manager's Version: the systemd release whose interface this follows first, as clients parse a number. */
#define SD1_VERSION "252 (cgmanager " CGMANAGER_VERSION ")"

int sd1_reply_error(sd_bus_message *m, const struct err *e)
{
	return reply_error(m, e);
}

static int no_such_unit(sd_bus_message *m, const char *name)
{
	return sd_bus_reply_method_errorf(m, SD1_ERROR_NO_SUCH_UNIT, "Unit %s not loaded.", name);
}

/* Majors of /proc/devices whose name matches glob, in the section of type (char-NAME, block-NAME). */
static int proc_devices_majors(void *ctx, char type, const char *glob, unsigned *majors, size_t max)
{
	char line[256], name[200];
	bool in_section = false;
	unsigned major;
	int n = 0;
	FILE *f = fopen("/proc/devices", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && (size_t)n < max) {
		if (strncmp(line, "Character devices:", 18) == 0 || strncmp(line, "Block devices:", 14) == 0)
			in_section = (line[0] == 'C') == (type == 'c');
		else if (in_section && sscanf(line, "%u %199s", &major, name) == 2 && fnmatch(glob, name, 0) == 0)
			majors[n++] = major;
	}
	fclose(f);
	return n;
}

/* Each unknown or not applied property once in the daemon's life, at info. */
static void log_once(struct systemd1 *s, const strv *names, const char *what)
{
	for (size_t i = 0; i < names->n; i++) {
		if (strv_contains(&s->logged, names->v[i]))
			continue;
		log_info("systemd1: property %s%s", names->v[i], what);
		strv_push(&s->logged, names->v[i]);
	}
}

static int host_version_of(void *ctx, const char *controller)
{
	int version;
	return hierarchy_for_controller(ctx, controller, &version) ? version : 0;
}

/*
 * The keys of settings whose controller is here on a version where they have no equivalent (MemoryHigh where
 * memory is a v1 hierarchy) are left out, each logged once: systemd too accepts such a property and applies
 * nothing. A key that fails for any other reason fails the call.
 */
static int drop_keys_not_here(struct systemd1 *s, struct unit_settings *st)
{
	struct key_host h = {.version_of = host_version_of, .ctx = s->ops};
	strv dropped = {0};
	size_t kept = 0;
	int rc = 0;
	for (size_t i = 0; i < st->keys.n; i++) {
		struct err why = {0};
		if (!key_lacks_equivalent(&h, st->keys.v[i], &why)) {
			st->keys.v[kept] = st->keys.v[i];
			st->values.v[kept] = st->values.v[i];
			st->origins.v[kept++] = st->origins.v[i];
			continue;
		}
		char line[768];
		snprintf(line, sizeof(line), "%s is accepted but not applied: %s", st->origins.v[i], why.msg);
		if (strv_push(&dropped, line) < 0)
			rc = -1;
		free(st->keys.v[i]);
		free(st->values.v[i]);
		free(st->origins.v[i]);
	}
	st->keys.n = st->values.n = st->origins.n = kept;
	if (st->keys.v)
		st->keys.v[kept] = st->values.v[kept] = st->origins.v[kept] = NULL;
	log_once(s, &dropped, "");
	strv_free(&dropped);
	return rc;
}

/* The device rules of u once settings are applied to it; *touched says whether the call changed them. */
static int merge_devices(struct sd1_unit *u, struct unit_settings *st, bool *touched, bool *deny_all, char **rules,
                         struct err *e)
{
	struct unit_device_host h = {.majors_of = proc_devices_majors};
	*touched = st->device_policy[0] || st->device_allow_reset || st->nallow;
	*rules = NULL;
	if (!*touched)
		return 0;
	if (st->device_policy[0])
		memcpy(u->device_policy, st->device_policy, sizeof(u->device_policy));
	if (st->device_allow_reset) {
		for (size_t i = 0; i < u->nallow; i++)
			free(u->allow[i].path);
		u->nallow = 0;
	}
	if (st->nallow) {
		struct unit_device *grown = realloc(u->allow, (u->nallow + st->nallow) * sizeof(*grown));
		if (!grown)
			return err_set(e, ERR_FAILED, "out of memory");
		u->allow = grown;
		/* The entries move to the unit. */
		memcpy(u->allow + u->nallow, st->allow, st->nallow * sizeof(*grown));
		u->nallow += st->nallow;
		st->nallow = 0;
	}
	return unit_device_rules(&h, u->device_policy, u->allow, u->nallow, deny_all, rules, e);
}

/* The keys settings asks for on u, device rules included, in the order they are to be written. */
static int values_of(struct sd1_unit *u, struct unit_settings *st, kvv *values, struct err *e)
{
	bool touched, deny_all;
	char *rules = NULL;
	for (size_t i = 0; i < st->keys.n; i++) {
		char *v = strdup(st->values.v[i]);
		if (!v || kvv_push(values, st->keys.v[i], v) < 0)
			return err_set(e, ERR_FAILED, "out of memory");
	}
	if (merge_devices(u, st, &touched, &deny_all, &rules, e) < 0)
		return -1;
	int rc = 0;
	if (touched) {
		/* Every device denied, then the rules allowed: on v1 a cgroup keeps what it allowed before otherwise.
		 * Unrestricted (auto, no entries): every device allowed again, as far as the parent allows. */
		char *all = strdup("a");
		if (!all || kvv_push(values, deny_all ? "devices_blacklist" : "devices_whitelist", all) < 0) {
			rc = err_set(e, ERR_FAILED, "out of memory");
		} else if (deny_all && rules[0]) {
			/* kvv_push takes the rules, also when it fails. */
			if (kvv_push(values, "devices_whitelist", rules) < 0)
				rc = err_set(e, ERR_FAILED, "out of memory");
			rules = NULL;
		}
	}
	free(rules);
	if (st->description) {
		free(u->description);
		u->description = st->description;
		st->description = NULL;
	}
	if (st->has_delegate)
		u->delegate = st->delegate;
	if (st->kill_set & UNIT_SET_KILL_MODE)
		u->kill.mode = st->kill.mode;
	if (st->kill_set & UNIT_SET_KILL_SIGNAL)
		u->kill.signal = st->kill.signal;
	if (st->kill_set & UNIT_SET_SEND_SIGKILL)
		u->kill.send_sigkill = st->kill.send_sigkill;
	if (st->kill_set & UNIT_SET_TIMEOUT_STOP)
		u->kill.timeout_usec = st->kill.timeout_usec;
	return rc;
}

static int read_settings(struct systemd1 *s, sd_bus_message *m, struct unit_settings *st, struct err *e)
{
	struct unit_prop *props = NULL;
	size_t n = 0;
	int r = sd1_props_read(m, &props, &n);
	if (r < 0)
		return err_errno(e, -r, "cannot read the properties");
	r = unit_props_decode(props, n, st, e);
	sd1_props_free(props, n);
	if (r < 0)
		return -1;
	log_once(s, &st->unknown, " is not known here; ignored");
	if (drop_keys_not_here(s, st) < 0) {
		unit_settings_free(st);
		return err_set(e, ERR_FAILED, "out of memory");
	}
	return 0;
}

/* Slice and the slices above it, each registered as a unit the first time one is made in it. */
static int add_slices(struct systemd1 *s, const char *slice, struct err *e)
{
	char cg[CGNAME_MAX], parent[UNIT_NAME_MAX + 1];
	struct sd1_unit *u;
	for (; !sd1_unit_find(s, slice); slice = u->slice) {
		bool top = slice_parent(slice, parent) < 0;
		if (unit_cgroup_path(slice, NULL, cg, e) < 0)
			return -1;
		if (!(u = sd1_unit_add(s, slice, UNIT_KIND_SLICE, cg, top ? NULL : parent)))
			return err_set(e, ERR_FAILED, "out of memory");
		if (top)
			break;
	}
	return 0;
}

/* The pids of a new scope moved in, in every hierarchy; 0 is the caller. */
static int move_pids(struct systemd1 *s, const struct requester *r, const char *cgroup, const struct unit_settings *st,
                     struct err *e)
{
	for (size_t i = 0; i < st->npids; i++) {
		pid_t pid = st->pids[i] ? (pid_t)st->pids[i] : r->pid;
		if (ops_key_move_pid(s->ops, r, cgroup, pid, e) < 0)
			return err_prefix(e, "property PIDs");
	}
	return 0;
}

/*
 * A scope or slice made, with its settings, and its pids moved in; *exists when a cgroup of that name is there
 * already. The reply and JobRemoved are the caller's.
 */
static int start_unit(struct systemd1 *s, const struct requester *r, const char *name, enum unit_kind kind,
                      struct unit_settings *st, bool *exists, struct err *e)
{
	char cg[CGNAME_MAX], parent[UNIT_NAME_MAX + 1];
	const char *slice = st->slice ? st->slice : UNIT_DEFAULT_SLICE;
	kvv values = {0};
	bool created = false;
	pidv tasks = {0};
	struct ops_job *job = NULL;
	struct sd1_unit *u;

	*exists = false;
	if (kind == UNIT_KIND_SLICE)
		slice = slice_parent(name, parent) < 0 ? NULL : parent;
	if (unit_cgroup_path(name, slice, cg, e) < 0)
		return -1;
	if (kind == UNIT_KIND_SCOPE && st->npids == 0)
		return err_set(e, ERR_INVALID, "scope %s has no PIDs; a scope is made for processes that exist", name);
	if (kind == UNIT_KIND_SLICE && (st->npids || st->slice))
		return err_set(e, ERR_INVALID, "property %s: a slice's place is its name, and it holds no processes itself",
		               st->npids ? "PIDs" : "Slice");
	/* A cgroup of that name is a unit already, whether this daemon made it before a restart or not. */
	if (sd1_unit_find(s, name) || ops_key_list_tasks(s->ops, r, cg, false, &tasks, e) == 0) {
		pidv_free(&tasks);
		*exists = true;
		return err_set(e, ERR_FAILED, "Unit %s was already loaded or has a fragment file.", name);
	}
	*e = (struct err){0};
	if (!(u = sd1_unit_add(s, name, kind, cg, slice)))
		return err_set(e, ERR_FAILED, "out of memory");
	if (values_of(u, st, &values, e) < 0 || ops_key_create(s->ops, r, cg, NULL, &values, &created, e) < 0)
		goto fail;
	if ((kind == UNIT_KIND_SCOPE && ops_remove_on_empty(s->ops, r, &s->ops->all, cg, e) < 0) ||
	    move_pids(s, r, cg, st, e) < 0 ||
	    (st->delegate && ops_key_chown(s->ops, r, cg, r->cred.uid, r->cred.gid, e) < 0)) {
		struct err ignored;
		/* Back out: the scope goes now if no pid got in, else (remove-on-empty) once those that did have left. */
		if (ops_key_delete_start(s->ops, r, cg, false, &job, &ignored) == 0)
			ops_job_free(job);
		goto fail;
	}
	kvv_free(&values);
	if (slice && add_slices(s, slice, e) < 0)
		return -1;
	log_info("systemd1: started %s in /%s", name, cg);
	return 0;
fail:
	kvv_free(&values);
	sd1_unit_remove(s, u);
	return -1;
}

/* A job that is done at once: its path answered, then JobRemoved "done", after the reply as clients expect. */
static int reply_job_done(struct systemd1 *s, sd_bus_message *m, const char *unit)
{
	char path[64];
	uint32_t id = ++s->next_job;
	sd1_job_path(id, path);
	int r = sd_bus_reply_method_return(m, "o", path);
	if (r >= 0)
		sd1_emit_job_removed(s, id, unit, "done");
	return r;
}

static int m_start_transient_unit(sd_bus_message *m, void *userdata, sd_bus_error *ret)
{
	struct systemd1 *s = userdata;
	const char *name, *mode;
	struct unit_settings st = {0};
	struct err e = {0};
	enum unit_kind kind;
	const struct requester *r;
	int rc = sd_bus_message_read(m, "ss", &name, &mode);
	if (rc < 0)
		return rc;
	if (!(r = sd1_root_requester(s, m, "start units", &e)))
		return reply_error(m, &e);
	if (strcmp(mode, "fail") && strcmp(mode, "replace"))
		return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_NOT_SUPPORTED, "job mode '%s' is not supported here "
		                                  "(fail or replace)", mode);
	if (unit_name_check(name, &kind, &e) < 0)
		return reply_error(m, &e);
	if (kind == UNIT_KIND_OTHER)
		return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_NOT_SUPPORTED, "unit %s: this manager makes only scopes "
		                                  "and slices", name);
	if (read_settings(s, m, &st, &e) < 0)
		return reply_error(m, &e);
	if ((rc = sd_bus_message_enter_container(m, 'a', "(sa(sv))")) < 0 || (rc = sd_bus_message_at_end(m, false)) < 0)
		goto out;
	if (rc == 0) {
		rc = sd_bus_reply_method_errorf(m, SD_BUS_ERROR_NOT_SUPPORTED, "auxiliary units are not supported here");
		goto out;
	}
	bool exists;
	if (start_unit(s, r, name, kind, &st, &exists, &e) < 0)
		rc = exists ? sd_bus_reply_method_errorf(m, SD1_ERROR_UNIT_EXISTS, "%s", e.msg) : reply_error(m, &e);
	else
		rc = reply_job_done(s, m, name);
out:
	unit_settings_free(&st);
	return rc;
}

/* The unit named, which must be one of this manager's and still there. */
static struct sd1_unit *live_unit(struct systemd1 *s, const struct requester *r, const char *name)
{
	struct sd1_unit *u = sd1_unit_find(s, name);
	if (u && !sd1_unit_alive(s, u, r)) {
		sd1_unit_remove(s, u);
		u = NULL;
	}
	return u;
}

/* -.slice is the daemon's root, whose tree holds the daemon, its bus and every client of its socket. */
static int root_unit_refused(sd_bus_message *m, const char *name, const char *what)
{
	return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_ACCESS_DENIED,
	                                  "%s is the daemon's root, whose tree holds the daemon itself; it is not %s", name,
	                                  what);
}

static int m_stop_unit(sd_bus_message *m, void *userdata, sd_bus_error *ret)
{
	struct systemd1 *s = userdata;
	const char *name, *mode;
	struct err e = {0};
	const struct requester *r;
	struct sd1_unit *u;
	char path[64];
	uint32_t id;
	int rc = sd_bus_message_read(m, "ss", &name, &mode);
	if (rc < 0)
		return rc;
	if (!(r = sd1_root_requester(s, m, "stop units", &e)))
		return reply_error(m, &e);
	if (!(u = live_unit(s, r, name)))
		return no_such_unit(m, name);
	if (u->cgroup[0] == '\0')
		return root_unit_refused(m, name, "stopped");
	/*
	 * KillSignal, a wait for the tasks to leave, SIGKILL, the removal: as the unit's kill settings say (a slice's,
	 * those of each unit beneath it). The unit stays loaded, deactivating, till its stop ends. A unit that is
	 * stopping already answers the stop under way, as systemd merges the two jobs.
	 */
	if (u->stop)
		id = u->stop->id;
	else if (sd1_stop_run(s, u, &id, &e) < 0)
		return reply_error(m, &e);
	sd1_job_path(id, path);
	return sd_bus_reply_method_return(m, "o", path);
}

/* The first property of st that only StartTransientUnit takes, as systemd's scope takes them while it is made. */
static const char *start_only_property(const struct unit_settings *st)
{
	if (st->slice)
		return "Slice";
	if (st->npids)
		return "PIDs";
	if (st->kill_set & UNIT_SET_KILL_MODE)
		return "KillMode";
	if (st->kill_set & UNIT_SET_KILL_SIGNAL)
		return "KillSignal";
	return st->kill_set & UNIT_SET_SEND_SIGKILL ? "SendSIGKILL" : "TimeoutStopUSec";
}

/* What SetUnitProperties may change on a unit, kept so that a refused call leaves the unit as it was. */
struct unit_snapshot {
	char *description;
	bool delegate;
	char device_policy[8];
	struct unit_device *allow;
	size_t nallow;
};

static void snapshot_free(struct unit_snapshot *sn)
{
	for (size_t i = 0; i < sn->nallow; i++)
		free(sn->allow[i].path);
	free(sn->allow);
	free(sn->description);
	*sn = (struct unit_snapshot){0};
}

static int snapshot_take(const struct sd1_unit *u, struct unit_snapshot *sn, struct err *e)
{
	*sn = (struct unit_snapshot){.delegate = u->delegate};
	memcpy(sn->device_policy, u->device_policy, sizeof(sn->device_policy));
	if ((u->description && !(sn->description = strdup(u->description))) ||
	    (u->nallow && !(sn->allow = calloc(u->nallow, sizeof(*sn->allow)))))
		goto oom;
	for (; sn->nallow < u->nallow; sn->nallow++) {
		sn->allow[sn->nallow] = u->allow[sn->nallow];
		if (!(sn->allow[sn->nallow].path = strdup(u->allow[sn->nallow].path)))
			goto oom;
	}
	return 0;
oom:
	snapshot_free(sn);
	return err_set(e, ERR_FAILED, "out of memory");
}

/* The unit as the snapshot has it; the snapshot is used up. */
static void snapshot_restore(struct sd1_unit *u, struct unit_snapshot *sn)
{
	for (size_t i = 0; i < u->nallow; i++)
		free(u->allow[i].path);
	free(u->allow);
	free(u->description);
	u->allow = sn->allow;
	u->nallow = sn->nallow;
	u->description = sn->description;
	u->delegate = sn->delegate;
	memcpy(u->device_policy, sn->device_policy, sizeof(u->device_policy));
	*sn = (struct unit_snapshot){0};
}

static int m_set_unit_properties(sd_bus_message *m, void *userdata, sd_bus_error *ret)
{
	struct systemd1 *s = userdata;
	const char *name;
	int runtime;
	struct unit_settings st = {0};
	struct unit_snapshot sn = {0};
	struct err e = {0};
	kvv values = {0};
	const struct requester *r;
	struct sd1_unit *u;
	int rc = sd_bus_message_read(m, "sb", &name, &runtime);
	if (rc < 0)
		return rc;
	if (!(r = sd1_root_requester(s, m, "change units", &e)))
		return reply_error(m, &e);
	if (!(u = live_unit(s, r, name)))
		return no_such_unit(m, name);
	if (read_settings(s, m, &st, &e) < 0)
		return reply_error(m, &e);
	if (st.slice || st.npids || st.kill_set)
		rc = sd_bus_reply_method_errorf(m, SD_BUS_ERROR_INVALID_ARGS, "property %s: only set when the unit starts",
		                                start_only_property(&st));
	else if (snapshot_take(u, &sn, &e) < 0)
		rc = reply_error(m, &e);
	else if (values_of(u, &st, &values, &e) < 0 ||
	         (values.n && ops_key_set_values(s->ops, r, u->cgroup, &values, &e) < 0)) {
		snapshot_restore(u, &sn);
		rc = reply_error(m, &e);
	} else {
		rc = sd_bus_reply_method_return(m, "");
	}
	snapshot_free(&sn);
	kvv_free(&values);
	unit_settings_free(&st);
	return rc;
}

static int m_reset_failed_unit(sd_bus_message *m, void *userdata, sd_bus_error *ret)
{
	struct systemd1 *s = userdata;
	const char *name;
	struct err e = {0};
	const struct requester *r;
	int rc = sd_bus_message_read(m, "s", &name);
	if (rc < 0)
		return rc;
	if (!(r = sd1_root_requester(s, m, "reset units", &e)))
		return reply_error(m, &e);
	/* No unit here is ever left failed: one that is known has nothing to reset. */
	return live_unit(s, r, name) ? sd_bus_reply_method_return(m, "") : no_such_unit(m, name);
}

static int reply_unit_path(sd_bus_message *m, const struct sd1_unit *u)
{
	char path[UNIT_OBJECT_PATH_MAX];
	unit_object_path(u->name, path);
	return sd_bus_reply_method_return(m, "o", path);
}

static int m_get_unit(sd_bus_message *m, void *userdata, sd_bus_error *ret)
{
	struct systemd1 *s = userdata;
	const char *name;
	struct err e = {0};
	const struct requester *r;
	struct sd1_unit *u;
	int rc = sd_bus_message_read(m, "s", &name);
	if (rc < 0)
		return rc;
	if (!(r = sd1_requester(s, m, &e)))
		return reply_error(m, &e);
	return (u = live_unit(s, r, name)) ? reply_unit_path(m, u) : no_such_unit(m, name);
}

static int m_get_unit_by_pid(sd_bus_message *m, void *userdata, sd_bus_error *ret)
{
	struct systemd1 *s = userdata;
	uint32_t pid;
	struct err e = {0};
	const struct requester *r;
	struct sd1_unit *u = NULL;
	char *rel = NULL;
	int rc = sd_bus_message_read(m, "u", &pid);
	if (rc < 0)
		return rc;
	if (!(r = sd1_requester(s, m, &e)))
		return reply_error(m, &e);
	if (ops_key_pid_cgroup(s->ops, r, pid ? (pid_t)pid : r->pid, &rel, &e) < 0)
		return reply_error(m, &e);
	u = sd1_unit_of_cgroup(s, rel);
	free(rel);
	if (!u)
		return sd_bus_reply_method_errorf(m, "org.freedesktop.systemd1.NoUnitForPID",
		                                  "PID %u does not belong to any loaded unit.", pid);
	return reply_unit_path(m, u);
}

static int m_kill_unit(sd_bus_message *m, void *userdata, sd_bus_error *ret)
{
	struct systemd1 *s = userdata;
	const char *name, *whom;
	int sig;
	struct err e = {0};
	struct ops_job *job = NULL;
	const struct requester *r;
	struct sd1_unit *u;
	uint32_t id;
	int rc = sd_bus_message_read(m, "ssi", &name, &whom, &sig);
	if (rc < 0)
		return rc;
	if (!(r = sd1_root_requester(s, m, "signal units", &e)))
		return reply_error(m, &e);
	if (strcmp(whom, "all") && strcmp(whom, "main") && strcmp(whom, "control") && *whom)
		return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_INVALID_ARGS, "whom '%s' is not all, main or control",
		                                  whom);
	if (!(u = live_unit(s, r, name)))
		return no_such_unit(m, name);
	if (u->cgroup[0] == '\0')
		return root_unit_refused(m, name, "signalled");
	/* A scope has no main or control process: every task of it is signalled, as for all. */
	if (ops_key_kill_start(s->ops, r, u->cgroup, sig, &job, &e) < 0)
		return reply_error(m, &e);
	if (!job)
		return sd_bus_reply_method_return(m, "");
	/* Answered when the job ends; 1 tells sd-bus the call is taken (0 would make it an unknown method). */
	rc = sd1_job_run(s, name, job, m, &id);
	return rc < 0 ? rc : 1;
}

static int m_list_units(sd_bus_message *m, void *userdata, sd_bus_error *ret)
{
	struct systemd1 *s = userdata;
	struct err e = {0};
	const struct requester *r;
	sd_bus_message *reply = NULL;
	if (!(r = sd1_requester(s, m, &e)))
		return reply_error(m, &e);
	int rc = reply_array_open(m, "(ssssssouso)", &reply);
	for (struct sd1_unit *u = s->units, *next; rc >= 0 && u; u = next) {
		char path[UNIT_OBJECT_PATH_MAX];
		next = u->next;
		if (!sd1_unit_alive(s, u, r)) {
			sd1_unit_remove(s, u);
			continue;
		}
		unit_object_path(u->name, path);
		const char *sub = u->kind == UNIT_KIND_SCOPE ? (!u->stop ? "running" : u->stop->final ? "stop-sigkill" : "stop-sigterm") : "active";
		char job_path[64] = "/";
		if (u->stop)
			sd1_job_path(u->stop->id, job_path);
		rc = sd_bus_message_append(reply, "(ssssssouso)", u->name, u->description ? u->description : u->name,
		                           "loaded", u->stop ? "deactivating" : "active", sub, "", path,
		                           u->stop ? u->stop->id : (uint32_t)0, u->stop ? "stop" : "", job_path);
	}
	return reply_array_send(reply, rc);
}

/* Clients subscribe before waiting for JobRemoved; signals go to everyone anyway. */
static int m_subscribe(sd_bus_message *m, void *userdata, sd_bus_error *ret)
{
	return sd_bus_reply_method_return(m, "");
}

static int p_version(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                     void *userdata, sd_bus_error *error)
{
	return sd_bus_message_append(reply, "s", SD1_VERSION);
}

#define M(name, in, out, fn) SD_BUS_METHOD(name, in, out, fn, SD_BUS_VTABLE_UNPRIVILEGED)

const sd_bus_vtable sd1_manager_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("Version", "s", p_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	M("StartTransientUnit", "ssa(sv)a(sa(sv))", "o", m_start_transient_unit),
	M("StopUnit", "ss", "o", m_stop_unit),
	M("SetUnitProperties", "sba(sv)", "", m_set_unit_properties),
	M("ResetFailedUnit", "s", "", m_reset_failed_unit),
	M("GetUnit", "s", "o", m_get_unit),
	M("GetUnitByPID", "u", "o", m_get_unit_by_pid),
	M("KillUnit", "ssi", "", m_kill_unit),
	M("ListUnits", "", "a(ssssssouso)", m_list_units),
	M("Subscribe", "", "", m_subscribe),
	M("Unsubscribe", "", "", m_subscribe),
	SD_BUS_SIGNAL("JobRemoved", "uoss", 0),
	SD_BUS_VTABLE_END,
};
