/* Shared between the files of the keys module; not for the rest of cgmanager. */
#pragma once
#include "keys/keys.h"

#define KEY_FILE_MAX 96
/* v1 reports "no limit" as PAGE_COUNTER_MAX pages (or a huge-page multiple below it): read 4 EiB and up as max. */
#define KEY_V1_UNLIMITED (1ULL << 62)

enum { KEY_ON_V1 = 1 << 1, KEY_ON_V2 = 1 << 2 };

struct key_def;

/* A key as named, resolved against the host: which hierarchy and file back it. */
struct key_ref {
	const struct key_host *h;
	const struct key_def *def;
	const char *key;          /* as the client named it: "hugetlb_limit.2MB" */
	const char *ctrl;         /* controller of the hierarchy that backs it here ("" for cgroup2 core) */
	int version;              /* 1 or 2 */
	char file[KEY_FILE_MAX];  /* this version's main file, <size> filled in; "" when it has none */
	char size[24];            /* a family member's size: "2MB" */
};

typedef int (*key_plan_fn)(const struct key_ref *k, const char *value, key_writes *out, struct err *e);
typedef int (*key_get_fn)(const struct key_ref *k, char **out, struct err *e);

struct key_def {
	struct key_doc doc;        /* first, so that a key_doc pointer into the table is also a key_def pointer */
	const char *v2_controller; /* the hierarchy on v2 when it is not doc.controller's ("" for core files) */
	int on;                    /* KEY_ON_V1 | KEY_ON_V2: versions where the key has an equivalent */
	int arg;                   /* for functions shared by variants: allow/deny, read/write */
	key_plan_fn plan;          /* NULL for read-only keys */
	key_get_fn get;            /* NULL for write-only keys */
};

/* vocab.c */
const struct key_def *key_def_find(const char *key, const char **size);
/* Finds KEY and the hierarchy and file that back it here; refuses unknown, unavailable and no-equivalent keys. */
int key_resolve(const struct key_host *h, const char *key, struct key_ref *k, struct err *e);

