#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "keys/keys.h"

/* A host of configurable versions and a table of files, one cgroup's worth. */
#define FAKE_FILES 32
static struct {
	struct {
		const char *ctrl;
		int version;
	} vers[16];
	size_t nvers;
	struct {
		const char *ctrl, *name, *value;
	} files[FAKE_FILES];
	size_t nfiles;
	int online;
} fake;

static void fake_version(const char *ctrl, int version)
{
	for (size_t i = 0; i < fake.nvers; i++)
		if (strcmp(fake.vers[i].ctrl, ctrl) == 0) {
			fake.vers[i].version = version;
			return;
		}
	fake.vers[fake.nvers].ctrl = ctrl;
	fake.vers[fake.nvers++].version = version;
}

/* A host where every controller is on VERSION, as the op layer would report it (net_* have no v2). */
static void fake_host(int version)
{
	static const char *const ctrls[] = {"memory", "cpu", "cpuset", "cpuacct", "io", "devices", "freezer", "pids",
	                                    "hugetlb", "net_cls", "net_prio"};
	memset(&fake, 0, sizeof(fake));
	fake.online = 8;
	for (size_t i = 0; i < sizeof(ctrls) / sizeof(ctrls[0]); i++)
		fake_version(ctrls[i], version);
	fake_version("", version == 2 ? 2 : 0);
	if (version == 2) {
		fake_version("net_cls", 0);
		fake_version("net_prio", 0);
	}
}

static void fake_file(const char *ctrl, const char *name, const char *value)
{
	for (size_t i = 0; i < fake.nfiles; i++)
		if (strcmp(fake.files[i].ctrl, ctrl) == 0 && strcmp(fake.files[i].name, name) == 0) {
			fake.files[i].value = value;
			return;
		}
	fake.files[fake.nfiles].ctrl = ctrl;
	fake.files[fake.nfiles].name = name;
	fake.files[fake.nfiles++].value = value;
}

static int fake_version_of(void *ctx, const char *controller)
{
	for (size_t i = 0; i < fake.nvers; i++)
		if (strcmp(fake.vers[i].ctrl, controller) == 0)
			return fake.vers[i].version;
	return 0;
}

static int fake_read_file(void *ctx, const char *controller, const char *file, char **out, struct err *e)
{
	for (size_t i = 0; i < fake.nfiles; i++)
		if (strcmp(fake.files[i].ctrl, controller) == 0 && strcmp(fake.files[i].name, file) == 0) {
			*out = strdup(fake.files[i].value);
			return 0;
		}
	return err_set(e, ERR_NOT_FOUND, "no file %s in %s", file, controller);
}

static int fake_device_of(void *ctx, const char *path, unsigned *major, unsigned *minor, char *type, struct err *e)
{
	if (strcmp(path, "/dev/null") == 0)
		*type = 'c', *major = 1, *minor = 3;
	else if (strcmp(path, "/dev/sda") == 0)
		*type = 'b', *major = 8, *minor = 0;
	else
		return err_set(e, ERR_NOT_FOUND, "cannot resolve %s", path);
	return 0;
}

static int fake_online_cpus(void *ctx)
{
	return fake.online;
}

static const struct key_host host = {fake_version_of, fake_read_file, fake_device_of, fake_online_cpus, NULL};

static key_writes W;
static struct err E;
static char answer[1024];

static int plan(const char *key, const char *value)
{
	key_writes_free(&W);
	E = (struct err){0};
	return key_plan_set(&host, key, value, &W, &E);
}

/* The answer, or "ERR: message". */
static const char *get(const char *key)
{
	char *out = NULL;
	E = (struct err){0};
	if (key_get(&host, key, &out, &E) < 0)
		snprintf(answer, sizeof(answer), "ERR: %s", E.msg);
	else
		snprintf(answer, sizeof(answer), "%s", out);
	free(out);
	return answer;
}

#define CHECK_WRITE(i, ctrl, ver, f, val)                                                                \
	do {                                                                                                 \
		CHECK(W.n > (i));                                                                                \
		if (W.n > (i)) {                                                                                 \
			CHECK_STR(W.v[i].controller, ctrl);                                                          \
			CHECK(W.v[i].version == (ver));                                                              \
			CHECK_STR(W.v[i].file ? W.v[i].file : "(null)", f);                                          \
			CHECK_STR(W.v[i].value, val);                                                                \
		}                                                                                                \
	} while (0)

#define CHECK_REFUSED(kind_, msg_)                                                                       \
	do {                                                                                                 \
		CHECK(E.kind == (kind_));                                                                        \
		CHECK_STR(E.msg, msg_);                                                                          \
		CHECK(W.n == 0);                                                                                 \
	} while (0)

/* Units */

static unsigned long long bytes(const char *s)
{
	unsigned long long v = 0;
	struct err e;
	return key_parse_bytes(s, &v, &e) < 0 ? 12345 : v;
}

static void bytes_accepted(void)
{
	CHECK(bytes("0") == 0);
	CHECK(bytes("1") == 1);
	CHECK(bytes("4096") == 4096);
	CHECK(bytes("1K") == 1024);
	CHECK(bytes("1k") == 1024);
	CHECK(bytes("1KiB") == 1024);
	CHECK(bytes("512M") == 512ULL << 20);
	CHECK(bytes("2MiB") == 2ULL << 20);
	CHECK(bytes("1g") == 1ULL << 30);
	CHECK(bytes("1.5G") == 3ULL << 29);
	CHECK(bytes("1.5GiB") == 3ULL << 29);
	CHECK(bytes("0.5K") == 512);
	CHECK(bytes("1T") == 1ULL << 40);
	CHECK(bytes("8388607T") == 8388607ULL << 40);
	CHECK(bytes(" 512M\n") == 512ULL << 20);
	CHECK(bytes("9223372036854775807") == 9223372036854775807ULL);
}

static void bytes_max_words(void)
{
	CHECK(bytes("max") == KEY_BYTES_MAX);
	CHECK(bytes("unlimited") == KEY_BYTES_MAX);
	CHECK(bytes("-1") == 12345); /* the v1 spelling of no limit is not part of the vocabulary */
	CHECK(bytes(" max\n") == KEY_BYTES_MAX);
}

static void bytes_refused(void)
{
	CHECK(bytes("12X") == 12345);
	CHECK(bytes("1.5") == 12345);
	CHECK(bytes("-5") == 12345);
	CHECK(bytes("-1K") == 12345);
	CHECK(bytes("") == 12345);
	CHECK(bytes("K") == 12345);
	CHECK(bytes("1.G") == 12345);
	CHECK(bytes(".5G") == 12345);
	CHECK(bytes("1.5.5G") == 12345);
	CHECK(bytes("1 G") == 12345);
	CHECK(bytes("1KB") == 12345);
	CHECK(bytes("1Ki") == 12345);
	CHECK(bytes("MAX") == 12345);
	CHECK(bytes("99999999999999999999") == 12345);
	CHECK(bytes("9223372036854775808") == 12345);
	CHECK(bytes("8388608T") == 12345);
	CHECK(bytes("1.0000001G") == 12345);
}

static void bytes_messages(void)
{
	unsigned long long v;
	struct err e;
	CHECK(key_parse_bytes("12X", &v, &e) < 0);
	CHECK(e.kind == ERR_INVALID);
	CHECK_STR(e.msg, "'12X' is not a size (use bytes or K, M, G, T suffixes, or max)");
	key_parse_bytes("1.5", &v, &e);
	CHECK_STR(e.msg, "'1.5' is not a whole number of bytes (a fraction needs a suffix: 1.5G)");
	key_parse_bytes("-3", &v, &e);
	CHECK_STR(e.msg, "'-3' is not a size (sizes cannot be negative; max means no limit)");
	key_parse_bytes("99999999999999999999", &v, &e);
	CHECK_STR(e.msg, "'99999999999999999999' is too large (at most 9223372036854775807 bytes; use max for no limit)");
}

static const char *cpulist(const char *s)
{
	char *out;
	struct err e;
	if (key_parse_cpulist(s, &out, &e) < 0)
		return "REFUSED";
	snprintf(answer, sizeof(answer), "%s", out);
	free(out);
	return answer;
}

static void cpulists(void)
{
	CHECK_STR(cpulist("3,0-2"), "0-3");
	CHECK_STR(cpulist("0-3,5"), "0-3,5");
	CHECK_STR(cpulist("5,1,3"), "1,3,5");
	CHECK_STR(cpulist("0,1"), "0-1");
	CHECK_STR(cpulist("7-7"), "7");
	CHECK_STR(cpulist("0-3,2-6"), "0-6");
	CHECK_STR(cpulist("0-3\n"), "0-3");
	CHECK_STR(cpulist("0, 2"), "0,2");
	CHECK_STR(cpulist(""), "");
	CHECK_STR(cpulist("8191"), "8191");
	CHECK_STR(cpulist("0-8191"), "0-8191");
	CHECK_STR(cpulist("8192"), "REFUSED");
	CHECK_STR(cpulist("0-99999999999"), "REFUSED");
	CHECK_STR(cpulist("3-1"), "REFUSED");
	CHECK_STR(cpulist("a"), "REFUSED");
	CHECK_STR(cpulist("0-"), "REFUSED");
	CHECK_STR(cpulist("1,,2"), "REFUSED");
	CHECK_STR(cpulist("0-3,"), "REFUSED");
	CHECK_STR(cpulist("-1"), "REFUSED");
	CHECK_STR(cpulist("1 2"), "REFUSED");
	CHECK_STR(cpulist("0-7:2"), "REFUSED");
	CHECK(key_cpulist_count("0-3,8") == 5);
	CHECK(key_cpulist_count("") == 0);
	CHECK(key_cpulist_count("0-3\n") == 4);
	CHECK(key_cpulist_count("x") == -1);
}

