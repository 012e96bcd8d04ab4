#include "cgfs/devices_bpf.h"
#include "check.h"

static const char *fmt(const struct dev_rule *r, char buf[DEVICES_RULE_MAX])
{
	devices_rule_format(r, buf, DEVICES_RULE_MAX);
	return buf;
}

static void format_writes_stars_and_canonical_access(void)
{
	char buf[DEVICES_RULE_MAX];
	CHECK_STR(fmt(&(struct dev_rule){'c', 1, 3, "rw", true}, buf), "c 1:3 rw allow");
	CHECK_STR(fmt(&(struct dev_rule){'a', -1, -1, "rwm", false}, buf), "a *:* rwm deny");
	CHECK_STR(fmt(&(struct dev_rule){'b', 8, -1, "mwr", false}, buf), "b 8:* rwm deny");
	CHECK_STR(fmt(&(struct dev_rule){'c', 4095, 1048575, "rwm", true}, buf), "c 4095:1048575 rwm allow");
}

static void parse_reads_what_format_writes(void)
{
	const char *lines[] = {"c 1:3 rw allow", "a *:* rwm deny", "b 8:* m deny", "c *:5 w allow", "c 0:0 r allow",
	                       "c 4095:1048575 rwm allow"};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct dev_rule r;
		char buf[DEVICES_RULE_MAX];
		CHECK(devices_rule_parse(lines[i], &r) == 0);
		CHECK(devices_rule_valid(&r));
		CHECK_STR(fmt(&r, buf), lines[i]);
	}
}

static void parse_fields(void)
{
	struct dev_rule r;
	CHECK(devices_rule_parse("  b\t8:16   wr  deny\n", &r) == 0);
	CHECK(r.type == 'b' && r.major == 8 && r.minor == 16 && !r.allow);
	CHECK_STR(r.access, "wr");
	CHECK(devices_rule_parse("a *:* rwm allow", &r) == 0);
	CHECK(r.type == 'a' && r.major == -1 && r.minor == -1 && r.allow);
}

static void parse_refuses_junk(void)
{
	struct dev_rule r = {'c', 1, 3, "r", true};
	const char *bad[] = {"", "c", "c 1:3", "c 1:3 rw", "c 1:3 rw allow extra", "x 1:3 rw allow", "cc 1:3 rw allow",
	                     "c 1 rw allow", "c 1:3: rw allow", "c :3 rw allow", "c 1: rw allow", "c -1:3 rw allow",
	                     "c +1:3 rw allow", "c 1:3x rw allow", "c 4096:0 rw allow", "c 0:1048576 rw allow",
	                     "c 99999999999:0 r allow", "c 1:3 rwx allow", "c 1:3 rr allow", "c 1:3 rwmr allow",
	                     "c 1:3 - allow", "c 1:3 rw permit", "c 1:3 rw Allow", "c **:3 rw allow"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (devices_rule_parse(bad[i], &r) == 0)
			fprintf(stderr, "    accepted '%s'\n", bad[i]);
		CHECK(devices_rule_parse(bad[i], &r) < 0);
	}
	/* A refused line leaves the rule as it was. */
	CHECK(r.type == 'c' && r.major == 1 && r.minor == 3 && r.allow);
}

static void valid_checks_struct_rules(void)
{
	CHECK(devices_rule_valid(&(struct dev_rule){'c', 1, 3, "rwm", true}));
	CHECK(!devices_rule_valid(&(struct dev_rule){'c', 1, 3, "", true}));
	CHECK(!devices_rule_valid(&(struct dev_rule){'d', 1, 3, "r", true}));
	CHECK(!devices_rule_valid(&(struct dev_rule){'c', -2, 3, "r", true}));
	CHECK(!devices_rule_valid(&(struct dev_rule){'c', 1, 1 << 20, "r", true}));
	CHECK(!devices_rule_valid(&(struct dev_rule){'c', 1, 3, {'r', 'w', 'm', 'r'}, true}));
}

int main(void)
{
	RUN(format_writes_stars_and_canonical_access);
	RUN(parse_reads_what_format_writes);
	RUN(parse_fields);
	RUN(parse_refuses_junk);
	RUN(valid_checks_struct_rules);
	return CHECK_EXIT();
}
