#include "check.h"
#include "cgfs/idmap.h"
#include "policy/policy.h"

static const struct cred root = {.uid = 0, .gid = 0};
static const struct cred alice = {.uid = 1000, .gid = 1000, .groups = {1000, 50}, .ngroups = 2};
static const struct cred bob = {.uid = 1001, .gid = 1001};

static const struct owner root_dir = {0, 0, 040755};
static const struct owner alice_dir = {1000, 1000, 040755};
static const struct owner root_file = {0, 0, 0100644};
static const struct owner alice_file = {1000, 1000, 0100644};
static const struct owner group50_file = {0, 50, 0100664};

static void permission_bits(void)
{
	CHECK(policy_permits(&root, &root_file, WANT_WRITE));
	CHECK(!policy_permits(&alice, &root_file, WANT_WRITE));
	CHECK(policy_permits(&alice, &root_file, WANT_READ));
	CHECK(policy_permits(&alice, &alice_file, WANT_WRITE));
	CHECK(policy_permits(&alice, &group50_file, WANT_WRITE)); /* supplementary group */
	CHECK(!policy_permits(&bob, &group50_file, WANT_WRITE));
	/* Owner bits apply to the owner even when "other" would allow more. */
	struct owner odd = {1000, 1000, 0100446};
	CHECK(!policy_permits(&alice, &odd, WANT_WRITE));
	CHECK(policy_permits(&bob, &odd, WANT_WRITE));
}

static void create_needs_write_on_parent(void)
{
	char why[POLICY_WHY_MAX];
	CHECK(!policy_may_create_in(&alice, &root_dir, "memory:/a", why));
	CHECK(strstr(why, "memory:/a is owned by uid 0") != NULL);
	CHECK(strstr(why, "you are uid 1000") != NULL);
	CHECK(policy_may_create_in(&alice, &alice_dir, "memory:/a", why));
	CHECK(!policy_may_create_in(&bob, &alice_dir, "memory:/a", why));
	CHECK(policy_may_create_in(&root, &alice_dir, "memory:/a", why));
}

static void remove_rules(void)
{
	char why[POLICY_WHY_MAX];
	CHECK(policy_may_remove(&alice, &alice_dir, "memory:/a/b", false, why));
	CHECK(!policy_may_remove(&alice, &root_dir, "memory:/a", false, why));
	CHECK(!policy_may_remove(&root, &root_dir, "memory:/a", true, why));
	CHECK(strstr(why, "your own cgroup") != NULL);
}

static void set_value_rules(void)
{
	char why[POLICY_WHY_MAX];
	/* A delegated cgroup's limits stay root's. */
	CHECK(!policy_may_set_value(&alice, &root_file, "memory.limit_in_bytes", (struct cgroup_place){0}, "memory:/a memory.limit_in_bytes", why));
	/* Its children's limits are the creator's. */
	CHECK(policy_may_set_value(&alice, &alice_file, "memory.limit_in_bytes", (struct cgroup_place){0}, "x", why));
	/* Task and agent files are never values, not even for root. */
	CHECK(!policy_may_set_value(&root, &root_file, "tasks", (struct cgroup_place){0}, "x", why));
	CHECK(!policy_may_set_value(&root, &root_file, "cgroup.procs", (struct cgroup_place){0}, "x", why));
	CHECK(!policy_may_set_value(&root, &root_file, "cgroup.threads", (struct cgroup_place){0}, "x", why));
	CHECK(!policy_may_set_value(&root, &root_file, "release_agent", (struct cgroup_place){0}, "x", why));
	CHECK(!policy_may_set_value(&root, &root_file, "notify_on_release", (struct cgroup_place){0}, "x", why));
	/* "/" is host root's alone, whatever the file's owner. */
	CHECK(!policy_may_set_value(&alice, &alice_file, "memory.limit_in_bytes", (struct cgroup_place){.daemon_root = true}, "x", why));
	CHECK(strstr(why, "only host root") != NULL);
	CHECK(policy_may_set_value(&root, &root_file, "memory.limit_in_bytes", (struct cgroup_place){.daemon_root = true}, "x", why));
}

