#include "idmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgfs/proc.h"
#include "util/cleanup.h"

int idmap_parse(const char *text, struct idmap *out)
{
	const char *p = text;
	out->n = 0;
	while (*p) {
		unsigned long v[3];
		char *end;
		for (int i = 0; i < 3; i++) {
			while (*p == ' ' || *p == '\t')
				p++;
			errno = 0;
			v[i] = strtoul(p, &end, 10);
			if (end == p || errno || v[i] > UINT32_MAX)
				return -EINVAL;
			p = end;
		}
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '\n' && *p != '\0')
			return -EINVAL;
		if (*p)
			p++;
		if (v[2] == 0 || v[0] + v[2] - 1 > UINT32_MAX || v[1] + v[2] - 1 > UINT32_MAX)
			return -EINVAL;
		if (out->n == IDMAP_MAX_EXTENTS)
			return -E2BIG;
		out->e[out->n++] = (struct idmap_extent){(uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2]};
	}
	return 0;
}

int idmap_read(pid_t pid, const char *which, struct idmap *out)
{
	char path[64];
	_cleanup_free_ char *text = NULL;
	int r;
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, which);
	if ((r = read_small_file_at(AT_FDCWD, path, &text)) < 0)
		return r;
	return idmap_parse(text, out);
}

bool idmap_to_ns(const struct idmap *m, uint32_t host_id, uint32_t *ns_id)
{
	for (int i = 0; i < m->n; i++) {
		const struct idmap_extent *e = &m->e[i];
		if (host_id >= e->host_first && host_id - e->host_first < e->count) {
			*ns_id = e->ns_first + (host_id - e->host_first);
			return true;
		}
	}
	return false;
}

bool idmap_to_host(const struct idmap *m, uint32_t ns_id, uint32_t *host_id)
{
	for (int i = 0; i < m->n; i++) {
		const struct idmap_extent *e = &m->e[i];
		if (ns_id >= e->ns_first && ns_id - e->ns_first < e->count) {
			*host_id = e->host_first + (ns_id - e->ns_first);
			return true;
		}
	}
	return false;
}
