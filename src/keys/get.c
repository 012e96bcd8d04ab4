/* Reading a key: its backing files, answered in the key's canonical form (memory, cpuset, devices, ...). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys/internal.h"

int key_get(const struct key_host *h, const char *key, char **out, struct err *e)
{
	const char *size;
	const struct key_def *d = key ? key_def_find(key, &size) : NULL;
	struct key_ref k;

	*out = NULL;
	if (d && !d->get)
		return err_set(e, ERR_INVALID, "%s is write-only (devices_list answers the rules in force)", key);
	if (key_resolve(h, key, &k, e) < 0)
		return -1;
	return d->get(&k, out, e);
}

static int answer_number(char **out, unsigned long long v, struct err *e)
{
	if (v == KEY_BYTES_MAX)
		return key_answer(out, "max", e);
	return key_answer_fmt(out, e, "%llu", v);
}

int key_get_limit(const struct key_ref *k, char **out, struct err *e)
{
	unsigned long long v;
	if (key_read_u64(k, k->ctrl, k->file, true, &v, e) < 0)
		return -1;
	return answer_number(out, v, e);
}

int key_get_number(const struct key_ref *k, char **out, struct err *e)
{
	unsigned long long v;
	if (key_read_u64(k, k->ctrl, k->file, false, &v, e) < 0)
		return -1;
	return answer_number(out, v, e);
}

int key_get_text(const struct key_ref *k, char **out, struct err *e)
{
	return key_read(k, k->ctrl, k->file, out, e);
}

/* v2 counts the times the limit was hit as the max line of an events file. */
int key_get_failcnt(const struct key_ref *k, char **out, struct err *e)
{
	unsigned long long v;
	bool found;
	if (k->version == 1)
		return key_get_number(k, out, e);
	if (key_read_field(k, k->ctrl, k->file, "max", &v, &found, e) < 0)
		return -1;
	if (!found)
		return err_set(e, ERR_FAILED, "%s: %s has no max line", k->key, k->file);
	return answer_number(out, v, e);
}

int key_get_swap_limit(const struct key_ref *k, char **out, struct err *e)
{
	unsigned long long memsw, limit;
	if (k->version == 2)
		return key_get_limit(k, out, e);
	if (key_read_u64(k, k->ctrl, k->file, true, &memsw, e) < 0)
		return -1;
	if (memsw == KEY_BYTES_MAX)
		return key_answer(out, "max", e);
	if (key_read_u64(k, k->ctrl, "memory.limit_in_bytes", true, &limit, e) < 0)
		return -1;
	return answer_number(out, limit == KEY_BYTES_MAX || memsw < limit ? 0 : memsw - limit, e);
}

int key_get_swap_usage(const struct key_ref *k, char **out, struct err *e)
{
	unsigned long long both, memory;
	if (k->version == 2)
		return key_get_number(k, out, e);
	if (key_read_u64(k, k->ctrl, k->file, false, &both, e) < 0 ||
	    key_read_u64(k, k->ctrl, "memory.usage_in_bytes", false, &memory, e) < 0)
		return -1;
	/* The two are read one after the other, so memory may have grown past the sum meanwhile. */
	return answer_number(out, both > memory ? both - memory : 0, e);
}

int key_get_cpulist(const struct key_ref *k, char **out, struct err *e)
{
	char *text;
	int rc;
	if (key_read(k, k->ctrl, k->file, &text, e) < 0)
		return -1;
	rc = key_parse_cpulist(text, out, e);
	if (rc < 0)
		err_set(e, ERR_FAILED, "%s: %s reads '%.40s', not a %s list", k->key, k->file, text,
		        k->def->arg == 1 ? "node" : "cpu");
	free(text);
	return rc;
}

int key_get_devices_list(const struct key_ref *k, char **out, struct err *e)
{
	/* cgroup2 keeps no list: the op layer answers this virtual file with the rules it applied. */
	return key_read(k, k->ctrl, k->version == 1 ? k->file : KEY_DEVICES_BPF_FILE, out, e);
}

int key_get_classid(const struct key_ref *k, char **out, struct err *e)
{
	unsigned long long v;
	if (key_read_u64(k, k->ctrl, k->file, false, &v, e) < 0)
		return -1;
	return key_answer_fmt(out, e, "%llx:%llx", (v >> 16) & 0xffff, v & 0xffff);
}

int key_get_freezer(const struct key_ref *k, char **out, struct err *e)
{
	unsigned long long v;
	bool found;
	char *text;

	if (k->version == 1) {
		static const char *const states[][2] = {{"FROZEN", "frozen"}, {"FREEZING", "freezing"}, {"THAWED", "thawed"}};
		if (key_read(k, k->ctrl, k->file, &text, e) < 0)
			return -1;
		for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
			if (strcmp(text, states[i][0]) == 0) {
				free(text);
				return key_answer(out, states[i][1], e);
			}
		err_set(e, ERR_FAILED, "%s: %s reads '%.40s', not a state", k->key, k->file, text);
		free(text);
		return -1;
	}
	/* cgroup.freeze says what was asked; cgroup.events says whether the whole cgroup got there. */
	if (key_read_field(k, k->ctrl, "cgroup.events", "frozen", &v, &found, e) < 0)
		return -1;
	if (found && v == 1)
		return key_answer(out, "frozen", e);
	if (key_read(k, k->ctrl, k->file, &text, e) < 0)
		return -1;
	bool asked = strcmp(text, "1") == 0;
	free(text);
	return key_answer(out, asked ? "freezing" : "thawed", e);
}
