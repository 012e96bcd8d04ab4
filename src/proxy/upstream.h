/* cgproxy's connection to the cgmanager above it, re-established when that daemon restarts. */
#pragma once
#include <sys/socket.h>
#include <systemd/sd-bus.h>

#include "scm/scm_methods.h"

struct upstream {
	char *path;
	sd_bus *bus;
};

/* Connects if not connected; -errno. */
int upstream_ensure(struct upstream *u);
void upstream_close(struct upstream *u);

/* What an Scm exchange sends and gets back. */
struct scm_request {
	const struct scm_method *m;
	sd_bus_message *plain;       /* the client's call; its arguments are copied upstream */
	struct ucred requester;      /* the client, as this namespace sees it */
	int requester_pidfd;         /* the process that connected, pinned (-1 where the kernel has no pidfds) */
	pid_t victim;                /* SCM_SECOND_PID */
	uid_t uid;                   /* SCM_SECOND_IDS */
	gid_t gid;
};

/*
 * Makes the Scm call upstream and answers the plain call m with its result
 * (or the daemon's reason for refusing). Retries once on a fresh connection
 * when the daemon went away.
 */
int upstream_relay(struct upstream *u, struct scm_request *req);
/*
 * The daemon pins the pid cgproxy vouches for, whatever task has it: a connection whose process has exited (its
 * pid may be handed out again) is refused AccessDenied rather than relayed.
 */
int upstream_refuse_gone_requester(sd_bus_message *m, pid_t pid);
/* Relays a call that has no Scm form (Ping, ListControllers, property reads) unchanged. */
int upstream_relay_plain(struct upstream *u, sd_bus_message *m);
