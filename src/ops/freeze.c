/* Freeze and thaw: the key freezer.state, then a wait until the kernel reports the whole subtree so. */
#include <string.h>
#include <unistd.h>

#include "ops/key_ctx.h"
#include "util/cleanup.h"

#define FREEZE_DEADLINE_MS 5000
#define FREEZE_POLL_MS 10

int ops1_freeze(struct ops *o, const struct requester *r, const char *name, bool frozen, struct err *e)
{
	const char *want = frozen ? "frozen" : "thawed";
	struct kv one = {"freezer.state", (char *)want};
	kvv values = {&one, 1};
	struct key_ctx k;
	int rc = -1;

	if (ops1_set_values(o, r, name, &values, e) < 0 || key_ctx_init(&k, o, r, name, e) < 0)
		return -1;
	for (int waited = 0;; waited += FREEZE_POLL_MS) {
		_cleanup_free_ char *state = NULL;
		if (key_get(&k.host, "freezer.state", &state, e) < 0)
			break;
		if (strcmp(state, want) == 0) {
			rc = 0;
			break;
		}
		if (waited >= FREEZE_DEADLINE_MS) {
			err_set(e, ERR_BUSY, "%s is still %s %d s after it was set %s", name, state, FREEZE_DEADLINE_MS / 1000,
			        want);
			break;
		}
		usleep(FREEZE_POLL_MS * 1000);
	}
	key_ctx_free(&k);
	return rc;
}
