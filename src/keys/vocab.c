/* The vocabulary table, and finding a key in it and on the host. */
#include <stdio.h>
#include <string.h>

#include "keys/internal.h"

#define RW (KEY_READ | KEY_WRITE)
#define RO KEY_READ
#define WO KEY_WRITE
#define BOTH (KEY_ON_V1 | KEY_ON_V2)
#define V1 KEY_ON_V1
#define V2 KEY_ON_V2

#define WHO_SET "owner of the cgroup's parent (never your own cgroup from a container; nobody but host root on /)"
#define WHO_READ "anyone who may read the cgroup"

#define SX_BYTES "bytes: N, or N with K, M, G or T (binary; decimals with a suffix: 1.5G), or max; answers N or max"
#define SX_BYTES_RO "bytes; answers N"
#define SX_COUNT "count; answers N"
#define SX_TEXT "the kernel's text, as is"

static const struct key_def defs[] = {
	/* memory */
	{.doc = {"memory.limit", "memory", RW, SX_BYTES, "memory the cgroup may use; past it the kernel reclaims, then "
	         "OOM-kills", "memory.limit_in_bytes", "memory.max", WHO_SET},
	 .on = BOTH, .plan = key_plan_memory_limit, .get = key_get_limit},
	{.doc = {"memory.soft_limit", "memory", RW, SX_BYTES, "memory the cgroup keeps under pressure (v1: reclaimed down "
	         "to it first; v2: protected below it)", "memory.soft_limit_in_bytes", "memory.low", WHO_SET},
	 .on = BOTH, .plan = key_plan_bytes, .get = key_get_limit},
	{.doc = {"memory.high", "memory", RW, SX_BYTES, "memory use past which the kernel throttles the cgroup and "
	         "reclaims from it hard, short of OOM-killing (cgroup2 only)", NULL, "memory.high", WHO_SET},
	 .on = V2, .plan = key_plan_bytes, .get = key_get_limit},
	{.doc = {"memory.min", "memory", RW, SX_BYTES, "memory the kernel never reclaims from the cgroup, even under "
	         "pressure (cgroup2 only; memory.soft_limit is the best-effort protection)", NULL, "memory.min", WHO_SET},
	 .on = V2, .plan = key_plan_bytes, .get = key_get_limit},
	{.doc = {"memory.usage", "memory", RO, SX_BYTES_RO, "memory in use now", "memory.usage_in_bytes",
	         "memory.current", WHO_READ},
	 .on = BOTH, .get = key_get_number},
	{.doc = {"memory.max_use", "memory", RO, SX_BYTES_RO, "the most memory used at once", "memory.max_usage_in_bytes",
	         "memory.peak", WHO_READ},
	 .on = BOTH, .get = key_get_number},
	{.doc = {"memory.failcnt", "memory", RO, SX_COUNT, "times memory.limit was hit (v2: the max line of "
	         "memory.events)", "memory.failcnt", "memory.events", WHO_READ},
	 .on = BOTH, .get = key_get_failcnt},
	{.doc = {"memory.numa_stat", "memory", RO, SX_TEXT, "memory use per NUMA node", "memory.numa_stat",
	         "memory.numa_stat", WHO_READ},
	 .on = BOTH, .get = key_get_text},
	{.doc = {"memory.pressure", "", RO, SX_TEXT, "pressure stall information for memory (cgroup2 only)", NULL,
	         "memory.pressure", WHO_READ},
	 .on = V2, .get = key_get_text},
	/* swap */
	{.doc = {"swap.limit", "memory", RW, SX_BYTES, "swap the cgroup may use, apart from memory (v1 writes "
	         "memory.limit + swap.limit to memory.memsw.limit_in_bytes, so memory.limit must be set first)",
	         "memory.memsw.limit_in_bytes", "memory.swap.max", WHO_SET},
	 .on = BOTH, .plan = key_plan_swap_limit, .get = key_get_swap_limit},
	{.doc = {"swap.soft_limit", "memory", RW, SX_BYTES, "swap use past which the kernel throttles the cgroup "
	         "(cgroup2 only)", NULL, "memory.swap.high", WHO_SET},
	 .on = V2, .plan = key_plan_bytes, .get = key_get_limit},
	{.doc = {"swap.usage", "memory", RO, SX_BYTES_RO, "swap in use now (v1: memory+swap usage less memory usage)",
	         "memory.memsw.usage_in_bytes", "memory.swap.current", WHO_READ},
	 .on = BOTH, .get = key_get_swap_usage},
	{.doc = {"swap.max_use", "memory", RO, SX_BYTES_RO, "the most swap used at once (v1: the most memory+swap used "
	         "at once)", "memory.memsw.max_usage_in_bytes", "memory.swap.peak", WHO_READ},
	 .on = BOTH, .get = key_get_number},
	{.doc = {"swap.failcnt", "memory", RO, SX_COUNT, "times swap.limit was hit (v1: the memory+swap limit; v2: the "
	         "max line of memory.swap.events)", "memory.memsw.failcnt", "memory.swap.events", WHO_READ},
	 .on = BOTH, .get = key_get_failcnt},
	/* hugetlb */
	{.doc = {"hugetlb_limit.<size>", "hugetlb", RW, SX_BYTES, "huge pages of <size> (as the kernel names it: 2MB, "
	         "1GB, 64KB) the cgroup may use", "hugetlb.<size>.limit_in_bytes", "hugetlb.<size>.max", WHO_SET},
	 .on = BOTH, .plan = key_plan_bytes, .get = key_get_limit},
	{.doc = {"hugetlb_usage.<size>", "hugetlb", RO, SX_BYTES_RO, "huge pages of <size> in use now",
	         "hugetlb.<size>.usage_in_bytes", "hugetlb.<size>.current", WHO_READ},
	 .on = BOTH, .get = key_get_number},
	{.doc = {"hugetlb_max_usage.<size>", "hugetlb", RO, SX_BYTES_RO, "the most huge pages of <size> used at once "
	         "(cgroup v1 only)", "hugetlb.<size>.max_usage_in_bytes", NULL, WHO_READ},
	 .on = V1, .get = key_get_number},
	{.doc = {"hugetlb_failcnt.<size>", "hugetlb", RO, SX_COUNT, "times hugetlb_limit.<size> was hit (v2: the max "
	         "line of hugetlb.<size>.events)", "hugetlb.<size>.failcnt", "hugetlb.<size>.events", WHO_READ},
	 .on = BOTH, .get = key_get_failcnt},
	/* cpu */
	{.doc = {"cpus_allowed", "cpuset", RW, "cpu list: 0-3,5; answers it sorted and merged", "cpus the cgroup's tasks "
	         "may run on", "cpuset.cpus", "cpuset.cpus", WHO_SET},
	 .on = BOTH, .plan = key_plan_cpulist, .get = key_get_cpulist},
	{.doc = {"mems_allowed", "cpuset", RW, "node list: 0-1,3; answers it sorted and merged", "memory nodes the "
	         "cgroup's tasks may allocate from", "cpuset.mems", "cpuset.mems", WHO_SET},
	 .on = BOTH, .arg = 1, .plan = key_plan_cpulist, .get = key_get_cpulist},
	{.doc = {"cpus_fraction", "cpu", RW, "percentage: 50, 50% or 12.5% (0 < p <= 100, at most 2 decimals), or max; "
	         "answers 12.5% or max", "cpu time as a share of the cpus the cgroup may run on (its cpuset's, else all "
	         "online), as a bandwidth limit over cpu.period (100ms unless set)", "cpu.cfs_quota_us", "cpu.max", WHO_SET},
	 .on = BOTH, .plan = key_plan_cpus_fraction, .get = key_get_cpus_fraction},
	{.doc = {"cpus_number", "cpu", RW, "number of cpus: 1.5 (at most 2 decimals, up to 8192), or max; answers 1.5 or "
	         "max", "cpu time as a number of cpus' worth, as a bandwidth limit over cpu.period (100ms unless set)",
	         "cpu.cfs_quota_us", "cpu.max", WHO_SET},
	 .on = BOTH, .plan = key_plan_cpus_number, .get = key_get_cpus_number},
	{.doc = {"cpu.period", "cpu", RW, "microseconds, 1000 to 1000000; answers N", "the period over which "
	         "cpus_number and cpus_fraction limit cpu time; a quota set keeps its number of cpus (it is scaled)",
	         "cpu.cfs_period_us", "cpu.max", WHO_SET},
	 .on = BOTH, .plan = key_plan_cpu_period, .get = key_get_cpu_period},
	{.doc = {"cpu_share_percent", "cpu", RW, "integer 1 to 10000 (100 is the default share); answers N",
	         "the cgroup's share of cpu time against its siblings when cpus are contended", "cpu.shares", "cpu.weight",
	         WHO_SET},
	 .on = BOTH, .plan = key_plan_cpu_share, .get = key_get_cpu_share},
	{.doc = {"cpuacct_stat", "cpuacct", RO, "answers user_usec N and system_usec N on two lines", "cpu time used in "
	         "user and in system mode, in microseconds", "cpuacct.stat", "cpu.stat", WHO_READ},
	 .v2_controller = "", .on = BOTH, .get = key_get_cpuacct_stat},
	{.doc = {"cpu.usage", "cpuacct", RO, "microseconds; answers N", "cpu time used, in microseconds", "cpuacct.usage",
	         "cpu.stat", WHO_READ},
	 .v2_controller = "", .on = BOTH, .get = key_get_cpu_usage},
	{.doc = {"cpu.pressure", "", RO, SX_TEXT, "pressure stall information for cpu (cgroup2 only)", NULL,
	         "cpu.pressure", WHO_READ},
	 .on = V2, .get = key_get_text},
	/* devices */
	{.doc = {"devices_whitelist", "devices", WO, "device rules: TYPE MAJ:MIN ACCESS (c 1:3 rwm; * for any number; "
	         "access of r, w, m, default rwm), a /dev path with an optional access, or a for all devices; several "
	         "separated by commas or newlines", "allow access to devices (v2: applied as a BPF program by cgmanager)",
	         "devices.allow", NULL, WHO_SET},
	 .on = BOTH, .arg = 1, .plan = key_plan_devices},
	{.doc = {"devices_blacklist", "devices", WO, "device rules, as devices_whitelist", "deny access to devices (v2: "
	         "applied as a BPF program by cgmanager)", "devices.deny", NULL, WHO_SET},
	 .on = BOTH, .arg = 0, .plan = key_plan_devices},
	{.doc = {"devices_list", "devices", RO, "device rules as the kernel lists them (v2: as cgmanager applied them)",
	         "the device access rules in force", "devices.list", NULL, WHO_READ},
	 .on = BOTH, .get = key_get_devices_list},
	/* io */
	{.doc = {"blkio_weight", "io", RW, "integer: 10 to 1000 on v1, 1 to 10000 on v2; answers N", "the cgroup's share "
	         "of disk time against its siblings", "blkio.weight", "io.weight", WHO_SET},
	 .on = BOTH, .plan = key_plan_blkio_weight, .get = key_get_blkio_weight},
	{.doc = {"blkio_weight_device", "io", RW, "DEV WEIGHT: DEV a /dev path of a block device or MAJ:MIN; WEIGHT as "
	         "blkio_weight, or default to drop the device's own weight; answers MAJ:MIN WEIGHT lines",
	         "blkio_weight for one device", "blkio.weight_device", "io.weight", WHO_SET},
	 .on = BOTH, .plan = key_plan_weight_device, .get = key_get_weight_device},
	{.doc = {"blkio_throttle_read", "io", RW, "DEV BYTES_PER_SEC: DEV as blkio_weight_device, the rate in bytes "
	         "syntax (1M), or max for no limit; answers MAJ:MIN N lines for the limited devices", "read rate limit "
	         "of one device", "blkio.throttle.read_bps_device", "io.max", WHO_SET},
	 .on = BOTH, .arg = 0, .plan = key_plan_throttle, .get = key_get_throttle},
	{.doc = {"blkio_throttle_write", "io", RW, "DEV BYTES_PER_SEC, as blkio_throttle_read", "write rate limit of "
	         "one device", "blkio.throttle.write_bps_device", "io.max", WHO_SET},
	 .on = BOTH, .arg = 1, .plan = key_plan_throttle, .get = key_get_throttle},
	{.doc = {"io.pressure", "", RO, SX_TEXT, "pressure stall information for io (cgroup2 only)", NULL, "io.pressure",
	         WHO_READ},
	 .on = V2, .get = key_get_text},
	/* pids */
	{.doc = {"pids.limit", "pids", RW, "integer 0 to 4194304, or max; answers N or max", "tasks the cgroup may hold",
	         "pids.max", "pids.max", WHO_SET},
	 .on = BOTH, .plan = key_plan_pids, .get = key_get_number},
	{.doc = {"pids.current", "pids", RO, SX_COUNT, "tasks in the cgroup now", "pids.current", "pids.current",
	         WHO_READ},
	 .on = BOTH, .get = key_get_number},
	/* freezer */
	{.doc = {"freezer.state", "freezer", RW, "frozen or thawed; answers frozen, freezing or thawed", "whether the "
	         "cgroup's tasks are stopped", "freezer.state", "cgroup.freeze", WHO_SET},
	 .v2_controller = "", .on = BOTH, .plan = key_plan_freezer, .get = key_get_freezer},
	/* net (v1 only: cgroup2 classifies sockets by cgroup path instead) */
	{.doc = {"net_prio_interface_map", "net_prio", RW, "IFACE PRIO (eth0 5), several separated by commas or "
	         "newlines; answers the kernel's IFACE PRIO lines", "priority of the cgroup's traffic per network "
	         "interface (cgroup v1 only)", "net_prio.ifpriomap", NULL, WHO_SET},
	 .on = V1, .plan = key_plan_ifpriomap, .get = key_get_text},
	{.doc = {"net_prio_index", "net_prio", RO, SX_COUNT, "the kernel's index of the cgroup for net_prio (cgroup v1 "
	         "only)", "net_prio.prioidx", NULL, WHO_READ},
	 .on = V1, .get = key_get_number},
	{.doc = {"net_classid", "net_cls", RW, "class id: MAJOR:MINOR in hex as tc writes handles (10:1), 0x00100001, or "
	         "decimal; answers 10:1", "traffic class of the cgroup's packets (cgroup v1 only)", "net_cls.classid",
	         NULL, WHO_SET},
	 .on = V1, .plan = key_plan_classid, .get = key_get_classid},
};

