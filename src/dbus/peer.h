/* The kernel's word on who is at the other end of a unix socket. */
#pragma once
#include "ops/ops.h"

/* SO_PEERCRED, SO_PEERGROUPS and (where the kernel has it) SO_PEERPIDFD, taken at connect time. */
int peer_requester(int fd, struct requester *out);
