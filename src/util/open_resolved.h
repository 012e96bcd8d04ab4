/* openat2(2) with its RESOLVE_* confinement, and the same confinement without openat2. */
#pragma once
#include <stdint.h>
#include <linux/openat2.h>

/*
 * Opens PATH relative to DIRFD as openat2(2) does with FLAGS and RESOLVE. Where the kernel has no
 * openat2 (Linux < 5.6, or valgrind, which does not know the call) it walks PATH one component at a
 * time with O_NOFOLLOW, refusing ".." (-EXDEV) and, for RESOLVE_NO_XDEV, any component on another
 * mount. The walk never follows a symlink (-ELOOP) nor "..", even where openat2 would: stricter, never
 * laxer (the daemon's own paths have neither).
 * Returns the fd or -errno.
 */
int open_resolved(int dirfd, const char *path, int flags, uint64_t resolve);

/* The walk alone, as used without openat2 (for the unit tests, which compare it with openat2). */
int open_resolved_walk(int dirfd, const char *path, int flags, uint64_t resolve);
