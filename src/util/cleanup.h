/* Scope-bound release of fds and heap memory, so error paths cannot leak. */
#pragma once
#include <stdlib.h>
#include <unistd.h>
#include <dirent.h>
#include <stdio.h>

static inline void cleanup_freep(void *p) { free(*(void **)p); }
static inline void cleanup_closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}
static inline void cleanup_closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}
static inline void cleanup_fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

#define _cleanup_free_ __attribute__((cleanup(cleanup_freep)))
#define _cleanup_close_ __attribute__((cleanup(cleanup_closep)))
#define _cleanup_closedir_ __attribute__((cleanup(cleanup_closedirp)))
#define _cleanup_fclose_ __attribute__((cleanup(cleanup_fclosep)))

/* Hands ownership out of a cleanup-managed variable. */
static inline int take_fd(int *fd)
{
	int r = *fd;
	*fd = -1;
	return r;
}
static inline void *take_ptr(void *pp)
{
	void *r = *(void **)pp;
	*(void **)pp = NULL;
	return r;
}
