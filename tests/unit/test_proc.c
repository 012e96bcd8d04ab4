#include "cgfs/proc.h"
#include "check.h"

static void parses_hybrid_cgroup_file(void)
{
	struct proc_cgroups pc;
	const char *text = "9:name=systemd:/\n4:memory:/process_api/x\n1:cpu,cpuacct:/a b\n0::/user.slice\n";
	CHECK(proc_cgroups_parse(text, &pc) == 0);
	CHECK(pc.n == 4);
	CHECK_STR(proc_cgroups_path(&pc, 4), "/process_api/x");
	CHECK_STR(proc_cgroups_path(&pc, 1), "/a b");
	CHECK_STR(proc_cgroups_path(&pc, 0), "/user.slice");
	CHECK(proc_cgroups_path(&pc, 7) == NULL);
	proc_cgroups_free(&pc);
}

static void rejects_malformed_cgroup_file(void)
{
	struct proc_cgroups pc;
	CHECK(proc_cgroups_parse("x:memory:/\n", &pc) < 0);
	CHECK(proc_cgroups_parse("4:memory\n", &pc) < 0);
	CHECK(proc_cgroups_parse("4:memory:relative\n", &pc) < 0);
	CHECK(proc_cgroups_parse("-1::/\n", &pc) < 0);
}

static void parses_status_ids(void)
{
	struct proc_ids ids;
	const char *text = "Name:\tbash\nUmask:\t0022\nUid:\t1000\t1001\t1002\t1003\nGid:\t50\t51\t52\t53\n";
	CHECK(proc_status_parse_ids(text, &ids) == 0);
	CHECK(ids.uid[0] == 1000 && ids.uid[1] == 1001 && ids.uid[2] == 1002 && ids.uid[3] == 1003);
	CHECK(ids.gid[0] == 50 && ids.gid[3] == 53);
	CHECK(proc_status_parse_ids("Name:\tx\n", &ids) < 0);
	CHECK(proc_status_parse_ids("Uid:\t1\t2\nGid:\t1\t2\t3\t4\n", &ids) < 0);
}

int main(void)
{
	RUN(parses_hybrid_cgroup_file);
	RUN(rejects_malformed_cgroup_file);
	RUN(parses_status_ids);
	return CHECK_EXIT();
}