static void chown_rules(void)
{
	char why[POLICY_WHY_MAX];
	CHECK(policy_may_chown(&root, &root_dir, 1000, 1000, "x", why));
	CHECK(!policy_may_chown(&alice, &root_dir, 1000, 1000, "x", why));
	CHECK(!policy_may_chown(&alice, &alice_dir, 1001, 1001, "x", why)); /* privilege over two uids */
	CHECK(policy_may_chown(&alice, &alice_dir, 1000, 50, "x", why));    /* chgrp to own group */
	CHECK(!policy_may_chown(&alice, &alice_dir, 1000, 51, "x", why));
}

static void chmod_rules(void)
{
	char why[POLICY_WHY_MAX];
	CHECK(policy_may_chmod(&alice, &alice_dir, 0775, "x", why));
	CHECK(!policy_may_chmod(&alice, &root_file, 0666, "x", why));
	CHECK(!policy_may_chmod(&alice, &alice_file, 04755, "x", why)); /* no set-id bits */
	CHECK(!policy_may_chmod(&root, &root_file, 01777, "x", why));
	CHECK(policy_may_chmod(&root, &root_file, 0600, "x", why));
}

static void move_rules(void)
{
	char why[POLICY_WHY_MAX];
	struct task_facts own = {.pid = 42, .uids = {1000, 1000, 1000, 1000}, .visible = true};
	struct task_facts other = {.pid = 43, .uids = {1001, 1001, 1001, 1001}, .visible = true};
	struct task_facts setuid = {.pid = 44, .uids = {1000, 0, 0, 0}, .visible = true};
	struct owner procs_alice = {1000, 1000, 0100644};

	CHECK(policy_may_move(&alice, &own, &procs_alice, NULL, "x", why));
	CHECK(!policy_may_move(&alice, &other, &procs_alice, NULL, "x", why));
	CHECK(strstr(why, "runs as uid 1001") != NULL);
	CHECK(!policy_may_move(&alice, &setuid, &procs_alice, NULL, "x", why));
	CHECK(!policy_may_move(&alice, &own, &root_file, NULL, "x", why));
	CHECK(policy_may_move(&root, &other, &root_file, &root_file, "x", why));
	/* cgroup2: the common ancestor's procs file must be writable too. */
	CHECK(!policy_may_move(&alice, &own, &procs_alice, &root_file, "x", why));
	CHECK(strstr(why, "common ancestor") != NULL);
	CHECK(policy_may_move(&alice, &own, &procs_alice, &procs_alice, "x", why));
	/* ... unless the task moves down beneath its own cgroup; v1 asks for no ancestor at all. */
	CHECK(policy_move_needs_common_ancestor(true, false, true));
	CHECK(!policy_move_needs_common_ancestor(true, true, true));
	CHECK(!policy_move_needs_common_ancestor(false, false, false));
	/* A threaded subtree may hold the task's other threads elsewhere: no exception there. */
	CHECK(policy_move_needs_common_ancestor(true, true, false));
}

static void delegated_files(void)
{
	const char *kernel[] = {"cgroup.procs", "cgroup.threads", "cgroup.subtree_control", "memory.reclaim", NULL};
	CHECK(policy_is_delegated_file("tasks", false, NULL));
	CHECK(policy_is_delegated_file("cgroup.procs", false, NULL));
	CHECK(!policy_is_delegated_file("memory.limit_in_bytes", false, NULL));
	CHECK(!policy_is_delegated_file("cgroup.subtree_control", false, NULL));
	CHECK(policy_is_delegated_file("cgroup.subtree_control", true, NULL));
	CHECK(policy_is_delegated_file("cgroup.threads", true, NULL));
	CHECK(!policy_is_delegated_file("memory.max", true, NULL));
	CHECK(policy_is_delegated_file("memory.reclaim", true, kernel));
	CHECK(!policy_is_delegated_file("memory.max", true, kernel));
}

/* A container: its root is host uid 100000, it maps host 100000-165535. */
static struct idmap container_map = {.e = {{0, 100000, 65536}}, .n = 1};
static const struct cred croot = {.uid = 100000, .gid = 100000, .in_userns = true, .ns_root = true,
                                  .uidmap = &container_map, .gidmap = &container_map};
