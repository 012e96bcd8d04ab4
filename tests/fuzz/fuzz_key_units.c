/* The shared value syntaxes of the key vocabulary: bytes, cpu lists, percentages and device rules. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "keys/keys.h"

static const struct key_host host = {NULL, NULL, fuzz_device_of, NULL, NULL};

static void check_bytes(const char *s)
{
	unsigned long long v, again;
	struct err e = {0};
	char buf[32];
	if (key_parse_bytes(s, &v, &e) < 0) {
		FUZZ_CHECK(e.kind != ERR_NONE && e.msg[0]);
		return;
	}
	if (v == KEY_BYTES_MAX)
		snprintf(buf, sizeof(buf), "max");
	else
		snprintf(buf, sizeof(buf), "%llu", v);
	FUZZ_CHECK(key_parse_bytes(buf, &again, &e) == 0);
	FUZZ_CHECK(again == v);
}

static void check_cpulist(const char *s)
{
	char *canon = NULL, *again = NULL;
	struct err e = {0};
	if (key_parse_cpulist(s, &canon, &e) < 0) {
		FUZZ_CHECK(e.kind != ERR_NONE && e.msg[0]);
		FUZZ_CHECK(key_cpulist_count(s) == -1);
		return;
	}
	FUZZ_CHECK(canon);
	/* Canonical: re-parses to itself, and counts the same cpus as the input. */
	FUZZ_CHECK(key_parse_cpulist(canon, &again, &e) == 0);
	FUZZ_CHECK(strcmp(canon, again) == 0);
	int n = key_cpulist_count(canon);
	FUZZ_CHECK(n >= 0 && n <= KEY_MAX_CPUS);
	FUZZ_CHECK(n == key_cpulist_count(s));
	FUZZ_CHECK((n == 0) == (canon[0] == '\0'));
	free(canon);
	free(again);
}

static void check_percent(const char *s)
{
	long c, again;
	struct err e = {0};
	char buf[24], pct[32];
	if (key_parse_percent(s, &c, &e) < 0) {
		FUZZ_CHECK(e.kind != ERR_NONE && e.msg[0]);
		return;
	}
	FUZZ_CHECK(c == -1 || (c > 0 && c <= 10000));
	if (c == -1)
		return;
	key_format_centi(c, buf);
	FUZZ_CHECK(key_parse_percent(buf, &again, &e) == 0 && again == c);
	snprintf(pct, sizeof(pct), "%s%%", buf);
	FUZZ_CHECK(key_parse_percent(pct, &again, &e) == 0 && again == c);
}

static int access_bits(const char *a)
{
	int b = 0;
	for (size_t i = 0; i < 4 && a[i]; i++)
		b |= a[i] == 'r' ? 1 : a[i] == 'w' ? 2 : a[i] == 'm' ? 4 : 8;
	return b;
}

static void check_dev_rules(const char *s, bool allow)
{
	struct dev_rule *rules = NULL, *back = NULL;
	size_t n = 0, nb = 0;
	struct err e = {0};
	char buf[KEY_DEV_RULE_MAX];
	if (key_parse_dev_rules(&host, s, allow, &rules, &n, &e) < 0) {
		FUZZ_CHECK(e.kind != ERR_NONE && e.msg[0]);
		FUZZ_CHECK(!rules && n == 0);
		return;
	}
	FUZZ_CHECK(rules && n > 0);
	/* Each rule's kernel form parses back to the same rule. */
	for (size_t i = 0; i < n; i++) {
		const struct dev_rule *r = &rules[i];
		FUZZ_CHECK(r->allow == allow);
		FUZZ_CHECK(r->type == 'a' || r->type == 'b' || r->type == 'c');
		FUZZ_CHECK(memchr(r->access, '\0', sizeof(r->access)) && r->access[0]);
		FUZZ_CHECK((access_bits(r->access) & 8) == 0);
		key_format_dev_rule(r, buf);
		FUZZ_CHECK(key_parse_dev_rules(&host, buf, !allow, &back, &nb, &e) == 0 && nb == 1);
		FUZZ_CHECK(back[0].type == r->type && back[0].allow == !allow);
		FUZZ_CHECK(access_bits(back[0].access) == access_bits(r->access));
		if (r->type != 'a')
			FUZZ_CHECK(back[0].major == r->major && back[0].minor == r->minor);
		free(back);
		back = NULL;
	}
	free(rules);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = strndup((const char *)data, size);
	if (!s)
		return 0;
	check_bytes(s);
	check_cpulist(s);
	check_percent(s);
	check_dev_rules(s, true);
	check_dev_rules(s, false);
	free(s);
	return 0;
}