static void cpulist_messages(void)
{
	char *out;
	struct err e;
	key_parse_cpulist("3-1", &out, &e);
	CHECK_STR(e.msg, "'3-1' is a reversed range (write the lower cpu first)");
	key_parse_cpulist("0,9000", &out, &e);
	CHECK_STR(e.msg, "cpu 9000 is out of range (cpus are numbered below 8192)");
	key_parse_cpulist("0-3x", &out, &e);
	CHECK_STR(e.msg, "'0-3x' is not a cpu list (use cpu numbers and ranges: 0-3,5)");
}

static long percent(const char *s)
{
	long v;
	struct err e;
	return key_parse_percent(s, &v, &e) < 0 ? -99 : v;
}

static void percentages(void)
{
	char buf[24];
	CHECK(percent("50") == 5000);
	CHECK(percent("50%") == 5000);
	CHECK(percent(" 50% ") == 5000);
	CHECK(percent("12.5%") == 1250);
	CHECK(percent("12.25") == 1225);
	CHECK(percent("0.01") == 1);
	CHECK(percent("100") == 10000);
	CHECK(percent("max") == -1);
	CHECK(percent("0") == -99);
	CHECK(percent("100.01") == -99);
	CHECK(percent("101") == -99);
	CHECK(percent("12.345") == -99);
	CHECK(percent("50%%") == -99);
	CHECK(percent("%") == -99);
	CHECK(percent("abc") == -99);
	CHECK(percent("-5") == -99);
	CHECK(percent("5.") == -99);
	CHECK_STR(key_format_centi(150, buf), "1.5");
	CHECK_STR(key_format_centi(1250, buf), "12.5");
	CHECK_STR(key_format_centi(200, buf), "2");
	CHECK_STR(key_format_centi(1, buf), "0.01");
	CHECK_STR(key_format_centi(5, buf), "0.05");
	CHECK_STR(key_format_centi(1234, buf), "12.34");
}

/* Vocabulary */

static void docs_complete(void)
{
	CHECK(key_doc_count() > 30);
	CHECK(key_doc_at(key_doc_count()) == NULL);
	for (size_t i = 0; i < key_doc_count(); i++) {
		const struct key_doc *d = key_doc_at(i);
		CHECK(d->name && *d->name);
		CHECK(d->controller);
		CHECK(d->access & (KEY_READ | KEY_WRITE));
		CHECK(d->syntax && *d->syntax);
		CHECK(d->meaning && *d->meaning);
		CHECK(d->who && *d->who);
		CHECK(d->v1_file || d->v2_file);
		CHECK(key_doc_find(d->name) == d);
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(key_doc_at(j)->name, d->name) != 0);
		if (strcmp(key_doc_find(d->name)->name, d->name) != 0)
			fprintf(stderr, "    doc %s not found by its name\n", d->name);
	}
}

static void unknown_key(void)
{
	fake_host(1);
	CHECK(plan("memory.bogus", "1") < 0);
	CHECK_REFUSED(ERR_INVALID, "unknown key 'memory.bogus' (cgm keys lists the keys)");
	CHECK_STR(get("memory.limit_in_bytes"), "ERR: unknown key 'memory.limit_in_bytes' (cgm keys lists the keys)");
	CHECK(E.kind == ERR_INVALID);
	CHECK(plan("hugetlb_limit.", "1") < 0);
	CHECK(E.kind == ERR_INVALID);
	CHECK(key_controller("bogus") == NULL);
	CHECK(key_doc_find("bogus") == NULL);
	CHECK(key_hierarchy_controller(&host, "bogus") == NULL);
}

static void read_only_refused(void)
{
	fake_host(2);
	CHECK(plan("memory.usage", "1") < 0);
	CHECK_REFUSED(ERR_INVALID, "memory.usage is read-only");
	/* Even where the host does not have it. */
	CHECK(plan("net_prio_index", "1") < 0);
	CHECK_REFUSED(ERR_INVALID, "net_prio_index is read-only");
	CHECK(plan("memory.pressure", "x") < 0);
	CHECK(E.kind == ERR_INVALID);
}

static void write_only_refused(void)
{
	fake_host(1);
	CHECK_STR(get("devices_whitelist"),
	          "ERR: devices_whitelist is write-only (devices_list answers the rules in force)");
	CHECK(E.kind == ERR_INVALID);
}

static void controllers(void)
{
	CHECK_STR(key_controller("memory.limit"), "memory");
	CHECK_STR(key_controller("cpuacct_stat"), "cpuacct");
	CHECK_STR(key_controller("freezer.state"), "freezer");
	CHECK_STR(key_controller("memory.pressure"), "");
	CHECK_STR(key_controller("hugetlb_limit.2MB"), "hugetlb");
	CHECK_STR(key_controller("blkio_weight"), "io");
	CHECK_STR(key_doc_find("hugetlb_limit.1GB")->name, "hugetlb_limit.<size>");
	CHECK_STR(key_doc_find("hugetlb_failcnt.2MB")->name, "hugetlb_failcnt.<size>");
}

static void hierarchy_controllers(void)
{
	fake_host(1);
	CHECK_STR(key_hierarchy_controller(&host, "freezer.state"), "freezer");
	CHECK_STR(key_hierarchy_controller(&host, "cpuacct_stat"), "cpuacct");
	CHECK_STR(key_hierarchy_controller(&host, "memory.limit"), "memory");
	CHECK(key_hierarchy_controller(&host, "swap.soft_limit") == NULL);
	CHECK(key_hierarchy_controller(&host, "memory.pressure") == NULL);
	fake_host(2);
	CHECK_STR(key_hierarchy_controller(&host, "freezer.state"), "");
	CHECK_STR(key_hierarchy_controller(&host, "cpuacct_stat"), "");
	CHECK_STR(key_hierarchy_controller(&host, "cpu.usage"), "");
	CHECK_STR(key_hierarchy_controller(&host, "memory.pressure"), "");
	CHECK_STR(key_hierarchy_controller(&host, "devices_whitelist"), "devices");
	CHECK(key_hierarchy_controller(&host, "net_classid") == NULL);
	/* A host whose op layer does not report cpuacct and freezer on cgroup2 at all. */
	fake_version("cpuacct", 0);
	fake_version("freezer", 0);
	CHECK_STR(key_hierarchy_controller(&host, "cpuacct_stat"), "");
	CHECK_STR(key_hierarchy_controller(&host, "freezer.state"), "");
	/* Hybrid: v1 freezer beside a cgroup2 hierarchy. */
	fake_version("freezer", 1);
	CHECK_STR(key_hierarchy_controller(&host, "freezer.state"), "freezer");
}

static void files_here(void)
{
	fake_host(1);
	CHECK_STR(key_file_here(&host, key_doc_find("memory.limit")), "memory.limit_in_bytes");
	CHECK_STR(key_file_here(&host, key_doc_find("swap.soft_limit")), "");
	CHECK_STR(key_file_here(&host, key_doc_find("devices_whitelist")), "devices.allow");
	CHECK_STR(key_file_here(&host, key_doc_find("hugetlb_limit.2MB")), "hugetlb.<size>.limit_in_bytes");
	CHECK_STR(key_file_here(&host, key_doc_find("memory.pressure")), "");
	fake_host(2);
	CHECK_STR(key_file_here(&host, key_doc_find("memory.limit")), "memory.max");
	CHECK_STR(key_file_here(&host, key_doc_find("freezer.state")), "cgroup.freeze");
	CHECK_STR(key_file_here(&host, key_doc_find("devices_whitelist")), "");
	CHECK_STR(key_file_here(&host, key_doc_find("net_prio_index")), "");
	CHECK_STR(key_file_here(&host, key_doc_find("memory.pressure")), "memory.pressure");
	struct key_doc stray = *key_doc_find("memory.limit");
	CHECK_STR(key_file_here(&host, &stray), "");
}

static void unavailable_and_no_equivalent(void)
{
	fake_host(2);
	CHECK(plan("net_prio_interface_map", "eth0 1") < 0);
	CHECK_REFUSED(ERR_NOT_SUPPORTED, "net_prio_interface_map: net_prio is not available on this host");
	CHECK_STR(get("net_prio_index"), "ERR: net_prio_index: net_prio is not available on this host");
	CHECK(E.kind == ERR_NOT_SUPPORTED);
	CHECK(plan("net_classid", "10:1") < 0);
	CHECK(E.kind == ERR_NOT_SUPPORTED);
	CHECK_STR(get("hugetlb_max_usage.2MB"), "ERR: hugetlb_max_usage.2MB has no equivalent on cgroup v2 (hugetlb is a "
	                                          "v2 hierarchy here)");
	CHECK(E.kind == ERR_NOT_SUPPORTED);
	/* An op layer that reports net_prio on cgroup2 still finds no file for it. */
	fake_version("net_prio", 2);
	CHECK_STR(get("net_prio_index"), "ERR: net_prio_index has no equivalent on cgroup v2 (net_prio is a v2 "
	                                   "hierarchy here)");
	fake_host(1);
	CHECK(plan("swap.soft_limit", "1G") < 0);
	CHECK_REFUSED(ERR_NOT_SUPPORTED, "swap.soft_limit has no equivalent on cgroup v1 (memory is a v1 hierarchy here)");
	CHECK_STR(get("memory.pressure"), "ERR: memory.pressure needs a cgroup2 hierarchy (PSI)");
	CHECK(E.kind == ERR_NOT_SUPPORTED);
	fake_version("pids", 0);
	CHECK(plan("pids.limit", "10") < 0);
	CHECK_REFUSED(ERR_NOT_SUPPORTED, "pids.limit: pids is not available on this host");
}

