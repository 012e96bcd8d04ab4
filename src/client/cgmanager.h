/*
 * libcgmanager: the C client of the cgmanager daemon.
 *
 * One function per method of org.linuxcontainers.cgmanager0_0 (cgm_*) and of
 * the key-based org.linuxcontainers.cgmanager1 (cgm1_*, below). Every
 * function returns 0 on success or a negative errno-style value on failure;
 * when the daemon refused, the error's D-Bus name and message are left in
 * *err (pass NULL to ignore them, free them with cgm_error_clear).
 *
 * Cgroup names are relative to the caller's own cgroup; "" names it.
 * A controller argument is one controller ("memory"), "systemd" or
 * "name=systemd", "unified", a comma-separated list, or "all" where a
 * method accepts several.
 */
#ifndef CGMANAGER_CLIENT_H
#define CGMANAGER_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CGM_ENV_SOCKET "CGMANAGER_SOCKET"

/*
 * cgproxy does not relay the key API: it answers its calls with this error,
 * whose message ends with CGM1_UPSTREAM_MARK and the host daemon's socket
 * path. libcgmanager then sends cgm1_* calls there itself; the daemon
 * identifies the caller from the connection, across namespaces.
 */
#define CGM1_ERROR_UPSTREAM "org.linuxcontainers.cgmanager.Error.KeyApiUpstream"
#define CGM1_UPSTREAM_MARK "the host daemon answers it at "

typedef struct cgm_client cgm_client;

typedef struct {
	char *name;    /* D-Bus error name, e.g. "org.freedesktop.DBus.Error.AccessDenied" */
	char *message; /* why, worded for a person */
} cgm_error;

void cgm_error_clear(cgm_error *err);

/*
 * The socket a client uses when given none: $CGMANAGER_SOCKET if set, else
 * the first of /sys/fs/cgroup/cgmanager/sock and /run/cgmanager/sock that
 * exists (the latter if neither does). Returns a static string.
 */
const char *cgm_default_socket(void);

/*
 * socket_path NULL: cgm_default_socket(). A client survives the daemon's
 * restarts: a call finding the connection closed by the daemon connects
 * again first (in the process that connected); while no daemon answers,
 * calls fail with org.freedesktop.DBus.Error.NoServer.
 */
int cgm_connect(const char *socket_path, cgm_client **out, cgm_error *err);
void cgm_disconnect(cgm_client *c);

int cgm_ping(cgm_client *c, cgm_error *err);
int cgm_api_version(cgm_client *c, int *version, cgm_error *err);

/* *out is malloc'ed. Relative to the caller's cgroup ("/" for its own) or, Abs, to the daemon's root. */
int cgm_get_pid_cgroup(cgm_client *c, const char *controller, pid_t pid, char **out, cgm_error *err);
int cgm_get_pid_cgroup_abs(cgm_client *c, const char *controller, pid_t pid, char **out, cgm_error *err);

/* *existed: 1 if it was already there, -1 if this call created it. */
int cgm_create(cgm_client *c, const char *controller, const char *cgroup, int *existed, cgm_error *err);
int cgm_chown(cgm_client *c, const char *controller, const char *cgroup, uid_t uid, gid_t gid, cgm_error *err);
/* file "" chmods the cgroup directory itself. */
int cgm_chmod(cgm_client *c, const char *controller, const char *cgroup, const char *file, int mode,
              cgm_error *err);
int cgm_move_pid(cgm_client *c, const char *controller, const char *cgroup, pid_t pid, cgm_error *err);
int cgm_move_pid_abs(cgm_client *c, const char *controller, const char *cgroup, pid_t pid, cgm_error *err);

/* *value is malloc'ed, without trailing newlines. */
int cgm_get_value(cgm_client *c, const char *controller, const char *cgroup, const char *key, char **value,
                  cgm_error *err);
int cgm_set_value(cgm_client *c, const char *controller, const char *cgroup, const char *key, const char *value,
                  cgm_error *err);

/* *existed: 1 if removed, -1 if it did not exist. */
int cgm_remove(cgm_client *c, const char *controller, const char *cgroup, int recursive, int *existed,
               cgm_error *err);

