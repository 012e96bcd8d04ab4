/* DevicePolicy and DeviceAllow as device rules of the key vocabulary (systemd.resource-control(5)). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "systemd1/unit_props.h"

#define RULES_MAX 16384
#define MAJORS_MAX 64

/* What DevicePolicy=closed allows besides the entries: the pseudo devices, by their fixed numbers. */
static const char closed_rules[] = "c 1:3 rwm,c 1:5 rwm,c 1:7 rwm,c 1:8 rwm,c 1:9 rwm,c 5:0 rwm,c 5:2 rwm";

static int append(char *rules, size_t *at, const char *rule, struct err *e)
{
	int n = snprintf(rules + *at, RULES_MAX - *at, "%s%s", *at ? "," : "", rule);
	if (n < 0 || (size_t)n >= RULES_MAX - *at)
		return err_set(e, ERR_INVALID, "property DeviceAllow: too many entries");
	*at += (size_t)n;
	return 0;
}

/* char-GLOB or block-GLOB: a rule for every major of that name; none is no rule, as systemd ignores it. */
static int append_majors(const struct unit_device_host *h, char type, const char *glob, const char *access,
                         char *rules, size_t *at, struct err *e)
{
	unsigned majors[MAJORS_MAX];
	char rule[64];
	if (strcmp(glob, "*") == 0) {
		snprintf(rule, sizeof(rule), "%c *:* %s", type, access);
		return append(rules, at, rule, e);
	}
	int n = h->majors_of(h->ctx, type, glob, majors, MAJORS_MAX);
	if (n < 0)
		return err_set(e, ERR_FAILED, "property DeviceAllow: cannot read /proc/devices for %s-%s",
		               type == 'c' ? "char" : "block", glob);
	for (int i = 0; i < n; i++) {
		snprintf(rule, sizeof(rule), "%c %u:* %s", type, majors[i], access);
		if (append(rules, at, rule, e) < 0)
			return -1;
	}
	return 0;
}

static int append_entry(const struct unit_device_host *h, const struct unit_device *d, char *rules, size_t *at,
                        struct err *e)
{
	char rule[4200];
	unsigned maj, min;
	char end;
	if (strncmp(d->path, "char-", 5) == 0)
		return append_majors(h, 'c', d->path + 5, d->access, rules, at, e);
	if (strncmp(d->path, "block-", 6) == 0)
		return append_majors(h, 'b', d->path + 6, d->access, rules, at, e);
	/* /dev/char/MAJ:MIN and /dev/block/MAJ:MIN are links udev makes; their numbers need no lookup. */
	if (sscanf(d->path, "/dev/char/%u:%u%c", &maj, &min, &end) == 2)
		snprintf(rule, sizeof(rule), "c %u:%u %s", maj, min, d->access);
	else if (sscanf(d->path, "/dev/block/%u:%u%c", &maj, &min, &end) == 2)
		snprintf(rule, sizeof(rule), "b %u:%u %s", maj, min, d->access);
	else
		snprintf(rule, sizeof(rule), "%s %s", d->path, d->access);
	return append(rules, at, rule, e);
}

int unit_device_rules(const struct unit_device_host *h, const char *policy, const struct unit_device *allow,
                      size_t nallow, bool *deny_all, char **rules, struct err *e)
{
	char *buf = calloc(1, RULES_MAX);
	size_t at = 0;
	bool strict = strcmp(policy, "strict") == 0, closed = strcmp(policy, "closed") == 0;

	*rules = NULL;
	if (!buf)
		return err_set(e, ERR_FAILED, "out of memory");
	/* auto without entries restricts nothing: the cgroup keeps what its parent allows. */
	*deny_all = strict || closed || nallow > 0;
	if (*deny_all && !strict &&
	    (append(buf, &at, closed_rules, e) < 0 || append_majors(h, 'c', "pts", "rw", buf, &at, e) < 0))
		goto fail;
	for (size_t i = 0; i < nallow; i++)
		if (append_entry(h, &allow[i], buf, &at, e) < 0)
			goto fail;
	*rules = buf;
	return 0;
fail:
	free(buf);
	return -1;
}
