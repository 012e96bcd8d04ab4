/* The accept loop: one thread, one epoll set, every client non-blocking. */
#pragma once
#include "ops/ops.h"
#include "util/err.h"

struct server;

struct server *server_new(struct ops *o, int listen_fd, struct err *e);
/* Serves until SIGTERM or SIGINT; returns 0 on a clean stop. */
int server_run(struct server *s);
void server_free(struct server *s);
