#include "systemd1/unit_stop.h"

#include <signal.h>
#include <string.h>

static const char *const mode_names[] = {
	[UNIT_KILL_CONTROL_GROUP] = "control-group",
	[UNIT_KILL_MIXED] = "mixed",
	[UNIT_KILL_PROCESS] = "process",
	[UNIT_KILL_NONE] = "none",
};

void unit_kill_default(struct unit_kill *k)
{
	*k = (struct unit_kill){.mode = UNIT_KILL_CONTROL_GROUP, .signal = SIGTERM, .send_sigkill = true,
	                        .timeout_usec = UNIT_TIMEOUT_STOP_DEFAULT_USEC};
}

int unit_kill_mode_of(const char *name)
{
	for (size_t i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
		if (strcmp(mode_names[i], name) == 0)
			return (int)i;
	return -1;
}

const char *unit_kill_mode_name(enum unit_kill_mode mode)
{
	return mode_names[mode];
}

void unit_stop_init(struct unit_stop *st, const struct unit_kill *kill)
{
	*st = (struct unit_stop){.kill = *kill, .state = UNIT_STOP_START};
}

enum unit_stop_action unit_stop_next(struct unit_stop *st, bool empty, uint64_t now, int *sig)
{
	*sig = 0;
	if (st->state == UNIT_STOP_ENDED)
		return UNIT_STOP_LEAVE;
	if (empty) {
		st->state = UNIT_STOP_ENDED;
		return UNIT_STOP_REMOVE;
	}
	if (st->state == UNIT_STOP_START) {
		switch (st->kill.mode) {
		case UNIT_KILL_PROCESS:
		case UNIT_KILL_NONE:
			st->state = UNIT_STOP_ENDED;
			return UNIT_STOP_LEAVE;
		case UNIT_KILL_MIXED:
			/* KillSignal goes to the main process only, and a scope has none: systemd goes on to SIGKILL. */
			st->state = UNIT_STOP_ENDED;
			return UNIT_STOP_KILL;
		case UNIT_KILL_CONTROL_GROUP:
			break;
		}
		if (st->kill.signal == SIGKILL) {
			st->state = UNIT_STOP_ENDED;
			return UNIT_STOP_KILL;
		}
		st->state = UNIT_STOP_SIGNALLED;
		st->deadline = st->kill.timeout_usec > UINT64_MAX - now ? UINT64_MAX : now + st->kill.timeout_usec;
		*sig = st->kill.signal;
		return UNIT_STOP_SIGNAL;
	}
	if (now < st->deadline || st->deadline == UINT64_MAX)
		return UNIT_STOP_WAIT;
	st->state = UNIT_STOP_ENDED;
	return st->kill.send_sigkill ? UNIT_STOP_KILL : UNIT_STOP_LEAVE;
}