static const struct cred cuser = {.uid = 101000, .gid = 101000, .in_userns = true,
                                  .uidmap = &container_map, .gidmap = &container_map};
/* A user namespace whose root is host root: it still is no host root. */
static struct idmap host_root_map = {.e = {{0, 0, 1}}, .n = 1};
static const struct cred fake_root = {.uid = 0, .gid = 0, .in_userns = true, .ns_root = true,
                                      .uidmap = &host_root_map, .gidmap = &host_root_map};

static void container_root_has_power_over_what_it_maps(void)
{
	char why[POLICY_WHY_MAX];
	struct owner mapped_dir = {101000, 101000, 040755};
	struct owner mapped_file = {101000, 101000, 0100644};
	CHECK(!policy_is_host_root(&croot));
	CHECK(policy_privileged_over(&croot, 165535, 165535));
	CHECK(!policy_privileged_over(&croot, 165536, 100000));
	CHECK(!policy_privileged_over(&croot, 0, 0));
	CHECK(policy_may_create_in(&croot, &mapped_dir, "x", why));
	CHECK(!policy_may_create_in(&croot, &root_dir, "x", why));   /* host root's directories stay closed */
	CHECK(policy_may_set_value(&croot, &mapped_file, "memory.max", (struct cgroup_place){0}, "x", why));
	CHECK(!policy_may_set_value(&croot, &root_file, "memory.max", (struct cgroup_place){0}, "x", why));
	struct owner others_file = {102000, 102000, 0100644};
	CHECK(!policy_may_set_value(&cuser, &others_file, "memory.max", (struct cgroup_place){0}, "x", why)); /* not ns root */
	CHECK(policy_may_set_value(&croot, &others_file, "memory.max", (struct cgroup_place){0}, "x", why));
}

static void container_cannot_set_its_own_cgroup(void)
{
	char why[POLICY_WHY_MAX];
	struct owner own_file = {100000, 100000, 0100644};
	CHECK(!policy_may_set_value(&croot, &own_file, "memory.max", (struct cgroup_place){.requesters_own = true}, "memory:/c1 memory.max", why));
	CHECK(strstr(why, "your own cgroup") != NULL);
	/* A host user may, if the file is its own. */
	CHECK(policy_may_set_value(&alice, &alice_file, "memory.max", (struct cgroup_place){.requesters_own = true}, "x", why));
}

static void container_chown_only_to_mapped_ids(void)
{
	char why[POLICY_WHY_MAX];
	struct owner own_dir = {100000, 100000, 040755};
	CHECK(policy_may_chown(&croot, &own_dir, 101000, 101000, "x", why));
	CHECK(!policy_may_chown(&croot, &own_dir, 1000, 1000, "x", why));
	CHECK(strstr(why, "not mapped") != NULL);
	CHECK(!policy_may_chown(&croot, &root_dir, 101000, 101000, "x", why));
}

static void container_moves_only_mapped_visible_tasks(void)
{
	char why[POLICY_WHY_MAX];
	struct owner procs = {100000, 100000, 0100644};
	struct task_facts mapped = {.pid = 5, .uids = {101000, 101000, 101000, 101000}, .visible = true};
	struct task_facts unmapped = {.pid = 6, .uids = {60001, 60001, 60001, 60001}, .visible = true};
	struct task_facts hidden = {.pid = 7, .uids = {101000, 101000, 101000, 101000}, .visible = false};
	CHECK(policy_may_move(&croot, &mapped, &procs, NULL, "x", why));
	CHECK(!policy_may_move(&croot, &unmapped, &procs, NULL, "x", why));
	CHECK(strstr(why, "does not map") != NULL);
	CHECK(!policy_may_move(&croot, &hidden, &procs, NULL, "x", why));
	CHECK(strstr(why, "not in your pid namespace") != NULL);
	/* A same-uid user in a container needs the task visible too. */
	struct task_facts own_hidden = {.pid = 8, .uids = {101000, 101000, 101000, 101000}, .visible = false};
	CHECK(!policy_owns_task(&cuser, &own_hidden, TASK_SIGNAL, why));
}

