/* What every fuzz target shares: an invariant check that stops libFuzzer, and its entry point. */
#pragma once
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"

#define FUZZ_CHECK(c)                                                                                  \
	do {                                                                                               \
		if (!(c)) {                                                                                    \
			fprintf(stderr, "invariant failed: %s (%s:%d)\n", #c, __FILE__, __LINE__);                 \
			abort();                                                                                   \
		}                                                                                              \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The two device nodes the key targets' fake hosts know. */
static inline int fuzz_device_of(void *ctx, const char *path, unsigned *major, unsigned *minor, char *type,
                                 struct err *e)
{
	if (strcmp(path, "/dev/null") == 0)
		*type = 'c', *major = 1, *minor = 3;
	else if (strcmp(path, "/dev/sda") == 0)
		*type = 'b', *major = 8, *minor = 0;
	else
		return err_set(e, ERR_NOT_FOUND, "cannot resolve %s", path);
	return 0;
}
