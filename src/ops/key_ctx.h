/* One named cgroup as struct key_host sees it: its directory in each hierarchy, opened once per request. */
#pragma once
#include "keys/keys.h"
#include "ops/key_api.h"
#include "ops/target.h"

struct key_ctx {
	struct ops *o;
	const struct requester *r;
	const char *name;
	struct proc_cgroups pc;
	/* By index in o->hs; NULL until opened. On the heap: a target is 12 KiB, and a key_ctx lives on the stack. */
	struct target *t[PROC_CGROUP_MAX];
	const key_writes *pending;        /* what this request will write, which reads must see */
	struct key_host host;
};

int key_ctx_init(struct key_ctx *k, struct ops *o, const struct requester *r, const char *name, struct err *e);
void key_ctx_free(struct key_ctx *k);
/* The named cgroup in the hierarchy behind ctrl, opened on first use; it must exist. */
struct target *key_ctx_target(struct key_ctx *k, const char *ctrl, struct err *e);
