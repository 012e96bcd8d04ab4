/* The tasks of a cgroup's whole subtree, and the rule that each must be the requester's before it is frozen or killed. */
#pragma once
#include "cgfs/cgdir.h"
#include "ops/ops.h"

/* Appends the processes of the cgroup at cgfd and of every cgroup beneath it (threaded ones too); -errno. */
int subtree_tasks(int cgfd, pidv *out);

/* The requester's own task, as policy_owns_task judges it for action; 0 yes, 1 refused (why), 2 gone. */
int task_is_requesters(const struct requester *r, pid_t pid, enum task_action action, char why[POLICY_WHY_MAX]);

/*
 * Writing value to file of the cgroup at cgfd (named what) freezes or kills its subtree: every task in it must
 * be the requester's, as for Kill, or nothing is written. Other writes, and host root's, pass.
 */
int check_task_write(const struct requester *r, int cgfd, const char *what, const char *file, const char *value,
                     struct err *e);