/* Memory and swap */

static void memory_limit_v2(void)
{
	fake_host(2);
	CHECK(plan("memory.limit", "1G") == 0);
	CHECK(W.n == 1);
	CHECK_WRITE(0, "memory", 2, "memory.max", "1073741824");
	CHECK(plan("memory.limit", "max") == 0);
	CHECK_WRITE(0, "memory", 2, "memory.max", "max");
	CHECK(plan("memory.limit", "12X") < 0);
	CHECK_REFUSED(ERR_INVALID, "memory.limit: '12X' is not a size (use bytes or K, M, G, T suffixes, or max)");
	CHECK(plan("memory.limit", "-7") < 0);
	CHECK(E.kind == ERR_INVALID);
}

static void memory_limit_v1(void)
{
	fake_host(1);
	/* No swap accounting: no memsw file. */
	CHECK(plan("memory.limit", "512M") == 0);
	CHECK(W.n == 1);
	CHECK_WRITE(0, "memory", 1, "memory.limit_in_bytes", "536870912");
	CHECK(plan("memory.limit", "max") == 0);
	CHECK_WRITE(0, "memory", 1, "memory.limit_in_bytes", "-1");
	/* memsw unlimited: nothing to keep in step. */
	fake_file("memory", "memory.memsw.limit_in_bytes", "9223372036854771712\n");
	fake_file("memory", "memory.limit_in_bytes", "9223372036854771712\n");
	CHECK(plan("memory.limit", "1G") == 0);
	CHECK(W.n == 1);
	CHECK_WRITE(0, "memory", 1, "memory.limit_in_bytes", "1073741824");
}

static void memory_limit_v1_keeps_swap(void)
{
	fake_host(1);
	fake_file("memory", "memory.limit_in_bytes", "1073741824\n");
	fake_file("memory", "memory.memsw.limit_in_bytes", "1610612736\n");
	/* Raising: memsw first, as it may never be below the limit. */
	CHECK(plan("memory.limit", "2G") == 0);
	CHECK(W.n == 2);
	CHECK_WRITE(0, "memory", 1, "memory.memsw.limit_in_bytes", "2684354560");
	CHECK_WRITE(1, "memory", 1, "memory.limit_in_bytes", "2147483648");
	/* Lowering: the limit first. */
	CHECK(plan("memory.limit", "512M") == 0);
	CHECK(W.n == 2);
	CHECK_WRITE(0, "memory", 1, "memory.limit_in_bytes", "536870912");
	CHECK_WRITE(1, "memory", 1, "memory.memsw.limit_in_bytes", "1073741824");
	CHECK(plan("memory.limit", "max") == 0);
	CHECK(W.n == 2);
	CHECK_WRITE(0, "memory", 1, "memory.memsw.limit_in_bytes", "-1");
	CHECK_WRITE(1, "memory", 1, "memory.limit_in_bytes", "-1");
	CHECK(plan("memory.limit", "9223372036854775000") < 0);
	CHECK(E.kind == ERR_INVALID);
	CHECK(W.n == 0);
}

static void soft_limits(void)
{
	fake_host(1);
	CHECK(plan("memory.soft_limit", "256M") == 0);
	CHECK_WRITE(0, "memory", 1, "memory.soft_limit_in_bytes", "268435456");
	CHECK(plan("memory.soft_limit", "max") == 0);
	CHECK_WRITE(0, "memory", 1, "memory.soft_limit_in_bytes", "-1");
	fake_host(2);
	CHECK(plan("memory.soft_limit", "256M") == 0);
	CHECK_WRITE(0, "memory", 2, "memory.low", "268435456");
	CHECK(plan("swap.soft_limit", "1G") == 0);
	CHECK_WRITE(0, "memory", 2, "memory.swap.high", "1073741824");
	CHECK(plan("swap.soft_limit", "max") == 0);
	CHECK_WRITE(0, "memory", 2, "memory.swap.high", "max");
}

/* memory.high and memory.min have no v1 equivalent: refused there, naming the key. */
static void memory_high_and_min(void)
{
	fake_host(2);
	CHECK(plan("memory.high", "256M") == 0);
	CHECK(W.n == 1);
	CHECK_WRITE(0, "memory", 2, "memory.high", "268435456");
	CHECK(plan("memory.high", "max") == 0);
	CHECK_WRITE(0, "memory", 2, "memory.high", "max");
	CHECK(plan("memory.min", "64M") == 0);
	CHECK(W.n == 1);
	CHECK_WRITE(0, "memory", 2, "memory.min", "67108864");
	CHECK(plan("memory.min", "12X") < 0);
	CHECK_REFUSED(ERR_INVALID, "memory.min: '12X' is not a size (use bytes or K, M, G, T suffixes, or max)");
	fake_file("memory", "memory.high", "max\n");
	fake_file("memory", "memory.min", "67108864\n");
	CHECK_STR(get("memory.high"), "max");
	CHECK_STR(get("memory.min"), "67108864");
	fake_host(1);
	CHECK(plan("memory.high", "256M") < 0);
	CHECK_REFUSED(ERR_NOT_SUPPORTED, "memory.high has no equivalent on cgroup v1 (memory is a v1 hierarchy here)");
	CHECK(plan("memory.min", "64M") < 0);
	CHECK_REFUSED(ERR_NOT_SUPPORTED, "memory.min has no equivalent on cgroup v1 (memory is a v1 hierarchy here)");
	CHECK_STR(get("memory.high"), "ERR: memory.high has no equivalent on cgroup v1 (memory is a v1 hierarchy here)");
}

/* What the systemd1 interface leaves out as systemd does (MemoryHigh on v1), and nothing else. */
static void lacks_equivalent(void)
{
	struct err why = {0};
	fake_host(1);
	CHECK(key_lacks_equivalent(&host, "memory.min", &why));
	CHECK_STR(why.msg, "memory.min has no equivalent on cgroup v1 (memory is a v1 hierarchy here)");
	CHECK(!key_lacks_equivalent(&host, "memory.limit", &why));
	CHECK(!key_lacks_equivalent(&host, "memory.bogus", &why));
	CHECK(!key_lacks_equivalent(&host, "hugetlb_limit.3XB", &why));
	fake_version("pids", 0);
	CHECK(!key_lacks_equivalent(&host, "pids.limit", &why));
	fake_host(2);
	CHECK(!key_lacks_equivalent(&host, "memory.high", &why));
	CHECK(key_lacks_equivalent(&host, "hugetlb_max_usage.2MB", &why));
}

static void swap_limit_v2(void)
{
	fake_host(2);
	CHECK(plan("swap.limit", "512M") == 0);
	CHECK(W.n == 1);
	CHECK_WRITE(0, "memory", 2, "memory.swap.max", "536870912");
	CHECK(plan("swap.limit", "0") == 0);
	CHECK_WRITE(0, "memory", 2, "memory.swap.max", "0");
	CHECK(plan("swap.limit", "max") == 0);
	CHECK_WRITE(0, "memory", 2, "memory.swap.max", "max");
}

static void swap_limit_v1(void)
{
	fake_host(1);
	fake_file("memory", "memory.limit_in_bytes", "9223372036854771712\n");
	CHECK(plan("swap.limit", "512M") < 0);
	CHECK_REFUSED(ERR_INVALID, "swap.limit on cgroup v1 needs memory.limit set (v1 limits memory and swap together)");
	/* A pending memory.limit of max reads as the op layer wrote it. */
	fake_file("memory", "memory.limit_in_bytes", "-1");
	CHECK(plan("swap.limit", "512M") < 0);
	CHECK(E.kind == ERR_INVALID);
	CHECK(plan("swap.limit", "max") == 0);
	CHECK_WRITE(0, "memory", 1, "memory.memsw.limit_in_bytes", "-1");
	fake_file("memory", "memory.limit_in_bytes", "1073741824");
	CHECK(plan("swap.limit", "512M") == 0);
	CHECK(W.n == 1);
	CHECK_WRITE(0, "memory", 1, "memory.memsw.limit_in_bytes", "1610612736");
	CHECK(plan("swap.limit", "0") == 0);
	CHECK_WRITE(0, "memory", 1, "memory.memsw.limit_in_bytes", "1073741824");
	CHECK(plan("swap.limit", "max") == 0);
	CHECK_WRITE(0, "memory", 1, "memory.memsw.limit_in_bytes", "-1");
	CHECK(plan("swap.limit", "9223372036854775807") < 0);
	CHECK(E.kind == ERR_INVALID);
}

