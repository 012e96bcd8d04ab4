/*
 * Watch and Unwatch (org.linuxcontainers.cgmanager1): what a request means. A watch names a cgroup relative to
 * the requester's own, as every request does; the requester must be able to read (list) it in every
 * hierarchy it exists in. It is kept in the registry (ops/watch_registry.h) under its subscriber, an opaque
 * owner (the transport's connection), and followed by the event source (ops/event_source.h), which hands
 * each event to the sink the transport set.
 */
#pragma once
#include "ops/event_source.h"
#include "ops/ops.h"

struct watches;

struct watches *watches_new(struct err *e);
void watches_free(struct watches *ws);
/* The caps (0 keeps a default; see watch_registry.h) */
void watches_set_limits(struct watches *ws, const struct watch_limits *l);
struct event_source *watches_source(struct watches *ws);
const struct watch_registry *watches_registry(const struct watches *ws);

/*
 * account: what the cap per uid charges (watch_registry_add), the one the daemon charges owner's connection to;
 * want: what the transport parsed of the call's words (watch_wants_parse).
 */
int ops_watch(struct ops *o, const struct requester *r, const void *owner, uint64_t account, const char *name,
              const struct watch_wants *want, uint32_t *id, struct err *e);
int ops_unwatch(struct ops *o, const void *owner, uint32_t id, struct err *e);
/* The subscriber went away: its watches end, without a word. Returns how many there were. */
unsigned ops_unwatch_owner(struct ops *o, const void *owner);
/* Freeze or Thaw of name took effect: watches of a v1 freezer cgroup hear it (cgroup2 reports it itself). */
void ops_watch_note_freezer(struct ops *o, const struct requester *r, const char *name, bool frozen);
