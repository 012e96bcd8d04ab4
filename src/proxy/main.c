/* cgproxy: serves a container's cgmanager socket, relaying each call to the host's daemon so the kernel translates ids. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cgmanager_wire.h"
#include "dbus/listen_socket.h"
#include "dbus/server.h"
#include "proxy/relay_vtable.h"
#include "proxy/upstream.h"
#include "util/log.h"

#ifndef CGMANAGER_VERSION
#define CGMANAGER_VERSION "unknown"
#endif

static const char *default_upstream(void)
{
	struct stat st;
	if (stat(CGMANAGER_LOWER_DIR_SYS_FS_CGROUP, &st) == 0)
		return CGMANAGER_LOWER_SOCKET_SYS_FS_CGROUP;
	return CGMANAGER_LOWER_SOCKET_RUN;
}

static void usage(FILE *f)
{
	fprintf(f,
	        "Usage: cgproxy [OPTIONS]\n"
	        "\n"
	        "Runs inside a container: serves the container's cgmanager socket and relays every\n"
	        "call to the host's cgmanager as its Scm form, so that the kernel translates the\n"
	        "container's pids, uids and gids. Must run as root of the container.\n"
	        "\n"
	        "Options:\n"
	        "  -s, --socket PATH     serve PATH (default as cgmanager: " CGMANAGER_SOCKET_SYS_FS_CGROUP "\n"
	        "                        where /sys/fs/cgroup is a tmpfs, else " CGMANAGER_SOCKET_RUN ")\n"
	        "  -u, --upstream PATH   the host daemon's socket, bind-mounted into the container\n"
	        "                        (default " CGMANAGER_LOWER_SOCKET_SYS_FS_CGROUP " if that directory\n"
	        "                        exists, else " CGMANAGER_LOWER_SOCKET_RUN ")\n"
	        "  -l, --log-level LVL   error, warn, info (default) or debug\n"
	        "      --syslog          also log to syslog\n"
	        "  -h, --help            show this help\n"
	        "  -V, --version         show the version\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"socket", required_argument, NULL, 's'},    {"upstream", required_argument, NULL, 'u'},
		{"log-level", required_argument, NULL, 'l'}, {"syslog", no_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'},            {"version", no_argument, NULL, 'V'},
		{0},
	};
	const char *socket_path = NULL, *upstream_path = NULL;
	int level = LOG_LVL_INFO, c, rc = 1, lfd;
	bool use_syslog = false;
	struct upstream up = {0};
	struct err e = {0};
	struct server *srv;
	ino_t ino = 0;

	while ((c = getopt_long(argc, argv, "s:u:l:hV", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			socket_path = optarg;
			break;
		case 'u':
			upstream_path = optarg;
			break;
		case 'l':
			if ((level = log_level_from_name(optarg)) < 0) {
				fprintf(stderr, "cgproxy: unknown log level '%s' (error, warn, info, debug)\n", optarg);
				return 2;
			}
			break;
		case 'S':
			use_syslog = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("cgproxy %s\n", CGMANAGER_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "cgproxy: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	log_setup((enum log_level)level, use_syslog);
	log_set_ident("cgproxy");
	up.path = strdup(upstream_path ? upstream_path : default_upstream());
	if (!socket_path)
		socket_path = default_socket_path();
	if (strcmp(up.path, socket_path) == 0) {
		log_error("the upstream socket and the served socket are both %s", socket_path);
		return 1;
	}
	/* The daemon may come later or restart; calls reconnect. Say so now if it is not there. */
	if (upstream_ensure(&up) < 0)
		log_warn("cgmanager does not answer at %s yet; will retry on each request", up.path);
	lfd = listen_socket_open(socket_path, &ino, &e);
	if (lfd < 0) {
		log_error("%s", e.msg);
		goto out;
	}
	srv = server_new(NULL, relay_vtable, key_api_upstream_vtable, &up, lfd, &e);
	if (!srv) {
		log_error("%s", e.msg);
		goto out_sock;
	}
	log_info("relaying %s to %s", socket_path, up.path);
	rc = server_run(srv) < 0;
	server_free(srv);
out_sock:
	listen_socket_remove(socket_path, ino);
	close(lfd);
out:
	upstream_close(&up);
	free(up.path);
	return rc;
}