static void memory_reads_v1(void)
{
	fake_host(1);
	fake_file("memory", "memory.limit_in_bytes", "9223372036854771712\n");
	CHECK_STR(get("memory.limit"), "max");
	fake_file("memory", "memory.limit_in_bytes", "1073741824\n");
	CHECK_STR(get("memory.limit"), "1073741824");
	fake_file("memory", "memory.soft_limit_in_bytes", "9223372036854771712\n");
	CHECK_STR(get("memory.soft_limit"), "max");
	fake_file("memory", "memory.usage_in_bytes", "1000\n");
	CHECK_STR(get("memory.usage"), "1000");
	fake_file("memory", "memory.max_usage_in_bytes", "4000\n");
	CHECK_STR(get("memory.max_use"), "4000");
	fake_file("memory", "memory.failcnt", "3\n");
	CHECK_STR(get("memory.failcnt"), "3");
	fake_file("memory", "memory.numa_stat", "total=1 N0=1\nfile=0 N0=0\n");
	CHECK_STR(get("memory.numa_stat"), "total=1 N0=1\nfile=0 N0=0");
	fake_file("memory", "memory.memsw.limit_in_bytes", "1610612736\n");
	CHECK_STR(get("swap.limit"), "536870912");
	fake_file("memory", "memory.memsw.limit_in_bytes", "9223372036854771712\n");
	CHECK_STR(get("swap.limit"), "max");
	fake_file("memory", "memory.memsw.usage_in_bytes", "3000\n");
	CHECK_STR(get("swap.usage"), "2000");
	fake_file("memory", "memory.memsw.usage_in_bytes", "900\n");
	CHECK_STR(get("swap.usage"), "0");
	fake_file("memory", "memory.memsw.max_usage_in_bytes", "5000\n");
	CHECK_STR(get("swap.max_use"), "5000");
	fake_file("memory", "memory.memsw.failcnt", "1\n");
	CHECK_STR(get("swap.failcnt"), "1");
	fake_file("memory", "memory.usage_in_bytes", "lots\n");
	CHECK_STR(get("memory.usage"), "ERR: memory.usage: memory.usage_in_bytes reads 'lots', not a number");
	CHECK(E.kind == ERR_FAILED);
}

static void memory_reads_v2(void)
{
	fake_host(2);
	fake_file("memory", "memory.max", "max\n");
	CHECK_STR(get("memory.limit"), "max");
	fake_file("memory", "memory.max", "1073741824\n");
	CHECK_STR(get("memory.limit"), "1073741824");
	fake_file("memory", "memory.low", "0\n");
	CHECK_STR(get("memory.soft_limit"), "0");
	fake_file("memory", "memory.current", "1000\n");
	CHECK_STR(get("memory.usage"), "1000");
	fake_file("memory", "memory.peak", "4000\n");
	CHECK_STR(get("memory.max_use"), "4000");
	fake_file("memory", "memory.events", "low 0\nhigh 0\nmax 7\noom 1\noom_kill 1\n");
	CHECK_STR(get("memory.failcnt"), "7");
	fake_file("memory", "memory.swap.max", "max\n");
	CHECK_STR(get("swap.limit"), "max");
	fake_file("memory", "memory.swap.high", "536870912\n");
	CHECK_STR(get("swap.soft_limit"), "536870912");
	fake_file("memory", "memory.swap.current", "2000\n");
	CHECK_STR(get("swap.usage"), "2000");
	fake_file("memory", "memory.swap.peak", "3000\n");
	CHECK_STR(get("swap.max_use"), "3000");
	fake_file("memory", "memory.swap.events", "high 0\nmax 2\nfail 0\n");
	CHECK_STR(get("swap.failcnt"), "2");
	fake_file("memory", "memory.swap.events", "high 0\n");
	CHECK_STR(get("swap.failcnt"), "ERR: swap.failcnt: memory.swap.events has no max line");
	CHECK_STR(get("memory.numa_stat"), "ERR: no file memory.numa_stat in memory");
	CHECK(E.kind == ERR_NOT_FOUND);
}

static void hugetlb(void)
{
	fake_host(1);
	CHECK(plan("hugetlb_limit.2MB", "1G") == 0);
	CHECK_WRITE(0, "hugetlb", 1, "hugetlb.2MB.limit_in_bytes", "1073741824");
	CHECK(plan("hugetlb_limit.1GB", "max") == 0);
	CHECK_WRITE(0, "hugetlb", 1, "hugetlb.1GB.limit_in_bytes", "-1");
	/* v1 rounds no-limit down to a whole number of huge pages. */
	fake_file("hugetlb", "hugetlb.2MB.limit_in_bytes", "9223372036852678656\n");
	CHECK_STR(get("hugetlb_limit.2MB"), "max");
	fake_file("hugetlb", "hugetlb.2MB.max_usage_in_bytes", "4194304\n");
	CHECK_STR(get("hugetlb_max_usage.2MB"), "4194304");
	fake_file("hugetlb", "hugetlb.2MB.failcnt", "0\n");
	CHECK_STR(get("hugetlb_failcnt.2MB"), "0");
	CHECK(plan("hugetlb_limit.2XB", "1G") < 0);
	CHECK_REFUSED(ERR_INVALID, "hugetlb_limit.2XB: '2XB' is not a huge page size (name it as the kernel does: 64KB, "
	                           "2MB, 1GB)");
	CHECK(plan("hugetlb_limit.<size>", "1G") < 0);
	CHECK(E.kind == ERR_INVALID);
	CHECK(plan("hugetlb_limit.02MB", "1G") < 0);
	CHECK(plan("hugetlb_limit.2mb", "1G") < 0);
	CHECK(plan("hugetlb_usage.2MB", "1G") < 0);
	CHECK_REFUSED(ERR_INVALID, "hugetlb_usage.2MB is read-only");
	fake_host(2);
	CHECK(plan("hugetlb_limit.2MB", "1G") == 0);
	CHECK_WRITE(0, "hugetlb", 2, "hugetlb.2MB.max", "1073741824");
	CHECK(plan("hugetlb_limit.64KB", "max") == 0);
	CHECK_WRITE(0, "hugetlb", 2, "hugetlb.64KB.max", "max");
	fake_file("hugetlb", "hugetlb.1GB.current", "0\n");
	CHECK_STR(get("hugetlb_usage.1GB"), "0");
	fake_file("hugetlb", "hugetlb.2MB.events", "max 3\n");
	CHECK_STR(get("hugetlb_failcnt.2MB"), "3");
}

/* Cpu */

static void cpus_allowed(void)
{
	fake_host(1);
	CHECK(plan("cpus_allowed", "3,0-2") == 0);
	CHECK(W.n == 1);
	CHECK_WRITE(0, "cpuset", 1, "cpuset.cpus", "0-3");
	CHECK(plan("cpus_allowed", "0-3x") < 0);
	CHECK_REFUSED(ERR_INVALID, "cpus_allowed: '0-3x' is not a cpu list (use cpu numbers and ranges: 0-3,5)");
	CHECK(plan("cpus_allowed", " ") < 0);
	CHECK(E.kind == ERR_INVALID);
	fake_file("cpuset", "cpuset.cpus", "0,1,2,3,7\n");
	CHECK_STR(get("cpus_allowed"), "0-3,7");
	fake_host(2);
	CHECK(plan("cpus_allowed", "1,0") == 0);
	CHECK_WRITE(0, "cpuset", 2, "cpuset.cpus", "0-1");
	fake_file("cpuset", "cpuset.cpus", "\n");
	CHECK_STR(get("cpus_allowed"), "");
}

static void mems_allowed(void)
{
	fake_host(1);
	CHECK(plan("mems_allowed", "1,0") == 0);
	CHECK(W.n == 1);
	CHECK_WRITE(0, "cpuset", 1, "cpuset.mems", "0-1");
	CHECK(plan("mems_allowed", "0-1x") < 0);
	CHECK_REFUSED(ERR_INVALID, "mems_allowed: '0-1x' is not a memory node list (use node numbers and ranges below "
	                           "8192: 0-1,3)");
	CHECK(plan("mems_allowed", "") < 0);
	CHECK_REFUSED(ERR_INVALID, "mems_allowed: an empty node list leaves the cgroup's tasks no memory to allocate from");
	fake_file("cpuset", "cpuset.mems", "0\n");
	CHECK_STR(get("mems_allowed"), "0");
	fake_file("cpuset", "cpuset.mems", "junk\n");
	CHECK_STR(get("mems_allowed"), "ERR: mems_allowed: cpuset.mems reads 'junk', not a node list");
	fake_host(2);
	CHECK(plan("mems_allowed", "0") == 0);
	CHECK_WRITE(0, "cpuset", 2, "cpuset.mems", "0");
}

static void cpus_fraction_v1(void)
{
	fake_host(1);
	fake_file("cpuset", "cpuset.effective_cpus", "0-3\n");
	CHECK(plan("cpus_fraction", "50%") == 0);
	CHECK(W.n == 2);
	CHECK_WRITE(0, "cpu", 1, "cpu.cfs_period_us", "100000");
	CHECK_WRITE(1, "cpu", 1, "cpu.cfs_quota_us", "200000");
	CHECK(plan("cpus_fraction", "12.5") == 0);
	CHECK_WRITE(1, "cpu", 1, "cpu.cfs_quota_us", "50000");
	CHECK(plan("cpus_fraction", "max") == 0);
	CHECK(W.n == 2);
	CHECK_WRITE(0, "cpu", 1, "cpu.cfs_period_us", "100000");
	CHECK_WRITE(1, "cpu", 1, "cpu.cfs_quota_us", "-1");
	/* Below the kernel's 1 ms minimum quota the period gives way: 0.1% of 4 cpus is 1 ms per 250 ms. */
	CHECK(plan("cpus_fraction", "0.1") == 0);
	CHECK(W.n == 2);
	CHECK_WRITE(0, "cpu", 1, "cpu.cfs_period_us", "250000");
	CHECK_WRITE(1, "cpu", 1, "cpu.cfs_quota_us", "1000");
	/* 0.0004 cpus would need a period above the kernel's 1 s: refused, not raised to 0.001. */
	CHECK(plan("cpus_fraction", "0.01") < 0);
	CHECK_REFUSED(ERR_INVALID, "cpus_fraction: '0.01' is fewer cpus than the kernel can limit to (a quota is at least "
	                           "1 ms, over a period of at most 1 s: 0.001 cpus)");
	CHECK(plan("cpus_fraction", "0") < 0);
	CHECK_REFUSED(ERR_INVALID, "cpus_fraction: '0' is out of range (more than 0% and at most 100%, or max)");
	CHECK(plan("cpus_fraction", "half") < 0);
	CHECK(E.kind == ERR_INVALID);
	/* An old kernel without effective_cpus. */
	fake_host(1);
	fake_file("cpuset", "cpuset.cpus", "0-1\n");
	CHECK(plan("cpus_fraction", "50") == 0);
	CHECK_WRITE(1, "cpu", 1, "cpu.cfs_quota_us", "100000");
	/* No cpuset: the online cpus. */
	fake_host(1);
	fake_version("cpuset", 0);
	CHECK(plan("cpus_fraction", "25%") == 0);
	CHECK_WRITE(1, "cpu", 1, "cpu.cfs_quota_us", "200000");
}

