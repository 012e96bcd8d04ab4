/* Reading the cpu keys: bandwidth back as the fraction or number of cpus it was set as, shares, and accounting. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "keys/internal.h"

int key_read_quota(const struct key_ref *k, long long *quota, long long *period, struct err *e)
{
	unsigned long long q, p;
	if (k->version == 1) {
		if (key_read_u64(k, k->ctrl, "cpu.cfs_quota_us", false, &q, e) < 0 ||
		    key_read_u64(k, k->ctrl, "cpu.cfs_period_us", false, &p, e) < 0)
			return -1;
	} else {
		char *text, qs[24], ps[24];
		bool ok;
		if (key_read(k, k->ctrl, "cpu.max", &text, e) < 0)
			return -1;
		ok = key_split_pair(text, qs, sizeof(qs), ps, sizeof(ps)) && key_parse_u64(ps, &p) &&
		     (strcmp(qs, "max") == 0 ? (q = KEY_BYTES_MAX, true) : key_parse_u64(qs, &q));
		if (!ok)
			err_set(e, ERR_FAILED, "%s: cpu.max reads '%.40s', not QUOTA PERIOD", k->key, text);
		free(text);
		if (!ok)
			return -1;
	}
	if (p == 0 || p > 1000000000ULL || (q != KEY_BYTES_MAX && q > (1ULL << 50)))
		return err_set(e, ERR_FAILED, "%s: the kernel reports a period of %llu and a quota of %llu", k->key, p, q);
	*quota = q == KEY_BYTES_MAX ? -1 : (long long)q;
	*period = (long long)p;
	return 0;
}

/* NUM/DEN in hundredths, rounded to nearest. */
static long centi_of(long long num, long long den)
{
	return (long)((num * 100 * 2 + den) / (den * 2));
}

int key_get_cpus_fraction(const struct key_ref *k, char **out, struct err *e)
{
	long long quota, period;
	int ncpus;
	char buf[24];

	if (key_read_quota(k, &quota, &period, e) < 0)
		return -1;
	if (quota < 0)
		return key_answer(out, "max", e);
	ncpus = key_allowed_cpus(k, e);
	if (ncpus < 0)
		return -1;
	return key_answer_fmt(out, e, "%s%%", key_format_centi(centi_of(quota * 100, period * ncpus), buf));
}

int key_get_cpus_number(const struct key_ref *k, char **out, struct err *e)
{
	long long quota, period;
	char buf[24];

	if (key_read_quota(k, &quota, &period, e) < 0)
		return -1;
	if (quota < 0)
		return key_answer(out, "max", e);
	return key_answer(out, key_format_centi(centi_of(quota, period), buf), e);
}

int key_get_cpu_period(const struct key_ref *k, char **out, struct err *e)
{
	long long quota, period;
	if (key_read_quota(k, &quota, &period, e) < 0)
		return -1;
	return key_answer_fmt(out, e, "%lld", period);
}

int key_get_cpu_share(const struct key_ref *k, char **out, struct err *e)
{
	unsigned long long v;
	if (k->version == 2)
		return key_get_number(k, out, e);
	if (key_read_u64(k, k->ctrl, k->file, false, &v, e) < 0)
		return -1;
	if (v > 1ULL << 40)
		return err_set(e, ERR_FAILED, "%s: cpu.shares reads %llu", k->key, v);
	/* Shares are 1024ths of the default; the percentage that was set rounds back exactly. */
	v = (v * 100 + 512) / 1024;
	return key_answer_fmt(out, e, "%llu", v < 1 ? 1 : v);
}

static int need_field(const struct key_ref *k, const char *text, const char *file, const char *name,
                      unsigned long long *v, struct err *e)
{
	if (!key_field_of(text, name, v))
		return err_set(e, ERR_FAILED, "%s: %s has no %s line", k->key, file, name);
	return 0;
}

/* Clock ticks to microseconds without overflowing on large counts. */
static unsigned long long ticks_to_usec(unsigned long long ticks, unsigned long long hz)
{
	return ticks / hz * 1000000 + ticks % hz * 1000000 / hz;
}

int key_get_cpuacct_stat(const struct key_ref *k, char **out, struct err *e)
{
	/* v1 counts clock ticks, v2 microseconds. */
	bool ticks = k->version == 1;
	unsigned long long user, system;
	long hz = sysconf(_SC_CLK_TCK);
	char *text;
	int rc;

	if (key_read(k, k->ctrl, k->file, &text, e) < 0)
		return -1;
	rc = need_field(k, text, k->file, ticks ? "user" : "user_usec", &user, e);
	if (rc == 0)
		rc = need_field(k, text, k->file, ticks ? "system" : "system_usec", &system, e);
	free(text);
	if (rc < 0)
		return -1;
	if (ticks) {
		if (hz <= 0)
			return err_set(e, ERR_FAILED, "%s: the clock tick rate is unknown", k->key);
		user = ticks_to_usec(user, (unsigned long long)hz);
		system = ticks_to_usec(system, (unsigned long long)hz);
	}
	return key_answer_fmt(out, e, "user_usec %llu\nsystem_usec %llu", user, system);
}

int key_get_cpu_usage(const struct key_ref *k, char **out, struct err *e)
{
	unsigned long long v;
	bool found;
	if (k->version == 1) {
		if (key_read_u64(k, k->ctrl, k->file, false, &v, e) < 0)
			return -1;
		return key_answer_fmt(out, e, "%llu", v / 1000);
	}
	if (key_read_field(k, k->ctrl, k->file, "usage_usec", &v, &found, e) < 0)
		return -1;
	if (!found)
		return err_set(e, ERR_FAILED, "%s: %s has no usage_usec line", k->key, k->file);
	return key_answer_fmt(out, e, "%llu", v);
}