/* *pids is malloc'ed, sorted. */
int cgm_get_tasks(cgm_client *c, const char *controller, const char *cgroup, pid_t **pids, size_t *n,
                  cgm_error *err);
int cgm_get_tasks_recursive(cgm_client *c, const char *controller, const char *cgroup, pid_t **pids, size_t *n,
                            cgm_error *err);

/* String lists are NULL-terminated and freed with cgm_strv_free. */
int cgm_list_children(cgm_client *c, const char *controller, const char *cgroup, char ***out, cgm_error *err);
int cgm_list_controllers(cgm_client *c, char ***out, cgm_error *err);
void cgm_strv_free(char **v);

int cgm_remove_on_empty(cgm_client *c, const char *controller, const char *cgroup, cgm_error *err);
int cgm_prune(cgm_client *c, const char *controller, const char *cgroup, cgm_error *err);

typedef struct {
	char *name;
	uint32_t uid, gid, mode; /* mode as stat(2) gives it, file type bits included */
} cgm_key;
int cgm_list_keys(cgm_client *c, const char *controller, const char *cgroup, cgm_key **keys, size_t *n,
                  cgm_error *err);
void cgm_keys_free(cgm_key *keys, size_t n);

/*
 * org.linuxcontainers.cgmanager1: cgroups named once for every hierarchy
 * and set through abstract keys (memory.limit, cpus_allowed, pids.limit,
 * freezer.state, ...; docs/keys.md, cgm1_list_keys) instead of cgroupfs files.
 *
 * name is a cgroup relative to the caller's own cgroup ("" names it), the
 * same in every hierarchy it exists in. controllers are abstract controllers
 * ("memory", "cpu", "pids", "io", "name=systemd", ...) as a NULL-terminated
 * array; NULL or empty means every hierarchy. Returns and *err as above.
 */

/*
 * One key and its value. Lists of them are an array and a count: given to
 * the library they are only read (so string literals do), returned by it
 * they are malloc'ed and freed with cgm1_values_free.
 */
typedef struct {
	char *key;
	char *value;
} cgm1_value;
void cgm1_values_free(cgm1_value *values, size_t n);
/* The value of key in values, or NULL: the daemon answers a{ss} in no particular order. */
const char *cgm1_values_find(const cgm1_value *values, size_t n, const char *key);

typedef struct {
	char *controller; /* "memory", "cpu", "pids", "name=systemd", ... */
	char *version;    /* "v1" or "v2": the hierarchy behind it here */
} cgm1_controller;
int cgm1_list_controllers(cgm_client *c, cgm1_controller **controllers, size_t *n, cgm_error *err);
void cgm1_controllers_free(cgm1_controller *controllers, size_t n);

typedef struct {
	char *key;     /* "memory.limit"; families end in ".<size>": "hugetlb_limit.<size>" */
	char *access;  /* "r" or "rw" */
	char *file;    /* the cgroupfs file behind it on this host, "" if none */
	char *syntax;  /* the values accepted, and the canonical form answered */
	char *meaning; /* a sentence */
} cgm1_key;
int cgm1_list_keys(cgm_client *c, cgm1_key **keys, size_t *n, cgm_error *err);
void cgm1_keys_free(cgm1_key *keys, size_t n);

/*
 * Creates name in each hierarchy of controllers and applies the n values;
 * all or nothing. *created (may be NULL): 1 if this call created it in some
 * hierarchy, 0 if it existed in all of them already.
 */
int cgm1_create(cgm_client *c, const char *name, const char *const *controllers, const cgm1_value *values,
                size_t n, int *created, cgm_error *err);
/* All n checked before any is written; a failed write undoes the earlier ones. */
int cgm1_set_values(cgm_client *c, const char *name, const cgm1_value *values, size_t n, cgm_error *err);
/* keys NULL-terminated; *values (*n of them) in canonical form, freed with cgm1_values_free. */
int cgm1_get_values(cgm_client *c, const char *name, const char *const *keys, cgm1_value **values, size_t *n,
                    cgm_error *err);

