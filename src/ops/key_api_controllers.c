/* Abstract controllers (memory, cpu, io, ...) onto the hierarchies this host has, v1 or v2. */
#include <stdlib.h>
#include <string.h>

#include "keys/keys.h"
#include "ops/key_api.h"

/* cgroup2 offers these without a controller of that name: device programs, cgroup.freeze, cpu.stat. */
static const char *const v2_core_controllers[] = {"devices", "freezer", "cpuacct", NULL};

static const char *v1_name(const char *ctrl)
{
	return strcmp(ctrl, "io") == 0 ? "blkio" : ctrl;
}

static const char *v2_name(const char *ctrl)
{
	return strcmp(ctrl, "blkio") == 0 ? "io" : ctrl;
}

static bool is_v2_core(const char *ctrl)
{
	for (size_t i = 0; v2_core_controllers[i]; i++)
		if (strcmp(ctrl, v2_core_controllers[i]) == 0)
			return true;
	return false;
}

struct hierarchy *hierarchy_for_controller(struct ops *o, const char *ctrl, int *version)
{
	struct hierarchy *unified = NULL;
	for (size_t i = 0; i < o->hs.n; i++) {
		struct hierarchy *h = &o->hs.h[i];
		if (h->unified) {
			unified = h;
			continue;
		}
		if (*ctrl && strv_contains(&h->controllers, v1_name(ctrl))) {
			*version = 1;
			return h;
		}
	}
	if (unified && (!*ctrl || is_v2_core(ctrl) || strv_contains(&unified->controllers, v2_name(ctrl)))) {
		*version = 2;
		return unified;
	}
	*version = 0;
	return NULL;
}

static int push_pair(strv *names, strv *versions, const char *name, int version)
{
	if (strv_contains(names, name))
		return 0;
	if (strv_push(names, name) < 0 || strv_push(versions, version == 1 ? "v1" : "v2") < 0)
		return -1;
	return 0;
}

int ops_key_list_controllers(struct ops *o, strv *names, strv *versions, struct err *e)
{
	for (size_t i = 0; i < o->hs.n; i++) {
		const struct hierarchy *h = &o->hs.h[i];
		for (size_t j = 0; j < h->controllers.n; j++) {
			const char *c = h->controllers.v[j];
			int version;
			/* A controller both versions have is listed once, as the hierarchy that serves it. */
			if (!strchr(c, '=') && hierarchy_for_controller(o, c, &version) != h)
				continue;
			if (push_pair(names, versions, h->unified ? v2_name(c) : c, h->unified ? 2 : 1) < 0)
				return err_set(e, ERR_LIMIT, "out of memory");
		}
	}
	for (size_t i = 0; v2_core_controllers[i]; i++) {
		int version;
		if (hierarchy_for_controller(o, v2_core_controllers[i], &version) && version == 2 &&
		    push_pair(names, versions, v2_core_controllers[i], 2) < 0)
			return err_set(e, ERR_LIMIT, "out of memory");
	}
	return 0;
}

static int kv_version_of(void *ctx, const char *controller)
{
	int version;
	return hierarchy_for_controller(ctx, controller, &version) ? version : 0;
}

int ops_key_hierarchies(struct ops *o, const char *const *ctrls, const kvv *values, struct hierarchy_set *set,
                        struct err *e)
{
	int version;

	if (!ctrls || !ctrls[0]) {
		*set = o->all;
		return 0;
	}
	*set = (struct hierarchy_set){0};
	for (size_t i = 0; ctrls[i]; i++) {
		struct hierarchy *h = hierarchy_for_controller(o, ctrls[i], &version);
		struct hierarchy_set named;
		if (!h && strncmp(ctrls[i], "name=", 5) == 0) {
			if (hierarchies_select(&o->hs, ctrls[i], &named, e) < 0)
				return -1;
			h = named.h[0];
		}
		if (!h)
			return err_set(e, ERR_NOT_FOUND, "controller '%s' is not available on this host", ctrls[i]);
		/* On cgroup2 the controller is handed over with the cgroup (a core one such as freezer names none). */
		hierarchy_set_add_controller(set, h, h->unified ? v2_name(ctrls[i]) : ctrls[i]);
	}
	/* A value given at creation needs its key's hierarchy, listed or not. */
	struct key_host kh = {.version_of = kv_version_of, .ctx = o};
	for (size_t i = 0; values && i < values->n; i++) {
		const char *c = key_hierarchy_controller(&kh, values->v[i].key);
		struct hierarchy *h = c ? hierarchy_for_controller(o, c, &version) : NULL;
		if (h)
			hierarchy_set_add(set, h);
	}
	return 0;
}
