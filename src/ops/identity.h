/* A requester's namespaces, read once when the kernel hands over its credentials. */
#pragma once
#include "ops/ops.h"

/*
 * Fills the namespace facts of r (pid and uid/gid already set from
 * SO_PEERCRED or SCM_CREDENTIALS): whether it is in the daemon's user and
 * pid namespaces, its user namespace's maps, and whether it is root there.
 */
int requester_identify(const struct ops *o, struct requester *r, struct err *e);
void requester_release(struct requester *r);

/* True if pid's pid namespace is ns or a descendant of it, i.e. ns can see the task. */
bool pid_visible_in(pid_t pid, ino_t ns);
