#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/cgmanager_wire.h"
#include "daemon/self_cgroup.h"
#include "dbus/conn.h"
#include "dbus/listen_socket.h"
#include "dbus/server.h"
#include "dbus/systemd1.h"
#include "ops/journal.h"
#include "ops/ops.h"
#include "ops/quota.h"
#include "ops/watch.h"
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
	        "  -s, --socket PATH     listen on PATH (default: " CGMANAGER_SOCKET_SYS_FS_CGROUP "\n"
	        "                        where /sys/fs/cgroup is a tmpfs, else " CGMANAGER_SOCKET_RUN ")\n"
	        "  -l, --log-level LVL   error, warn, info (default) or debug\n"
	        "      --syslog          also log to syslog (facility daemon)\n"
	        "      --max-cgroups-per-uid N\n"
	        "                        cgroups a uid other than host root may own in one\n"
	        "                        hierarchy (default %u; 0: no limit)\n"
	        "      --max-depth N     how deep such a uid may nest cgroups below the first\n"
	        "                        ancestor it does not own (default %u; 0: no limit)\n"
	        "      --max-connections N\n"
	        "                        client connections at once (default: what the file\n"
	        "                        descriptor limit allows, %u fds each; here %u); the\n"
	        "                        last %u are kept for root\n"
	        "      --max-connections-per-uid N\n"
	        "                        connections at once of one uid other than root\n"
	        "                        (default %u)\n"
	        "      --max-message-size BYTES\n"
	        "                        the largest message a client may send (default %u;\n"
	        "                        a larger one ends its connection)\n"
	        "      --max-watches-per-connection N, --max-watches-per-uid N, --max-watches N\n"
	        "                        cgroups a connection, a uid and everyone may follow\n"
	        "                        with Watch, in each hierarchy (default %u, %u, %u)\n"
	        "      --systemd1[=ADDRESS]\n"
	        "                        also serve org.freedesktop.systemd1 (transient scopes\n"
	        "                        and slices) on the message bus at ADDRESS (default\n"
	        "                        " SYSTEMD1_DEFAULT_ADDRESS ")\n"
	        "  -h, --help            show this help\n"
	        "  -V, --version         show the version\n"
	        "\n"
	        "A client must authenticate within %u s of connecting. One that leaves %u\n"
	        "replies unread is not read until it reads them. See LIMITS in cgmanager(8).\n",
	        QUOTA_DEFAULT_CGROUPS, QUOTA_DEFAULT_DEPTH, SERVER_FDS_PER_CONN, server_default_max_conns(),
	        SERVER_ROOT_RESERVED_CONNS, SERVER_DEFAULT_CONNS_PER_UID, SERVER_DEFAULT_MAX_MESSAGE,
	        WATCH_DEFAULT_PER_CONN, WATCH_DEFAULT_PER_UID, WATCH_DEFAULT_TOTAL, SERVER_AUTH_TIMEOUT_SEC, SERVER_QUEUED_REPLIES_MAX);
}

static int parse_number(const char *s, unsigned long max, unsigned *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v > max)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static int parse_count(const char *s, unsigned *out)
{
	return parse_number(s, 1000000, out);
}

/*
 * Each client connection costs file descriptors (SERVER_FDS_PER_CONN): the soft RLIMIT_NOFILE goes up to
 * the hard one, and as root (CAP_SYS_RESOURCE) both go up to NOFILE_WANTED where the host's limits are
 * lower (a plain boot leaves 1024/4096: 146 connections), so that the default connection limit
 * (server_default_max_conns) is as high as the host allows.
 */
#define NOFILE_WANTED 65536

