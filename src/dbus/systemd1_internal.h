/* What the files of the systemd1 interface share: the connection, the units it made and their jobs. */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-id128.h>

#include "dbus/loop.h"
#include "dbus/systemd1.h"
#include "dbus/wake_set.h"
#include "ops/key_api.h"
#include "systemd1/unit_name.h"
#include "systemd1/unit_props.h"

#define SD1_NAME "org.freedesktop.systemd1"
#define SD1_PATH "/org/freedesktop/systemd1"
#define SD1_MANAGER "org.freedesktop.systemd1.Manager"
#define SD1_ERROR_NO_SUCH_UNIT "org.freedesktop.systemd1.NoSuchUnit"
#define SD1_ERROR_UNIT_EXISTS "org.freedesktop.systemd1.UnitExists"
#define SD1_JOB_PREFIX "/org/freedesktop/systemd1/job/"

/* A unit this manager made (a scope, or a slice it made or made a scope in). */
struct sd1_unit {
	struct systemd1 *s;        /* whose it is, for its property getters */
	char name[UNIT_NAME_MAX + 1];
	enum unit_kind kind;
	char *cgroup;              /* relative to the daemon's root ("" for -.slice) */
	char *slice;               /* the slice it is in; NULL for -.slice */
	char *description;
	sd_id128_t invocation;
	bool delegate;
	char device_policy[8];     /* as last set: auto, closed or strict */
	struct unit_device *allow; /* DeviceAllow entries as last set */
	size_t nallow;
	struct unit_kill kill;     /* how StopUnit stops it */
	struct sd1_job *stop;      /* the stop job under way (its own, or its slice's): loaded, deactivating, till it ends */
	struct sd1_unit *prev, *next;
};

/*
 * A call whose end waits on the kernel: StopUnit (JobRemoved follows) and KillUnit (answered when done). A stop
 * goes through its unit_stop's steps: signals sent at once, waits for its cgroup to empty, and its last step, a
 * key-API job (Delete with force) or the removal of the empty cgroup. A slice's stop first waits for the stops of
 * the units beneath it, each by its own kill settings; its own steps then reach only the tasks in the slice's
 * cgroup itself, which belong to no unit.
 */
struct sd1_job {
	struct systemd1 *s;
	uint32_t id;
	char unit[UNIT_NAME_MAX + 1];
	struct ops_job *job;       /* the key-API job under way; NULL while a stop waits */
	struct ops_job *signalled; /* a stop's round of KillSignal, kept while it waits: its pidfds wake it */
	char *cgroup;              /* a stop's: the unit's cgroup */
	ino_t *inodes;             /* a stop's: its cgroup's in each hierarchy (0: none), so it acts on no later one */
	bool own_only;             /* a slice's stop: its own tasks, not its children's */
	struct sd1_job *parent;    /* the slice's stop that waits for this one; NULL: none */
	unsigned waiting;          /* a slice's stop: the stops beneath it not ended yet */
	struct unit_stop stop;
	bool final;                /* the stop is at its last step: the end of job (or no job) ends it */
	struct requester req;      /* the caller's, kept for the job's steps */
	sd_bus_message *reply_to;  /* KillUnit's call, answered at the end; NULL: a job with JobRemoved */
	struct loop_timer timer;
	struct wake_set woken_by;  /* the exits of the tasks signalled (those of job, or of signalled) */
	uint64_t delay;
	struct sd1_job *prev, *next;
};

struct systemd1 {
	struct ops *ops;
	struct loop *loop;
	char *address;
	sd_bus *bus;               /* NULL while disconnected */
	struct loop_watch watch;
	struct loop_timer timer;   /* sd-bus's own timeouts, and reconnecting */
	uint64_t retry_usec;       /* the wait before the next reconnect */
	uint32_t next_job;
	struct sd1_unit *units;
	struct sd1_job *jobs;
	strv logged;               /* unknown and not-applied properties logged already */
	/* The requester behind the last message, read once per caller (sd1_requester): its message and sender. */
	sd_bus_message *req_of;
	char *req_sender;
	struct requester req;
	struct err req_err;
	int req_rc;
};

extern const sd_bus_vtable sd1_manager_vtable[];

/*
 * The caller of m as a requester (names from the daemon's root), from the bus's credentials: the uid and
 * pid the bus vouches for, pinned by a pidfd. NULL with e set when the bus gives none.
 */
const struct requester *sd1_requester(struct systemd1 *s, sd_bus_message *m, struct err *e);
/* Lets go of the requester of the last message. */
void sd1_requester_forget(struct systemd1 *s);
/* sd1_requester, and refused unless host root (as systemd's system manager): what starts and changes units. */
const struct requester *sd1_root_requester(struct systemd1 *s, sd_bus_message *m, const char *what, struct err *e);

struct sd1_unit *sd1_unit_find(struct systemd1 *s, const char *name);
/* A unit made now; it goes first in the list. NULL when out of memory. */
struct sd1_unit *sd1_unit_add(struct systemd1 *s, const char *name, enum unit_kind kind, const char *cgroup,
                              const char *slice);
void sd1_unit_remove(struct systemd1 *s, struct sd1_unit *u);
/* Serves the unit objects (Unit, Scope, Slice) beneath /org/freedesktop/systemd1/unit on bus. */
int sd1_units_register(struct systemd1 *s, sd_bus *bus);
/* Whether the unit's cgroup still exists (a scope goes with its last task). */
bool sd1_unit_alive(struct systemd1 *s, struct sd1_unit *u, const struct requester *r);
/* The unit the cgroup rel is in; NULL when it is none of this manager's. */
struct sd1_unit *sd1_unit_of_cgroup(struct systemd1 *s, const char *rel);

/* A job's object path. */
void sd1_job_path(uint32_t id, char out[64]);
/*
 * Steps job from the loop, as the daemon itself, until done; then JobRemoved (reply_to NULL) or the reply to
 * reply_to.
 */
int sd1_job_run(struct systemd1 *s, const char *unit, struct ops_job *job,
                sd_bus_message *reply_to, uint32_t *id);
/*
 * Stops u as its kill settings say (unit_stop.h), from the loop, as the daemon itself; then JobRemoved, and u
 * (with every unit whose stop is this job's) is unloaded. A slice's stop stops each unit beneath it first; a
 * scope's first step is taken now: its failure is the call's. *id is the job's.
 */
int sd1_stop_run(struct systemd1 *s, struct sd1_unit *u, uint32_t *id, struct err *e);
/* JobRemoved(id, path, unit, result), from the name's owner. */
void sd1_emit_job_removed(struct systemd1 *s, uint32_t id, const char *unit, const char *result);
void sd1_jobs_free(struct systemd1 *s);

/* Reads the a(sv) at m's position into props (the strings point into m); sd1_props_free releases them. */
int sd1_props_read(sd_bus_message *m, struct unit_prop **props, size_t *n);
void sd1_props_free(struct unit_prop *props, size_t n);
/* The errors of ops as D-Bus errors. */
int sd1_reply_error(sd_bus_message *m, const struct err *e);
