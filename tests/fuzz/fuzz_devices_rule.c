/* devices_rule_parse on arbitrary lines, and the devices_rule_format round trip. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "cgfs/devices_bpf.h"

/* The access as a set of r, w, m bits. */
static int bits(const struct dev_rule *r)
{
	int b = 0;
	for (size_t i = 0; i < sizeof(r->access) && r->access[i]; i++)
		b |= r->access[i] == 'r' ? 1 : r->access[i] == 'w' ? 2 : r->access[i] == 'm' ? 4 : 8;
	return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dev_rule r, back, again;
	char text[DEVICES_RULE_MAX], text2[DEVICES_RULE_MAX];
	char *line = strndup((const char *)data, size);
	if (!line)
		return 0;
	memset(&r, 0x5a, sizeof(r));
	if (devices_rule_parse(line, &r) == 0) {
		FUZZ_CHECK(devices_rule_valid(&r));
		FUZZ_CHECK(memchr(r.access, '\0', sizeof(r.access)) != NULL);
		devices_rule_format(&r, text, sizeof(text));
		FUZZ_CHECK(strlen(text) < sizeof(text) - 1 || text[sizeof(text) - 1] == '\0');
		FUZZ_CHECK(devices_rule_parse(text, &back) == 0);
		FUZZ_CHECK(back.type == r.type && back.major == r.major && back.minor == r.minor && back.allow == r.allow);
		FUZZ_CHECK(bits(&back) == bits(&r) && (bits(&r) & 8) == 0);
		/* The formatted text is canonical: formatting the re-parsed rule gives it back. */
		devices_rule_format(&back, text2, sizeof(text2));
		FUZZ_CHECK(strcmp(text, text2) == 0);
		FUZZ_CHECK(devices_rule_parse(text2, &again) == 0);
		FUZZ_CHECK(again.type == back.type && again.major == back.major && again.minor == back.minor &&
		           again.allow == back.allow && strncmp(again.access, back.access, sizeof(back.access)) == 0);
	}
	free(line);
	return 0;
}
