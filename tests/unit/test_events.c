/* The pure parts of events: the words of Watch, the readings of the kernel's files, the registry's caps. */
#include <string.h>

#include "check.h"
#include "ops/event_kind.h"
#include "ops/watch_registry.h"

static void test_words(void)
{
	struct watch_wants w;
	struct err e = {0};
	const char *none[] = {NULL}, *some[] = {"oom_kill", "subtree", "empty", NULL}, *bad[] = {"lost", NULL},
	           *only_subtree[] = {"subtree", NULL};
	CHECK(watch_wants_parse(none, &w, &e) == 0 && w.mask == EV_ALL_WATCHABLE && !w.subtree && !w.named);
	CHECK(!(w.mask & EV_BIT(EV_LOST)));
	CHECK(watch_wants_parse(some, &w, &e) == 0 && w.subtree && w.named);
	CHECK(w.mask == (EV_BIT(EV_OOM_KILL) | EV_BIT(EV_EMPTY)));
	CHECK(watch_wants_parse(only_subtree, &w, &e) == 0 && w.subtree && !w.named && w.mask == EV_ALL_WATCHABLE);
	CHECK(watch_wants_parse(bad, &w, &e) < 0 && e.kind == ERR_INVALID && strstr(e.msg, "'lost'"));
	CHECK(!strcmp(event_word(EV_PIDS_MAX), "pids_max"));
	/* A count is read from its controller's events file; v1's memory has memory.oom_control alone. */
	CHECK(!strcmp(event_counter_file(EV_PIDS_MAX, false), "pids.events"));
	CHECK(!strcmp(event_counter_file(EV_OOM_KILL, true), "memory.events"));
	CHECK(!strcmp(event_counter_file(EV_OOM, false), "memory.oom_control"));
	CHECK(!event_counter_file(EV_POPULATED, true) && !event_counter_file(EV_REMOVED, false));
}

static void test_changes(void)
{
	struct event_state a, b;
	struct event_change ch[EV_KINDS];
	event_state_init(&a);
	event_state_parse(&a, EVF_CGROUP_EVENTS, "populated 1\nfrozen 0\n");
	event_state_parse(&a, EVF_MEMORY_EVENTS, "low 0\nhigh 3\nmax 7\noom 1\noom_kill 1\noom_group_kill 0\n");
	/* A first reading is no event. */
	struct event_state unknown;
	event_state_init(&unknown);
	CHECK(event_state_changes(&unknown, &a, ch) == 0);
	b = a;
	event_state_parse(&b, EVF_CGROUP_EVENTS, "populated 0\nfrozen 1\n");
	event_state_parse(&b, EVF_MEMORY_EVENTS, "low 0\nhigh 3\nmax 9\noom 2\noom_kill 2\noom_group_kill 0\n");
	size_t n = event_state_changes(&a, &b, ch);
	CHECK(n == 5);
	CHECK(ch[0].kind == EV_EMPTY);
	CHECK(ch[1].kind == EV_OOM && ch[1].count == 2);
	CHECK(ch[2].kind == EV_OOM_KILL && ch[2].count == 2);
	CHECK(ch[3].kind == EV_MAX && ch[3].count == 9);
	CHECK(ch[4].kind == EV_FROZEN);
	/* pids.events' "max" is pids_max, not memory's max; v1's oom_control gives oom_kill. */
	a = b;
	event_state_parse(&b, EVF_PIDS_EVENTS, "max 4\n");
	CHECK(b.max == 9 && b.pids_max == 4);
	event_state_parse(&b, EVF_OOM_CONTROL, "oom_kill_disable 0\nunder_oom 0\noom_kill 5\n");
	CHECK(b.oom_kill == 5);
	/* A counter that did not grow (a cgroup made again) is no event. */
	a = b;
	b.oom_kill = 1;
	CHECK(event_state_changes(&a, &b, ch) == 0);
}

static void test_caps(void)
{
	struct watch_registry reg;
	struct err e = {0};
	int owner1, owner2, owner3;
	watch_registry_init(&reg);
	reg.limits = (struct watch_limits){.per_conn = 3, .per_uid = 5, .total = 7};
	struct watch *w1 = watch_registry_add(&reg, &owner1, 1000, 1000, 1, false, "a", &e);
	CHECK(w1 && w1->id && watch_charge(&reg, w1, WB_ASKED, 2, &e) == 0);
	/* The connection's cap: a fourth unit is refused, and names the cap. */
	CHECK(!watch_registry_add(&reg, &owner1, 1000, 1000, 1, false, "b", &e) && e.kind == ERR_LIMIT &&
	      strstr(e.msg, "cap of 3"));
	struct watch *w2 = watch_registry_add(&reg, &owner2, 1000, 1000, 1, false, "b", &e);
	CHECK(w2 && watch_charge(&reg, w2, WB_ASKED, 1, &e) == 0);
	/* The uid's cap across connections. */
	CHECK(watch_charge(&reg, w2, WB_ASKED, 1, &e) < 0 && strstr(e.msg, "uid 1000") && strstr(e.msg, "per uid"));
	/* A subordinate uid of uid 1000's user namespace is charged to 1000's account, and finds it full. */
	int owner4;
	CHECK(!watch_registry_add(&reg, &owner4, 200000, 1000, 1, false, "d", &e) && strstr(e.msg, "uid 1000 follows"));
	/* A container root made has an account of its own. */
	struct watch *w4 = watch_registry_add(&reg, &owner4, 200000, (1ULL << 32) | 4026531837ULL, 1, false, "d", &e);
	CHECK(w4 && watch_account_units(&reg, (1ULL << 32) | 4026531837ULL) == 1 && watch_account_units(&reg, 1000) == 5);
	watch_registry_remove(&reg, w4);
	struct watch *w3 = watch_registry_add(&reg, &owner3, 2000, 2000, 1, false, "c", &e);
	CHECK(w3 && watch_account_units(&reg, 1000) == 5 && watch_owner_units(&reg, &owner2) == 2);
	/* The daemon's cap. */
	CHECK(watch_charge(&reg, w3, WB_ASKED, 2, &e) < 0 && strstr(e.msg, "cap of 7"));
	/* Ids are each owner's: the same number names another connection's watch there. */
	CHECK(watch_registry_find(&reg, &owner1, w1->id) == w1 && watch_registry_find(&reg, &owner2, w1->id) == w2);
	watch_registry_remove(&reg, w1);
	CHECK(watch_owner_units(&reg, &owner1) == 0 && watch_account_units(&reg, 1000) == 2 &&
	      reg.ledger[WB_ASKED].total == 3);
	watch_registry_free(&reg);
	CHECK(reg.ledger[WB_ASKED].total == 0 && !reg.head);
}

