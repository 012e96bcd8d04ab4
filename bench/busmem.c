/*
 * bench-busmem: the heap one client connection costs in the daemon's sd-bus
 * set-up, part by part (mallinfo2 around N server buses on socketpairs, set
 * up as src/dbus/server.c does). valgrind cannot run the daemon here (it
 * lacks openat2), so this is how BENCHMARKS.md splits the per-connection RSS.
 *
 *   bench-busmem [N]
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

#include "dbus/conn.h"

extern const sd_bus_vtable iface0_vtable[], iface1_vtable[];

static long per_bus(int n, int parts)
{
	sd_id128_t id;
	sd_bus **buses = calloc((size_t)n, sizeof(*buses));
	int *fds = calloc((size_t)n * 2, sizeof(int));
	if (!buses || !fds || sd_id128_randomize(&id) < 0)
		return -1;
	struct mallinfo2 before = mallinfo2();
	for (int i = 0; i < n; i++) {
		int r;
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds + 2 * i) < 0 ||
		    (r = sd_bus_new(&buses[i])) < 0 || (r = sd_bus_set_fd(buses[i], fds[2 * i], fds[2 * i])) < 0 ||
		    (r = sd_bus_set_server(buses[i], 1, id)) < 0 || (r = sd_bus_set_anonymous(buses[i], 1)) < 0 ||
		    (r = sd_bus_set_trusted(buses[i], 1)) < 0 || (r = sd_bus_negotiate_fds(buses[i], 1)) < 0)
			return -1;
		if (parts >= 1 && sd_bus_add_object_vtable(buses[i], NULL, CGMANAGER_OBJECT_PATH, CGMANAGER_IFACE0,
		                                           iface0_vtable, NULL) < 0)
			return -1;
		if (parts >= 2 && sd_bus_add_object_vtable(buses[i], NULL, CGMANAGER_OBJECT_PATH, CGMANAGER_IFACE1,
		                                           iface1_vtable, NULL) < 0)
			return -1;
		if (parts >= 3 && sd_bus_add_object_vtable(buses[i], NULL, "/org/freedesktop/DBus", "org.freedesktop.DBus",
		                                           bus_driver_vtable, NULL) < 0)
			return -1;
		if (sd_bus_start(buses[i]) < 0)
			return -1;
	}
	struct mallinfo2 after = mallinfo2();
	/* No flush: nobody reads the other ends, and the measurement is over. */
	for (int i = 0; i < n; i++) {
		close(fds[2 * i + 1]);
		sd_bus_close_unref(buses[i]);
	}
	free(buses);
	free(fds);
	return (long)(after.uordblks - before.uordblks) / n;
}

int main(int argc, char **argv)
{
	static const char *const what[] = {"bare sd-bus server object", "+ cgmanager0_0 vtable", "+ cgmanager1 vtable",
	                                   "+ org.freedesktop.DBus stub vtable"};
	int n = argc > 1 ? atoi(argv[1]) : 200;
	long prev = 0;
	if (n <= 0)
		return 2;
	printf("| connection part | heap bytes per connection | of it this part |\n| --- | ---: | ---: |\n");
	for (int parts = 0; parts < 4; parts++) {
		long b = per_bus(n, parts);
		if (b < 0) {
			fprintf(stderr, "bench-busmem: sd-bus set-up failed\n");
			return 1;
		}
		printf("| %s | %ld | %ld |\n", what[parts], b, b - prev);
		prev = b;
	}
	return 0;
}
