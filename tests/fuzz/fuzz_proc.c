/* The /proc/PID/cgroup and /proc/PID/status parsers on arbitrary text. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "cgfs/proc.h"

static void check_cgroups(const char *text)
{
	struct proc_cgroups pc, again;
	if (proc_cgroups_parse(text, &pc) < 0) {
		FUZZ_CHECK(pc.n == 0);
		return;
	}
	FUZZ_CHECK(pc.n >= 0 && pc.n <= PROC_CGROUP_MAX);
	/* Rebuild the text from the entries; it must parse to the same entries. */
	size_t cap = 1, len = 0;
	for (int i = 0; i < pc.n; i++) {
		FUZZ_CHECK(pc.e[i].path && pc.e[i].path[0] == '/' && !strchr(pc.e[i].path, '\n'));
		FUZZ_CHECK(pc.e[i].id >= 0 && pc.e[i].id <= 1 << 20);
		FUZZ_CHECK(proc_cgroups_path(&pc, pc.e[i].id) != NULL);
		cap += strlen(pc.e[i].path) + 24;
	}
	char *buf = malloc(cap);
	FUZZ_CHECK(buf);
	buf[0] = '\0';
	for (int i = 0; i < pc.n; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%d::%s\n", pc.e[i].id, pc.e[i].path);
	FUZZ_CHECK(proc_cgroups_parse(buf, &again) == 0);
	FUZZ_CHECK(again.n == pc.n);
	for (int i = 0; i < pc.n; i++)
		FUZZ_CHECK(again.e[i].id == pc.e[i].id && strcmp(again.e[i].path, pc.e[i].path) == 0);
	proc_cgroups_free(&again);
	FUZZ_CHECK(again.n == 0);
	free(buf);
	proc_cgroups_free(&pc);
}

static void check_ids(const char *text)
{
	struct proc_ids ids, again;
	char buf[256];
	if (proc_status_parse_ids(text, &ids) < 0)
		return;
	snprintf(buf, sizeof(buf), "Name:\tx\nUid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\n", (unsigned)ids.uid[0],
	         (unsigned)ids.uid[1], (unsigned)ids.uid[2], (unsigned)ids.uid[3], (unsigned)ids.gid[0],
	         (unsigned)ids.gid[1], (unsigned)ids.gid[2], (unsigned)ids.gid[3]);
	FUZZ_CHECK(proc_status_parse_ids(buf, &again) == 0);
	FUZZ_CHECK(memcmp(&ids, &again, sizeof(ids)) == 0);
}

static void check_nspid(const char *text, int max)
{
	pid_t pids[PROC_NSPID_MAX], again[PROC_NSPID_MAX];
	char buf[PROC_NSPID_MAX * 16 + 32];
	size_t len;
	int n = proc_status_parse_nspid(text, pids, max);
	if (n < 0) {
		FUZZ_CHECK(n == -EINVAL);
		return;
	}
	FUZZ_CHECK(n >= 1 && n <= max);
	len = (size_t)snprintf(buf, sizeof(buf), "Name:\tx\nNSpid:");
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "\t%d", (int)pids[i]);
	snprintf(buf + len, sizeof(buf) - len, "\n");
	FUZZ_CHECK(proc_status_parse_nspid(buf, again, max) == n);
	FUZZ_CHECK(memcmp(pids, again, (size_t)n * sizeof(pid_t)) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = strndup((const char *)data, size);
	if (!text)
		return 0;
	check_cgroups(text);
	check_ids(text);
	check_nspid(text, PROC_NSPID_MAX);
	check_nspid(text, 1 + (int)(size % PROC_NSPID_MAX));
	free(text);
	return 0;
}
