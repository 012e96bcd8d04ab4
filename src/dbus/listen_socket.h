/* The daemon's unix socket: where it lives, and taking it over safely. */
#pragma once
#include <sys/types.h>

#include "util/err.h"

/* /sys/fs/cgroup/cgmanager/sock where /sys/fs/cgroup is a tmpfs (0.42's path), else /run/cgmanager/sock. */
const char *default_socket_path(void);

/*
 * Creates the socket's directory, replaces a stale socket, refuses if a live
 * daemon answers there. World-connectable: access is decided per request.
 * Returns a listening, non-blocking fd; *ino identifies our socket file.
 */
int listen_socket_open(const char *path, ino_t *ino, struct err *e);
/* Unlinks path only if it is still the socket we made. */
void listen_socket_remove(const char *path, ino_t ino);
