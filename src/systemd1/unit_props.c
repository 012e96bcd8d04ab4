#include "systemd1/unit_props.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "systemd1/unit_name.h"
#include "systemd1/unit_stop.h"

#define NO_LIMIT UINT64_MAX /* systemd's "infinity" and "unset" in every t property below */

/* What a property does: each action names the field or key it fills. */
enum prop_action {
	P_DESCRIPTION,
	P_SLICE,
	P_PIDS,
	P_DELEGATE,
	P_ACCEPTED,     /* nothing to do: always so here, or only systemd's bookkeeping */
	P_KILL_MODE,    /* how StopUnit stops the unit (unit_stop.h) */
	P_KILL_SIGNAL,
	P_SEND_SIGKILL,
	P_TIMEOUT_STOP,
	P_BYTES,        /* key = N bytes, NO_LIMIT: max */
	P_COUNT,        /* key = N within [min, max], NO_LIMIT: max */
	P_DEFAULTED,    /* key = N within [min, max], NO_LIMIT: dflt */
	P_CPU_SHARES,   /* cpu_share_percent = N * 100 / 1024 */
	P_CPU_QUOTA,    /* cpus_number = N µs per second in cpus */
	P_CPUSET,       /* key = the cpus of the bit mask */
	P_BANDWIDTH,    /* key = "DEV N" for each (DEV, N) */
	P_DEVICE_POLICY,
	P_DEVICE_ALLOW,
};

struct prop_rule {
	const char *name;
	const char *sig;
	enum prop_action act;
	const char *key;
	uint64_t min, max, dflt;
};

#define RULE(n, t, a) {.name = n, .sig = t, .act = a}
#define KEY(n, t, a, k, lo, hi, d) {.name = n, .sig = t, .act = a, .key = k, .min = lo, .max = hi, .dflt = d}

static const struct prop_rule rules[] = {
	RULE("Description", "s", P_DESCRIPTION),
	RULE("Slice", "s", P_SLICE),
	RULE("PIDs", "au", P_PIDS),
	RULE("Delegate", "b", P_DELEGATE),
	RULE("DefaultDependencies", "b", P_ACCEPTED),
	RULE("AddRef", "b", P_ACCEPTED),
	RULE("CollectMode", "s", P_ACCEPTED),
	RULE("KillMode", "s", P_KILL_MODE),
	RULE("KillSignal", "i", P_KILL_SIGNAL),
	RULE("SendSIGKILL", "b", P_SEND_SIGKILL),
	RULE("TimeoutStopUSec", "t", P_TIMEOUT_STOP),
	RULE("CPUAccounting", "b", P_ACCEPTED),
	RULE("MemoryAccounting", "b", P_ACCEPTED),
	RULE("TasksAccounting", "b", P_ACCEPTED),
	RULE("IOAccounting", "b", P_ACCEPTED),
	RULE("BlockIOAccounting", "b", P_ACCEPTED),
	RULE("IPAccounting", "b", P_ACCEPTED),
	KEY("CPUShares", "t", P_CPU_SHARES, "cpu_share_percent", 2, 262144, 1024),
	KEY("CPUWeight", "t", P_DEFAULTED, "cpu_share_percent", 1, 10000, 100),
	KEY("CPUQuotaPerSecUSec", "t", P_CPU_QUOTA, "cpus_number", 1, 8192000000ULL, 0),
	KEY("CPUQuotaPeriodUSec", "t", P_DEFAULTED, "cpu.period", 1000, 1000000, 100000),
	KEY("AllowedCPUs", "ay", P_CPUSET, "cpus_allowed", 0, 0, 0),
	KEY("AllowedMemoryNodes", "ay", P_CPUSET, "mems_allowed", 0, 0, 0),
	KEY("MemoryMax", "t", P_BYTES, "memory.limit", 0, 0, 0),
	KEY("MemoryLimit", "t", P_BYTES, "memory.limit", 0, 0, 0),
	KEY("MemoryLow", "t", P_BYTES, "memory.soft_limit", 0, 0, 0),
	KEY("MemorySwapMax", "t", P_BYTES, "swap.limit", 0, 0, 0),
	KEY("MemoryHigh", "t", P_BYTES, "memory.high", 0, 0, 0),
	KEY("MemoryMin", "t", P_BYTES, "memory.min", 0, 0, 0),
	KEY("TasksMax", "t", P_COUNT, "pids.limit", 0, 4194304, 0),
	KEY("BlockIOWeight", "t", P_DEFAULTED, "blkio_weight", 10, 1000, 500),
	KEY("IOWeight", "t", P_DEFAULTED, "blkio_weight", 1, 10000, 100),
	KEY("IOReadBandwidthMax", "a(st)", P_BANDWIDTH, "blkio_throttle_read", 0, 0, 0),
	KEY("IOWriteBandwidthMax", "a(st)", P_BANDWIDTH, "blkio_throttle_write", 0, 0, 0),
	RULE("DevicePolicy", "s", P_DEVICE_POLICY),
	RULE("DeviceAllow", "a(ss)", P_DEVICE_ALLOW),
};

