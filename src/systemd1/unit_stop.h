/*
 * How a scope is stopped, as systemd stops one (systemd.kill(5), systemd.scope(5)): KillMode, KillSignal,
 * SendSIGKILL and TimeoutStopUSec decide which signals go to the scope's tasks and how long the stop waits for
 * them to leave. Pure: unit_stop_next says what to do next from what the caller saw of the cgroup, and the
 * caller (dbus/systemd1_jobs.c) does it and calls again.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>

enum unit_kill_mode {
	UNIT_KILL_CONTROL_GROUP, /* KillSignal to every task, SIGKILL to those left after the timeout */
	UNIT_KILL_MIXED,         /* KillSignal to the main process, SIGKILL to the rest: a scope has no main process */
	UNIT_KILL_PROCESS,       /* the main process only: for a scope, no task */
	UNIT_KILL_NONE,          /* no task */
};

/* systemd's DefaultTimeoutStopSec. */
#define UNIT_TIMEOUT_STOP_DEFAULT_USEC (90 * 1000000ULL)
#define UNIT_NO_TIMEOUT UINT64_MAX

struct unit_kill {
	enum unit_kill_mode mode;
	int signal;            /* KillSignal; SIGTERM by default */
	bool send_sigkill;     /* SendSIGKILL; true by default */
	uint64_t timeout_usec; /* TimeoutStopUSec; UNIT_NO_TIMEOUT waits for ever */
};

/* systemd's defaults: control-group, SIGTERM, SIGKILL after 90 s. */
void unit_kill_default(struct unit_kill *k);
/* KillMode's name to its value; -1 for another name. */
int unit_kill_mode_of(const char *name);
const char *unit_kill_mode_name(enum unit_kill_mode mode);

enum unit_stop_state { UNIT_STOP_START, UNIT_STOP_SIGNALLED, UNIT_STOP_ENDED };

struct unit_stop {
	struct unit_kill kill;
	enum unit_stop_state state;
	uint64_t deadline; /* µs on the caller's clock: the end of the wait after KillSignal */
};

enum unit_stop_action {
	UNIT_STOP_SIGNAL, /* send *sig to every task (then SIGCONT, so that stopped tasks get it), and call again */
	UNIT_STOP_WAIT,   /* tasks are left: call again when they may have gone, by the deadline at the latest */
	UNIT_STOP_KILL,   /* SIGKILL every task until none is left, then remove the cgroup: the stop ends with that */
	UNIT_STOP_REMOVE, /* the cgroup is empty: remove it, and the stop is done */
	UNIT_STOP_LEAVE,  /* the tasks are left where they are (KillMode process or none, or no SendSIGKILL): done */
};

void unit_stop_init(struct unit_stop *st, const struct unit_kill *kill);
/* The next thing to do, now that the cgroup is empty or not at time now; *sig for UNIT_STOP_SIGNAL. */
enum unit_stop_action unit_stop_next(struct unit_stop *st, bool empty, uint64_t now, int *sig);
