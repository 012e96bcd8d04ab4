/*
 * What the daemon, cgproxy and the clients (libcgmanager, hence cgm) must agree on to find and address one
 * another: the default socket paths and the D-Bus object, interface names and API version they serve.
 */
#pragma once

/*
 * The daemon's socket: 0.42's path where /sys/fs/cgroup is a tmpfs (containers bind-mount its directory),
 * else (a pure cgroup2 host mounts cgroup2 there) one under /run.
 */
#define CGMANAGER_SOCKET_SYS_FS_CGROUP "/sys/fs/cgroup/cgmanager/sock"
#define CGMANAGER_SOCKET_RUN "/run/cgmanager/sock"

/* Where a container's cgproxy finds the host daemon's socket: that socket's directory bind-mounted as .lower. */
#define CGMANAGER_LOWER_DIR_SYS_FS_CGROUP "/sys/fs/cgroup/cgmanager.lower"
#define CGMANAGER_LOWER_SOCKET_SYS_FS_CGROUP CGMANAGER_LOWER_DIR_SYS_FS_CGROUP "/sock"
#define CGMANAGER_LOWER_SOCKET_RUN "/run/cgmanager.lower/sock"

/* The one object and its two interfaces: 0.42's, and the key API. */
#define CGMANAGER_OBJECT_PATH "/org/linuxcontainers/cgmanager"
#define CGMANAGER_IFACE0 "org.linuxcontainers.cgmanager0_0"
#define CGMANAGER_IFACE1 "org.linuxcontainers.cgmanager1"
/* The api_version property of CGMANAGER_IFACE0: 0.42's clients (LXC) pick the calls they make by it. */
#define CGMANAGER_API_VERSION 10
