/* A user namespace's uid_map or gid_map: which host ids it can see, under which names. */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define IDMAP_MAX_EXTENTS 340 /* the kernel's limit */

struct idmap_extent {
	uint32_t ns_first, host_first, count;
};

struct idmap {
	struct idmap_extent e[IDMAP_MAX_EXTENTS];
	int n;
};

/* Parses the text of /proc/PID/uid_map (as read from the daemon's user namespace). */
int idmap_parse(const char *text, struct idmap *out);
/* which: "uid_map" or "gid_map"; -errno. */
int idmap_read(pid_t pid, const char *which, struct idmap *out);
/* True and *ns_id set if host_id is mapped. */
bool idmap_to_ns(const struct idmap *m, uint32_t host_id, uint32_t *ns_id);
bool idmap_to_host(const struct idmap *m, uint32_t ns_id, uint32_t *host_id);