static void cpus_fraction_v2(void)
{
	fake_host(2);
	fake_file("cpuset", "cpuset.cpus.effective", "0-3\n");
	CHECK(plan("cpus_fraction", "50%") == 0);
	CHECK(W.n == 1);
	CHECK_WRITE(0, "cpu", 2, "cpu.max", "200000 100000");
	CHECK(plan("cpus_fraction", "max") == 0);
	CHECK_WRITE(0, "cpu", 2, "cpu.max", "max 100000");
	/* cpuset enabled on the host but not for this cgroup: no effective file, so the online cpus. */
	fake_host(2);
	CHECK(plan("cpus_fraction", "100") == 0);
	CHECK_WRITE(0, "cpu", 2, "cpu.max", "800000 100000");
}

static void cpus_fraction_reads(void)
{
	fake_host(1);
	fake_file("cpuset", "cpuset.effective_cpus", "0-3\n");
	fake_file("cpu", "cpu.cfs_quota_us", "200000\n");
	fake_file("cpu", "cpu.cfs_period_us", "100000\n");
	CHECK_STR(get("cpus_fraction"), "50%");
	CHECK_STR(get("cpus_number"), "2");
	fake_file("cpu", "cpu.cfs_quota_us", "-1\n");
	CHECK_STR(get("cpus_fraction"), "max");
	CHECK_STR(get("cpus_number"), "max");
	fake_host(2);
	fake_file("cpuset", "cpuset.cpus.effective", "0-3\n");
	fake_file("cpu", "cpu.max", "150000 100000\n");
	CHECK_STR(get("cpus_fraction"), "37.5%");
	CHECK_STR(get("cpus_number"), "1.5");
	fake_file("cpu", "cpu.max", "33333 100000\n");
	CHECK_STR(get("cpus_number"), "0.33");
	CHECK_STR(get("cpus_fraction"), "8.33%");
	fake_file("cpu", "cpu.max", "max 100000\n");
	CHECK_STR(get("cpus_fraction"), "max");
	fake_file("cpu", "cpu.max", "garbage\n");
	CHECK(strncmp(get("cpus_number"), "ERR: cpus_number: cpu.max reads", 31) == 0);
}

static void cpus_number(void)
{
	fake_host(1);
	CHECK(plan("cpus_number", "1.5") == 0);
	CHECK(W.n == 2);
	CHECK_WRITE(0, "cpu", 1, "cpu.cfs_period_us", "100000");
	CHECK_WRITE(1, "cpu", 1, "cpu.cfs_quota_us", "150000");
	CHECK(plan("cpus_number", "max") == 0);
	CHECK_WRITE(1, "cpu", 1, "cpu.cfs_quota_us", "-1");
	CHECK(plan("cpus_number", "0.01") == 0);
	CHECK_WRITE(1, "cpu", 1, "cpu.cfs_quota_us", "1000");
	fake_host(2);
	CHECK(plan("cpus_number", "2") == 0);
	CHECK_WRITE(0, "cpu", 2, "cpu.max", "200000 100000");
	CHECK(plan("cpus_number", "unlimited") == 0);
	CHECK_WRITE(0, "cpu", 2, "cpu.max", "max 100000");
	CHECK(plan("cpus_number", "0") < 0);
	CHECK_REFUSED(ERR_INVALID, "cpus_number: '0' is out of range (more than 0 and at most 8192, or max)");
	CHECK(plan("cpus_number", "1.555") < 0);
	CHECK_REFUSED(ERR_INVALID, "cpus_number: '1.555' is not a number of cpus (use a number such as 1.5, at most 2 "
	                           "decimals, or max)");
	CHECK(plan("cpus_number", "8193") < 0);
	CHECK(plan("cpus_number", "50%") < 0);
}

/* cpu.period keeps the quota's number of cpus, and the quota keys keep the period set. */
static void cpu_period(void)
{
	fake_host(2);
	fake_file("cpu", "cpu.max", "150000 100000\n");
	CHECK(plan("cpu.period", "50000") == 0);
	CHECK(W.n == 1);
	CHECK_WRITE(0, "cpu", 2, "cpu.max", "75000 50000");
	fake_file("cpu", "cpu.max", "max 100000\n");
	CHECK(plan("cpu.period", "1000000") == 0);
	CHECK_WRITE(0, "cpu", 2, "cpu.max", "max 1000000");
	CHECK_STR(get("cpu.period"), "100000");
	/* What cpu.max holds before (NULL: as the row before left it), the key set, and what cpu.max is written. */
	static const struct {
		const char *before, *key, *value, *written;
	} rows[] = {
		/*
		 * A quota that would fall below the kernel's 1 ms minimum over the shorter period lengthens it instead (as
		 * systemd does), so that the cgroup keeps its cpus: 0.01 stays 1 ms per 100 ms, 0.25 over 1 ms is 1 ms
		 * per 4 ms.
		 */
		{"1000 100000\n", "cpu.period", "10000", "1000 100000"},
		{"3000 100000\n", "cpu.period", "10000", "1000 33334"},
		{"max 1000\n", "cpus_number", "0.25", "1000 4000"},
		{NULL, "cpus_number", "0.01", "1000 100000"},
		/* Rescaled quotas are rounded down, never more cpu than set: 50000/100000 over 3333 is 1666, not 1667. */
		{"50000 100000\n", "cpu.period", "3333", "1666 3333"},
		{"max 50000\n", "cpus_number", "1.5", "75000 50000"},
		{NULL, "cpus_number", "max", "max 50000"},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (rows[i].before)
			fake_file("cpu", "cpu.max", rows[i].before);
		CHECK(plan(rows[i].key, rows[i].value) == 0);
		CHECK_WRITE(0, "cpu", 2, "cpu.max", rows[i].written);
	}
	fake_file("cpuset", "cpuset.cpus.effective", "0-3\n");
	CHECK(plan("cpus_fraction", "50%") == 0);
	CHECK_WRITE(0, "cpu", 2, "cpu.max", "100000 50000");
	CHECK(plan("cpu.period", "999") < 0);
	CHECK_REFUSED(ERR_INVALID, "cpu.period: 999 is out of range (1000 to 1000000 microseconds)");
	CHECK(plan("cpu.period", "1000001") < 0);
	CHECK(E.kind == ERR_INVALID);
	CHECK(plan("cpu.period", "max") < 0);
	CHECK_REFUSED(ERR_INVALID, "cpu.period: 'max' is not a number of microseconds (use a whole number from 1000 to "
	                           "1000000)");
	fake_host(1);
	fake_file("cpu", "cpu.cfs_quota_us", "200000\n");
	fake_file("cpu", "cpu.cfs_period_us", "100000\n");
	/* Shorter: the quota first, so that quota/period never rises above both ratios on the way. */
	CHECK(plan("cpu.period", "20000") == 0);
	CHECK(W.n == 2);
	CHECK_WRITE(0, "cpu", 1, "cpu.cfs_quota_us", "40000");
	CHECK_WRITE(1, "cpu", 1, "cpu.cfs_period_us", "20000");
	/* A lengthened period: the period first, as for any longer one. */
	fake_file("cpu", "cpu.cfs_quota_us", "1000\n");
	CHECK(plan("cpu.period", "1000") == 0);
	CHECK(W.n == 2);
	CHECK_WRITE(0, "cpu", 1, "cpu.cfs_period_us", "100000");
	CHECK_WRITE(1, "cpu", 1, "cpu.cfs_quota_us", "1000");
	fake_file("cpu", "cpu.cfs_quota_us", "200000\n");
	/* Longer: the period first. */
	CHECK(plan("cpu.period", "250000") == 0);
	CHECK(W.n == 2);
	CHECK_WRITE(0, "cpu", 1, "cpu.cfs_period_us", "250000");
	CHECK_WRITE(1, "cpu", 1, "cpu.cfs_quota_us", "500000");
	fake_file("cpu", "cpu.cfs_quota_us", "-1\n");
	CHECK(plan("cpu.period", "20000") == 0);
	CHECK_WRITE(0, "cpu", 1, "cpu.cfs_period_us", "20000");
	CHECK_WRITE(1, "cpu", 1, "cpu.cfs_quota_us", "-1");
	fake_file("cpu", "cpu.cfs_period_us", "20000\n");
	CHECK_STR(get("cpu.period"), "20000");
	CHECK(plan("cpus_number", "2") == 0);
	CHECK_WRITE(0, "cpu", 1, "cpu.cfs_period_us", "20000");
	CHECK_WRITE(1, "cpu", 1, "cpu.cfs_quota_us", "40000");
}

