/* Setting a key: its value checked, and turned into the writes that set it (memory, cpuset, devices, pids, ...). */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "keys/internal.h"

/* The kernel's PID_MAX_LIMIT on 64-bit: pids.max refuses more. */
#define PIDS_LIMIT 4194304ULL
/* IFNAMSIZ less the terminating NUL. */
#define IFACE_MAX 15

int key_plan_set(const struct key_host *h, const char *key, const char *value, key_writes *out, struct err *e)
{
	const char *size;
	const struct key_def *d = key ? key_def_find(key, &size) : NULL;
	struct key_ref k;
	size_t before = out->n;

	/* A read-only key is refused as such wherever it is, before asking whether the host has it. */
	if (d && !d->plan)
		return err_set(e, ERR_INVALID, "%s is read-only", key);
	if (key_resolve(h, key, &k, e) < 0)
		return -1;
	if (d->plan(&k, value ? value : "", out, e) < 0) {
		key_writes_truncate(out, before);
		return -1;
	}
	return 0;
}

/* v1 writes -1 for no limit (v1 has no "max"); v2 writes max. */
static int push_bytes(key_writes *out, const struct key_ref *k, const char *file, unsigned long long v,
                      struct err *e)
{
	if (v == KEY_BYTES_MAX)
		return key_push_fmt(out, k, file, e, "%s", k->version == 1 ? "-1" : "max");
	return key_push_fmt(out, k, file, e, "%llu", v);
}

static int parse_bytes(const struct key_ref *k, const char *value, unsigned long long *v, struct err *e)
{
	return key_parse_bytes(value, v, e) < 0 ? err_prefix(e, k->key) : 0;
}

int key_plan_bytes(const struct key_ref *k, const char *value, key_writes *out, struct err *e)
{
	unsigned long long v;
	if (parse_bytes(k, value, &v, e) < 0)
		return -1;
	return push_bytes(out, k, k->file, v, e);
}

/*
 * v1 holds memory+swap in memsw, which may never be below the memory limit.
 * swap.limit is the swap alone, so a new memory limit moves memsw by as much,
 * in the order that keeps memsw >= limit at every step.
 */
int key_plan_memory_limit(const struct key_ref *k, const char *value, key_writes *out, struct err *e)
{
	unsigned long long limit, memsw, old;
	struct err probe;

	if (parse_bytes(k, value, &limit, e) < 0)
		return -1;
	if (k->version == 2)
		return push_bytes(out, k, k->file, limit, e);
	/* Without swap accounting there is no memsw file and nothing to keep in step. */
	if (key_read_u64(k, k->ctrl, "memory.memsw.limit_in_bytes", true, &memsw, &probe) < 0 || memsw == KEY_BYTES_MAX)
		return push_bytes(out, k, k->file, limit, e);
	if (key_read_u64(k, k->ctrl, "memory.limit_in_bytes", true, &old, e) < 0)
		return -1;
	if (old == KEY_BYTES_MAX || memsw < old)
		return push_bytes(out, k, k->file, limit, e);
	if (limit == KEY_BYTES_MAX) {
		/* v1 cannot limit swap without limiting memory: no memory limit lifts the swap limit too. */
		if (push_bytes(out, k, "memory.memsw.limit_in_bytes", KEY_BYTES_MAX, e) < 0)
			return -1;
		return push_bytes(out, k, k->file, limit, e);
	}
	unsigned long long swap = memsw - old;
	if (limit > (unsigned long long)INT64_MAX - swap)
		return err_set(e, ERR_INVALID, "%s: %llu bytes of memory and the %llu of swap.limit are too large together "
		               "(cgroup v1 limits them as one sum)", k->key, limit, swap);
	if (limit > old) {
		if (push_bytes(out, k, "memory.memsw.limit_in_bytes", limit + swap, e) < 0)
			return -1;
		return push_bytes(out, k, k->file, limit, e);
	}
	if (push_bytes(out, k, k->file, limit, e) < 0)
		return -1;
	return push_bytes(out, k, "memory.memsw.limit_in_bytes", limit + swap, e);
}

