/* Setting the io keys: weights, per-device weights and per-device rate limits. */
#include <stdio.h>
#include <string.h>

#include "keys/internal.h"

/* The weight range each version's kernel accepts. */
static void weight_range(int version, unsigned long long *lo, unsigned long long *hi)
{
	*lo = version == 1 ? 10 : 1;
	*hi = version == 1 ? 1000 : 10000;
}

static int parse_weight(const struct key_ref *k, const char *s, unsigned long long *w, struct err *e)
{
	unsigned long long lo, hi;
	weight_range(k->version, &lo, &hi);
	if (!key_parse_count(s, w))
		return err_set(e, ERR_INVALID, "%s: '%.40s' is not a weight (use a whole number)", k->key, s);
	if (*w < lo || *w > hi)
		return err_set(e, ERR_INVALID, "%s: %llu is out of range (%llu to %llu on cgroup v%d)", k->key, *w, lo, hi,
		               k->version);
	return 0;
}

int key_plan_blkio_weight(const struct key_ref *k, const char *value, key_writes *out, struct err *e)
{
	unsigned long long w;
	if (parse_weight(k, value, &w, e) < 0)
		return -1;
	/* v2 io.weight holds the default weight and per-device ones; "default N" sets the former. */
	return key_push_fmt(out, k, k->file, e, k->version == 1 ? "%llu" : "default %llu", w);
}

/* "DEV VALUE" -> device number and VALUE. */
static int parse_device_pair(const struct key_ref *k, const char *value, const char *what, unsigned *major,
                             unsigned *minor, char *rest, size_t cap, struct err *e)
{
	char dev[256];
	if (!key_split_pair(value, dev, sizeof(dev), rest, cap))
		return err_set(e, ERR_INVALID, "%s: '%.60s' is not DEV %s (DEV a /dev path of a block device or MAJ:MIN)",
		               k->key, value, what);
	if (key_parse_block_dev(k->h, dev, major, minor, e) < 0)
		return err_prefix(e, k->key);
	return 0;
}

int key_plan_weight_device(const struct key_ref *k, const char *value, key_writes *out, struct err *e)
{
	unsigned major, minor;
	unsigned long long w;
	char weight[32];

	if (parse_device_pair(k, value, "WEIGHT", &major, &minor, weight, sizeof(weight), e) < 0)
		return -1;
	/* Dropping a device's own weight: v1 takes 0 for that, v2 "default". */
	if (strcmp(weight, "default") == 0)
		return key_push_fmt(out, k, k->file, e, "%u:%u %s", major, minor, k->version == 1 ? "0" : "default");
	if (parse_weight(k, weight, &w, e) < 0)
		return -1;
	return key_push_fmt(out, k, k->file, e, "%u:%u %llu", major, minor, w);
}

int key_plan_throttle(const struct key_ref *k, const char *value, key_writes *out, struct err *e)
{
	unsigned major, minor;
	unsigned long long rate;
	char text[80];
	bool write = k->def->arg;

	if (parse_device_pair(k, value, "BYTES_PER_SEC", &major, &minor, text, sizeof(text), e) < 0)
		return -1;
	if (key_parse_bytes(text, &rate, e) < 0)
		return err_prefix(e, k->key);
	/* v1 reads a rate of 0 as no limit at all: refuse it rather than surprise, and let max say that. */
	if (rate == 0)
		return err_set(e, ERR_INVALID, "%s: 0 is not a rate (use max for no limit)", k->key);
	if (k->version == 1) {
		if (rate == KEY_BYTES_MAX)
			return key_push_fmt(out, k, k->file, e, "%u:%u 0", major, minor);
		return key_push_fmt(out, k, k->file, e, "%u:%u %llu", major, minor, rate);
	}
	if (rate == KEY_BYTES_MAX)
		return key_push_fmt(out, k, k->file, e, "%u:%u %s=max", major, minor, write ? "wbps" : "rbps");
	return key_push_fmt(out, k, k->file, e, "%u:%u %s=%llu", major, minor, write ? "wbps" : "rbps", rate);
}