static void cpu_share(void)
{
	fake_host(1);
	CHECK(plan("cpu_share_percent", "100") == 0);
	CHECK_WRITE(0, "cpu", 1, "cpu.shares", "1024");
	CHECK(plan("cpu_share_percent", "50") == 0);
	CHECK_WRITE(0, "cpu", 1, "cpu.shares", "512");
	CHECK(plan("cpu_share_percent", "1") == 0);
	CHECK_WRITE(0, "cpu", 1, "cpu.shares", "10");
	CHECK(plan("cpu_share_percent", "150%") == 0);
	CHECK_WRITE(0, "cpu", 1, "cpu.shares", "1536");
	CHECK(plan("cpu_share_percent", "10000") == 0);
	CHECK_WRITE(0, "cpu", 1, "cpu.shares", "102400");
	CHECK(plan("cpu_share_percent", "0") < 0);
	CHECK_REFUSED(ERR_INVALID, "cpu_share_percent: 0 is out of range (1 to 10000; 100 is the default share)");
	CHECK(plan("cpu_share_percent", "10001") < 0);
	CHECK(plan("cpu_share_percent", "x") < 0);
	CHECK(E.kind == ERR_INVALID);
	fake_file("cpu", "cpu.shares", "1024\n");
	CHECK_STR(get("cpu_share_percent"), "100");
	fake_file("cpu", "cpu.shares", "512\n");
	CHECK_STR(get("cpu_share_percent"), "50");
	fake_file("cpu", "cpu.shares", "10\n");
	CHECK_STR(get("cpu_share_percent"), "1");
	fake_file("cpu", "cpu.shares", "2\n");
	CHECK_STR(get("cpu_share_percent"), "1");
	fake_file("cpu", "cpu.shares", "1536\n");
	CHECK_STR(get("cpu_share_percent"), "150");
	fake_host(2);
	CHECK(plan("cpu_share_percent", "100") == 0);
	CHECK_WRITE(0, "cpu", 2, "cpu.weight", "100");
	CHECK(plan("cpu_share_percent", "10000") == 0);
	CHECK_WRITE(0, "cpu", 2, "cpu.weight", "10000");
	fake_file("cpu", "cpu.weight", "250\n");
	CHECK_STR(get("cpu_share_percent"), "250");
}

static void cpu_accounting(void)
{
	char want[128];
	long hz = sysconf(_SC_CLK_TCK);
	fake_host(1);
	fake_file("cpuacct", "cpuacct.stat", "user 150\nsystem 50\n");
	snprintf(want, sizeof(want), "user_usec %lld\nsystem_usec %lld", 150LL * 1000000 / hz, 50LL * 1000000 / hz);
	CHECK_STR(get("cpuacct_stat"), want);
	fake_file("cpuacct", "cpuacct.usage", "123456789\n");
	CHECK_STR(get("cpu.usage"), "123456");
	fake_file("cpuacct", "cpuacct.stat", "user 150\n");
	CHECK_STR(get("cpuacct_stat"), "ERR: cpuacct_stat: cpuacct.stat has no system line");
	fake_host(2);
	/* cgroup2 has cpu.stat whether or not the cpu controller is enabled: read it as a core file. */
	fake_file("", "cpu.stat", "usage_usec 42\nuser_usec 10\nsystem_usec 20\n");
	CHECK_STR(get("cpuacct_stat"), "user_usec 10\nsystem_usec 20");
	CHECK_STR(get("cpu.usage"), "42");
	CHECK(plan("cpu.usage", "1") < 0);
	CHECK(E.kind == ERR_INVALID);
}

static void pressure(void)
{
	fake_host(2);
	fake_file("", "memory.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 "
	                                 "avg300=0.00 total=0\n");
	CHECK_STR(get("memory.pressure"), "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 "
	                                  "avg300=0.00 total=0");
	fake_file("", "cpu.pressure", "some avg10=1.00 avg60=0.00 avg300=0.00 total=5\n");
	CHECK_STR(get("cpu.pressure"), "some avg10=1.00 avg60=0.00 avg300=0.00 total=5");
	fake_file("", "io.pressure", "some x\n");
	CHECK_STR(get("io.pressure"), "some x");
	/* Hybrid: v1 controllers and a cgroup2 hierarchy beside them. */
	fake_host(1);
	fake_version("", 2);
	fake_file("", "io.pressure", "some x\n");
	CHECK_STR(get("io.pressure"), "some x");
}

/* Devices */

static void devices_v1(void)
{
	fake_host(1);
	CHECK(plan("devices_whitelist", "c 1:3 rwm") == 0);
	CHECK(W.n == 1);
	CHECK_WRITE(0, "devices", 1, "devices.allow", "c 1:3 rwm");
	CHECK(W.v[0].rule.type == 'c' && W.v[0].rule.major == 1 && W.v[0].rule.minor == 3 && W.v[0].rule.allow);
	CHECK(plan("devices_blacklist", "a") == 0);
	CHECK_WRITE(0, "devices", 1, "devices.deny", "a");
	CHECK(!W.v[0].rule.allow);
	CHECK(plan("devices_whitelist", "/dev/null rw") == 0);
	CHECK_WRITE(0, "devices", 1, "devices.allow", "c 1:3 rw");
	CHECK(plan("devices_whitelist", "/dev/sda") == 0);
	CHECK_WRITE(0, "devices", 1, "devices.allow", "b 8:0 rwm");
	CHECK(plan("devices_whitelist", "b 8:* r, c *:* m\nc 1:3 mwr\n") == 0);
	CHECK(W.n == 3);
	CHECK_WRITE(0, "devices", 1, "devices.allow", "b 8:* r");
	CHECK_WRITE(1, "devices", 1, "devices.allow", "c *:* m");
	CHECK_WRITE(2, "devices", 1, "devices.allow", "c 1:3 rwm");
	CHECK(plan("devices_whitelist", "c 1:3") == 0);
	CHECK_WRITE(0, "devices", 1, "devices.allow", "c 1:3 rwm");
	CHECK(plan("devices_blacklist", "a *:* rwm") == 0);
	CHECK_WRITE(0, "devices", 1, "devices.deny", "a");
	fake_file("devices", "devices.list", "a *:* rwm\n");
	CHECK_STR(get("devices_list"), "a *:* rwm");
}

static void devices_v2(void)
{
	fake_host(2);
	CHECK(plan("devices_whitelist", "c 1:3 rwm, b 8:* r") == 0);
	CHECK(W.n == 2);
	CHECK_WRITE(0, "devices", 2, "(null)", "c 1:3 rwm");
	CHECK(W.v[0].rule.type == 'c' && W.v[0].rule.major == 1 && W.v[0].rule.minor == 3);
	CHECK_STR(W.v[0].rule.access, "rwm");
	CHECK(W.v[0].rule.allow);
	CHECK_WRITE(1, "devices", 2, "(null)", "b 8:* r");
	CHECK(W.v[1].rule.type == 'b' && W.v[1].rule.major == 8 && W.v[1].rule.minor == -1);
	CHECK_STR(W.v[1].rule.access, "r");
	CHECK(plan("devices_blacklist", "a") == 0);
	CHECK(W.v[0].rule.type == 'a' && W.v[0].rule.major == -1 && W.v[0].rule.minor == -1 && !W.v[0].rule.allow);
	CHECK_STR(W.v[0].rule.access, "rwm");
	CHECK(plan("devices_blacklist", "/dev/null w") == 0);
	CHECK(W.v[0].rule.type == 'c' && W.v[0].rule.major == 1 && W.v[0].rule.minor == 3 && !W.v[0].rule.allow);
	CHECK_STR(W.v[0].rule.access, "w");
	fake_file("devices", KEY_DEVICES_BPF_FILE, "c 1:3 rwm\n");
	CHECK_STR(get("devices_list"), "c 1:3 rwm");
}

static void devices_refused(void)
{
	fake_host(1);
	CHECK(plan("devices_whitelist", "x 1:3") < 0);
	CHECK_REFUSED(ERR_INVALID, "devices_whitelist: 'x 1:3' is not a device rule (use TYPE MAJ:MIN ACCESS as in c 1:3 "
	                           "rwm, a /dev path with an optional access, or a for all devices)");
	CHECK(plan("devices_whitelist", "c 1:3 rwx") < 0);
	CHECK_REFUSED(ERR_INVALID, "devices_whitelist: 'rwx' is not an access (use letters of rwm)");
	/* docs/keys.md: each of r, w, m at most once; the kernel would take "rr" as "r", hiding a typo. */
	CHECK(plan("devices_whitelist", "c 1:3 rr") < 0);
	CHECK_REFUSED(ERR_INVALID, "devices_whitelist: 'c 1:3 rr': access 'r' is named twice (each of r, w, m at most once)");
	CHECK(plan("devices_blacklist", "/dev/null wmw") < 0);
	CHECK_REFUSED(ERR_INVALID, "devices_blacklist: '/dev/null wmw': access 'w' is named twice (each of r, w, m at most "
	                           "once)");
	CHECK(plan("devices_whitelist", "c 1 rwm") < 0);
	CHECK_REFUSED(ERR_INVALID, "devices_whitelist: '1' is not a device number (MAJ:MIN, each a number or *)");
	CHECK(plan("devices_whitelist", "c 4096:0 r") < 0);
	CHECK(plan("devices_whitelist", "c 1:1048576 r") < 0);
	CHECK(plan("devices_whitelist", "c 1:3 r extra") < 0);
	CHECK(plan("devices_whitelist", "/tmp/x") < 0);
	CHECK_REFUSED(ERR_INVALID, "devices_whitelist: '/tmp/x' is not a path under /dev");
	CHECK(plan("devices_whitelist", "/dev/../etc/shadow") < 0);
	CHECK(plan("devices_whitelist", "/dev/nonexistent r") < 0);
	CHECK_REFUSED(ERR_NOT_FOUND, "devices_whitelist: cannot resolve /dev/nonexistent");
	CHECK(plan("devices_whitelist", "a 1:3 r") < 0);
	CHECK(E.kind == ERR_INVALID);
	CHECK(plan("devices_whitelist", "") < 0);
	CHECK(E.kind == ERR_INVALID);
	CHECK(plan("devices_whitelist", " , \n") < 0);
	CHECK(E.kind == ERR_INVALID);
	/* One bad rule refuses them all. */
	CHECK(plan("devices_whitelist", "c 1:3 r, q") < 0);
	CHECK(W.n == 0);
}

