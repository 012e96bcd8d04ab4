#include "strv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int strv_push_take(strv *s, char *str)
{
	if (!str)
		return -ENOMEM;
	if (s->n + 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		char **v = realloc(s->v, cap * sizeof(char *));
		if (!v) {
			free(str);
			return -ENOMEM;
		}
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = str;
	s->v[s->n] = NULL;
	return 0;
}

int strv_push(strv *s, const char *str)
{
	return strv_push_take(s, strdup(str));
}

bool strv_contains(const strv *s, const char *str)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], str) == 0)
			return true;
	return false;
}

void strv_free(strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	*s = (strv){0};
}

int strv_split(strv *out, const char *str, char sep)
{
	const char *p = str;
	while (*p) {
		const char *end = strchr(p, sep);
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len > 0) {
			int r = strv_push_take(out, strndup(p, len));
			if (r < 0)
				return r;
		}
		if (!end)
			break;
		p = end + 1;
	}
	return 0;
}

int strv_sort_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}
