#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/self_cgroup.h"
#include "dbus/conn.h"
#include "dbus/listen_socket.h"
#include "dbus/server.h"
#include "ops/ops.h"
#include "util/log.h"

#ifndef CGMANAGER_VERSION
#define CGMANAGER_VERSION "unknown"
#endif

static void usage(FILE *f)
{
	fprintf(f,
	        "Usage: cgmanager [OPTIONS]\n"
	        "\n"
	        "The cgroup manager daemon. Serves the subtree of every cgroup hierarchy that it\n"
	        "starts in over peer-to-peer D-Bus on a unix socket.\n"
	        "\n"
	        "Options:\n"
	        "  -s, --socket PATH     listen on PATH (default: /sys/fs/cgroup/cgmanager/sock\n"
	        "                        where /sys/fs/cgroup is a tmpfs, else /run/cgmanager/sock)\n"
	        "  -l, --log-level LVL   error, warn, info (default) or debug\n"
	        "      --syslog          also log to syslog (facility daemon)\n"
	        "  -h, --help            show this help\n"
	        "  -V, --version         show the version\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"socket", required_argument, NULL, 's'}, {"log-level", required_argument, NULL, 'l'},
		{"syslog", no_argument, NULL, 'S'},       {"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},      {0},
	};
	const char *socket_path = NULL;
	int level = LOG_LVL_INFO, c, rc = 1;
	bool use_syslog = false;
	struct ops o;
	struct err e = {0};
	struct server *srv = NULL;
	ino_t sock_ino = 0;
	int lfd;

	while ((c = getopt_long(argc, argv, "s:l:hV", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			socket_path = optarg;
			break;
		case 'l':
			level = log_level_from_name(optarg);
			if (level < 0) {
				fprintf(stderr, "cgmanager: unknown log level '%s' (error, warn, info, debug)\n", optarg);
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
			printf("cgmanager %s\n", CGMANAGER_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "cgmanager: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	log_setup((enum log_level)level, use_syslog);
	if (geteuid() != 0) {
		log_error("cgmanager must run as root (it writes cgroupfs on behalf of its clients)");
		return 1;
	}
	if (!socket_path)
		socket_path = default_socket_path();
	if (ops_init(&o, &e) < 0) {
		log_error("%s", e.msg);
		return 1;
	}
	lfd = listen_socket_open(socket_path, &sock_ino, &e);
	if (lfd < 0) {
		log_error("%s", e.msg);
		goto out_ops;
	}
	self_cgroup_step_aside(&o.hs);
	srv = server_new(&o, iface0_vtable, NULL, lfd, &e);
	if (!srv) {
		log_error("%s", e.msg);
		goto out_sock;
	}
	for (size_t i = 0; i < o.hs.n; i++)
		log_info("serving %s:%s", o.hs.h[i].name, o.hs.h[i].root_path);
	log_info("listening on %s", socket_path);
	rc = server_run(srv) < 0;
	server_free(srv);
out_sock:
	listen_socket_remove(socket_path, sock_ino);
	close(lfd);
out_ops:
	ops_free(&o);
	return rc;
}