/*
 * What appears beneath a subtree watch after it was made is charged to a budget of its own: the owner of the
 * watched cgroup, who makes those, cannot make the subscriber's next Watch fail; that budget has the same caps.
 */
static void test_grown_budget(void)
{
	struct watch_registry reg;
	struct err e = {0};
	int owner1, owner2;
	watch_registry_init(&reg);
	reg.limits = (struct watch_limits){.per_conn = 3, .per_uid = 5, .total = 100};
	struct watch *w1 = watch_registry_add(&reg, &owner1, 0, 0, 1, true, "a", &e);
	CHECK(w1 && watch_charge(&reg, w1, WB_GROWN, 3, &e) == 0);
	CHECK(watch_charge(&reg, w1, WB_GROWN, 1, &e) < 0 && strstr(e.msg, "appeared beneath") &&
	      strstr(e.msg, "cap of 3"));
	struct watch *w2 = watch_registry_add(&reg, &owner2, 0, 0, 1, true, "b", &e);
	CHECK(w2 && watch_charge(&reg, w2, WB_GROWN, 2, &e) == 0 && watch_charge(&reg, w2, WB_GROWN, 1, &e) < 0 &&
	      strstr(e.msg, "per uid"));
	/* The growth filled both budgets of grown units: Watch still has its own. */
	CHECK(watch_charge(&reg, w2, WB_ASKED, 2, &e) == 0 && watch_account_units(&reg, 0) == 9);
	watch_uncharge(&reg, w1, WB_GROWN, 3);
	CHECK(w1->charged[WB_GROWN] == 0 && watch_owner_units(&reg, &owner1) == 1);
	watch_registry_free(&reg);
	CHECK(reg.ledger[WB_GROWN].total == 0);
}

/* Other accounts together take at most the total less root's reserve; root takes the rest. */
static void test_root_reserve(void)
{
	struct watch_registry reg;
	struct err e = {0};
	int owner1, owner2, owner3;
	watch_registry_init(&reg);
	reg.limits = (struct watch_limits){.per_conn = 1000, .per_uid = 1000, .total = 32};
	struct watch *w1 = watch_registry_add(&reg, &owner1, 1000, 1000, 1, false, "a", &e);
	CHECK(w1 && watch_charge(&reg, w1, WB_ASKED, 32 - WATCH_ROOT_RESERVED(32) - 1, &e) == 0);
	CHECK(!watch_registry_add(&reg, &owner2, 2000, 2000, 1, false, "b", &e) && strstr(e.msg, "kept for root"));
	struct watch *w3 = watch_registry_add(&reg, &owner3, 0, 0, 1, false, "c", &e);
	CHECK(w3 && watch_charge(&reg, w3, WB_ASKED, WATCH_ROOT_RESERVED(32) - 1, &e) == 0);
	CHECK(watch_charge(&reg, w3, WB_ASKED, 1, &e) < 0 && strstr(e.msg, "cap of 32"));
	watch_registry_free(&reg);
}

/* Ids are each connection's own (1, 2, ...), never reused while it lasts, and found only by their owner. */
static void test_ids(void)
{
	struct watch_registry reg;
	struct err e = {0};
	int owner1, owner2;
	watch_registry_init(&reg);
	struct watch *a = watch_registry_add(&reg, &owner1, 1000, 1000, 1, false, "a", &e);
	struct watch *b = watch_registry_add(&reg, &owner2, 2000, 2000, 1, false, "b", &e);
	CHECK(a && b && a->id == 1 && b->id == 1);
	CHECK(watch_registry_find(&reg, &owner1, 1) == a && watch_registry_find(&reg, &owner2, 1) == b);
	watch_registry_remove(&reg, a);
	CHECK(!watch_registry_find(&reg, &owner1, 1));
	struct watch *c = watch_registry_add(&reg, &owner1, 1000, 1000, 1, false, "c", &e);
	CHECK(c && c->id == 2);
	/* Once the connection is gone, a new one at the same address starts again. */
	watch_registry_remove(&reg, c);
	watch_registry_forget(&reg, &owner1);
	c = watch_registry_add(&reg, &owner1, 1000, 1000, 1, false, "c", &e);
	CHECK(c && c->id == 1);
	watch_registry_free(&reg);
	CHECK(!reg.ids && !reg.n_ids);
}

int main(void)
{
	RUN(test_words);
	RUN(test_changes);
	RUN(test_caps);
	RUN(test_grown_budget);
	RUN(test_root_reserve);
	RUN(test_ids);
	return CHECK_EXIT();
}
