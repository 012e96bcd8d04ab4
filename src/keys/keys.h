/*
 * The abstract key vocabulary of the cgmanager1 interface: names such as
 * memory.limit or cpus_allowed, their value syntax and canonical form, and
 * the cgroup v1 and v2 files behind each. Pure: the few facts a key needs
 * from the host (which version backs a controller, a related file's value,
 * the device number of a /dev path) come through struct key_host, so every
 * rule here is unit-testable without root. docs/keys.md is the user's view.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

enum key_access {
	KEY_READ = 1,
	KEY_WRITE = 2,
};

/*
 * The virtual file, in the devices controller's (cgroup2) hierarchy, that the
 * op layer answers with the device rules it has applied as a BPF program:
 * cgroup2 has no devices.list to read them back from.
 */
#define KEY_DEVICES_BPF_FILE "cgmanager.devices"

/* One entry of the documented vocabulary, as `cgm keys` lists it. */
struct key_doc {
	const char *name;        /* "memory.limit"; families end in ".<size>": "hugetlb_limit.<size>" */
	const char *controller;  /* abstract controller a client names to get this key: memory, cpu, cpuset, cpuacct,
	                            io, devices, freezer, pids, hugetlb, net_cls, net_prio, or "" for cgroup2 core files */
	int access;              /* KEY_READ | KEY_WRITE */
	const char *syntax;      /* value syntax accepted, and the canonical form answered */
	const char *meaning;
	const char *v1_file;     /* the main file: "memory.limit_in_bytes", or NULL when v1 has no equivalent */
	const char *v2_file;     /* "memory.max", or NULL (v2 device rules are a BPF program, not a file) */
	const char *who;         /* who may set it (or read it, for read-only keys) */
};
size_t key_doc_count(void);
const struct key_doc *key_doc_at(size_t i);
/* The doc of KEY; a family member such as hugetlb_limit.2MB finds "hugetlb_limit.<size>". NULL if unknown. */
const struct key_doc *key_doc_find(const char *key);

/* What a key needs to know of the host and of the cgroup it is applied to. */
struct key_host {
	/* 1 or 2: the version of the hierarchy backing abstract controller; 0 when none does.
	   "" names the cgroup2 core files: 2 when a unified hierarchy exists. */
	int (*version_of)(void *ctx, const char *controller);
	/* The content of FILE of the target cgroup in CONTROLLER's hierarchy; -1 with e set when unreadable.
	   *out is malloc'ed and freed by the caller. Values pending in the same request must be seen. */
	int (*read_file)(void *ctx, const char *controller, const char *file, char **out, struct err *e);
	/* Device number of PATH (a /dev node, links followed), type 'b' or 'c'; -1 with e set. */
	int (*device_of)(void *ctx, const char *path, unsigned *major, unsigned *minor, char *type, struct err *e);
	/* Number of online cpus, for cpus_fraction when no cpuset says which are allowed; NULL: sysconf. */
	int (*online_cpus)(void *ctx);
	void *ctx;
};

/* A device rule: type 'a', 'b' or 'c'; major/minor -1 for '*'; access a subset of "rwm". */
struct dev_rule {
	char type;
	int major, minor;
	char access[4];
	bool allow;
};

/* One write that setting a key takes. */
struct key_write {
	const char *controller; /* abstract controller of the hierarchy written (static string) */
	int version;            /* 1 or 2 */
	char *file;             /* relative to the cgroup's directory; NULL for a v2 device rule (rule below) */
	char *value;            /* as the kernel wants it; for a device rule also its text, "c 1:3 rwm" */
	struct dev_rule rule;   /* filled for device rules, on either version */
};
typedef struct {
	struct key_write *v;
	size_t n;
} key_writes;
void key_writes_free(key_writes *w);

/*
 * Parses VALUE for KEY and appends the writes that set it on this host to *out,
 * in the order they must be written. Refuses unknown keys, read-only keys,
 * malformed or out-of-range values, and keys with no equivalent on the
 * hierarchy that backs them here, each with a message that names the key and
 * says why. On failure *out is as it was.
 */
int key_plan_set(const struct key_host *h, const char *key, const char *value, key_writes *out, struct err *e);

/* The value of KEY in canonical form (see key_doc.syntax), read through h. *out is malloc'ed. */
int key_get(const struct key_host *h, const char *key, char **out, struct err *e);

/* The abstract controller a client names to get KEY (key_doc.controller); NULL if unknown. */
const char *key_controller(const char *key);
/*
 * The controller whose hierarchy backs KEY on this host, for the op layer to
 * pick the hierarchy: key_controller's, or "" where cgroup2 serves the key from
 * its core files (cpuacct_stat, cpu.usage, freezer.state on v2). NULL if the key
 * is unknown, its controller unavailable, or it has no equivalent here.
 */
const char *key_hierarchy_controller(const struct key_host *h, const char *key);
/*
 * Whether KEY's controller is here on a version where the key has no equivalent (memory.high where memory is a v1
 * hierarchy); why says so then, as key_plan_set would refuse it. False for keys that are unknown or available.
 */
bool key_lacks_equivalent(const struct key_host *h, const char *key, struct err *why);
/* The main file backing D here, "" if none (unavailable, no equivalent, or a v2 BPF device rule). */
const char *key_file_here(const struct key_host *h, const struct key_doc *d);

/*
 * Value syntaxes shared by several keys, exposed for unit tests and for cgm.
 * Their messages say what is wrong with the value; key_plan_set prefixes the key.
 */
#define KEY_MAX_CPUS 8192
/* "512M", "1G", "4096", "1.5G", "max", "unlimited", "-1" -> bytes; KEY_BYTES_MAX for max. */
#define KEY_BYTES_MAX ((unsigned long long)-1)
int key_parse_bytes(const char *s, unsigned long long *out, struct err *e);
/* "3,0-2" -> canonical "0-3" (sorted, merged); "" stays ""; refuses junk, reversed ranges and cpus >= 8192. */
int key_parse_cpulist(const char *s, char **canonical, struct err *e);
/* Number of cpus in a canonical or kernel cpu list ("" -> 0); -1 if it is not one. */
int key_cpulist_count(const char *s);
/* "50", "50%", "12.5%" -> hundredths of a percent (5000, 1250), 0 < p <= 100; max -> -1. */
int key_parse_percent(const char *s, long *centi, struct err *e);
/* Hundredths as the canonical decimal: 150 -> "1.5", 1250 -> "12.5", 200 -> "2". BUF of 24 bytes. */
const char *key_format_centi(long centi, char buf[24]);

/*
 * Device rules: "c 1:3 rwm", "b 8:* r", "c *:* m", "a", or a /dev path with an
 * optional access ("/dev/null rw"), several separated by commas or newlines;
 * the access defaults to rwm. Paths are resolved through h->device_of.
 */
int key_parse_dev_rules(const struct key_host *h, const char *s, bool allow, struct dev_rule **rules, size_t *n,
                        struct err *e);
/* The kernel's (v1 devices.allow) form of R: "c 1:3 rwm", "b 8:* r", "a". */
#define KEY_DEV_RULE_MAX 32
const char *key_format_dev_rule(const struct dev_rule *r, char buf[KEY_DEV_RULE_MAX]);
