/* The systemd1 interface's pure part: unit names, their cgroups and object paths, and property decoding. */
#include <fnmatch.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "systemd1/unit_name.h"
#include "systemd1/unit_props.h"
#include "systemd1/unit_stop.h"

static void test_unit_names(void)
{
	static const struct {
		const char *name;
		int ok;
		enum unit_kind kind;
	} cases[] = {
		{"a.slice", 1, UNIT_KIND_SLICE},
		{"run-r1f2e.scope", 1, UNIT_KIND_SCOPE},
		{"runc-abc_1:2\\x2d.scope", 1, UNIT_KIND_SCOPE},
		{"getty@tty1.service", 1, UNIT_KIND_OTHER},
		{"-.slice", 1, UNIT_KIND_SLICE},
		{"", 0, 0},
		{"noType", 0, 0},
		{".scope", 0, 0},
		{"a.bogus", 0, 0},
		{"a b.scope", 0, 0},
		{"a/b.scope", 0, 0},
		{"@x.scope", 0, 0},
		{"a@b@c.scope", 0, 0},
		{"a.scope@x", 0, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum unit_kind kind = UNIT_KIND_OTHER;
		struct err e = {0};
		int r = unit_name_check(cases[i].name, &kind, &e);
		CHECK((r == 0) == cases[i].ok);
		if (r == 0)
			CHECK(kind == cases[i].kind);
		else
			CHECK(e.kind == ERR_INVALID && e.msg[0]);
	}
	char longname[300];
	memset(longname, 'a', 250);
	strcpy(longname + 250, ".scope");
	enum unit_kind kind;
	struct err e = {0};
	CHECK(unit_name_check(longname, &kind, &e) < 0);
	CHECK(strstr(e.msg, "longer than 255") != NULL);
}

static void test_slice_names(void)
{
	static const struct {
		const char *name;
		int ok;
	} cases[] = {
		{"a.slice", 1}, {"a-b-c.slice", 1}, {"-.slice", 1},   {"system.slice", 1}, {"-a.slice", 0},
		{"a-.slice", 0}, {"a--b.slice", 0}, {"a@b.slice", 0}, {"a.scope", 0},      {"a", 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct err e = {0};
		CHECK((slice_name_check(cases[i].name, &e) == 0) == cases[i].ok);
	}
}

static void test_cgroup_paths(void)
{
	static const struct {
		const char *name, *slice, *path;
	} cases[] = {
		{"a-b-c.slice", NULL, "a.slice/a-b.slice/a-b-c.slice"},
		{"a.slice", NULL, "a.slice"},
		{"-.slice", NULL, ""},
		{"run-r1.scope", NULL, "system.slice/run-r1.scope"},
		{"run-r1.scope", "-.slice", "run-r1.scope"},
		{"x.scope", "a-b.slice", "a.slice/a-b.slice/x.scope"},
		{"machine-x.scope", "machine.slice", "machine.slice/machine-x.scope"},
		/* names the kernel's files could clash with get systemd's "_" */
		{"cpu.scope", NULL, "system.slice/_cpu.scope"},
		{"_x.scope", NULL, "system.slice/__x.scope"},
		{"tasks.slice", NULL, "tasks.slice"},
		{"cgroup.slice", NULL, "_cgroup.slice"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char out[CGNAME_MAX];
		struct err e = {0};
		CHECK(unit_cgroup_path(cases[i].name, cases[i].slice, out, &e) == 0);
		CHECK_STR(out, cases[i].path);
		char back[UNIT_NAME_MAX + 1];
		if (cases[i].path[0]) {
			CHECK(unit_name_of_cgroup(cases[i].path, back) == 0);
			CHECK_STR(back, cases[i].name);
		}
	}
	char out[CGNAME_MAX];
	struct err e = {0};
	CHECK(unit_cgroup_path("x.service", NULL, out, &e) < 0 && e.kind == ERR_NOT_SUPPORTED);
	CHECK(unit_cgroup_path("x.scope", "a--b.slice", out, &e) < 0 && e.kind == ERR_INVALID);
	CHECK(unit_cgroup_path("x.scope", "x.scope", out, &e) < 0 && strstr(e.msg, "not a slice"));
	CHECK(unit_name_of_cgroup("system.slice/not a unit", out) < 0);
}

static void test_object_paths(void)
{
	static const struct {
		const char *name, *path;
	} cases[] = {
		{"run-r1.scope", "/org/freedesktop/systemd1/unit/run_2dr1_2escope"},
		{"-.slice", "/org/freedesktop/systemd1/unit/_2d_2eslice"},
		{"a_b@c.scope", "/org/freedesktop/systemd1/unit/a_5fb_40c_2escope"},
		{"AZaz09.scope", "/org/freedesktop/systemd1/unit/AZaz09_2escope"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[UNIT_OBJECT_PATH_MAX], name[UNIT_NAME_MAX + 1];
		unit_object_path(cases[i].name, path);
		CHECK_STR(path, cases[i].path);
		CHECK(unit_name_of_object_path(path, name) == 0);
		CHECK_STR(name, cases[i].name);
	}
	char name[UNIT_NAME_MAX + 1];
	CHECK(unit_name_of_object_path("/org/freedesktop/systemd1/unit/bad_zz", name) < 0);
	CHECK(unit_name_of_object_path("/org/freedesktop/systemd1/unit/", name) < 0);
	CHECK(unit_name_of_object_path("/org/freedesktop/systemd1/job/1", name) < 0);
}

/* Property constructors: one (sv) of each signature. */
static struct unit_prop t_(const char *name, uint64_t v)
{
	return (struct unit_prop){.name = name, .sig = "t", .u = v};
}

static struct unit_prop s_(const char *name, const char *v)
{
	return (struct unit_prop){.name = name, .sig = "s", .s = v};
}

static struct unit_prop b_(const char *name, int v)
{
	return (struct unit_prop){.name = name, .sig = "b", .u = (uint64_t)v};
}

/* The single key a property decodes to, or "" when it decodes to none; NULL when it is refused. */
static const char *decode1(struct unit_prop p, const char **key, struct err *e)
{
	static char value[256], keybuf[64];
	struct unit_settings s;
	if (unit_props_decode(&p, 1, &s, e) < 0)
		return NULL;
	keybuf[0] = value[0] = '\0';
	*key = keybuf;
	if (s.keys.n == 1) {
		snprintf(keybuf, sizeof(keybuf), "%s", s.keys.v[0]);
		snprintf(value, sizeof(value), "%s", s.values.v[0]);
		CHECK_STR(s.origins.v[0], p.name);
	}
	CHECK(s.keys.n <= 1);
	unit_settings_free(&s);
	return value;
}

static void test_props_to_keys(void)
{
	static const uint8_t cpus[] = {0x2f, 0x01}; /* 0-3,5,8 */
	static const uint32_t pids[] = {0, 42};
	static const struct unit_prop_pair bw[] = {{"/dev/sda", NULL, 1048576}};
	struct unit_prop ay = {.name = "AllowedCPUs", .sig = "ay", .bytes = cpus, .n = 2};
	struct unit_prop bwp = {.name = "IOReadBandwidthMax", .sig = "a(st)", .pairs = bw, .n = 1};
	struct unit_prop bwm = {.name = "IOWriteBandwidthMax", .sig = "a(st)", .pairs = (struct unit_prop_pair[]){
	                                                                         {"8:0", NULL, UINT64_MAX}}, .n = 1};
	const struct {
		struct unit_prop p;
		const char *key, *value;
	} cases[] = {
		{t_("MemoryMax", 67108864), "memory.limit", "67108864"},
		{t_("MemoryMax", UINT64_MAX), "memory.limit", "max"},
		{t_("MemoryLimit", 1024), "memory.limit", "1024"},
		{t_("MemoryLow", 4096), "memory.soft_limit", "4096"},
		{t_("MemorySwapMax", 0), "swap.limit", "0"},
		{t_("TasksMax", 16), "pids.limit", "16"},
		{t_("TasksMax", 0), "pids.limit", "0"},
		{t_("TasksMax", UINT64_MAX), "pids.limit", "max"},
		{t_("CPUShares", 1024), "cpu_share_percent", "100"},
		{t_("CPUShares", 512), "cpu_share_percent", "50"},
		{t_("CPUShares", 2), "cpu_share_percent", "1"},
		{t_("CPUShares", UINT64_MAX), "cpu_share_percent", "100"},
		{t_("CPUWeight", 250), "cpu_share_percent", "250"},
		{t_("CPUWeight", UINT64_MAX), "cpu_share_percent", "100"},
		{t_("CPUQuotaPerSecUSec", 1500000), "cpus_number", "1.50"},
		{t_("CPUQuotaPerSecUSec", 1), "cpus_number", "0.01"},
		{t_("CPUQuotaPerSecUSec", UINT64_MAX), "cpus_number", "max"},
		{t_("CPUQuotaPeriodUSec", 50000), "cpu.period", "50000"},
		{t_("CPUQuotaPeriodUSec", UINT64_MAX), "cpu.period", "100000"},
		{ay, "cpus_allowed", "0-3,5,8"},
		{(struct unit_prop){.name = "AllowedMemoryNodes", .sig = "ay", .bytes = cpus, .n = 1}, "mems_allowed",
		 "0-3,5"},
		{t_("MemoryHigh", 1073741824), "memory.high", "1073741824"},
		{t_("MemoryHigh", UINT64_MAX), "memory.high", "max"},
		{t_("MemoryMin", 4096), "memory.min", "4096"},
		{t_("BlockIOWeight", 10), "blkio_weight", "10"},
		{t_("BlockIOWeight", UINT64_MAX), "blkio_weight", "500"},
		{t_("IOWeight", 10000), "blkio_weight", "10000"},
		{bwp, "blkio_throttle_read", "/dev/sda 1048576"},
		{bwm, "blkio_throttle_write", "8:0 max"},
		/* accepted, nothing to write */
		{s_("Description", "x"), "", ""},
		{b_("Delegate", 1), "", ""},
		{b_("DefaultDependencies", 0), "", ""},
		{b_("AddRef", 1), "", ""},
		{s_("CollectMode", "inactive-or-failed"), "", ""},
		{s_("KillMode", "mixed"), "", ""},
		{t_("TimeoutStopUSec", 5), "", ""},
		{b_("CPUAccounting", 1), "", ""},
		{b_("MemoryAccounting", 1), "", ""},
		{b_("TasksAccounting", 1), "", ""},
		{b_("IOAccounting", 1), "", ""},
		{b_("BlockIOAccounting", 1), "", ""},
		{(struct unit_prop){.name = "KillSignal", .sig = "i", .i = SIGINT}, "", ""},
		{b_("SendSIGKILL", 0), "", ""},
		{(struct unit_prop){.name = "AllowedMemoryNodes", .sig = "ay", .bytes = cpus, .n = 0}, "", ""},
		{(struct unit_prop){.name = "AllowedCPUs", .sig = "ay", .bytes = cpus, .n = 0}, "", ""},
		{(struct unit_prop){.name = "PIDs", .sig = "au", .u32 = pids, .n = 2}, "", ""},
		{s_("Slice", "a-b.slice"), "", ""},
		{s_("DevicePolicy", "strict"), "", ""},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *key = NULL, *v;
		struct err e = {0};
		v = decode1(cases[i].p, &key, &e);
		if (!v) {
			fprintf(stderr, "    %s refused: %s\n", cases[i].p.name, e.msg);
			CHECK(v != NULL);
			continue;
		}
		CHECK_STR(key, cases[i].key);
		CHECK_STR(v, cases[i].value);
	}
}

static void test_props_refused(void)
{
	const struct {
		struct unit_prop p;
		const char *msg;
	} cases[] = {
		{s_("MemoryMax", "64M"), "property MemoryMax: expects a value of type t, not s"},
		{t_("Description", 1), "property Description: expects a value of type s, not t"},
		{(struct unit_prop){.name = "PIDs", .sig = "ai"}, "property PIDs: expects a value of type au, not ai"},
		{t_("TasksMax", 4194305), "property TasksMax: 4194305 is out of range (0 to 4194304, or "
		                         "18446744073709551615 for no limit)"},
		{t_("CPUWeight", 0), "property CPUWeight: 0 is out of range (1 to 10000"},
		{t_("CPUWeight", 10001), "property CPUWeight: 10001 is out of range"},
		{t_("CPUShares", 1), "property CPUShares: 1 is out of range (2 to 262144"},
		{t_("CPUShares", 262145), "property CPUShares: 262145"},
		{t_("CPUQuotaPerSecUSec", 0), "property CPUQuotaPerSecUSec: 0 is out of range"},
		{t_("CPUQuotaPeriodUSec", 999), "property CPUQuotaPeriodUSec: 999 is out of range (1000 to 1000000, or "
		                                "18446744073709551615 for the default)"},
		{t_("CPUQuotaPeriodUSec", 1000001), "property CPUQuotaPeriodUSec: 1000001 is out of range"},
		{s_("KillMode", "all"), "property KillMode: 'all' is not control-group, mixed, process or none"},
		{(struct unit_prop){.name = "KillSignal", .sig = "i", .i = 0}, "property KillSignal: 0 is not a signal (1 to"},
		{(struct unit_prop){.name = "KillSignal", .sig = "i", .i = 65}, "property KillSignal: 65 is not a signal"},
		{s_("TimeoutStopUSec", "5s"), "property TimeoutStopUSec: expects a value of type t, not s"},
		{t_("BlockIOWeight", 9), "property BlockIOWeight: 9 is out of range (10 to 1000"},
		{t_("IOWeight", 0), "property IOWeight: 0 is out of range (1 to 10000"},
		{s_("Slice", "a--b.slice"), "property Slice: slice name 'a--b.slice' has an empty part"},
		{s_("Slice", "x.scope"), "property Slice: 'x.scope' is not a slice"},
		{s_("DevicePolicy", "open"), "property DevicePolicy: 'open' is not auto, closed or strict"},
		{(struct unit_prop){.name = "DeviceAllow", .sig = "a(ss)",
		                    .pairs = (struct unit_prop_pair[]){{"/etc/passwd", "rw", 0}}, .n = 1},
		 "property DeviceAllow: '/etc/passwd' is neither a /dev path"},
		{(struct unit_prop){.name = "DeviceAllow", .sig = "a(ss)",
		                    .pairs = (struct unit_prop_pair[]){{"/dev/null", "rwx", 0}}, .n = 1},
		 "property DeviceAllow: access 'rwx' of /dev/null is not letters of rwm"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct unit_settings s;
		struct err e = {0};
		CHECK(unit_props_decode(&cases[i].p, 1, &s, &e) < 0);
		CHECK(e.kind == ERR_INVALID);
		if (strncmp(e.msg, cases[i].msg, strlen(cases[i].msg)) != 0) {
			fprintf(stderr, "    got '%s'\n    want '%s...'\n", e.msg, cases[i].msg);
			CHECK(0);
		}
	}
}

/* What systemd-run --scope -p MemoryMax=64M -p TasksMax=16 sends, with one property this manager does not know. */
static void test_props_list(void)
{
	static const uint32_t pids[] = {1234};
	const struct unit_prop props[] = {
		s_("Description", "/usr/bin/sleep 30"),
		{.name = "PIDs", .sig = "au", .u32 = pids, .n = 1},
		t_("MemoryMax", 67108864),
		t_("TasksMax", 16),
		{.name = "IOSchedulingClass", .sig = "i", .i = 2},
		t_("MemoryHigh", 1),
		{.name = "IOSchedulingClass", .sig = "i", .i = 3},
		s_("Slice", "a-b.slice"),
		b_("Delegate", 1),
		s_("KillMode", "mixed"),
		t_("TimeoutStopUSec", 2000000),
	};
	struct unit_settings s;
	struct err e = {0};
	CHECK(unit_props_decode(props, sizeof(props) / sizeof(props[0]), &s, &e) == 0);
	CHECK_STR(s.description, "/usr/bin/sleep 30");
	CHECK(s.npids == 1 && s.pids[0] == 1234);
	CHECK(s.keys.n == 3);
	CHECK_STR(s.keys.v[0], "memory.limit");
	CHECK_STR(s.values.v[0], "67108864");
	CHECK_STR(s.keys.v[1], "pids.limit");
	CHECK_STR(s.values.v[1], "16");
	CHECK_STR(s.keys.v[2], "memory.high");
	CHECK_STR(s.origins.v[2], "MemoryHigh");
	CHECK(s.unknown.n == 1);
	CHECK_STR(s.unknown.v[0], "IOSchedulingClass");
	/* Only what was sent of the kill settings is marked set. */
	CHECK(s.kill_set == (UNIT_SET_KILL_MODE | UNIT_SET_TIMEOUT_STOP));
	CHECK(s.kill.mode == UNIT_KILL_MIXED);
	CHECK(s.kill.timeout_usec == 2000000);
	CHECK_STR(s.slice, "a-b.slice");
	CHECK(s.has_delegate && s.delegate);
	unit_settings_free(&s);
}

/* One call of unit_stop_next: its action, and the signal for UNIT_STOP_SIGNAL (0 otherwise). */
static int next(struct unit_stop *st, bool empty, uint64_t now, int *sig)
{
	return (int)unit_stop_next(st, empty, now, sig);
}

/* systemd's defaults: KillSignal to every task, a wait of up to 90 s for them to leave, then SIGKILL. */
static void test_stop_control_group(void)
{
	struct unit_kill k;
	struct unit_stop st;
	int sig;
	unit_kill_default(&k);
	CHECK(k.mode == UNIT_KILL_CONTROL_GROUP && k.signal == SIGTERM && k.send_sigkill);
	CHECK(k.timeout_usec == 90000000);
	unit_stop_init(&st, &k);
	CHECK(next(&st, false, 1000, &sig) == UNIT_STOP_SIGNAL && sig == SIGTERM);
	CHECK(st.deadline == 1000 + 90000000);
	CHECK(next(&st, false, 2000, &sig) == UNIT_STOP_WAIT && sig == 0);
	CHECK(next(&st, false, 90000999, &sig) == UNIT_STOP_WAIT);
	/* The tasks left on SIGTERM: the cgroup goes, and that is the end. */
	CHECK(next(&st, true, 3000, &sig) == UNIT_STOP_REMOVE);
	CHECK(next(&st, true, 4000, &sig) == UNIT_STOP_LEAVE);
	/* Nothing in the cgroup when the stop starts: nothing to signal. */
	unit_stop_init(&st, &k);
	CHECK(next(&st, true, 1000, &sig) == UNIT_STOP_REMOVE && sig == 0);
	/* KillSignal=SIGINT goes instead of SIGTERM; KillSignal=SIGKILL is SIGKILL at once. */
	k.signal = SIGINT;
	unit_stop_init(&st, &k);
	CHECK(next(&st, false, 0, &sig) == UNIT_STOP_SIGNAL && sig == SIGINT);
	k.signal = SIGKILL;
	unit_stop_init(&st, &k);
	CHECK(next(&st, false, 0, &sig) == UNIT_STOP_KILL);
}

static void test_stop_timeouts(void)
{
	struct unit_kill k;
	struct unit_stop st;
	int sig;
	unit_kill_default(&k);
	/* A task that ignores SIGTERM is SIGKILLed once TimeoutStopUSec has passed. */
	k.timeout_usec = 500000;
	unit_stop_init(&st, &k);
	CHECK(next(&st, false, 100, &sig) == UNIT_STOP_SIGNAL && sig == SIGTERM);
	CHECK(next(&st, false, 500099, &sig) == UNIT_STOP_WAIT);
	CHECK(next(&st, false, 500100, &sig) == UNIT_STOP_KILL);
	CHECK(next(&st, false, 500200, &sig) == UNIT_STOP_LEAVE);
	/* SendSIGKILL=no: the tasks stay after the timeout. */
	k.send_sigkill = false;
	unit_stop_init(&st, &k);
	CHECK(next(&st, false, 0, &sig) == UNIT_STOP_SIGNAL);
	CHECK(next(&st, false, 500000, &sig) == UNIT_STOP_LEAVE);
	/* TimeoutStopUSec=0: SIGKILL right after KillSignal. */
	k.send_sigkill = true;
	k.timeout_usec = 0;
	unit_stop_init(&st, &k);
	CHECK(next(&st, false, 7, &sig) == UNIT_STOP_SIGNAL);
	CHECK(next(&st, false, 7, &sig) == UNIT_STOP_KILL);
	/* infinity: no timeout, even at the end of time. */
	k.timeout_usec = UNIT_NO_TIMEOUT;
	unit_stop_init(&st, &k);
	CHECK(next(&st, false, 5, &sig) == UNIT_STOP_SIGNAL);
	CHECK(st.deadline == UINT64_MAX);
	CHECK(next(&st, false, UINT64_MAX - 1, &sig) == UNIT_STOP_WAIT);
	CHECK(next(&st, true, UINT64_MAX - 1, &sig) == UNIT_STOP_REMOVE);
}

/* A scope has no main process: mixed is SIGKILL at once, process and none leave every task. */
static void test_stop_other_modes(void)
{
	struct unit_kill k;
	struct unit_stop st;
	int sig;
	unit_kill_default(&k);
	k.mode = UNIT_KILL_MIXED;
	unit_stop_init(&st, &k);
	CHECK(next(&st, false, 0, &sig) == UNIT_STOP_KILL);
	k.mode = UNIT_KILL_PROCESS;
	unit_stop_init(&st, &k);
	CHECK(next(&st, false, 0, &sig) == UNIT_STOP_LEAVE);
	k.mode = UNIT_KILL_NONE;
	unit_stop_init(&st, &k);
	CHECK(next(&st, false, 0, &sig) == UNIT_STOP_LEAVE);
	CHECK(unit_kill_mode_of("control-group") == UNIT_KILL_CONTROL_GROUP);
	CHECK(unit_kill_mode_of("none") == UNIT_KILL_NONE);
	CHECK(unit_kill_mode_of("Mixed") == -1);
	CHECK_STR(unit_kill_mode_name(UNIT_KILL_MIXED), "mixed");
}

/* /proc/devices as a test host knows it. */
static int fake_majors(void *ctx, char type, const char *glob, unsigned *majors, size_t max)
{
	static const struct {
		char type;
		const char *name;
		unsigned major;
	} devs[] = {{'c', "mem", 1}, {'c', "pts", 136}, {'c', "tty", 4}, {'c', "ttyS", 4}, {'b', "loop", 7},
	            {'b', "sd", 8}};
	int n = 0;
	for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]) && (size_t)n < max; i++)
		if (devs[i].type == type && fnmatch(glob, devs[i].name, 0) == 0)
			majors[n++] = devs[i].major;
	return n;
}

static void test_device_rules(void)
{
	struct unit_device_host h = {.majors_of = fake_majors};
	struct unit_device entries[] = {{"/dev/null", "rw"}, {"/dev/char/10:200", "rwm"}, {"/dev/block/7:3", "r"},
	                                {"block-loop", "rwm"}, {"char-tty*", "w"}, {"char-nosuch", "r"},
	                                {"char-*", "m"}};
	const struct {
		const char *policy;
		size_t n;
		bool deny;
		const char *rules;
	} cases[] = {
		{"", 0, false, ""},
		{"auto", 0, false, ""},
		{"strict", 0, true, ""},
		{"strict", 1, true, "/dev/null rw"},
		{"closed", 0, true, "c 1:3 rwm,c 1:5 rwm,c 1:7 rwm,c 1:8 rwm,c 1:9 rwm,c 5:0 rwm,c 5:2 rwm,c 136:* rw"},
		{"auto", 2, true, "c 1:3 rwm,c 1:5 rwm,c 1:7 rwm,c 1:8 rwm,c 1:9 rwm,c 5:0 rwm,c 5:2 rwm,c 136:* rw,"
		                  "/dev/null rw,c 10:200 rwm"},
		{"strict", 7, true, "/dev/null rw,c 10:200 rwm,b 7:3 r,b 7:* rwm,c 4:* w,c 4:* w,c *:* m"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool deny = !cases[i].deny;
		char *rules = NULL;
		struct err e = {0};
		CHECK(unit_device_rules(&h, cases[i].policy, entries, cases[i].n, &deny, &rules, &e) == 0);
		CHECK(deny == cases[i].deny);
		CHECK_STR(rules ? rules : "(null)", cases[i].rules);
		free(rules);
	}
}

/* DeviceAllow adds to the entries before; an empty one resets them. */
static void test_device_allow_reset(void)
{
	const struct unit_prop props[] = {
		{.name = "DeviceAllow", .sig = "a(ss)", .pairs = (struct unit_prop_pair[]){{"/dev/null", "", 0}}, .n = 1},
		{.name = "DeviceAllow", .sig = "a(ss)", .n = 0},
		{.name = "DeviceAllow", .sig = "a(ss)", .pairs = (struct unit_prop_pair[]){{"char-pts", "rw", 0}}, .n = 1},
	};
	struct unit_settings s;
	struct err e = {0};
	CHECK(unit_props_decode(props, 1, &s, &e) == 0);
	CHECK(s.nallow == 1 && strcmp(s.allow[0].access, "rwm") == 0 && !s.device_allow_reset);
	unit_settings_free(&s);
	CHECK(unit_props_decode(props, 3, &s, &e) == 0);
	CHECK(s.device_allow_reset && s.nallow == 1);
	CHECK_STR(s.allow[0].path, "char-pts");
	unit_settings_free(&s);
}

int main(void)
{
	RUN(test_unit_names);
	RUN(test_slice_names);
	RUN(test_cgroup_paths);
	RUN(test_object_paths);
	RUN(test_props_to_keys);
	RUN(test_props_refused);
	RUN(test_props_list);
	RUN(test_stop_control_group);
	RUN(test_stop_timeouts);
	RUN(test_stop_other_modes);
	RUN(test_device_rules);
	RUN(test_device_allow_reset);
	return CHECK_EXIT();
}