static void device_rule_format(void)
{
	char buf[KEY_DEV_RULE_MAX];
	struct dev_rule *rules;
	size_t n;
	struct err e;
	CHECK_STR(key_format_dev_rule(&(struct dev_rule){'c', 1, 3, "rw", true}, buf), "c 1:3 rw");
	CHECK_STR(key_format_dev_rule(&(struct dev_rule){'b', -1, -1, "m", true}, buf), "b *:* m");
	CHECK_STR(key_format_dev_rule(&(struct dev_rule){'a', -1, -1, "rwm", false}, buf), "a");
	CHECK(key_parse_dev_rules(&host, "c 1:3 r\n\nb 8:0 w\n", false, &rules, &n, &e) == 0);
	CHECK(n == 2);
	CHECK(rules[1].type == 'b' && rules[1].major == 8 && rules[1].minor == 0 && !rules[1].allow);
	free(rules);
	/* Without device_of, paths cannot be resolved. */
	struct key_host bare = host;
	bare.device_of = NULL;
	CHECK(key_parse_dev_rules(&bare, "/dev/null", true, &rules, &n, &e) < 0);
	CHECK(e.kind == ERR_NOT_SUPPORTED);
}

/* Io */

static void blkio_weight(void)
{
	fake_host(1);
	CHECK(plan("blkio_weight", "500") == 0);
	CHECK_WRITE(0, "io", 1, "blkio.weight", "500");
	CHECK(plan("blkio_weight", "5") < 0);
	CHECK_REFUSED(ERR_INVALID, "blkio_weight: 5 is out of range (10 to 1000 on cgroup v1)");
	CHECK(plan("blkio_weight", "10000") < 0);
	CHECK(plan("blkio_weight", "heavy") < 0);
	CHECK(E.kind == ERR_INVALID);
	fake_file("io", "blkio.weight", "500\n");
	CHECK_STR(get("blkio_weight"), "500");
	fake_host(2);
	CHECK(plan("blkio_weight", "500") == 0);
	CHECK_WRITE(0, "io", 2, "io.weight", "default 500");
	CHECK(plan("blkio_weight", "1") == 0);
	CHECK_WRITE(0, "io", 2, "io.weight", "default 1");
	CHECK(plan("blkio_weight", "10001") < 0);
	CHECK_REFUSED(ERR_INVALID, "blkio_weight: 10001 is out of range (1 to 10000 on cgroup v2)");
	fake_file("io", "io.weight", "default 100\n8:0 50\n");
	CHECK_STR(get("blkio_weight"), "100");
}

static void blkio_weight_device(void)
{
	fake_host(1);
	CHECK(plan("blkio_weight_device", "/dev/sda 500") == 0);
	CHECK_WRITE(0, "io", 1, "blkio.weight_device", "8:0 500");
	CHECK(plan("blkio_weight_device", "8:16 default") == 0);
	CHECK_WRITE(0, "io", 1, "blkio.weight_device", "8:16 0");
	CHECK(plan("blkio_weight_device", "8:0 5") < 0);
	CHECK(E.kind == ERR_INVALID);
	CHECK(plan("blkio_weight_device", "/dev/null 500") < 0);
	CHECK_REFUSED(ERR_INVALID, "blkio_weight_device: '/dev/null' is a character device (io keys take block devices)");
	CHECK(plan("blkio_weight_device", "8:* 500") < 0);
	CHECK_REFUSED(ERR_INVALID, "blkio_weight_device: '8:*' is not a device number (MAJ:MIN in decimal)");
	CHECK(plan("blkio_weight_device", "500") < 0);
	CHECK(E.kind == ERR_INVALID);
	fake_file("io", "blkio.weight_device", "8:0 500\n8:16 200\n");
	CHECK_STR(get("blkio_weight_device"), "8:0 500\n8:16 200");
	fake_file("io", "blkio.weight_device", "");
	CHECK_STR(get("blkio_weight_device"), "");
	fake_host(2);
	CHECK(plan("blkio_weight_device", "8:16 100") == 0);
	CHECK_WRITE(0, "io", 2, "io.weight", "8:16 100");
	CHECK(plan("blkio_weight_device", "8:16 5") == 0);
	CHECK_WRITE(0, "io", 2, "io.weight", "8:16 5");
	CHECK(plan("blkio_weight_device", "/dev/sda default") == 0);
	CHECK_WRITE(0, "io", 2, "io.weight", "8:0 default");
	fake_file("io", "io.weight", "default 100\n8:0 50\n");
	CHECK_STR(get("blkio_weight_device"), "8:0 50");
}

static void blkio_throttle(void)
{
	fake_host(1);
	CHECK(plan("blkio_throttle_read", "/dev/sda 1M") == 0);
	CHECK(W.n == 1);
	CHECK_WRITE(0, "io", 1, "blkio.throttle.read_bps_device", "8:0 1048576");
	CHECK(plan("blkio_throttle_write", "8:16 max") == 0);
	CHECK_WRITE(0, "io", 1, "blkio.throttle.write_bps_device", "8:16 0");
	CHECK(plan("blkio_throttle_read", "8:0 0") < 0);
	CHECK_REFUSED(ERR_INVALID, "blkio_throttle_read: 0 is not a rate (use max for no limit)");
	CHECK(plan("blkio_throttle_read", "8:0 12X") < 0);
	CHECK_REFUSED(ERR_INVALID, "blkio_throttle_read: '12X' is not a size (use bytes or K, M, G, T suffixes, or max)");
	CHECK(plan("blkio_throttle_read", "8:0") < 0);
	CHECK(E.kind == ERR_INVALID);
	fake_file("io", "blkio.throttle.read_bps_device", "8:0 1048576\n8:16 2048\n");
	CHECK_STR(get("blkio_throttle_read"), "8:0 1048576\n8:16 2048");
	fake_host(2);
	CHECK(plan("blkio_throttle_read", "8:0 1M") == 0);
	CHECK_WRITE(0, "io", 2, "io.max", "8:0 rbps=1048576");
	CHECK(plan("blkio_throttle_write", "/dev/sda 2M") == 0);
	CHECK_WRITE(0, "io", 2, "io.max", "8:0 wbps=2097152");
	CHECK(plan("blkio_throttle_read", "8:0 max") == 0);
	CHECK_WRITE(0, "io", 2, "io.max", "8:0 rbps=max");
	fake_file("io", "io.max", "8:0 rbps=1048576 wbps=max riops=max wiops=max\n"
	                         "8:16 rbps=max wbps=2097152 riops=max wiops=max\n");
	CHECK_STR(get("blkio_throttle_read"), "8:0 1048576");
	CHECK_STR(get("blkio_throttle_write"), "8:16 2097152");
	fake_file("io", "io.max", "");
	CHECK_STR(get("blkio_throttle_write"), "");
}

/* Pids, freezer, net */

static void pids(void)
{
	fake_host(1);
	CHECK(plan("pids.limit", "max") == 0);
	CHECK_WRITE(0, "pids", 1, "pids.max", "max");
	CHECK(plan("pids.limit", "100") == 0);
	CHECK_WRITE(0, "pids", 1, "pids.max", "100");
	CHECK(plan("pids.limit", "-1") < 0);
	CHECK(plan("pids.limit", "0") == 0);
	CHECK_WRITE(0, "pids", 1, "pids.max", "0");
	CHECK(plan("pids.limit", "4194305") < 0);
	CHECK_REFUSED(ERR_INVALID, "pids.limit: 4194305 is more than the kernel allows (4194304; use max for no limit)");
	CHECK(plan("pids.limit", "1.5") < 0);
	CHECK_REFUSED(ERR_INVALID, "pids.limit: '1.5' is not a number of tasks (use a whole number or max)");
	CHECK(plan("pids.limit", "1K") < 0);
	fake_host(2);
	CHECK(plan("pids.limit", "64") == 0);
	CHECK_WRITE(0, "pids", 2, "pids.max", "64");
	fake_file("pids", "pids.max", "max\n");
	CHECK_STR(get("pids.limit"), "max");
	fake_file("pids", "pids.max", "64\n");
	CHECK_STR(get("pids.limit"), "64");
	fake_file("pids", "pids.current", "3\n");
	CHECK_STR(get("pids.current"), "3");
}

static void freezer_v1(void)
{
	fake_host(1);
	CHECK(plan("freezer.state", "frozen") == 0);
	CHECK(W.n == 1);
	CHECK_WRITE(0, "freezer", 1, "freezer.state", "FROZEN");
	CHECK(plan("freezer.state", " THAWED\n") == 0);
	CHECK_WRITE(0, "freezer", 1, "freezer.state", "THAWED");
	CHECK(plan("freezer.state", "freezing") < 0);
	CHECK_REFUSED(ERR_INVALID, "freezer.state: 'freezing' is not a state (use frozen or thawed)");
	fake_file("freezer", "freezer.state", "FREEZING\n");
	CHECK_STR(get("freezer.state"), "freezing");
	fake_file("freezer", "freezer.state", "FROZEN\n");
	CHECK_STR(get("freezer.state"), "frozen");
	fake_file("freezer", "freezer.state", "THAWED\n");
	CHECK_STR(get("freezer.state"), "thawed");
}

