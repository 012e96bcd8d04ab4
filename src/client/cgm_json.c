/* cgm: JSON output for --json, formatted by hand. */
#include <ctype.h>
#include <string.h>

#include "cgm.h"

void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

void json_strv(FILE *f, char **v)
{
	fputc('[', f);
	for (char **p = v; p && *p; p++) {
		if (p != v)
			fputc(',', f);
		json_string(f, *p);
	}
	fputs("]\n", f);
}

/* s is a number as JSON writes one: an optional '-', an integer part without leading zeros, optional decimals. */
static bool is_json_number(const char *s)
{
	const char *p = s + (*s == '-');
	if (!isdigit((unsigned char)*p) || (p[0] == '0' && isdigit((unsigned char)p[1])))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.') {
		if (!isdigit((unsigned char)*++p))
			return false;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return !*p;
}

void json_key_value(FILE *f, const char *key, const char *value)
{
	/* A cpu or node list of one ("3") is still a list; every other key whose answer is a number is a quantity. */
	bool list = strcmp(key, "cpus_allowed") == 0 || strcmp(key, "mems_allowed") == 0;
	if (!list && value && is_json_number(value))
		fputs(value, f);
	else
		json_string(f, value);
}
