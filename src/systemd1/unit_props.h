/*
 * The properties of a transient unit, as StartTransientUnit and SetUnitProperties send them in a(sv)
 * (org.freedesktop.systemd1(5), systemd.resource-control(5)), decoded into what cgmanager does with them:
 * keys of the cgmanager1 vocabulary (keys/keys.h) with their values, the unit's own facts (slice, pids,
 * delegation, description) and its device policy. Pure: the transport reads the message into struct
 * unit_prop, and the caller applies the result through ops/.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "systemd1/unit_stop.h"
#include "util/err.h"
#include "util/strv.h"

/* The strings of one element of an a(ss) or a(st) array. */
struct unit_prop_pair {
	const char *first;
	const char *second; /* a(ss) */
	uint64_t number;    /* a(st) */
};

/* One (sv) as the message holds it: its name, the variant's signature and the value of that type. */
struct unit_prop {
	const char *name;
	const char *sig;              /* "t", "s", "au", "a(ss)", ... */
	uint64_t u;                   /* t, u, and b as 0 or 1 */
	int64_t i;                    /* x, i */
	const char *s;                /* s */
	const uint8_t *bytes;         /* ay */
	const uint32_t *u32;          /* au */
	const struct unit_prop_pair *pairs; /* a(ss), a(st) */
	size_t n;                     /* elements of bytes, u32 or pairs */
};

/* A DeviceAllow entry: a /dev path, /dev/char/MAJ:MIN, /dev/block/MAJ:MIN, char-NAME or block-NAME, and rwm. */
struct unit_device {
	char *path;
	char access[4];
};

/* The fields of unit_settings.kill a list of properties set. */
enum {
	UNIT_SET_KILL_MODE = 1 << 0,
	UNIT_SET_KILL_SIGNAL = 1 << 1,
	UNIT_SET_SEND_SIGKILL = 1 << 2,
	UNIT_SET_TIMEOUT_STOP = 1 << 3,
};

/* What a list of properties asks for. A field not named by any property keeps its zero value. */
struct unit_settings {
	char *description;
	char *slice;                  /* Slice, a valid slice name */
	uint32_t *pids;               /* PIDs; 0 names the caller */
	size_t npids;
	bool has_delegate, delegate;  /* Delegate */
	strv keys, values;            /* cgmanager1 keys and their values, in the order the properties came */
	strv origins;                 /* for each key, the property it came from (for messages) */
	char device_policy[8];        /* DevicePolicy: auto, closed or strict; "" when not sent */
	bool device_allow_reset;      /* an empty DeviceAllow: forget the entries before */
	struct unit_device *allow;    /* the entries of DeviceAllow to add */
	size_t nallow;
	unsigned kill_set;            /* UNIT_SET_*: the fields of kill that were sent */
	struct unit_kill kill;        /* KillMode, KillSignal, SendSIGKILL, TimeoutStopUSec */
	strv unknown;                 /* names of properties systemd has but this manager does not know */
};

/*
 * Decodes n properties into *out (zeroed first). A property of a known name with another type, or a value
 * out of its range, refuses the whole list (ERR_INVALID naming the property, the type or range expected);
 * unknown names are listed in out->unknown for the caller to log. On failure *out is freed.
 */
int unit_props_decode(const struct unit_prop *p, size_t n, struct unit_settings *out, struct err *e);
void unit_settings_free(struct unit_settings *s);

/*
 * The device rules (keys/keys.h syntax, comma-separated) that policy and allow mean, systemd's way: strict
 * allows only the entries; closed also the pseudo devices (/dev/null, zero, full, random, urandom, tty, ptmx
 * and pts); auto is closed once an entry exists, else everything. *deny_all says all devices are to be
 * denied first; *allow gets the rules to allow then (malloc'ed, "" for none). char-NAME and block-NAME
 * name the majors /proc/devices lists under NAME (a glob): majors_of gives them.
 */
struct unit_device_host {
	/* Majors whose name matches glob in /proc/devices' section of type 'c' or 'b'; the count, or -1. */
	int (*majors_of)(void *ctx, char type, const char *glob, unsigned *majors, size_t max);
	void *ctx;
};
int unit_device_rules(const struct unit_device_host *h, const char *policy, const struct unit_device *allow,
                      size_t nallow, bool *deny_all, char **rules, struct err *e);