static void freezer_v2(void)
{
	fake_host(2);
	CHECK(plan("freezer.state", "frozen") == 0);
	CHECK_WRITE(0, "", 2, "cgroup.freeze", "1");
	CHECK(plan("freezer.state", "thawed") == 0);
	CHECK_WRITE(0, "", 2, "cgroup.freeze", "0");
	fake_file("", "cgroup.events", "populated 1\nfrozen 1\n");
	fake_file("", "cgroup.freeze", "1\n");
	CHECK_STR(get("freezer.state"), "frozen");
	fake_file("", "cgroup.events", "populated 1\nfrozen 0\n");
	CHECK_STR(get("freezer.state"), "freezing");
	fake_file("", "cgroup.freeze", "0\n");
	CHECK_STR(get("freezer.state"), "thawed");
}

static void net_prio(void)
{
	fake_host(1);
	CHECK(plan("net_prio_interface_map", "eth0 5") == 0);
	CHECK(W.n == 1);
	CHECK_WRITE(0, "net_prio", 1, "net_prio.ifpriomap", "eth0 5");
	CHECK(plan("net_prio_interface_map", "eth0 5, lo 1\n") == 0);
	CHECK(W.n == 2);
	CHECK_WRITE(1, "net_prio", 1, "net_prio.ifpriomap", "lo 1");
	CHECK(plan("net_prio_interface_map", "eth0") < 0);
	CHECK(E.kind == ERR_INVALID);
	CHECK(plan("net_prio_interface_map", "eth0 x") < 0);
	CHECK(plan("net_prio_interface_map", "a/b 1") < 0);
	CHECK_REFUSED(ERR_INVALID, "net_prio_interface_map: 'a/b' is not a network interface name");
	CHECK(plan("net_prio_interface_map", "averyveryverylongname 1") < 0);
	CHECK(plan("net_prio_interface_map", "eth0 5, bad") < 0);
	CHECK(W.n == 0);
	fake_file("net_prio", "net_prio.ifpriomap", "lo 0\neth0 5\n");
	CHECK_STR(get("net_prio_interface_map"), "lo 0\neth0 5");
	fake_file("net_prio", "net_prio.prioidx", "2\n");
	CHECK_STR(get("net_prio_index"), "2");
}

static void net_classid(void)
{
	fake_host(1);
	CHECK(plan("net_classid", "10:1") == 0);
	CHECK_WRITE(0, "net_cls", 1, "net_cls.classid", "1048577");
	CHECK(plan("net_classid", "0x00100001") == 0);
	CHECK_WRITE(0, "net_cls", 1, "net_cls.classid", "1048577");
	CHECK(plan("net_classid", "1048577") == 0);
	CHECK_WRITE(0, "net_cls", 1, "net_cls.classid", "1048577");
	CHECK(plan("net_classid", "FFFF:ffff") == 0);
	CHECK_WRITE(0, "net_cls", 1, "net_cls.classid", "4294967295");
	CHECK(plan("net_classid", "0") == 0);
	CHECK_WRITE(0, "net_cls", 1, "net_cls.classid", "0");
	CHECK(plan("net_classid", "10000:1") < 0);
	CHECK(E.kind == ERR_INVALID);
	CHECK(plan("net_classid", "10:1:2") < 0);
	CHECK(plan("net_classid", "4294967296") < 0);
	CHECK(plan("net_classid", "0x100000000") < 0);
	CHECK(plan("net_classid", ":1") < 0);
	CHECK(plan("net_classid", "x") < 0);
	CHECK_REFUSED(ERR_INVALID, "net_classid: 'x' is not a class id (use MAJOR:MINOR in hex as tc does, 10:1, or "
	                           "0x00100001, or a decimal number)");
	fake_file("net_cls", "net_cls.classid", "1048577\n");
	CHECK_STR(get("net_classid"), "10:1");
	fake_file("net_cls", "net_cls.classid", "0\n");
	CHECK_STR(get("net_classid"), "0:0");
	fake_file("net_cls", "net_cls.classid", "4294967295\n");
	CHECK_STR(get("net_classid"), "ffff:ffff");
}

/* Plans append; a refused one leaves what was there. */
static void plans_append_and_roll_back(void)
{
	fake_host(1);
	key_writes w = {0};
	struct err e;
	CHECK(key_plan_set(&host, "pids.limit", "10", &w, &e) == 0);
	CHECK(key_plan_set(&host, "devices_whitelist", "c 1:3 r, b 8:0 r", &w, &e) == 0);
	CHECK(w.n == 3);
	CHECK(key_plan_set(&host, "devices_whitelist", "c 1:5 r, junk", &w, &e) < 0);
	CHECK(w.n == 3);
	/* memsw finite but the limit unreadable: the plan fails after nothing, and leaves nothing. */
	fake_file("memory", "memory.memsw.limit_in_bytes", "1610612736\n");
	CHECK(key_plan_set(&host, "memory.limit", "1G", &w, &e) < 0);
	CHECK(e.kind == ERR_NOT_FOUND);
	CHECK(w.n == 3);
	CHECK_STR(w.v[0].value, "10");
	CHECK_STR(w.v[2].value, "b 8:0 r");
	key_writes_free(&w);
	CHECK(w.n == 0 && w.v == NULL);
	key_writes_free(&w);
}

/* Every settable key plans at least one write on each version it has an equivalent on. */
static void every_settable_key_plans(void)
{
	static const struct {
		const char *key, *value;
	} samples[] = {
		{"memory.limit", "1G"}, {"memory.soft_limit", "1G"}, {"memory.high", "1G"}, {"memory.min", "1G"},
		{"swap.limit", "max"}, {"swap.soft_limit", "1G"}, {"mems_allowed", "0"}, {"cpu.period", "50000"},
		{"hugetlb_limit.<size>", "1G"}, {"cpus_allowed", "0"}, {"cpus_fraction", "50"}, {"cpus_number", "1"},
		{"cpu_share_percent", "100"}, {"devices_whitelist", "a"}, {"devices_blacklist", "a"},
		{"blkio_weight", "100"}, {"blkio_weight_device", "8:0 100"}, {"blkio_throttle_read", "8:0 1M"},
		{"blkio_throttle_write", "8:0 1M"}, {"pids.limit", "1"}, {"freezer.state", "thawed"},
		{"net_prio_interface_map", "lo 1"}, {"net_classid", "1:1"},
	};
	for (int version = 1; version <= 2; version++) {
		fake_host(version);
		fake_version("net_cls", version);
		fake_version("net_prio", version);
		/* cpu.period scales the quota the cgroup has. */
		fake_file("cpu", version == 1 ? "cpu.cfs_quota_us" : "cpu.max", version == 1 ? "-1" : "max 100000");
		fake_file("cpu", "cpu.cfs_period_us", "100000");
		for (size_t i = 0; i < key_doc_count(); i++) {
			const struct key_doc *d = key_doc_at(i);
			const char *value = NULL;
			char key[64];
			if (!(d->access & KEY_WRITE))
				continue;
			for (size_t j = 0; j < sizeof(samples) / sizeof(samples[0]); j++)
				if (strcmp(samples[j].key, d->name) == 0)
					value = samples[j].value;
			CHECK(value != NULL);
			if (!value)
				continue;
			snprintf(key, sizeof(key), "%s", d->name);
			if (strstr(key, "<size>"))
				snprintf(key, sizeof(key), "hugetlb_limit.2MB");
			bool has = version == 1 ? d->v1_file != NULL : d->v2_file != NULL || strcmp(d->controller, "devices") == 0;
			int rc = plan(key, value);
			if (has != (rc == 0))
				fprintf(stderr, "    %s on v%d: %s\n", key, version, rc == 0 ? "planned" : E.msg);
			CHECK(has == (rc == 0));
			CHECK(!has || W.n >= 1);
		}
	}
}

int main(void)
{
	RUN(bytes_accepted);
	RUN(bytes_max_words);
	RUN(bytes_refused);
	RUN(bytes_messages);
	RUN(cpulists);
	RUN(cpulist_messages);
	RUN(percentages);
	RUN(docs_complete);
	RUN(unknown_key);
	RUN(read_only_refused);
	RUN(write_only_refused);
	RUN(controllers);
	RUN(hierarchy_controllers);
	RUN(files_here);
	RUN(unavailable_and_no_equivalent);
	RUN(memory_limit_v2);
	RUN(memory_limit_v1);
	RUN(memory_limit_v1_keeps_swap);
	RUN(soft_limits);
	RUN(memory_high_and_min);
	RUN(lacks_equivalent);
	RUN(swap_limit_v2);
	RUN(swap_limit_v1);
	RUN(memory_reads_v1);
	RUN(memory_reads_v2);
	RUN(hugetlb);
	RUN(cpus_allowed);
	RUN(mems_allowed);
	RUN(cpus_fraction_v1);
	RUN(cpus_fraction_v2);
	RUN(cpus_fraction_reads);
	RUN(cpus_number);
	RUN(cpu_period);
	RUN(cpu_share);
	RUN(cpu_accounting);
	RUN(pressure);
	RUN(devices_v1);
	RUN(devices_v2);
	RUN(devices_refused);
	RUN(device_rule_format);
	RUN(blkio_weight);
	RUN(blkio_weight_device);
	RUN(blkio_throttle);
	RUN(pids);
	RUN(freezer_v1);
	RUN(freezer_v2);
	RUN(net_prio);
	RUN(net_classid);
	RUN(plans_append_and_roll_back);
	RUN(every_settable_key_plans);
	key_writes_free(&W);
	return CHECK_EXIT();
}
