#include "ops/ops.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgfs/proc.h"
#include "ops/journal.h"
#include "ops/quota.h"
#include "ops/release.h"
#include "ops/watch.h"
#include "util/cleanup.h"

static int self_ns(const char *ns, ino_t *out, struct err *e)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/self/ns/%s", ns);
	if (stat(path, &st) < 0)
		return err_errno(e, errno, "cannot stat %s", path);
	*out = st.st_ino;
	return 0;
}

static void load_delegate_list(struct ops *o)
{
	_cleanup_free_ char *text = NULL;
	if (read_small_file_at(AT_FDCWD, cgroup2_delegate_list_path, &text) < 0)
		return;
	o->have_delegate_list = strv_split(&o->delegate_files, text, '\n') == 0;
}

int ops_init(struct ops *o, struct err *e)
{
	*o = (struct ops){.journal.fd = -1};
	if (self_ns("pid", &o->pidns, e) < 0 || self_ns("user", &o->userns, e) < 0)
		return -1;
	if (hierarchies_discover(&o->hs, e) < 0)
		return -1;
	hierarchies_all(&o->hs, &o->all);
	load_delegate_list(o);
	o->release = release_watch_new(e);
	o->watches = o->release ? watches_new(e) : NULL;
	if (!o->watches) {
		release_watch_free(o->release);
		hierarchies_free(&o->hs);
		return -1;
	}
	return 0;
}

void ops_free(struct ops *o)
{
	journal_close(o);
	watches_free(o->watches);
	release_watch_free(o->release);
	quotas_free(o->quotas);
	strv_free(&o->delegate_files);
	hierarchies_free(&o->hs);
}

/*
 * 0.42 clients (its test suite's test 23, LXC's cgmanager driver) look every name up in their /proc/self/cgroup,
 * where cgroup2's line has no controller field: the v1 hierarchies are listed by their names there, and cgroup2
 * beside them neither as "unified" nor by its controllers (requests still take both, cgmanager1 lists them).
 */
int ops_list_controllers(struct ops *o, strv *out, struct err *e)
{
	bool any_v1 = false;
	for (size_t i = 0; i < o->hs.n; i++) {
		if (o->hs.h[i].unified)
			continue;
		any_v1 = true;
		if (strv_push(out, o->hs.h[i].name) < 0)
			return err_set(e, ERR_LIMIT, "out of memory");
	}
	if (any_v1)
		return 0;
	/*
	 * A pure cgroup2 host has no name to find there; its controllers, each naming the one hierarchy, give a
	 * client that enumerates them (LXC refuses an empty list) names its requests work with.
	 */
	for (size_t i = 0; i < o->hs.n; i++) {
		const struct hierarchy *h = &o->hs.h[i];
		for (size_t j = 0; j < h->controllers.n; j++) {
			struct hierarchy_set sel;
			struct err ignored;
			if (hierarchies_select(&o->hs, h->controllers.v[j], &sel, &ignored) == 0 && sel.n == 1 && sel.h[0] == h &&
			    strv_push(out, h->controllers.v[j]) < 0)
				return err_set(e, ERR_LIMIT, "out of memory");
		}
	}
	return 0;
}
