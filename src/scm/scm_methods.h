/* The Scm methods of org.linuxcontainers.cgmanager0_0: how each is called and how it answers. */
#pragma once
#include <stdbool.h>

enum scm_result {
	SCM_RES_STATUS,  /* '1' done, '0' failed */
	SCM_RES_CREATE,  /* '2' existed, '1' created, '0' failed */
	SCM_RES_REMOVE,  /* '2' existed and removed, '1' did not exist, '0' failed */
	SCM_RES_STRING,  /* NUL-terminated string; an empty datagram on failure */
	SCM_RES_PIDS,    /* int32 count (-1 on failure), then one credential datagram per pid */
	SCM_RES_NAMES,   /* int32 count, uint32 length, then NUL-terminated names */
	SCM_RES_KEYS,    /* int32 count, uint32 length, then "name\nuid\ngid\nmode\n" per key */
};

enum scm_second {
	SCM_SECOND_NONE,
	SCM_SECOND_PID,  /* the victim task: its pid */
	SCM_SECOND_IDS,  /* the chown target: its uid and gid */
};

/*
 * Each method's row of scm_methods[]. A row's operation is not in the row but in the daemon's table indexed by
 * this (dbus/scm_server.c): scm/ stays below ops/ and dbus/, and cgproxy uses the rows without either.
 */
enum scm_method_id {
	SCM_GET_PID_CGROUP,
	SCM_GET_PID_CGROUP_ABS,
	SCM_CREATE,
	SCM_CHOWN,
	SCM_CHMOD,
	SCM_MOVE_PID,
	SCM_MOVE_PID_ABS,
	SCM_GET_VALUE,
	SCM_SET_VALUE,
	SCM_REMOVE,
	SCM_GET_TASKS,
	SCM_GET_TASKS_RECURSIVE,
	SCM_LIST_CHILDREN,
	SCM_REMOVE_ON_EMPTY,
	SCM_PRUNE,
	SCM_LIST_KEYS,
	SCM_METHOD_COUNT
};

struct scm_method {
	const char *name;         /* "CreateScm" */
	const char *plain;        /* "Create" */
	const char *args;         /* the arguments before the fd: "ss" */
	const char *plain_args;   /* the plain method's arguments: "ss" */
	const char *plain_reply;  /* the plain method's reply signature: what cgproxy answers the result with */
	enum scm_second second;
	enum scm_result result;
};

extern const struct scm_method scm_methods[SCM_METHOD_COUNT];

static inline enum scm_method_id scm_method_id(const struct scm_method *m)
{
	return (enum scm_method_id)(m - scm_methods);
}

const struct scm_method *scm_method_by_name(const char *name);
const struct scm_method *scm_method_by_plain(const char *plain);

/*
 * After a failure result the daemon sends one more datagram: 'E', the D-Bus
 * error name, NUL, the message, NUL. cgmanager 0.42 clients never read it;
 * cgproxy does, so that a container's client sees the real reason.
 */
#define SCM_REASON_TAG 'E'