size_t key_doc_count(void)
{
	return sizeof(defs) / sizeof(defs[0]);
}

const struct key_doc *key_doc_at(size_t i)
{
	return i < key_doc_count() ? &defs[i].doc : NULL;
}

/* Huge page sizes as hugetlb files name them: digits then KB, MB or GB. */
static bool hugetlb_size_valid(const char *s)
{
	size_t digits = strspn(s, "0123456789");
	return digits > 0 && digits < 12 && s[0] != '0' &&
	       (strcmp(s + digits, "KB") == 0 || strcmp(s + digits, "MB") == 0 || strcmp(s + digits, "GB") == 0);
}

const struct key_def *key_def_find(const char *key, const char **size)
{
	*size = NULL;
	for (size_t i = 0; i < key_doc_count(); i++) {
		const char *name = defs[i].doc.name, *family = strstr(name, ".<size>");
		if (!family) {
			if (strcmp(key, name) == 0)
				return &defs[i];
			continue;
		}
		/* Any member of a family finds it, so that a bad size gets a message about the size. */
		size_t prefix = (size_t)(family - name) + 1;
		if (strncmp(key, name, prefix) == 0 && key[prefix]) {
			*size = key + prefix;
			return &defs[i];
		}
	}
	return NULL;
}

const struct key_doc *key_doc_find(const char *key)
{
	const char *size;
	const struct key_def *d = key ? key_def_find(key, &size) : NULL;
	return d ? &d->doc : NULL;
}

