/* NULL-terminated, heap-allocated string vectors. */
#pragma once
#include <stdbool.h>
#include <stddef.h>

typedef struct {
	char **v;
	size_t n, cap;
} strv;

int strv_push(strv *s, const char *str);   /* copies str; -ENOMEM on failure */
int strv_push_take(strv *s, char *str);    /* takes ownership of str */
bool strv_contains(const strv *s, const char *str);
void strv_free(strv *s);
/* Splits on sep, dropping empty pieces. */
int strv_split(strv *out, const char *str, char sep);
int strv_sort_cmp(const void *a, const void *b);