/* Child cgroups in any hierarchy, each once, sorted; freed with cgm_strv_free. */
int cgm1_list_children(cgm_client *c, const char *name, char ***children, cgm_error *err);
/* *pids is malloc'ed: the caller's pid namespace's numbers, of name and, if recursive, its descendants. */
int cgm1_list_tasks(cgm_client *c, const char *name, int recursive, pid_t **pids, size_t *n, cgm_error *err);

/* uid and gid as the caller's user namespace numbers them. */
int cgm1_chown(cgm_client *c, const char *name, uid_t uid, gid_t gid, cgm_error *err);
/* Moves the process pidfd (pidfd_open(2)) refers to into name; the caller keeps pidfd open. */
int cgm1_move(cgm_client *c, const char *name, int pidfd, cgm_error *err);
/* The same by pid, for callers in the daemon's pid namespace. */
int cgm1_move_pid(cgm_client *c, const char *name, pid_t pid, cgm_error *err);
/*
 * The cgroup of the process pidfd refers to, as a name relative to the caller's ("" for its own) that is the same
 * in every hierarchy; *name is malloc'ed. Refused for a process outside the caller's subtree.
 */
int cgm1_get_pidfd_cgroup(cgm_client *c, int pidfd, char **name, cgm_error *err);
/* The same by pid, for callers in the daemon's pid namespace. */
int cgm1_get_pid_cgroup(cgm_client *c, pid_t pid, char **name, cgm_error *err);

/* Without force only a tree without tasks; with force its tasks are killed first. */
int cgm1_delete(cgm_client *c, const char *name, int force, cgm_error *err);
/* Signals every task of the subtree, new forks included. */
int cgm1_kill(cgm_client *c, const char *name, int sig, cgm_error *err);
/* Return once the whole subtree is frozen, or thawed. */
int cgm1_freeze(cgm_client *c, const char *name, cgm_error *err);
int cgm1_thaw(cgm_client *c, const char *name, cgm_error *err);

/*
 * Events (libcgmanager(3), EVENTS). cgm1_watch subscribes this client to events of name: events is a
 * NULL-terminated list of words (populated, empty, oom, oom_kill, high, max, pids_max, frozen, thawed, removed;
 * NULL or empty: all of them; "subtree": of its descendants too); *id names the watch. The daemon sends the events
 * on this client's connection only; cgm1_process_events hands each to the callback set with cgm1_on_event. A
 * watch ends with cgm1_unwatch, with its cgroup (after its "removed" event), or when the connection does (the
 * daemon restarted: cgm1_process_events then fails with org.freedesktop.DBus.Error.NoServer).
 */
typedef struct {
	uint32_t id;       /* the watch's; 0 for "lost" */
	const char *name;  /* the cgroup as the watch named it, or a descendant's name beneath it; "" for "lost" */
	const char *event; /* "populated", "empty", "oom", "oom_kill", "high", "max", "pids_max", "frozen", "thawed",
	                      "removed", or "lost": the daemon dropped events this client did not read in time */
	uint64_t time_us;  /* CLOCK_REALTIME in microseconds, when the daemon read the kernel's notice */
	int has_count;     /* count is set: oom, oom_kill, high, max, pids_max (the kernel's counter), lost (dropped) */
	uint64_t count;
} cgm1_event;
/* Called for each event; ev and its strings live until it returns. */
typedef void (*cgm1_event_fn)(const cgm1_event *ev, void *data);

int cgm1_watch(cgm_client *c, const char *name, const char *const *events, uint32_t *id, cgm_error *err);
int cgm1_unwatch(cgm_client *c, uint32_t id, cgm_error *err);
void cgm1_on_event(cgm_client *c, cgm1_event_fn fn, void *data);
/* The fd that becomes readable when events come (for poll(2)); negative before the first cgm1_watch. */
int cgm1_events_fd(cgm_client *c);
/*
 * Hands every event that has come to the callback; if none had, waits up to timeout_usec (UINT64_MAX: without
 * limit) for some. Returns how many were handed over (0: none came in time), or a negative errno-style value.
 */
int cgm1_process_events(cgm_client *c, uint64_t timeout_usec, cgm_error *err);

#ifdef __cplusplus
}
#endif
#endif