int key_plan_swap_limit(const struct key_ref *k, const char *value, key_writes *out, struct err *e)
{
	unsigned long long swap, limit;

	if (parse_bytes(k, value, &swap, e) < 0)
		return -1;
	if (k->version == 2 || swap == KEY_BYTES_MAX)
		return push_bytes(out, k, k->file, swap, e);
	if (key_read_u64(k, k->ctrl, "memory.limit_in_bytes", true, &limit, e) < 0)
		return -1;
	if (limit == KEY_BYTES_MAX)
		return err_set(e, ERR_INVALID,
		               "%s on cgroup v1 needs memory.limit set (v1 limits memory and swap together)", k->key);
	if (swap > (unsigned long long)INT64_MAX - limit)
		return err_set(e, ERR_INVALID, "%s: %llu bytes of swap and the %llu of memory.limit are too large together "
		               "(cgroup v1 limits them as one sum)", k->key, swap, limit);
	return push_bytes(out, k, k->file, limit + swap, e);
}

/* cpus_allowed, and mems_allowed (arg 1), whose list of memory nodes has the syntax of a cpu list. */
int key_plan_cpulist(const struct key_ref *k, const char *value, key_writes *out, struct err *e)
{
	bool nodes = k->def->arg == 1;
	char *list;
	if (key_parse_cpulist(value, &list, e) < 0) {
		if (nodes)
			return err_set(e, ERR_INVALID, "%s: '%.40s' is not a memory node list (use node numbers and ranges "
			               "below %d: 0-1,3)", k->key, value, KEY_MAX_CPUS);
		return err_prefix(e, k->key);
	}
	if (!*list) {
		free(list);
		return err_set(e, ERR_INVALID, "%s: an empty %s list leaves the cgroup's tasks %s", k->key,
		               nodes ? "node" : "cpu", nodes ? "no memory to allocate from" : "nowhere to run");
	}
	return key_push(out, k, k->file, list, e);
}

int key_plan_pids(const struct key_ref *k, const char *value, key_writes *out, struct err *e)
{
	unsigned long long n;
	if (key_is_max_word(value))
		return key_push_fmt(out, k, k->file, e, "max");
	if (!key_parse_count(value, &n))
		return err_set(e, ERR_INVALID, "%s: '%.40s' is not a number of tasks (use a whole number or max)", k->key,
		               value);
	if (n > PIDS_LIMIT)
		return err_set(e, ERR_INVALID, "%s: %llu is more than the kernel allows (%llu; use max for no limit)",
		               k->key, n, PIDS_LIMIT);
	return key_push_fmt(out, k, k->file, e, "%llu", n);
}

int key_plan_devices(const struct key_ref *k, const char *value, key_writes *out, struct err *e)
{
	struct dev_rule *rules;
	size_t n;
	char text[KEY_DEV_RULE_MAX];

	if (key_parse_dev_rules(k->h, value, k->def->arg, &rules, &n, e) < 0)
		return err_prefix(e, k->key);
	for (size_t i = 0; i < n; i++) {
		/* v1 takes one rule per write; v2 has no file, and the op layer turns the rules into a BPF program. */
		if (key_push_fmt(out, k, k->version == 1 ? k->file : NULL, e, "%s", key_format_dev_rule(&rules[i], text)) <
		    0) {
			free(rules);
			return -1;
		}
		out->v[out->n - 1].rule = rules[i];
	}
	free(rules);
	return 0;
}