/* writes.c */
int key_push(key_writes *w, const struct key_ref *k, const char *file, char *value_taken, struct err *e);
int key_push_fmt(key_writes *w, const struct key_ref *k, const char *file, struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void key_writes_truncate(key_writes *w, size_t n);
int key_oom(struct err *e);

/* hostio.c: reading the backing files through the host */
int key_read(const struct key_ref *k, const char *ctrl, const char *file, char **out, struct err *e);
/* A file holding one number; "max" reads as KEY_BYTES_MAX, and so does v1's no-limit value when unlimited_v1. */
int key_read_u64(const struct key_ref *k, const char *ctrl, const char *file, bool unlimited_v1,
                 unsigned long long *v, struct err *e);
/* The number after NAME in a flat-keyed file ("max 3" in memory.events); *found false when NAME is missing. */
int key_read_field(const struct key_ref *k, const char *ctrl, const char *file, const char *name,
                   unsigned long long *v, bool *found, struct err *e);
/* The number on the line "NAME N" of TEXT; false when absent or not a number. */
bool key_field_of(const char *text, const char *name, unsigned long long *v);
int key_answer(char **out, const char *s, struct err *e);
int key_answer_fmt(char **out, struct err *e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* TEXT without trailing white space, in place. */
char *key_rstrip(char *text);

/* units.c */
/* Decimal with at most two decimals ("1.5", "2", "0.25") -> hundredths; optional trailing '%' when percent. */
int key_parse_centi_num(const char *s, bool percent, long *centi);
/* A whole decimal number without sign; false for junk or overflow. */
bool key_parse_u64(const char *s, unsigned long long *v);
/* The same, with white space around it allowed. */
bool key_parse_count(const char *s, unsigned long long *v);
/* "max", "unlimited" or "-1". */
bool key_is_max_word(const char *s);
/* One word with white space around it allowed, into BUF; false otherwise or when too long. */
bool key_one_word(const char *s, char *buf, size_t cap);
/* Exactly two words separated by white space ("8:0 500"), into A and B; false otherwise or when too long. */
bool key_split_pair(const char *s, char *a, size_t acap, char *b, size_t bcap);

/* devices.c */
/* "8:0" or a /dev path of a block device -> its number, for per-device keys. */
int key_parse_block_dev(const struct key_host *h, const char *s, unsigned *major, unsigned *minor, struct err *e);

/* plan.c */
int key_plan_bytes(const struct key_ref *k, const char *value, key_writes *out, struct err *e);
int key_plan_memory_limit(const struct key_ref *k, const char *value, key_writes *out, struct err *e);
int key_plan_swap_limit(const struct key_ref *k, const char *value, key_writes *out, struct err *e);
int key_plan_cpulist(const struct key_ref *k, const char *value, key_writes *out, struct err *e);
int key_plan_pids(const struct key_ref *k, const char *value, key_writes *out, struct err *e);
int key_plan_devices(const struct key_ref *k, const char *value, key_writes *out, struct err *e);
int key_plan_ifpriomap(const struct key_ref *k, const char *value, key_writes *out, struct err *e);
int key_plan_classid(const struct key_ref *k, const char *value, key_writes *out, struct err *e);
int key_plan_freezer(const struct key_ref *k, const char *value, key_writes *out, struct err *e);

/* plan_cpu.c */
int key_plan_cpus_fraction(const struct key_ref *k, const char *value, key_writes *out, struct err *e);
int key_plan_cpus_number(const struct key_ref *k, const char *value, key_writes *out, struct err *e);
int key_plan_cpu_share(const struct key_ref *k, const char *value, key_writes *out, struct err *e);
int key_plan_cpu_period(const struct key_ref *k, const char *value, key_writes *out, struct err *e);
/* The number of cpus the cgroup may run on: its cpuset's effective cpus, else the online ones. */
int key_allowed_cpus(const struct key_ref *k, struct err *e);

/* plan_io.c */
int key_plan_blkio_weight(const struct key_ref *k, const char *value, key_writes *out, struct err *e);
int key_plan_weight_device(const struct key_ref *k, const char *value, key_writes *out, struct err *e);
int key_plan_throttle(const struct key_ref *k, const char *value, key_writes *out, struct err *e);

/* get.c */
int key_get_limit(const struct key_ref *k, char **out, struct err *e);
int key_get_number(const struct key_ref *k, char **out, struct err *e);
int key_get_text(const struct key_ref *k, char **out, struct err *e);
int key_get_failcnt(const struct key_ref *k, char **out, struct err *e);
int key_get_swap_limit(const struct key_ref *k, char **out, struct err *e);
int key_get_swap_usage(const struct key_ref *k, char **out, struct err *e);
int key_get_cpulist(const struct key_ref *k, char **out, struct err *e);
int key_get_devices_list(const struct key_ref *k, char **out, struct err *e);
int key_get_classid(const struct key_ref *k, char **out, struct err *e);
int key_get_freezer(const struct key_ref *k, char **out, struct err *e);

/* get_cpu.c */
/* The cgroup's cpu bandwidth quota (-1 for none) and period, in microseconds. */
int key_read_quota(const struct key_ref *k, long long *quota, long long *period, struct err *e);
int key_get_cpus_fraction(const struct key_ref *k, char **out, struct err *e);
int key_get_cpus_number(const struct key_ref *k, char **out, struct err *e);
int key_get_cpu_share(const struct key_ref *k, char **out, struct err *e);
int key_get_cpu_period(const struct key_ref *k, char **out, struct err *e);
int key_get_cpuacct_stat(const struct key_ref *k, char **out, struct err *e);
int key_get_cpu_usage(const struct key_ref *k, char **out, struct err *e);

/* get_io.c */
int key_get_blkio_weight(const struct key_ref *k, char **out, struct err *e);
int key_get_weight_device(const struct key_ref *k, char **out, struct err *e);
int key_get_throttle(const struct key_ref *k, char **out, struct err *e);
