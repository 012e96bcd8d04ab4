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

/* A * B / C rounded down, in two parts so that no product overflows: the kernel's quota goes up to 2^44 or so. */
static long long mul_div(long long a, long long b, long long c)
{
	return a / c * b + a % c * b / c;
}

/*
 * The quota of NUM/DEN cpus over PERIOD, rounded down so that the cgroup never gets more cpu than it was set to.
 * A quota below the kernel's 1 ms minimum lengthens the period until it reaches it (as systemd's
 * cgroup_cpu_adjust_period does); raising the quota instead would give up to 1000 times the cpus set. Fewer cpus
 * than 1 ms per 1 s are refused: no period the kernel takes holds them.
 */
static int fit_quota(const struct key_ref *k, const char *value, long long num, long long den, long long *quota,
                     long long *period, struct err *e)
{
	*quota = mul_div(num, *period, den);
	if (*quota >= QUOTA_MIN_US)
		return 0;
	long long longer = (QUOTA_MIN_US * den + num - 1) / num;
	if (longer > (long long)PERIOD_MAX_US)
		return err_set(e, ERR_INVALID, "%s: '%.40s' is fewer cpus than the kernel can limit to (a quota is at least "
		               "1 ms, over a period of at most 1 s: 0.001 cpus)", k->key, value);
	*period = longer;
	*quota = mul_div(num, longer, den);
	return 0;
}

/*
 * QUOTA -1 for no limit. On v1 the two files are written in the order that never raises quota/period above both
 * the old and the new ratio on the way (OLD the period now), which the parent may not allow: a shorter period
 * after the quota, a longer one before.
 */
static int push_quota(const struct key_ref *k, long long quota, long long period, long long old, key_writes *out,
                      struct err *e)
{
	if (k->version == 2) {
		if (quota < 0)
			return key_push_fmt(out, k, "cpu.max", e, "max %lld", period);
		return key_push_fmt(out, k, "cpu.max", e, "%lld %lld", quota, period);
	}
	if (quota >= 0 && period < old) {
		if (key_push_fmt(out, k, "cpu.cfs_quota_us", e, "%lld", quota) < 0)
			return -1;
		return key_push_fmt(out, k, "cpu.cfs_period_us", e, "%lld", period);
	}
	if (key_push_fmt(out, k, "cpu.cfs_period_us", e, "%lld", period) < 0)
		return -1;
	return key_push_fmt(out, k, "cpu.cfs_quota_us", e, "%lld", quota < 0 ? -1 : quota);
}

/* NUM/DEN cpus over the cgroup's period, or a longer one that a small quota needs. */
static int push_cpus(const struct key_ref *k, const char *value, long long num, long long den, key_writes *out,
                     struct err *e)
{
	long long old = period_of(k), period = old, quota;
	if (fit_quota(k, value, num, den, &quota, &period, e) < 0)
		return -1;
	return push_quota(k, quota, period, old, out, e);
}

int key_plan_cpus_fraction(const struct key_ref *k, const char *value, key_writes *out, struct err *e)
{
	long centi;
	int ncpus;

	if (key_parse_percent(value, &centi, e) < 0)
		return err_prefix(e, k->key);
	if (centi < 0) {
		long long period = period_of(k);
		return push_quota(k, -1, period, period, out, e);
	}
	ncpus = key_allowed_cpus(k, e);
	if (ncpus < 0)
		return -1;
	/* centi/10000 of ncpus. */
	return push_cpus(k, value, (long long)centi * ncpus, 10000, out, e);
}

int key_plan_cpus_number(const struct key_ref *k, const char *value, key_writes *out, struct err *e)
{
	long centi;

	if (key_is_max_word(value)) {
		long long period = period_of(k);
		return push_quota(k, -1, period, period, out, e);
	}
	if (key_parse_centi_num(value, false, &centi) < 0)
		return err_set(e, ERR_INVALID, "%s: '%.40s' is not a number of cpus (use a number such as 1.5, at most 2 "
		               "decimals, or max)", k->key, value);
	if (centi <= 0 || centi > KEY_MAX_CPUS * 100L)
		return err_set(e, ERR_INVALID, "%s: '%.40s' is out of range (more than 0 and at most %d, or max)", k->key,
		               value, KEY_MAX_CPUS);
	return push_cpus(k, value, centi, 100, out, e);
}

/* A new period keeps the quota's number of cpus: the quota is scaled to it, or the period lengthened (fit_quota). */
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
	if (quota >= 0 && fit_quota(k, value, quota, old, &quota, &period, e) < 0)
		return -1;
	return push_quota(k, quota, period, old, out, e);
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