static void root_of_a_user_namespace_is_not_host_root(void)
{
	char why[POLICY_WHY_MAX];
	CHECK(!policy_is_host_root(&fake_root));
	CHECK(!policy_may_set_value(&fake_root, &root_file, "memory.max", (struct cgroup_place){.daemon_root = true}, "x", why));
	/* It maps host uid 0, so files of host root are its to change, as the kernel would allow it. */
	CHECK(policy_may_set_value(&fake_root, &root_file, "memory.max", (struct cgroup_place){0}, "x", why));
	struct task_facts other = {.pid = 9, .uids = {1000, 1000, 1000, 1000}, .visible = true};
	CHECK(!policy_owns_task(&fake_root, &other, TASK_FREEZE, why));
}

/* A refusal names what was refused: moving, signalling or freezing someone else's task. */
static void task_refusals_name_the_action(void)
{
	char why[POLICY_WHY_MAX];
	struct task_facts roots = {.pid = 7, .uids = {0, 0, 0, 0}, .visible = true};
	CHECK(!policy_owns_task(&alice, &roots, TASK_SIGNAL, why));
	CHECK(strstr(why, "may signal only your own tasks") != NULL);
	CHECK(!policy_owns_task(&alice, &roots, TASK_FREEZE, why));
	CHECK(strstr(why, "may freeze only your own tasks") != NULL);
	CHECK(!policy_owns_task(&alice, &roots, TASK_MOVE, why));
	CHECK(strstr(why, "may move only your own tasks") != NULL);
}

/* Writes that freeze or kill are told apart from those that do not, as the kernel would parse them. */
static void writes_that_act_on_tasks(void)
{
	enum task_action a;
	CHECK(policy_write_acts_on_tasks("freezer.state", "FROZEN", &a) && a == TASK_FREEZE);
	CHECK(policy_write_acts_on_tasks("freezer.state", "FREEZING", &a));
	CHECK(!policy_write_acts_on_tasks("freezer.state", "THAWED\n", &a));
	CHECK(policy_write_acts_on_tasks("cgroup.freeze", " 1", &a) && a == TASK_FREEZE);
	CHECK(policy_write_acts_on_tasks("cgroup.freeze", "+1", &a));
	CHECK(!policy_write_acts_on_tasks("cgroup.freeze", "0\n", &a));
	CHECK(policy_write_acts_on_tasks("cgroup.kill", "1", &a) && a == TASK_SIGNAL);
	CHECK(!policy_write_acts_on_tasks("memory.max", "0", &a));
	CHECK(!policy_write_acts_on_tasks("cgroup.freezeX", "1", &a));
}

/* What the peer that passed an Scm socket could have sent itself (the daemon's own credentials are root's). */
static void scm_credentials_the_peer_could_send(void)
{
	char why[POLICY_WHY_MAX];
	CHECK(policy_may_vouch(&alice, 1000, 1000, "requester's", why));
	CHECK(policy_may_vouch(&alice, 1000, 50, "requester's", why)); /* a group it is in */
	CHECK(!policy_may_vouch(&alice, 0, 0, "requester's", why));    /* the daemon's kick, read back */
	CHECK(strstr(why, "refused the requester's credential (uid 0, gid 0): you (uid 1000) could not have sent it"));
	CHECK(!policy_may_vouch(&alice, 1000, 0, "victim's", why));
	CHECK(strstr(why, "victim's credential (uid 1000, gid 0)"));
	CHECK(!policy_may_vouch(&alice, 1001, 1001, "new owner's", why));
	CHECK(policy_may_vouch(&root, 1001, 7, "new owner's", why));
	/* Root of a user namespace: what it maps, not host root's ids. */
	CHECK(policy_may_vouch(&croot, 165535, 100000, "requester's", why));
	CHECK(!policy_may_vouch(&croot, 0, 0, "requester's", why));
	CHECK(!policy_may_vouch(&croot, 100000, 165536, "requester's", why));
	CHECK(!policy_may_vouch(&cuser, 101001, 101001, "requester's", why)); /* not root there */
	CHECK(policy_may_vouch(&cuser, 101000, 101000, "requester's", why));
	/* A namespace that maps host root has power over it, as the kernel grants. */
	CHECK(policy_may_vouch(&fake_root, 0, 0, "requester's", why));
}

