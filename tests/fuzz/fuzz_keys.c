/*
 * key_plan_set and key_get through a fake struct key_host that answers from the
 * input, split as "key\0value\0file-content": every file the key reads has
 * file-content (split further at NULs, the k-th read of a call getting the
 * k-th piece, cycling). Each input runs against a cgroup v1 host and a
 * cgroup2 host (as tests/unit/test_keys.c fakes them).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "keys/keys.h"

#define MAX_PIECES 8
struct fake {
	int version;
	const char *piece[MAX_PIECES];
	size_t npieces, reads;
};

static int version_of(void *ctx, const char *controller)
{
	const struct fake *f = ctx;
	if (strcmp(controller, "") == 0)
		return f->version == 2 ? 2 : 0;
	if (f->version == 2 && (strcmp(controller, "net_cls") == 0 || strcmp(controller, "net_prio") == 0))
		return 0;
	static const char *const ctrls[] = {"memory", "cpu",     "cpuset",  "cpuacct", "io",      "devices",
	                                    "freezer", "pids",   "hugetlb", "net_cls", "net_prio"};
	for (size_t i = 0; i < sizeof(ctrls) / sizeof(ctrls[0]); i++)
		if (strcmp(controller, ctrls[i]) == 0)
			return f->version;
	return 0;
}

static int read_file(void *ctx, const char *controller, const char *file, char **out, struct err *e)
{
	struct fake *f = ctx;
	if (f->npieces == 0)
		return err_set(e, ERR_NOT_FOUND, "no file %s in %s", file, controller);
	*out = strdup(f->piece[f->reads++ % f->npieces]);
	if (!*out)
		return err_set(e, ERR_FAILED, "out of memory");
	return 0;
}

static int online_cpus(void *ctx)
{
	const struct fake *f = ctx;
	return 1 + (int)(f->npieces * 3);
}

static void run(struct fake *f, const char *key, const char *value)
{
	const struct key_host h = {version_of, read_file, fuzz_device_of, online_cpus, f};
	key_writes w = {0};
	struct err e = {0};
	char *out = NULL, *out2 = NULL;

	f->reads = 0;
	if (key_plan_set(&h, key, value, &w, &e) < 0) {
		/* On failure *out is as it was, and the message says why. */
		FUZZ_CHECK(w.n == 0 && w.v == NULL);
		FUZZ_CHECK(e.kind != ERR_NONE && e.msg[0]);
	} else {
		const struct key_doc *d = key_doc_find(key);
		FUZZ_CHECK(d && (d->access & KEY_WRITE));
		FUZZ_CHECK(w.n > 0);
		for (size_t i = 0; i < w.n; i++) {
			const struct key_write *kw = &w.v[i];
			FUZZ_CHECK(kw->controller);
			FUZZ_CHECK(kw->version == 1 || kw->version == 2);
			FUZZ_CHECK(kw->version == version_of(f, kw->controller));
			FUZZ_CHECK(kw->value);
			/* Only a v2 device rule has no file; files are relative names. */
			if (!kw->file)
				FUZZ_CHECK(kw->version == 2);
			else
				FUZZ_CHECK(kw->file[0] && kw->file[0] != '/' && !strstr(kw->file, ".."));
		}
	}
	key_writes_free(&w);

	/* key_get: deterministic for the same host answers. */
	f->reads = 0;
	e = (struct err){0};
	int r = key_get(&h, key, &out, &e);
	if (r < 0) {
		FUZZ_CHECK(e.kind != ERR_NONE && e.msg[0]);
	} else {
		FUZZ_CHECK(out);
		FUZZ_CHECK(key_doc_find(key) && (key_doc_find(key)->access & KEY_READ));
	}
	f->reads = 0;
	struct err e2 = {0};
	int r2 = key_get(&h, key, &out2, &e2);
	FUZZ_CHECK(r == r2);
	if (r == 0)
		FUZZ_CHECK(strcmp(out, out2) == 0);
	else
		FUZZ_CHECK(strcmp(e.msg, e2.msg) == 0);
	free(out);
	free(out2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A NUL-terminated copy with a NUL after every part, so that missing parts are "". */
	char *buf = malloc(size + 3);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	memset(buf + size, 0, 3);
	const char *key = buf;
	const char *value = key + strlen(key) + 1;
	const char *content = value < buf + size ? value + strlen(value) + 1 : buf + size + 2;
	struct fake f = {0};
	if (content <= buf + size) {
		const char *p = content;
		while (f.npieces < MAX_PIECES) {
			f.piece[f.npieces++] = p;
			p += strlen(p) + 1;
			if (p > buf + size)
				break;
		}
	}
	f.version = 1;
	run(&f, key, value);
	f.version = 2;
	run(&f, key, value);
	free(buf);
	return 0;
}
