/* The floor of `cgm ping` as a process (bench/cli.c): a program that loads what cgm loads (libcgmanager, and
 * through it libsystemd with its libraries, and libc) and does nothing. */
#include "cgmanager.h"

/* Taken, never called: the reference keeps libcgmanager among the libraries the loader maps (--as-needed). */
int (*const cgm_noop_keep)(cgm_client *, cgm_error *) = cgm_ping;

int main(void)
{
	return 0;
}