static const struct prop_rule *rule_of(const char *name)
{
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (strcmp(rules[i].name, name) == 0)
			return &rules[i];
	return NULL;
}

static int push_key(struct unit_settings *s, const struct prop_rule *r, const char *value, struct err *e)
{
	if (strv_push(&s->keys, r->key) < 0 || strv_push(&s->values, value) < 0 || strv_push(&s->origins, r->name) < 0)
		return err_set(e, ERR_FAILED, "out of memory");
	return 0;
}

static int push_number(struct unit_settings *s, const struct prop_rule *r, uint64_t v, struct err *e)
{
	char buf[24];
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return push_key(s, r, buf, e);
}

static int out_of_range(const struct prop_rule *r, uint64_t v, struct err *e)
{
	return err_set(e, ERR_INVALID, "property %s: %" PRIu64 " is out of range (%" PRIu64 " to %" PRIu64 ", or %" PRIu64
	               " for %s)", r->name, v, r->min, r->max, NO_LIMIT, r->act == P_DEFAULTED ? "the default" : "no limit");
}

/* The bits of an AllowedCPUs or AllowedMemoryNodes mask as a list: bit b of byte i is cpu (or node) 8i+b. */
static int push_cpuset(struct unit_settings *s, const struct prop_rule *r, const uint8_t *mask, size_t n,
                       struct err *e)
{
	char list[8192] = "";
	size_t at = 0, cpus = n * 8;
	for (size_t c = 0; c < cpus; c++) {
		if (!(mask[c / 8] & (1u << (c % 8))))
			continue;
		size_t end = c;
		while (end + 1 < cpus && (mask[(end + 1) / 8] & (1u << ((end + 1) % 8))))
			end++;
		int w = end > c ? snprintf(list + at, sizeof(list) - at, "%s%zu-%zu", at ? "," : "", c, end)
		                : snprintf(list + at, sizeof(list) - at, "%s%zu", at ? "," : "", c);
		if (w < 0 || (size_t)w >= sizeof(list) - at)
			return err_set(e, ERR_INVALID, "property %s: the list is too long", r->name);
		at += (size_t)w;
		c = end;
	}
	/* An empty mask is systemd's "unset": the cpus (nodes) of the parent, which a new cgroup has already. */
	return at ? push_key(s, r, list, e) : 0;
}

static int push_bandwidth(struct unit_settings *s, const struct prop_rule *r, const struct unit_prop *p,
                          struct err *e)
{
	for (size_t i = 0; i < p->n; i++) {
		char buf[4200];
		if (p->pairs[i].number == NO_LIMIT)
			snprintf(buf, sizeof(buf), "%s max", p->pairs[i].first);
		else
			snprintf(buf, sizeof(buf), "%s %" PRIu64, p->pairs[i].first, p->pairs[i].number);
		if (push_key(s, r, buf, e) < 0)
			return -1;
	}
	return 0;
}

