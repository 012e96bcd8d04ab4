#include "daemon/self_cgroup.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgfs/cgdir.h"
#include "util/cleanup.h"
#include "util/log.h"

static int copy_if_empty(int from, int to, const char *file)
{
	_cleanup_free_ char *mine = NULL, *theirs = NULL;
	int r = cgdir_read(to, file, &mine);
	if (r < 0 || (mine[0] && mine[0] != '\n'))
		return r;
	if ((r = cgdir_read(from, file, &theirs)) < 0)
		return r;
	return cgdir_write(to, file, theirs);
}

void self_cgroup_step_aside(const struct hierarchies *hs)
{
	char pid[16];
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	for (size_t i = 0; i < hs->n; i++) {
		const struct hierarchy *h = &hs->h[i];
		if (mkdirat(h->root_fd, DAEMON_LEAF, 0755) < 0 && errno != EEXIST) {
			log_warn("cannot create %s:%s/%s: %s", h->name, h->root_path, DAEMON_LEAF, strerror(errno));
			continue;
		}
		_cleanup_close_ int fd = cgdir_open_beneath(h->root_fd, DAEMON_LEAF);
		int r = fd < 0 ? fd : 0;
		if (r == 0 && !h->unified && strv_contains(&h->controllers, "cpuset")) {
			r = copy_if_empty(h->root_fd, fd, "cpuset.cpus");
			if (r == 0)
				r = copy_if_empty(h->root_fd, fd, "cpuset.mems");
		}
		if (r == 0)
			r = cgdir_write(fd, "cgroup.procs", pid);
		if (r < 0)
			log_warn("cannot move the daemon into %s:%s/%s: %s", h->name, h->root_path, DAEMON_LEAF,
			         strerror(-r));
	}
}