const char *key_controller(const char *key)
{
	const struct key_doc *d = key_doc_find(key);
	return d ? d->controller : NULL;
}

/* The version and hierarchy controller backing D here; 0 when no hierarchy does. */
static int backing(const struct key_host *h, const struct key_def *d, const char **ctrl)
{
	int v = h->version_of(h->ctx, d->doc.controller);
	*ctrl = d->doc.controller;
	if (v == 1)
		return 1;
	/* Where cgroup2 serves the key from its core files, no controller of that name need be enabled. */
	if (d->v2_controller && (v == 2 || h->version_of(h->ctx, d->v2_controller) == 2)) {
		*ctrl = d->v2_controller;
		return 2;
	}
	return v == 2 ? 2 : 0;
}

/* PATTERN with "<size>" replaced by SIZE. */
static void fill_size(char out[KEY_FILE_MAX], const char *pattern, const char *size)
{
	const char *at = size ? strstr(pattern, "<size>") : NULL;
	if (at)
		snprintf(out, KEY_FILE_MAX, "%.*s%s%s", (int)(at - pattern), pattern, size, at + 6);
	else
		snprintf(out, KEY_FILE_MAX, "%s", pattern);
}

int key_resolve(const struct key_host *h, const char *key, struct key_ref *k, struct err *e)
{
	const char *size, *file;
	const struct key_def *d = key ? key_def_find(key, &size) : NULL;

	memset(k, 0, sizeof(*k));
	if (!d)
		return err_set(e, ERR_INVALID, "unknown key '%s' (cgm keys lists the keys)", key ? key : "");
	if (size) {
		if (!hugetlb_size_valid(size))
			return err_set(e, ERR_INVALID,
			               "%s: '%s' is not a huge page size (name it as the kernel does: 64KB, 2MB, 1GB)", key,
			               size);
		snprintf(k->size, sizeof(k->size), "%s", size);
	}
	k->h = h;
	k->def = d;
	k->key = key;
	k->version = backing(h, d, &k->ctrl);
	if (k->version == 0) {
		if (!*d->doc.controller)
			return err_set(e, ERR_NOT_SUPPORTED, "%s needs a cgroup2 hierarchy (PSI)", key);
		return err_set(e, ERR_NOT_SUPPORTED, "%s: %s is not available on this host", key, d->doc.controller);
	}
	if (!(d->on & (k->version == 1 ? KEY_ON_V1 : KEY_ON_V2)))
		return err_set(e, ERR_NOT_SUPPORTED, "%s has no equivalent on cgroup v%d (%s is a v%d hierarchy here)", key,
		               k->version, *k->ctrl ? k->ctrl : "cgroup2", k->version);
	file = k->version == 1 ? d->doc.v1_file : d->doc.v2_file;
	if (file)
		fill_size(k->file, file, k->size[0] ? k->size : NULL);
	return 0;
}

const char *key_hierarchy_controller(const struct key_host *h, const char *key)
{
	struct key_ref k;
	struct err e;
	return key_resolve(h, key, &k, &e) == 0 ? k.ctrl : NULL;
}

bool key_lacks_equivalent(const struct key_host *h, const char *key, struct err *why)
{
	struct key_ref k;
	return key_resolve(h, key, &k, why) < 0 && k.def && k.version &&
	       !(k.def->on & (k.version == 1 ? KEY_ON_V1 : KEY_ON_V2));
}

const char *key_file_here(const struct key_host *h, const struct key_doc *d)
{
	const struct key_def *def = NULL;
	const char *ctrl, *file;
	int v;

	for (size_t i = 0; i < key_doc_count() && !def; i++)
		if (d == &defs[i].doc)
			def = &defs[i];
	if (!def)
		return "";
	v = backing(h, def, &ctrl);
	if (v == 0 || !(def->on & (v == 1 ? KEY_ON_V1 : KEY_ON_V2)))
		return "";
	file = v == 1 ? d->v1_file : d->v2_file;
	return file ? file : "";
}
