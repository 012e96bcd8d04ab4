/*
 * systemd's unit names, as the org.freedesktop.systemd1 interface takes them (systemd.unit(5)): which are
 * valid, where a slice or scope lives in the cgroup tree (a-b-c.slice is a.slice/a-b.slice/a-b-c.slice,
 * -.slice the root), and the object path of a unit (/org/freedesktop/systemd1/unit/<escaped name>). Pure.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>

#include "util/cgname.h"
#include "util/err.h"

#define UNIT_NAME_MAX 255 /* bytes, as systemd's UNIT_NAME_MAX less its NUL */
#define UNIT_ROOT_SLICE "-.slice"
#define UNIT_DEFAULT_SLICE "system.slice"
#define UNIT_OBJECT_PREFIX "/org/freedesktop/systemd1/unit/"
/* The longest object path of a unit: the prefix and three bytes for each byte of the name. */
#define UNIT_OBJECT_PATH_MAX (sizeof(UNIT_OBJECT_PREFIX) + 3 * UNIT_NAME_MAX)

enum unit_kind { UNIT_KIND_OTHER, UNIT_KIND_SLICE, UNIT_KIND_SCOPE };

/*
 * A unit name as systemd accepts one: PREFIX.TYPE of letters, digits and ":-_.\", at most 255 bytes, a
 * known type, optionally PREFIX@INSTANCE.TYPE. 0 with *kind set, or -1 with e saying why (ERR_INVALID).
 */
int unit_name_check(const char *name, enum unit_kind *kind, struct err *e);
/* A slice name as systemd accepts one: -.slice, or a plain name of dash-separated parts, none empty. */
int slice_name_check(const char *name, struct err *e);
/*
 * The cgroup of a unit, relative to the manager's root: a slice's own path, or for a scope its slice's path
 * (slice NULL: system.slice) and then its own name; each part escaped as systemd escapes cgroup names
 * (a leading "_" before names the kernel's files could clash with). -.slice is "".
 */
int unit_cgroup_path(const char *name, const char *slice, char out[CGNAME_MAX], struct err *e);
/* The slice a slice is in: a-b.slice's is a.slice, a.slice's -.slice; -1 for -.slice, which is in none. */
int slice_parent(const char *slice, char out[UNIT_NAME_MAX + 1]);
/* The unit a cgroup path (as unit_cgroup_path makes them) belongs to: its last part, unescaped. */
int unit_name_of_cgroup(const char *path, char out[UNIT_NAME_MAX + 1]);
/* /org/freedesktop/systemd1/unit/ and the name with every byte but [A-Za-z0-9] as _XX (lowercase hex). */
void unit_object_path(const char *name, char out[UNIT_OBJECT_PATH_MAX]);
/* The unit name an object path names, or -1 if it is not one of a unit's. */
int unit_name_of_object_path(const char *path, char out[UNIT_NAME_MAX + 1]);
