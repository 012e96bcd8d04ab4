#include "ops/event_kind.h"

#include <stdlib.h>
#include <string.h>

static const char *const words[EV_KINDS] = {
	[EV_POPULATED] = "populated", [EV_EMPTY] = "empty",   [EV_OOM] = "oom",         [EV_OOM_KILL] = "oom_kill",
	[EV_HIGH] = "high",           [EV_MAX] = "max",       [EV_PIDS_MAX] = "pids_max", [EV_FROZEN] = "frozen",
	[EV_THAWED] = "thawed",       [EV_REMOVED] = "removed", [EV_LOST] = "lost",
};

const char *event_word(enum event_kind k)
{
	return k < EV_KINDS ? words[k] : "?";
}

const char *event_counter_file(enum event_kind k, bool unified)
{
	if (k == EV_PIDS_MAX)
		return "pids.events";
	if (!(EV_COUNTED & EV_BIT(k)))
		return NULL;
	return unified ? "memory.events" : "memory.oom_control";
}

int watch_wants_parse(const char *const *w, struct watch_wants *want, struct err *e)
{
	*want = (struct watch_wants){0};
	for (size_t i = 0; w && w[i]; i++) {
		if (strcmp(w[i], "subtree") == 0) {
			want->subtree = true;
			continue;
		}
		enum event_kind k = 0;
		while (k < EV_LOST && strcmp(words[k], w[i]) != 0)
			k++;
		if (k == EV_LOST)
			return err_set(e, ERR_INVALID,
			               "'%.64s' is not an event one can watch (populated, empty, oom, oom_kill, high, max, "
			               "pids_max, frozen, thawed, removed, and the option subtree)",
			               w[i]);
		want->mask |= EV_BIT(k);
	}
	want->named = want->mask != 0;
	if (!want->named)
		want->mask = EV_ALL_WATCHABLE;
	return 0;
}

void event_state_init(struct event_state *s)
{
	*s = (struct event_state){.populated = -1, .frozen = -1, .oom = EVENT_UNKNOWN, .oom_kill = EVENT_UNKNOWN,
	                          .high = EVENT_UNKNOWN, .max = EVENT_UNKNOWN, .pids_max = EVENT_UNKNOWN};
}

/* The value of "key N" lines, by key. */
struct field {
	const char *key;
	uint64_t *counter;
	int *flag;
};

void event_state_parse(struct event_state *s, enum event_file f, const char *text)
{
	struct field cgroup_events[] = {{"populated", NULL, &s->populated}, {"frozen", NULL, &s->frozen}, {0}};
	struct field memory_events[] = {{"high", &s->high, NULL}, {"max", &s->max, NULL}, {"oom", &s->oom, NULL},
	                                {"oom_kill", &s->oom_kill, NULL}, {0}};
	struct field pids_events[] = {{"max", &s->pids_max, NULL}, {0}};
	struct field oom_control[] = {{"oom_kill", &s->oom_kill, NULL}, {0}};
	struct field *fields = f == EVF_CGROUP_EVENTS   ? cgroup_events
	                       : f == EVF_MEMORY_EVENTS ? memory_events
	                       : f == EVF_PIDS_EVENTS   ? pids_events
	                                                : oom_control;
	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n'), *sp = strchr(line, ' ');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		if (sp && (size_t)(sp - line) < len) {
			for (struct field *fl = fields; fl->key; fl++) {
				if (strlen(fl->key) != (size_t)(sp - line) || strncmp(line, fl->key, (size_t)(sp - line)) != 0)
					continue;
				char *num_end;
				unsigned long long v = strtoull(sp + 1, &num_end, 10);
				if (num_end == sp + 1)
					break;
				if (fl->counter)
					*fl->counter = v;
				else
					*fl->flag = v != 0;
				break;
			}
		}
		line = end ? end + 1 : NULL;
	}
}

static size_t flag_change(int before, int after, enum event_kind on, enum event_kind off, struct event_change *out)
{
	if (before < 0 || after < 0 || before == after)
		return 0;
	*out = (struct event_change){.kind = after ? on : off};
	return 1;
}

static size_t counter_change(uint64_t before, uint64_t after, enum event_kind k, struct event_change *out)
{
	if (before == EVENT_UNKNOWN || after == EVENT_UNKNOWN || after <= before)
		return 0;
	*out = (struct event_change){.kind = k, .count = after};
	return 1;
}

size_t event_state_changes(const struct event_state *b, const struct event_state *a, struct event_change out[EV_KINDS])
{
	size_t n = 0;
	n += flag_change(b->populated, a->populated, EV_POPULATED, EV_EMPTY, out + n);
	n += counter_change(b->oom, a->oom, EV_OOM, out + n);
	n += counter_change(b->oom_kill, a->oom_kill, EV_OOM_KILL, out + n);
	n += counter_change(b->high, a->high, EV_HIGH, out + n);
	n += counter_change(b->max, a->max, EV_MAX, out + n);
	n += counter_change(b->pids_max, a->pids_max, EV_PIDS_MAX, out + n);
	n += flag_change(b->frozen, a->frozen, EV_FROZEN, EV_THAWED, out + n);
	return n;
}
