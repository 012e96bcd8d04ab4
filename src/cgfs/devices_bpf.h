/*
 * Device access control on cgroup2: a BPF_PROG_TYPE_CGROUP_DEVICE program per
 * cgroup, generated from an ordered list of rules, as the v1 devices
 * controller's devices.allow and devices.deny present them to users.
 *
 * Semantics of a rule list. The kernel asks the program about one access at a
 * time: a device type (block or char), its major:minor and the access wanted
 * (a non-empty subset of mknod, read, write). The rules are evaluated from the
 * last to the first and the first that matches decides; when none matches the
 * access is allowed by this program (the programs of the ancestors still
 * apply: they are attached with BPF_F_ALLOW_MULTI, so every program on the
 * path from the root must allow). A rule matches when
 *   - its type is 'a' (any) or the device's type ('b' or 'c'), and
 *   - its major and minor are -1 ('*') or the device's, and
 *   - for an allow rule, the access wanted is a subset of the rule's access
 *     ("c 1:3 r allow" does not decide a read-write open of /dev/null);
 *   - for a deny rule, the access wanted overlaps the rule's access
 *     ("c 1:3 w deny" denies a read-write open).
 * So "a *:* rwm deny" then "c 1:3 rwm allow" is "nothing but /dev/null", and
 * "c 1:3 w deny" alone is "everything, but /dev/null only for reading".
 * Majors are 0..4095 and minors 0..1048575 (the kernel's device numbers).
 *
 * The rules applied are also stored, as text (one rule a line, in the form of
 * devices_rule_format), in the xattr trusted.cgmanager.devices of the cgroup
 * directory: cgroup2 has no devices.list, and a restarted daemon must be able
 * to extend what it applied earlier.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>

#include "keys/keys.h"
#include "util/err.h"

/* The name of the programs cgmanager attaches (bpf_prog_info.name), and the xattr holding their rules. */
#define DEVICES_BPF_PROG_NAME "cgm_devices"
#define DEVICES_BPF_XATTR "trusted.cgmanager.devices"
/* Most rules one cgroup's program takes. */
#define DEVICES_BPF_MAX_RULES 1024
/* Room for one formatted rule with its NUL: "c 4095:1048575 rwm allow". */
#define DEVICES_RULE_MAX 32

/*
 * Replaces the device program cgmanager attached to the cgroup2 directory cgfd
 * (if any) by one enforcing rules (semantics above). Atomic for the tasks of
 * the cgroup: our previous program, found by its name, is swapped with
 * BPF_F_REPLACE; programs attached by others are left alone. With n = 0 our
 * program is detached and the stored rules removed. The xattr is written
 * before the program is attached and put back if attaching fails. Fails, with
 * e naming what and why, on an invalid rule, when the cgroupfs cannot store
 * trusted xattrs, or when the kernel refuses to load or attach the program.
 */
int devices_bpf_apply(int cgfd, const struct dev_rule *rules, size_t n, struct err *e);

/* The stored rules of cgfd, heap-allocated (none: *rules = NULL, *n = 0). */
int devices_bpf_rules(int cgfd, struct dev_rule **rules, size_t *n, struct err *e);

/* How many device programs are attached to cgfd itself: *ours named DEVICES_BPF_PROG_NAME, *others the rest. */
int devices_bpf_count(int cgfd, size_t *ours, size_t *others, struct err *e);

/* "c 1:3 rw allow", "a *:* rwm deny": type, major:minor ('*' for -1), access, verdict. */
void devices_rule_format(const struct dev_rule *r, char *out, size_t len);
/* The reverse of devices_rule_format (blanks may be repeated); 0, or -1 for a malformed line. */
int devices_rule_parse(const char *line, struct dev_rule *r);
/* True if r is a rule devices_bpf_apply takes: a known type, numbers in range, a non-empty access. */
bool devices_rule_valid(const struct dev_rule *r);
