/* The pure parsers of hierarchy discovery (cgfs/hierarchy_parse.h) and the 0.42 controller argument. */
#include <errno.h>
#include <stdlib.h>

#include "cgfs/hierarchy_parse.h"
#include "check.h"

static void parses_self_lines(void)
{
	struct hierarchy h;
	CHECK(hierarchy_parse_self_line(&h, "4:cpu,cpuacct:/a:b\n") == 0);
	CHECK(h.id == 4 && !h.unified && h.controllers.n == 2 && h.root_fd == -1);
	CHECK_STR(h.name, "cpu,cpuacct");
	CHECK_STR(h.root_path, "/a:b");
	hierarchy_clear(&h);
	CHECK(hierarchy_parse_self_line(&h, "0::/user.slice/.leaf") == 0);
	CHECK(h.unified && h.id == 0 && h.controllers.n == 0);
	CHECK_STR(h.name, "unified");
	CHECK_STR(h.root_path, "/user.slice");
	hierarchy_clear(&h);
	CHECK(hierarchy_parse_self_line(&h, "9:name=systemd:/") == 0);
	CHECK_STR(h.name, "name=systemd");
	hierarchy_clear(&h);
}

/* The same refusals as proc_cgroups_parse: one syntax for /proc/PID/cgroup in the daemon. */
static void refuses_malformed_self_lines(void)
{
	struct hierarchy h;
	static const char *const bad[] = {"", "4:memory", "4:memory:relative", "-1:memory:/", "x:memory:/",
	                                  "5::/", "3:,,:/", "2097153:memory:/", "4:memory:"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(hierarchy_parse_self_line(&h, bad[i]) == -EINVAL);
		CHECK(!h.name && !h.root_path && h.controllers.n == 0);
	}
}

static void parses_controllers_file(void)
{
	struct hierarchy h = {0};
	CHECK(hierarchy_parse_controllers(&h, "cpuset cpu  io memory\nignored line\n") == 0);
	CHECK(h.controllers.n == 4);
	CHECK_STR(h.controllers.v[3], "memory");
	strv_free(&h.controllers);
	CHECK(hierarchy_parse_controllers(&h, "") == 0 && h.controllers.n == 0);
}

static void parses_mountinfo_lines(void)
{
	struct mount_entry m;
	CHECK(mountinfo_parse_line("36 25 0:31 / /sys/fs/cgroup/cpu\\040x rw,nosuid shared:9 - cgroup cgroup "
	                           "rw,cpu,cpuacct", &m) == 1);
	CHECK(!m.unified && m.options.n == 3);
	CHECK_STR(m.root, "/");
	CHECK_STR(m.mountpoint, "/sys/fs/cgroup/cpu x");
	mount_entry_free(&m);
	CHECK(mountinfo_parse_line("29 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate", &m) == 1);
	CHECK(m.unified);
	mount_entry_free(&m);
	CHECK(mountinfo_parse_line("22 1 8:1 / / rw - ext4 /dev/vda rw", &m) == 0);
	CHECK(!m.root && !m.mountpoint);
}

/*
 * Seen while writing fuzz-controllers: an escape was read past the end of its field (the separator taken as
 * its last digit) and without checking its digits; now only a whole \ooo of the field, not \000, is unescaped.
 */
static void unescapes_only_whole_escapes(void)
{
	struct mount_entry m;
	CHECK(mountinfo_parse_line("1 2 0:3 /a\\13 /m rw - cgroup2 cgroup2 rw", &m) == 1);
	CHECK_STR(m.root, "/a\\13");
	mount_entry_free(&m);
	CHECK(mountinfo_parse_line("1 2 0:3 /a\\1x4 /m\\000 rw - cgroup2 cgroup2 rw", &m) == 1);
	CHECK_STR(m.root, "/a\\1x4");
	CHECK_STR(m.mountpoint, "/m\\000");
	mount_entry_free(&m);
	CHECK(mountinfo_parse_line("1 2 0:3 /a\\134b /m\\011 rw - cgroup2 cgroup2 rw", &m) == 1);
	CHECK_STR(m.root, "/a\\b");
	CHECK_STR(m.mountpoint, "/m\t");
	mount_entry_free(&m);
}

