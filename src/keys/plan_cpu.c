/* Setting the cpu keys: bandwidth as a fraction or a number of cpus, and the share among siblings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "keys/internal.h"

/* The kernel's default period, which a quota keeps unless cpu.period set another. */
#define PERIOD_US 100000LL
/* The kernel's bounds of the period (1 ms to 1 s); it refuses quotas below 1 ms. */
#define PERIOD_MIN_US 1000ULL
#define PERIOD_MAX_US 1000000ULL
#define QUOTA_MIN_US 1000LL

int key_allowed_cpus(const struct key_ref *k, struct err *e)
{
	const struct key_host *h = k->h;
	int v = h->version_of(h->ctx, "cpuset"), n;
	/* Old v1 kernels have no effective_cpus; cpuset.cpus is what the cgroup was given. */
	const char *const files[2][2] = {{"cpuset.effective_cpus", "cpuset.cpus"}, {"cpuset.cpus.effective", NULL}};

	for (int i = 0; (v == 1 || v == 2) && i < 2 && files[v - 1][i]; i++) {
		struct err probe;
		char *list;
		if (key_read(k, "cpuset", files[v - 1][i], &list, &probe) < 0)
			continue;
		n = key_cpulist_count(list);
		free(list);
		if (n > 0)
			return n;
	}
	n = h->online_cpus ? h->online_cpus(h->ctx) : (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (n <= 0)
		return err_set(e, ERR_FAILED, "%s: cannot tell how many cpus the cgroup may run on", k->key);
	return n;
}

/* The cgroup's period: the one cpu.period set, else (nothing readable) the kernel's default. */
static long long period_of(const struct key_ref *k)
{
	long long quota, period;
	struct err probe;
	return key_read_quota(k, &quota, &period, &probe) == 0 ? period : PERIOD_US;
}

/* QUOTA -1 for no limit; at least the kernel's minimum otherwise. */
static int push_quota(const struct key_ref *k, long long quota, long long period, key_writes *out, struct err *e)
{
	if (quota >= 0 && quota < QUOTA_MIN_US)
		quota = QUOTA_MIN_US;
	if (k->version == 2) {
		if (quota < 0)
			return key_push_fmt(out, k, "cpu.max", e, "max %lld", period);
		return key_push_fmt(out, k, "cpu.max", e, "%lld %lld", quota, period);
	}
	if (key_push_fmt(out, k, "cpu.cfs_period_us", e, "%lld", period) < 0)
		return -1;
	return key_push_fmt(out, k, "cpu.cfs_quota_us", e, "%lld", quota < 0 ? -1 : quota);
}

int key_plan_cpus_fraction(const struct key_ref *k, const char *value, key_writes *out, struct err *e)
{
	long centi;
	int ncpus;

	if (key_parse_percent(value, &centi, e) < 0)
		return err_prefix(e, k->key);
	long long period = period_of(k);
	if (centi < 0)
		return push_quota(k, -1, period, out, e);
	ncpus = key_allowed_cpus(k, e);
	if (ncpus < 0)
		return -1;
	/* centi/10000 of ncpus periods. */
	return push_quota(k, (long long)centi * ncpus * period / 10000, period, out, e);
}

int key_plan_cpus_number(const struct key_ref *k, const char *value, key_writes *out, struct err *e)
{
	long centi;

	long long period = period_of(k);
	if (key_is_max_word(value))
		return push_quota(k, -1, period, out, e);
	if (key_parse_centi_num(value, false, &centi) < 0)
		return err_set(e, ERR_INVALID, "%s: '%.40s' is not a number of cpus (use a number such as 1.5, at most 2 "
		               "decimals, or max)", k->key, value);
	if (centi <= 0 || centi > KEY_MAX_CPUS * 100L)
		return err_set(e, ERR_INVALID, "%s: '%.40s' is out of range (more than 0 and at most %d, or max)", k->key,
		               value, KEY_MAX_CPUS);
	return push_quota(k, (long long)centi * period / 100, period, out, e);
}

/*
 * A new period keeps the quota's number of cpus: the quota is scaled with it. On v1 the two files are written in
 * the order that never raises quota/period above both the old and the new ratio, which the parent may not allow.
 */
int key_plan_cpu_period(const struct key_ref *k, const char *value, key_writes *out, struct err *e)
{
	unsigned long long p;
	long long quota, old;

	if (!key_parse_count(value, &p))
		return err_set(e, ERR_INVALID, "%s: '%.40s' is not a number of microseconds (use a whole number from %llu "
		               "to %llu)", k->key, value, PERIOD_MIN_US, PERIOD_MAX_US);
	if (p < PERIOD_MIN_US || p > PERIOD_MAX_US)
		return err_set(e, ERR_INVALID, "%s: %llu is out of range (%llu to %llu microseconds)", k->key, p,
		               PERIOD_MIN_US, PERIOD_MAX_US);
	if (key_read_quota(k, &quota, &old, e) < 0)
		return -1;
	long long period = (long long)p;
	if (quota >= 0) {
		/* In two parts, so that no product overflows: the kernel's quota goes up to 2^44 or so. */
		quota = quota / old * period + (quota % old * period + old / 2) / old;
		if (quota < QUOTA_MIN_US)
			quota = QUOTA_MIN_US;
	}
	if (k->version == 2 || quota < 0 || period >= old)
		return push_quota(k, quota, period, out, e);
	if (key_push_fmt(out, k, "cpu.cfs_quota_us", e, "%lld", quota) < 0)
		return -1;
	return key_push_fmt(out, k, "cpu.cfs_period_us", e, "%lld", period);
}

int key_plan_cpu_share(const struct key_ref *k, const char *value, key_writes *out, struct err *e)
{
	unsigned long long pct;
	char buf[24];
	size_t len;

	/* A trailing % is what the key's name suggests; allow it. */
	if (!key_one_word(value, buf, sizeof(buf)))
		goto bad;
	len = strlen(buf);
	if (len > 1 && buf[len - 1] == '%')
		buf[len - 1] = '\0';
	if (!key_parse_u64(buf, &pct))
		goto bad;
	if (pct < 1 || pct > 10000)
		return err_set(e, ERR_INVALID, "%s: %llu is out of range (1 to 10000; 100 is the default share)", k->key,
		               pct);
	if (k->version == 2)
		return key_push_fmt(out, k, "cpu.weight", e, "%llu", pct);
	/* v1 counts shares in 1024ths of the default and refuses fewer than 2. */
	unsigned long long shares = pct * 1024 / 100;
	return key_push_fmt(out, k, "cpu.shares", e, "%llu", shares < 2 ? 2 : shares);
bad:
	return err_set(e, ERR_INVALID, "%s: '%.40s' is not a percentage of the default share (use a whole number from 1 "
	               "to 10000)", k->key, value);
}