/* Controllers enabled for a requester in ancestors: never above its delegation point unless already there. */
static void enabling_controllers_stops_at_the_delegation_point(void)
{
	char why[POLICY_WHY_MAX];
	const struct owner root_sc = {0, 0, 0100644}, alice_sc = {1000, 1000, 0100644};
	const struct owner croot_sc = {100000, 100000, 0100644};
	/* Host root may change any ancestor. */
	CHECK(policy_may_enable_controller(&root, &root_sc, (struct controller_place){.enabled = false}, "memory", "unified:/a", why));
	/* Alice at and beneath her delegation point, whose cgroup.subtree_control she was handed. */
	CHECK(policy_may_enable_controller(&alice, &alice_sc, (struct controller_place){.enabled = false}, "memory", "unified:/a/alice", why));
	/* Above it only what is enabled already. */
	CHECK(policy_may_enable_controller(&alice, &root_sc, (struct controller_place){.enabled = true}, "memory", "unified:/a", why));
	CHECK(!policy_may_enable_controller(&alice, &root_sc, (struct controller_place){.enabled = false}, "memory", "unified:/a", why));
	CHECK(strstr(why, "memory must be enabled in unified:/a cgroup.subtree_control") != NULL);
	CHECK(strstr(why, "owned by uid 0") != NULL && strstr(why, "you (uid 1000)") != NULL);
	CHECK(strstr(why, "enable +memory there") != NULL);
	/* Nor in someone else's delegation. */
	CHECK(!policy_may_enable_controller(&bob, &alice_sc, (struct controller_place){.enabled = false}, "pids", "unified:/a/alice", why));
	/* A group given write access by its owner counts, as for the kernel. */
	CHECK(policy_may_enable_controller(&alice, &group50_file, (struct controller_place){.enabled = false}, "pids", "unified:/g", why));
	/* Root of a user namespace: its container's cgroups (mapped owners), not the host's above them. */
	CHECK(policy_may_enable_controller(&croot, &croot_sc, (struct controller_place){.enabled = false}, "memory", "unified:/c", why));
	CHECK(!policy_may_enable_controller(&croot, &root_sc, (struct controller_place){.enabled = false}, "memory", "unified:/", why));
	/* Nor above its own cgroup, even where its namespace maps the owner (an outer cgroup of the same user). */
	CHECK(!policy_may_enable_controller(&croot, &croot_sc,
	                                    (struct controller_place){.above_requesters_own = true}, "memory", "unified:/u",
	                                    why));
	CHECK(strstr(why, "above your own cgroup") != NULL);
	CHECK(policy_may_enable_controller(&croot, &croot_sc,
	                                   (struct controller_place){.enabled = true, .above_requesters_own = true},
	                                   "memory", "unified:/u", why));
	/* A plain user's own cgroups above the one it is in stay its own to change, as the kernel lets it. */
	CHECK(policy_may_enable_controller(&alice, &alice_sc, (struct controller_place){.above_requesters_own = true},
	                                   "memory", "unified:/a/alice", why));
}

int main(void)
{
	RUN(permission_bits);
	RUN(create_needs_write_on_parent);
	RUN(remove_rules);
	RUN(set_value_rules);
	RUN(chown_rules);
	RUN(chmod_rules);
	RUN(move_rules);
	RUN(delegated_files);
	RUN(container_root_has_power_over_what_it_maps);
	RUN(container_cannot_set_its_own_cgroup);
	RUN(container_chown_only_to_mapped_ids);
	RUN(container_moves_only_mapped_visible_tasks);
	RUN(root_of_a_user_namespace_is_not_host_root);
	RUN(task_refusals_name_the_action);
	RUN(writes_that_act_on_tasks);
	RUN(scm_credentials_the_peer_could_send);
	RUN(enabling_controllers_stops_at_the_delegation_point);
	return CHECK_EXIT();
}