static bool device_path_valid(const char *path)
{
	return (strncmp(path, "/dev/", 5) == 0 && path[5]) || (strncmp(path, "char-", 5) == 0 && path[5]) ||
	       (strncmp(path, "block-", 6) == 0 && path[6]);
}

static int add_devices(struct unit_settings *s, const struct unit_prop *p, struct err *e)
{
	if (p->n == 0) {
		for (size_t i = 0; i < s->nallow; i++)
			free(s->allow[i].path);
		s->nallow = 0;
		s->device_allow_reset = true;
		return 0;
	}
	struct unit_device *grown = realloc(s->allow, (s->nallow + p->n) * sizeof(*grown));
	if (!grown)
		return err_set(e, ERR_FAILED, "out of memory");
	s->allow = grown;
	for (size_t i = 0; i < p->n; i++) {
		const char *path = p->pairs[i].first, *acc = p->pairs[i].second;
		if (!device_path_valid(path))
			return err_set(e, ERR_INVALID, "property DeviceAllow: '%s' is neither a /dev path nor char-NAME or "
			               "block-NAME", path);
		if (strlen(acc) > 3 || acc[strspn(acc, "rwm")])
			return err_set(e, ERR_INVALID, "property DeviceAllow: access '%s' of %s is not letters of rwm", acc, path);
		struct unit_device *d = &s->allow[s->nallow];
		if (!(d->path = strdup(path)))
			return err_set(e, ERR_FAILED, "out of memory");
		snprintf(d->access, sizeof(d->access), "%s", *acc ? acc : "rwm");
		s->nallow++;
	}
	return 0;
}

static int set_string(char **field, const char *value, struct err *e)
{
	free(*field);
	if (!(*field = strdup(value)))
		return err_set(e, ERR_FAILED, "out of memory");
	return 0;
}

