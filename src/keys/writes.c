/* The list of writes a plan builds, and the error helpers plans share. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys/internal.h"

int key_oom(struct err *e)
{
	return err_set(e, ERR_LIMIT, "out of memory");
}

int key_push(key_writes *w, const struct key_ref *k, const char *file, char *value_taken, struct err *e)
{
	struct key_write *v;
	char *f = NULL;

	if (!value_taken || (file && !(f = strdup(file)))) {
		free(value_taken);
		return key_oom(e);
	}
	v = realloc(w->v, (w->n + 1) * sizeof(*w->v));
	if (!v) {
		free(f);
		free(value_taken);
		return key_oom(e);
	}
	w->v = v;
	v[w->n++] = (struct key_write){.controller = k->ctrl, .version = k->version, .file = f, .value = value_taken};
	return 0;
}

int key_push_fmt(key_writes *w, const struct key_ref *k, const char *file, struct err *e, const char *fmt, ...)
{
	va_list ap;
	char *value;
	int r;
	va_start(ap, fmt);
	r = vasprintf(&value, fmt, ap);
	va_end(ap);
	return key_push(w, k, file, r < 0 ? NULL : value, e);
}

void key_writes_truncate(key_writes *w, size_t n)
{
	while (w->n > n) {
		w->n--;
		free(w->v[w->n].file);
		free(w->v[w->n].value);
	}
}

void key_writes_free(key_writes *w)
{
	key_writes_truncate(w, 0);
	free(w->v);
	w->v = NULL;
}
