/*
 * libcgmanager: the C client of the cgmanager daemon.
 *
 * One function per method of org.linuxcontainers.cgmanager0_0. Every
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

/* socket_path NULL: cgm_default_socket(). */
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

#ifdef __cplusplus
}
#endif
#endif