/* The kernel's dev_valid_name: no separators, no white space, not . or .. */
static bool iface_valid(const char *s)
{
	size_t len = strlen(s);
	if (len == 0 || len > IFACE_MAX || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return false;
	for (const char *p = s; *p; p++)
		if (*p == '/' || *p == ':' || isspace((unsigned char)*p))
			return false;
	return true;
}

int key_plan_ifpriomap(const struct key_ref *k, const char *value, key_writes *out, struct err *e)
{
	const char *p = value;
	size_t entries = 0;
	while (*p) {
		size_t len = strcspn(p, ",\n");
		char *piece = strndup(p, len), iface[IFACE_MAX + 2], prio[24];
		unsigned long long n;
		if (!piece)
			return key_oom(e);
		if (strspn(piece, " \t\r") != len) {
			if (!key_split_pair(piece, iface, sizeof(iface), prio, sizeof(prio)) || !key_parse_u64(prio, &n) ||
			    n > 0xffffffffULL) {
				err_set(e, ERR_INVALID, "%s: '%.40s' is not IFACE PRIO (as in eth0 5; PRIO a whole number below "
				        "2^32)", k->key, piece);
				free(piece);
				return -1;
			}
			free(piece);
			if (!iface_valid(iface))
				return err_set(e, ERR_INVALID, "%s: '%s' is not a network interface name", k->key, iface);
			if (key_push_fmt(out, k, k->file, e, "%s %llu", iface, n) < 0)
				return -1;
			entries++;
		} else {
			free(piece);
		}
		p += len;
		if (*p)
			p++;
	}
	if (entries == 0)
		return err_set(e, ERR_INVALID, "%s: no IFACE PRIO given (as in eth0 5)", k->key);
	return 0;
}

static bool parse_hex(const char *s, size_t len, size_t max_digits, unsigned long *v)
{
	unsigned long n = 0;
	if (len == 0 || len > max_digits)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (!isxdigit((unsigned char)s[i]))
			return false;
		int c = tolower((unsigned char)s[i]);
		n = n * 16 + (unsigned long)(isdigit(c) ? c - '0' : c - 'a' + 10);
	}
	*v = n;
	return true;
}

int key_plan_classid(const struct key_ref *k, const char *value, key_writes *out, struct err *e)
{
	char buf[24];
	const char *colon;
	unsigned long major, minor, id;
	unsigned long long dec;

	if (!key_one_word(value, buf, sizeof(buf)))
		goto bad;
	colon = strchr(buf, ':');
	/* tc writes handles as MAJOR:MINOR in hex, each 16 bits; the kernel stores them as one 32-bit number. */
	if (colon) {
		if (!parse_hex(buf, (size_t)(colon - buf), 4, &major) || !parse_hex(colon + 1, strlen(colon + 1), 4, &minor))
			goto bad;
		id = major << 16 | minor;
	} else if (strncasecmp(buf, "0x", 2) == 0) {
		if (!parse_hex(buf + 2, strlen(buf + 2), 8, &id))
			goto bad;
	} else if (key_parse_u64(buf, &dec) && dec <= 0xffffffffULL) {
		id = (unsigned long)dec;
	} else {
		goto bad;
	}
	return key_push_fmt(out, k, k->file, e, "%lu", id);
bad:
	return err_set(e, ERR_INVALID, "%s: '%.40s' is not a class id (use MAJOR:MINOR in hex as tc does, 10:1, or "
	               "0x00100001, or a decimal number)", k->key, value);
}

int key_plan_freezer(const struct key_ref *k, const char *value, key_writes *out, struct err *e)
{
	char word[16];
	bool frozen;
	if (!key_one_word(value, word, sizeof(word)))
		goto bad;
	if (strcasecmp(word, "frozen") == 0)
		frozen = true;
	else if (strcasecmp(word, "thawed") == 0)
		frozen = false;
	else
		goto bad;
	if (k->version == 1)
		return key_push_fmt(out, k, k->file, e, "%s", frozen ? "FROZEN" : "THAWED");
	return key_push_fmt(out, k, k->file, e, "%s", frozen ? "1" : "0");
bad:
	return err_set(e, ERR_INVALID, "%s: '%.40s' is not a state (use frozen or thawed)", k->key, value);
}
