#include "ops/identity.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/nsfs.h>

#include "cgfs/idmap.h"
#include "util/cleanup.h"

static int ns_inode(pid_t pid, const char *ns, ino_t *out)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)pid, ns);
	if (stat(path, &st) < 0)
		return -errno;
	*out = st.st_ino;
	return 0;
}

void requester_release(struct requester *r)
{
	free(r->cred.uidmap);
	free(r->cred.gidmap);
	r->cred.uidmap = r->cred.gidmap = NULL;
}

int requester_identify(const struct ops *o, struct requester *r, struct err *e)
{
	uint32_t ns_uid;
	int rc;

	if (r->pid <= 0)
		return err_set(e, ERR_ACCESS, "the requester's pid is not visible in the daemon's pid namespace");
	if (ns_inode(r->pid, "pid", &r->pidns) < 0 || ns_inode(r->pid, "user", &r->userns) < 0)
		return err_set(e, ERR_FAILED, "cannot read the namespaces of pid %d", (int)r->pid);
	r->other_pidns = r->pidns != o->pidns;
	r->cred.in_userns = r->userns != o->userns;
	if (!r->cred.in_userns)
		return 0;
	r->cred.uidmap = malloc(sizeof(struct idmap));
	r->cred.gidmap = malloc(sizeof(struct idmap));
	if (!r->cred.uidmap || !r->cred.gidmap) {
		requester_release(r);
		return err_set(e, ERR_LIMIT, "out of memory");
	}
	if ((rc = idmap_read(r->pid, "uid_map", r->cred.uidmap)) < 0 ||
	    (rc = idmap_read(r->pid, "gid_map", r->cred.gidmap)) < 0) {
		requester_release(r);
		return err_errno(e, -rc, "cannot read the id maps of pid %d", (int)r->pid);
	}
	r->cred.ns_root = idmap_to_ns(r->cred.uidmap, r->cred.uid, &ns_uid) && ns_uid == 0;
	return 0;
}

bool pid_visible_in(pid_t pid, ino_t ns)
{
	char path[64];
	_cleanup_close_ int fd = -1;
	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	/* Walk up from the task's pid namespace; reaching ns means ns sees it. */
	for (int depth = 0; fd >= 0 && depth < 64; depth++) {
		struct stat st;
		if (fstat(fd, &st) < 0)
			return false;
		if (st.st_ino == ns)
			return true;
		int parent = ioctl(fd, NS_GET_PARENT);
		close(fd);
		fd = parent;
	}
	return false;
}
