/* The daemon's memory and descriptors: idle, with N connected clients (each has made one call), and after they left. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static long status_kib(pid_t pid, const char *field)
{
	char p[64], line[256];
	long v = -1;
	snprintf(p, sizeof(p), "/proc/%d/status", (int)pid);
	FILE *f = fopen(p, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, field, strlen(field)) == 0 && line[strlen(field)] == ':')
			v = strtol(line + strlen(field) + 1, NULL, 10);
	fclose(f);
	return v;
}

static long pss_kib(pid_t pid)
{
	char p[64], line[256];
	long v = -1;
	snprintf(p, sizeof(p), "/proc/%d/smaps_rollup", (int)pid);
	FILE *f = fopen(p, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "Pss:", 4) == 0)
			v = strtol(line + 4, NULL, 10);
	fclose(f);
	return v;
}

static int fd_count(pid_t pid)
{
	char p[64];
	int n = 0;
	snprintf(p, sizeof(p), "/proc/%d/fd", (int)pid);
	DIR *d = opendir(p);
	struct dirent *de;
	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static void nofile_limit(pid_t pid, char *out, size_t size)
{
	char p[64], line[256];
	snprintf(out, size, "?");
	snprintf(p, sizeof(p), "/proc/%d/limits", (int)pid);
	FILE *f = fopen(p, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		long soft, hard;
		if (strncmp(line, "Max open files", 14) == 0 && sscanf(line + 14, "%ld %ld", &soft, &hard) == 2)
			snprintf(out, size, "%ld / %ld", soft, hard);
	}
	fclose(f);
}

static void row(pid_t d, const char *state)
{
	char lim[64];
	nofile_limit(d, lim, sizeof(lim));
	long rss = status_kib(d, "VmRSS"), anon = status_kib(d, "RssAnon"), file = status_kib(d, "RssFile"),
	     hwm = status_kib(d, "VmHWM");
	printf("| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %d | %s |\n", state, (double)rss / 1024.0, (double)anon / 1024.0,
	       (double)file / 1024.0, (double)pss_kib(d) / 1024.0, (double)hwm / 1024.0, fd_count(d), lim);
	fflush(stdout);
}

#define MAPPINGS_MAX 64

struct mapping_rss {
	char name[64]; /* a file's base name, or "[heap]", "[stack]", "[anon]"... */
	long kib;
};

static int by_kib_descending(const void *a, const void *b)
{
	const struct mapping_rss *x = a, *y = b;
	return (y->kib > x->kib) - (y->kib < x->kib);
}

/* Where the idle RSS is: the resident KiB of each mapped file (all its mappings) and of anonymous memory. */
static void rss_by_mapping(pid_t pid)
{
	char p[64], line[512], name[64] = "[anon]";
	struct mapping_rss m[MAPPINGS_MAX];
	int n = 0;
	snprintf(p, sizeof(p), "/proc/%d/smaps", (int)pid);
	FILE *f = fopen(p, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		int path_at = 0;
		long kib;
		/* A mapping's header: "lo-hi perms offset dev inode [path]"; the lines after it are its counts. */
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &lo, &hi, &path_at) == 2 && path_at > 0) {
			char *path = line + path_at, *base = strrchr(path, '/');
			path[strcspn(path, "\n")] = '\0';
			snprintf(name, sizeof(name), "%s", *path == '\0' ? "[anon]" : base ? base + 1 : path);
		} else if (sscanf(line, "Rss: %ld kB", &kib) == 1 && kib > 0) {
			int i = 0;
			while (i < n && strcmp(m[i].name, name) != 0)
				i++;
			if (i == n && n < MAPPINGS_MAX)
				m[n++] = (struct mapping_rss){.kib = 0}, snprintf(m[i].name, sizeof(m[i].name), "%s", name);
			if (i < n)
				m[i].kib += kib;
		}
	}
	fclose(f);
	qsort(m, (size_t)n, sizeof(m[0]), by_kib_descending);
	printf("\nidle RSS by mapping:\n\n| mapping | Rss KiB |\n| --- | ---: |\n");
	for (int i = 0; i < n; i++)
		printf("| %s | %ld |\n", m[i].name, m[i].kib);
	printf("\n");
}

int bench_rss(pid_t d, int nconns)
{
	cgm_client **cs = calloc((size_t)nconns, sizeof(*cs));
	int made = 0, rc = 0;
	if (!cs)
		return -1;
	printf("## daemon memory and descriptors (pid %d)\n\n", (int)d);
	printf("| state | VmRSS MiB | of it RssAnon | of it RssFile (libraries) | Pss MiB | VmHWM MiB | fds | RLIMIT_NOFILE soft / hard |\n"
	       "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
	row(d, "idle, after start-up and one ping");
	rss_by_mapping(d);
	int idle_fds = fd_count(d);
	uint64_t t0 = now_ns();
	for (; made < nconns; made++) {
		if (made && made % 250 == 0)
			fprintf(stderr, "cgm-bench: %d connections after %.0f ms\n", made, (double)(now_ns() - t0) / 1e6);
		cgm_error e = {0};
		if (cgm_connect(env.sock, &cs[made], &e) < 0 || cgm_ping(cs[made], &e) < 0) {
			warnx_("connection %d: %s", made + 1, e.message ? e.message : "failed");
			cgm_error_clear(&e);
			cgm_disconnect(cs[made]);
			cs[made] = NULL;
			rc = -1;
			break;
		}
	}
	double ms = (double)(now_ns() - t0) / 1e6;
	char state[96];
	snprintf(state, sizeof(state), "%d clients connected (each made one call)", made);
	row(d, state);
	/* All still served: the last one and the first one answer. */
	if (made && (cgm_ping(cs[0], NULL) < 0 || cgm_ping(cs[made - 1], NULL) < 0))
		rc = -1;
	for (int i = 0; i < made; i++)
		cgm_disconnect(cs[i]);
	free(cs);
	for (int i = 0; i < 100 && fd_count(d) > idle_fds; i++)
		usleep(20000);
	/* The daemon gives the freed heap back at the end of a turn with no call waiting (src/dbus/server.c), which
	 * comes after the last socket closed. */
	usleep(200000);
	row(d, "after they disconnected");
	printf("\n%d connections set up and pinged in %.0f ms (%.0f µs each)\n", made, ms, made ? ms * 1000 / made : 0);
	if (rc < 0)
		count_failure();
	return rc;
}
