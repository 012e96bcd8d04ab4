/* cgname_normalize and cgfile_name_valid on arbitrary names. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "util/cgname.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name = strndup((const char *)data, size);
	static char out[CGNAME_MAX], again[CGNAME_MAX], joined[CGNAME_MAX];
	const char *why = NULL;
	if (!name)
		return 0;
	int r = cgname_normalize(name, out, &why);
	if (r < 0) {
		FUZZ_CHECK(why && *why);
	} else {
		size_t len = strlen(out);
		/* Clean: no leading, trailing or doubled slash; no control characters; no longer than the input. */
		FUZZ_CHECK(len <= strlen(name));
		FUZZ_CHECK(len == 0 || (out[0] != '/' && out[len - 1] != '/'));
		FUZZ_CHECK(!strstr(out, "//"));
		for (size_t i = 0; i < len; i++)
			FUZZ_CHECK((unsigned char)out[i] >= 0x20 && out[i] != 0x7f);
		/* Idempotent. */
		why = NULL;
		FUZZ_CHECK(cgname_normalize(out, again, &why) == 0);
		FUZZ_CHECK(strcmp(out, again) == 0);
		/* Every component is a valid file name, and not "." or "..". */
		char *copy = strdup(out), *save = NULL;
		FUZZ_CHECK(copy);
		for (char *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
			FUZZ_CHECK(strcmp(c, ".") != 0 && strcmp(c, "..") != 0);
			FUZZ_CHECK(cgfile_name_valid(c, &why) == 0);
		}
		free(copy);
		/* Joining onto "" gives the name back. */
		FUZZ_CHECK(cgpath_join("", out, joined) == 0 && strcmp(joined, out) == 0);
		FUZZ_CHECK(cgpath_join(out, "", joined) == 0 && strcmp(joined, out) == 0);
	}
	/* A single component: cgfile_name_valid agrees with cgname_normalize. */
	if (*name && !strchr(name, '/')) {
		int f = cgfile_name_valid(name, &why);
		FUZZ_CHECK((f == 0) == (r == 0));
		if (f == 0)
			FUZZ_CHECK(strcmp(out, name) == 0);
	}
	if (strchr(name, '/'))
		FUZZ_CHECK(cgfile_name_valid(name, &why) < 0);
	free(name);
	return 0;
}