static int decode_one(const struct prop_rule *r, const struct unit_prop *p, struct unit_settings *s, struct err *e)
{
	char buf[64];
	switch (r->act) {
	case P_DESCRIPTION:
		return set_string(&s->description, p->s, e);
	case P_SLICE:
		if (slice_name_check(p->s, e) < 0)
			return err_prefix(e, "property Slice");
		return set_string(&s->slice, p->s, e);
	case P_PIDS: {
		uint32_t *grown = realloc(s->pids, (s->npids + p->n + 1) * sizeof(*grown)); /* + 1: never 0 bytes */
		if (!grown)
			return err_set(e, ERR_FAILED, "out of memory");
		s->pids = grown;
		for (size_t i = 0; i < p->n; i++)
			s->pids[s->npids++] = p->u32[i];
		return 0;
	}
	case P_DELEGATE:
		s->has_delegate = true;
		s->delegate = p->u != 0;
		return 0;
	case P_ACCEPTED:
		return 0;
	case P_KILL_MODE: {
		int mode = unit_kill_mode_of(p->s);
		if (mode < 0)
			return err_set(e, ERR_INVALID, "property KillMode: '%s' is not control-group, mixed, process or none",
			               p->s);
		s->kill_set |= UNIT_SET_KILL_MODE;
		s->kill.mode = (enum unit_kill_mode)mode;
		return 0;
	}
	case P_KILL_SIGNAL:
		if (p->i < 1 || p->i > SIGRTMAX)
			return err_set(e, ERR_INVALID, "property KillSignal: %" PRId64 " is not a signal (1 to %d)", p->i,
			               SIGRTMAX);
		s->kill_set |= UNIT_SET_KILL_SIGNAL;
		s->kill.signal = (int)p->i;
		return 0;
	case P_SEND_SIGKILL:
		s->kill_set |= UNIT_SET_SEND_SIGKILL;
		s->kill.send_sigkill = p->u != 0;
		return 0;
	case P_TIMEOUT_STOP:
		s->kill_set |= UNIT_SET_TIMEOUT_STOP;
		s->kill.timeout_usec = p->u;
		return 0;
	case P_BYTES:
		return p->u == NO_LIMIT ? push_key(s, r, "max", e) : push_number(s, r, p->u, e);
	case P_COUNT:
		if (p->u == NO_LIMIT)
			return push_key(s, r, "max", e);
		return p->u < r->min || p->u > r->max ? out_of_range(r, p->u, e) : push_number(s, r, p->u, e);
	case P_DEFAULTED:
		if (p->u == NO_LIMIT)
			return push_number(s, r, r->dflt, e);
		return p->u < r->min || p->u > r->max ? out_of_range(r, p->u, e) : push_number(s, r, p->u, e);
	case P_CPU_SHARES: {
		uint64_t v = p->u == NO_LIMIT ? r->dflt : p->u;
		if (v < r->min || v > r->max)
			return out_of_range(r, v, e);
		/* Whole percents of the default 1024, rounded, at least 1: cpu_share_percent's unit. */
		uint64_t pct = (v * 100 + 512) / 1024;
		return push_number(s, r, pct ? pct : 1, e);
	}
	case P_CPU_QUOTA: {
		if (p->u == NO_LIMIT)
			return push_key(s, r, "max", e);
		if (p->u < r->min || p->u > r->max)
			return out_of_range(r, p->u, e);
		/* µs per second to cpus in hundredths, rounded up so that a small quota stays a limit, not none. */
		uint64_t centi = (p->u + 9999) / 10000;
		snprintf(buf, sizeof(buf), "%" PRIu64 ".%02" PRIu64, centi / 100, centi % 100);
		return push_key(s, r, buf, e);
	}
	case P_CPUSET:
		return push_cpuset(s, r, p->bytes, p->n, e);
	case P_BANDWIDTH:
		return push_bandwidth(s, r, p, e);
	case P_DEVICE_POLICY:
		if (strcmp(p->s, "auto") && strcmp(p->s, "closed") && strcmp(p->s, "strict"))
			return err_set(e, ERR_INVALID, "property DevicePolicy: '%s' is not auto, closed or strict", p->s);
		snprintf(s->device_policy, sizeof(s->device_policy), "%s", p->s);
		return 0;
	case P_DEVICE_ALLOW:
		return add_devices(s, p, e);
	}
	return err_set(e, ERR_FAILED, "property %s: no action", r->name);
}

int unit_props_decode(const struct unit_prop *p, size_t n, struct unit_settings *out, struct err *e)
{
	*out = (struct unit_settings){0};
	for (size_t i = 0; i < n; i++) {
		const struct prop_rule *r = rule_of(p[i].name);
		if (!r) {
			if (!strv_contains(&out->unknown, p[i].name) && strv_push(&out->unknown, p[i].name) < 0)
				goto oom;
			continue;
		}
		if (strcmp(r->sig, p[i].sig) != 0) {
			err_set(e, ERR_INVALID, "property %s: expects a value of type %s, not %s", r->name, r->sig, p[i].sig);
			goto fail;
		}
		if (decode_one(r, &p[i], out, e) < 0)
			goto fail;
	}
	return 0;
oom:
	err_set(e, ERR_FAILED, "out of memory");
fail:
	unit_settings_free(out);
	return -1;
}

void unit_settings_free(struct unit_settings *s)
{
	free(s->description);
	free(s->slice);
	free(s->pids);
	strv_free(&s->keys);
	strv_free(&s->values);
	strv_free(&s->origins);
	for (size_t i = 0; i < s->nallow; i++)
		free(s->allow[i].path);
	free(s->allow);
	strv_free(&s->unknown);
	*s = (struct unit_settings){0};
}
