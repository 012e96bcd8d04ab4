/* cgm: what the verb tables (cgm.c: 0.42 verbs, cgm_keys.c: cgmanager1 verbs) and the JSON output share. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cgmanager.h"

struct verb {
	const char *name;
	int min_args, max_args;
	const char *args;
	const char *help;
	int (*run)(cgm_client *c, char **argv, int argc, cgm_error *err);
	/* NULL, or checks the arguments before connecting: prints why and returns -EINVAL when they are wrong. */
	int (*check)(const struct verb *v, char **argv, int argc);
};

/* The cgmanager1 verbs. */
extern const struct verb key_verbs[];
extern const size_t n_key_verbs;

/* cgm watch (cgm_watch.c). */
int cgm_watch_run(cgm_client *c, char **argv, int argc, cgm_error *err);

/* --json was given. */
extern bool opt_json;

/* Prints "Usage: cgm VERB ARGS" on stderr. */
void verb_usage(const struct verb *v);
/* Decimal from min to max; prints why and returns -EINVAL otherwise. */
int parse_int(const char *s, const char *what, long min, long max, long *out);

/* s as a JSON string: quoted, with '"', '\' and control characters escaped. */
void json_string(FILE *f, const char *s);
/*
 * The value of key as 'cgm get --json' prints it: a JSON number when the daemon's answer is a number (1048576,
 * 1.5, 20), a string otherwise ("max", "12.5%", "10:1"); cpus_allowed's cpu lists are always strings.
 */
void json_key_value(FILE *f, const char *key, const char *value);
/* v as a JSON array of strings, and a newline. */
void json_strv(FILE *f, char **v);