static void raise_nofile_limit(void)
{
	struct rlimit rl;
	unsigned long nr_open = NOFILE_WANTED;
	FILE *f;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;
	if (rl.rlim_max < NOFILE_WANTED) {
		if ((f = fopen("/proc/sys/fs/nr_open", "re"))) {
			if (fscanf(f, "%lu", &nr_open) != 1)
				nr_open = NOFILE_WANTED;
			fclose(f);
		}
		struct rlimit up = {.rlim_cur = nr_open < NOFILE_WANTED ? nr_open : NOFILE_WANTED};
		up.rlim_max = up.rlim_cur;
		if (up.rlim_max > rl.rlim_max && setrlimit(RLIMIT_NOFILE, &up) == 0)
			return;
	}
	if (rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		log_warn("cannot raise the file descriptor limit to %llu: %s", (unsigned long long)rl.rlim_max,
		         strerror(errno));
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"socket", required_argument, NULL, 's'}, {"log-level", required_argument, NULL, 'l'},
		{"syslog", no_argument, NULL, 'S'},       {"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},      {"max-cgroups-per-uid", required_argument, NULL, 'C'},
		{"max-depth", required_argument, NULL, 'D'}, {"max-connections", required_argument, NULL, 'N'},
		{"max-connections-per-uid", required_argument, NULL, 'U'},
		{"max-message-size", required_argument, NULL, 'M'},
		{"max-watches-per-connection", required_argument, NULL, 'w'},
		{"max-watches-per-uid", required_argument, NULL, 'W'}, {"max-watches", required_argument, NULL, 'T'},
		{"systemd1", optional_argument, NULL, 'Y'}, {0},
	};
	struct server_limits lim = {0};
	struct watch_limits wlim = {0};
	const char *socket_path = NULL, *systemd1_address = NULL;
	int level = LOG_LVL_INFO, c, rc = 1;
	bool use_syslog = false;
	unsigned max_cgroups = QUOTA_DEFAULT_CGROUPS, max_depth = QUOTA_DEFAULT_DEPTH;
	struct ops o;
	struct err e = {0};
	struct server *srv = NULL;
	struct systemd1 *sd1 = NULL;
	ino_t sock_ino = 0;
	char journal_path[PATH_MAX];
	int lfd;

	/* First, so that --help shows the default connection limit the daemon would have. */
	raise_nofile_limit();
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
		case 'C':
		case 'D':
			if (parse_count(optarg, c == 'C' ? &max_cgroups : &max_depth) < 0) {
				fprintf(stderr, "cgmanager: --%s takes a number, not '%s'\n",
				        c == 'C' ? "max-cgroups-per-uid" : "max-depth", optarg);
				return 2;
			}
			break;
		case 'N':
		case 'U':
			if (parse_count(optarg, c == 'N' ? &lim.max_conns : &lim.max_conns_per_uid) < 0 ||
			    (c == 'N' ? lim.max_conns : lim.max_conns_per_uid) == 0) {
				fprintf(stderr, "cgmanager: --%s takes a number from 1 to 1000000, not '%s'\n",
				        c == 'N' ? "max-connections" : "max-connections-per-uid", optarg);
				return 2;
			}
			break;
		case 'M': {
			unsigned v;
			if (parse_number(optarg, SERVER_MAX_MESSAGE_MAX, &v) < 0 || v < 4096) {
				fprintf(stderr, "cgmanager: --max-message-size takes a number of bytes from 4096 to %u, not '%s'\n",
				        SERVER_MAX_MESSAGE_MAX, optarg);
				return 2;
			}
			lim.max_message = v;
			break;
		}
		case 'w':
		case 'W':
		case 'T': {
			unsigned *to = c == 'w' ? &wlim.per_conn : c == 'W' ? &wlim.per_uid : &wlim.total;
			if (parse_count(optarg, to) < 0 || *to == 0) {
				fprintf(stderr, "cgmanager: --%s takes a number from 1 to 1000000, not '%s'\n",
				        c == 'w' ? "max-watches-per-connection" : c == 'W' ? "max-watches-per-uid" : "max-watches",
				        optarg);
				return 2;
			}
			break;
		}
		case 'Y':
			systemd1_address = optarg && *optarg ? optarg : SYSTEMD1_DEFAULT_ADDRESS;
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
	watches_set_limits(o.watches, &wlim);
	if (!(o.quotas = quotas_new(max_cgroups, max_depth))) {
		log_error("out of memory");
		goto out_ops;
	}
	lfd = listen_socket_open(socket_path, &sock_ino, &e);
	if (lfd < 0) {
		log_error("%s", e.msg);
		goto out_ops;
	}
	/*
	 * Beside the socket, which no other daemon holds now: what the daemon before on it was killed in the
	 * middle of is finished or undone before the first request (ops/journal.h).
	 */
	if (snprintf(journal_path, sizeof(journal_path), "%s.journal", socket_path) < (int)sizeof(journal_path))
		journal_open(&o, journal_path);
	else
		log_error("the journal's path %s.journal is too long; a kill mid-operation cannot be recovered from",
		          socket_path);
	self_cgroup_step_aside(&o.hs);
	srv = server_new(&o, iface0_vtable, iface1_vtable, NULL, lfd, &e);
	if (!srv) {
		log_error("%s", e.msg);
		goto out_sock;
	}
	server_set_limits(srv, &lim);
	server_get_limits(srv, &lim);
	for (size_t i = 0; i < o.hs.n; i++)
		log_info("serving %s:%s", o.hs.h[i].name, o.hs.h[i].root_path);
	log_info("limits: %u connections (%u per uid but root), messages up to %zu bytes", lim.max_conns,
	         lim.max_conns_per_uid, lim.max_message);
	log_info("listening on %s", socket_path);
	if (systemd1_address && !(sd1 = systemd1_new(&o, server_loop(srv), systemd1_address, &e))) {
		log_error("systemd1: %s", e.msg);
		server_free(srv);
		goto out_sock;
	}
	rc = server_run(srv) < 0;
	systemd1_free(sd1);
	server_free(srv);
out_sock:
	listen_socket_remove(socket_path, sock_ino);
	close(lfd);
out_ops:
	ops_free(&o);
	return rc;
}
