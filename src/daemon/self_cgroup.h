/* Keeping the daemon's own process out of the tree it serves. */
#pragma once
#include "cgfs/hierarchy.h"


/*
 * Moves the daemon into <root>/.cgmanager in every hierarchy, so it never
 * keeps its root populated (blocking removal) nor breaks cgroup2's
 * no-internal-process rule when controllers are enabled there.
 */
void self_cgroup_step_aside(const struct hierarchies *hs);