/* Found by fuzz-controllers (round trip): a root or mount point "-" made " - " inside them the separator. */
static void refuses_relative_mount_fields(void)
{
	struct mount_entry m;
	CHECK(mountinfo_parse_line("36 25 0:sys rw - cgroup2 cgroup2 rw", &m) == 0);
	CHECK(mountinfo_parse_line("36 25 0:1 x /m rw - cgroup2 cgroup2 rw", &m) == 0);
	CHECK(!m.root && !m.mountpoint);
}

/* Seen while writing fuzz-controllers: a name was cut to 255 bytes before matching, so a longer one could match. */
static void selects_by_whole_names(void)
{
	char longname[300];
	struct hierarchy h[2] = {0};
	struct hierarchies hs = {h, 2};
	struct hierarchy_set out;
	struct err e = {0};
	memset(longname, 'c', 255);
	longname[255] = '\0';
	CHECK(hierarchy_parse_self_line(&h[0], "3:memory:/") == 0);
	CHECK(strv_push(&h[1].controllers, longname) == 0);
	h[1].name = strdup(longname), h[1].id = 4;
	strcpy(longname + 255, "DIFFERENT");
	CHECK(hierarchies_select(&hs, longname, &out, &e) == -1 && e.kind == ERR_NOT_FOUND);
	CHECK(hierarchies_select(&hs, "memory,memory", &out, &e) == 0 && out.n == 1 && out.h[0] == &h[0]);
	CHECK(hierarchies_select(&hs, ",", &out, &e) == -1 && e.kind == ERR_INVALID);
	CHECK(hierarchies_select(&hs, "all", &out, &e) == 0 && out.n == 2);
	hierarchy_clear(&h[0]);
	hierarchy_clear(&h[1]);
}

/* A v1 hierarchy whose own name is "unified" (found by fuzz-controllers): its name selects it, "cgroup2" still
 * selects cgroup2. */
static void names_cgroup2_beside_a_v1_named_unified(void)
{
	struct hierarchy h[3] = {0};
	struct hierarchies hs = {h, 3};
	struct hierarchy_set out;
	struct err e = {0};
	CHECK(hierarchy_parse_self_line(&h[0], "1:unified:/") == 0);
	CHECK(hierarchy_parse_self_line(&h[1], "0::/") == 0);
	CHECK(hierarchy_parse_self_line(&h[2], "2:cpu,cpuacct:/") == 0);
	CHECK(h[1].unified);
	CHECK(hierarchies_select(&hs, "unified", &out, &e) == 0 && out.n == 1 && out.h[0] == &h[0]);
	CHECK(hierarchies_select(&hs, "cgroup2", &out, &e) == 0 && out.n == 1 && out.h[0] == &h[1]);
	CHECK(hierarchies_select(&hs, "cpu,cpuacct", &out, &e) == 0 && out.n == 1 && out.h[0] == &h[2]);
	CHECK(hierarchies_select(&hs, "cpuacct,unified,cpu", &out, &e) == 0 && out.n == 2 && out.h[0] == &h[2] &&
	      out.h[1] == &h[0]);
	for (int i = 0; i < 3; i++)
		hierarchy_clear(&h[i]);
}

int main(void)
{
	RUN(parses_self_lines);
	RUN(refuses_malformed_self_lines);
	RUN(parses_controllers_file);
	RUN(parses_mountinfo_lines);
	RUN(unescapes_only_whole_escapes);
	RUN(refuses_relative_mount_fields);
	RUN(selects_by_whole_names);
	RUN(names_cgroup2_beside_a_v1_named_unified);
	return CHECK_EXIT();
}
