#include "check.h"
#include "cgfs/hierarchy_parse.h"
#include "util/cgname.h"

static int norm(const char *in, char out[CGNAME_MAX])
{
	const char *why;
	return cgname_normalize(in, out, &why);
}

static void own_cgroup_is_empty_path(void)
{
	char out[CGNAME_MAX];
	CHECK(norm("", out) == 0);
	CHECK_STR(out, "");
	CHECK(norm("/", out) == 0);
	CHECK_STR(out, "");
	CHECK(norm("///", out) == 0);
	CHECK_STR(out, "");
}

static void slashes_fold_and_stay_relative(void)
{
	char out[CGNAME_MAX];
	CHECK(norm("/a//b/", out) == 0);
	CHECK_STR(out, "a/b");
	CHECK(norm("lxc/u1", out) == 0);
	CHECK_STR(out, "lxc/u1");
}

static void dot_and_dotdot_refused(void)
{
	char out[CGNAME_MAX];
	CHECK(norm("..", out) < 0);
	CHECK(norm("a/../b", out) < 0);
	CHECK(norm("/../..", out) < 0);
	CHECK(norm("a/.", out) < 0);
	CHECK(norm("a/..", out) < 0);
	/* Names that merely contain dots are fine. */
	CHECK(norm("a..b/...", out) == 0);
	CHECK_STR(out, "a..b/...");
	CHECK(norm(".hidden", out) == 0);
}

static void control_characters_refused(void)
{
	char out[CGNAME_MAX];
	CHECK(norm("a\nb", out) < 0);
	CHECK(norm("a\tb", out) < 0);
	CHECK(norm("a\x7f", out) < 0);
	CHECK(norm("a\x01/b", out) < 0);
}

static void lengths_bounded(void)
{
	char out[CGNAME_MAX], name[CGNAME_MAX + 10];
	memset(name, 'a', 255);
	name[255] = '\0';
	CHECK(norm(name, out) == 0);
	memset(name, 'a', 256);
	name[256] = '\0';
	CHECK(norm(name, out) < 0);
	for (int i = 0; i < CGNAME_MAX + 5; i++)
		name[i] = (i % 10 == 9) ? '/' : 'b';
	name[CGNAME_MAX + 5] = '\0';
	CHECK(norm(name, out) < 0);
}

static void file_names(void)
{
	const char *why;
	CHECK(cgfile_name_valid("memory.limit_in_bytes", &why) == 0);
	CHECK(cgfile_name_valid("", &why) < 0);
	CHECK(cgfile_name_valid("../tasks", &why) < 0);
	CHECK(cgfile_name_valid("a/b", &why) < 0);
	CHECK(cgfile_name_valid("..", &why) < 0);
	CHECK(cgfile_name_valid(".", &why) < 0);
	CHECK(cgfile_name_valid("x\n", &why) < 0);
}

static void join(void)
{
	char out[CGNAME_MAX];
	CHECK(cgpath_join("", "", out) == 0);
	CHECK_STR(out, "");
	CHECK(cgpath_join("a", "", out) == 0);
	CHECK_STR(out, "a");
	CHECK(cgpath_join("", "b", out) == 0);
	CHECK_STR(out, "b");
	CHECK(cgpath_join("a/b", "c", out) == 0);
	CHECK_STR(out, "a/b/c");
}

static void cgroup2_task_leaf_is_its_parent(void)
{
	char a[] = "a/b/.leaf", b[] = ".leaf", c[] = "/.leaf", d[] = "/x/.leaf", e[] = "a/.leafy", f[] = "a.leaf";
	cgroup2_strip_leaf(a);
	CHECK_STR(a, "a/b");
	cgroup2_strip_leaf(b);
	CHECK_STR(b, "");
	cgroup2_strip_leaf(c);
	CHECK_STR(c, "/");
	cgroup2_strip_leaf(d);
	CHECK_STR(d, "/x");
	cgroup2_strip_leaf(e);
	CHECK_STR(e, "a/.leafy");
	cgroup2_strip_leaf(f);
	CHECK_STR(f, "a.leaf");
}

int main(void)
{
	RUN(cgroup2_task_leaf_is_its_parent);
	RUN(own_cgroup_is_empty_path);
	RUN(slashes_fold_and_stay_relative);
	RUN(dot_and_dotdot_refused);
	RUN(control_characters_refused);
	RUN(lengths_bounded);
	RUN(file_names);
	RUN(join);
	return CHECK_EXIT();
}
