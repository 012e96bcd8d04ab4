/*
 * The events a Watch reports (cgmanager(8), EVENTS), their words on the wire, and what the kernel's cgroup
 * files say between two readings. Pure text work: no I/O, unit-tested in tests/unit/test_events.c.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

enum event_kind {
	EV_POPULATED,
	EV_EMPTY,
	EV_OOM,
	EV_OOM_KILL,
	EV_HIGH,
	EV_MAX,
	EV_PIDS_MAX,
	EV_FROZEN,
	EV_THAWED,
	EV_REMOVED,
	EV_LOST, /* never asked for: the daemon dropped events the subscriber did not read in time */
	EV_KINDS,
};
#define EV_BIT(k) (1u << (k))
/* What Watch with no event word asks for: every event but lost, which is always sent. */
#define EV_ALL_WATCHABLE (EV_BIT(EV_REMOVED + 1) - 1)
/* The events that carry a count: the kernel's counter after the event. */
#define EV_COUNTED (EV_BIT(EV_OOM) | EV_BIT(EV_OOM_KILL) | EV_BIT(EV_HIGH) | EV_BIT(EV_MAX) | EV_BIT(EV_PIDS_MAX))

const char *event_word(enum event_kind k);
/*
 * The file an EV_COUNTED event's count is read from (cgroup2's memory.events and pids.events; v1's
 * memory.oom_control and pids.events): who may not read it is not told of the event. NULL for the others.
 */
const char *event_counter_file(enum event_kind k, bool unified);
/* What a Watch asks for, from its words (parsed once, by the transport). */
struct watch_wants {
	unsigned mask; /* the events: those named, or every one if none is */
	bool subtree;  /* the word "subtree": the descendants too */
	bool named;    /* an event was named: a count it names must be readable, or the Watch is refused */
};
/* Watch's words. Refused: an unknown word, or "lost". */
int watch_wants_parse(const char *const *words, struct watch_wants *w, struct err *e);

/* What the notifying files of one cgroup said at one reading; -1 (or UINT64_MAX for a counter) unknown. */
struct event_state {
	int populated, frozen;             /* cgroup.events */
	uint64_t oom, oom_kill, high, max; /* memory.events; v1: memory.oom_control's oom_kill */
	uint64_t pids_max;                 /* pids.events "max" */
};
#define EVENT_UNKNOWN UINT64_MAX
void event_state_init(struct event_state *s);

/* The files whose text event_state_parse understands. */
enum event_file { EVF_CGROUP_EVENTS, EVF_MEMORY_EVENTS, EVF_PIDS_EVENTS, EVF_OOM_CONTROL };
/* Takes what text (the file's content, "key value" lines) says into s; keys it does not know are skipped. */
void event_state_parse(struct event_state *s, enum event_file f, const char *text);

struct event_change {
	enum event_kind kind;
	uint64_t count; /* for EV_COUNTED kinds: the counter's new value */
};
/*
 * What happened between two readings, in kind order: a flag that changed, a counter that grew. A value that was
 * unknown before is a first reading, not an event. Returns how many were put in out (at most EV_KINDS).
 */
size_t event_state_changes(const struct event_state *before, const struct event_state *after,
                           struct event_change out[EV_KINDS]);
