/* Value syntaxes shared by keys: sizes, cpu lists, decimals and percentages. */
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys/internal.h"

/* Sizes past this would be negative in the kernel's signed counters (and v1 reads -1 as no limit). */
#define BYTES_LIMIT ((unsigned long long)INT64_MAX)
/* Decimals of a size kept exact: 10^6 times the largest suffix stays well inside 64 bits. */
#define BYTES_DECIMALS 6
/* Longer values are refused unread (and quoted only in part). */
#define VALUE_MAX 64

bool key_parse_u64(const char *s, unsigned long long *v)
{
	unsigned long long n = 0;
	if (!isdigit((unsigned char)*s))
		return false;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned d = (unsigned)(*s - '0');
		if (n > (ULLONG_MAX - d) / 10)
			return false;
		n = n * 10 + d;
	}
	if (*s)
		return false;
	*v = n;
	return true;
}

bool key_one_word(const char *s, char *buf, size_t cap)
{
	const char *p = s + strspn(s, " \t\r\n");
	size_t len = strcspn(p, " \t\r\n");
	if (len == 0 || len >= cap || p[len + strspn(p + len, " \t\r\n")])
		return false;
	memcpy(buf, p, len);
	buf[len] = '\0';
	return true;
}

bool key_split_pair(const char *s, char *a, size_t acap, char *b, size_t bcap)
{
	const char *p = s + strspn(s, " \t\r\n");
	size_t alen = strcspn(p, " \t\r\n"), blen;
	const char *q = p + alen;
	q += strspn(q, " \t\r\n");
	blen = strcspn(q, " \t\r\n");
	if (alen == 0 || blen == 0 || alen >= acap || blen >= bcap || q[blen + strspn(q + blen, " \t\r\n")])
		return false;
	memcpy(a, p, alen);
	a[alen] = '\0';
	memcpy(b, q, blen);
	b[blen] = '\0';
	return true;
}

/* The bounds of S without surrounding white space; *len is capped, as no value these parse is that long. */
static void trim(const char *s, const char **start, int *len)
{
	const char *end;
	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	*start = s;
	*len = end - s > VALUE_MAX ? VALUE_MAX + 1 : (int)(end - s);
}

static bool word_is(const char *p, int len, const char *word)
{
	return len == (int)strlen(word) && strncmp(p, word, (size_t)len) == 0;
}

bool key_parse_count(const char *s, unsigned long long *v)
{
	const char *p;
	char buf[VALUE_MAX + 1];
	int len;
	trim(s, &p, &len);
	if (len > VALUE_MAX)
		return false;
	memcpy(buf, p, (size_t)len);
	buf[len] = '\0';
	return key_parse_u64(buf, v);
}

bool key_is_max_word(const char *s)
{
	const char *p;
	int len;
	trim(s, &p, &len);
	/* Not -1: that is how v1 files spell it, and a client should not need to know. */
	return word_is(p, len, "max") || word_is(p, len, "unlimited");
}

static int suffix_shift(char c)
{
	switch (tolower((unsigned char)c)) {
	case 'k':
		return 10;
	case 'm':
		return 20;
	case 'g':
		return 30;
	case 't':
		return 40;
	default:
		return -1;
	}
}

int key_parse_bytes(const char *s, unsigned long long *out, struct err *e)
{
	const char *start, *p, *end;
	unsigned long long whole = 0, frac = 0, scale = 1, mult = 1, v;
	bool has_frac = false, overflow = false;
	int len, fdigits = 0;

	trim(s, &start, &len);
	if (len > VALUE_MAX)
		return err_set(e, ERR_INVALID, "'%.*s...' is not a size (too long)", VALUE_MAX, start);
	p = start;
	end = start + len;
	if (key_is_max_word(s)) {
		*out = KEY_BYTES_MAX;
		return 0;
	}
	if (*p == '-')
		return err_set(e, ERR_INVALID, "'%.*s' is not a size (sizes cannot be negative; max means no limit)",
		               len, start);
	if (p == end || !isdigit((unsigned char)*p))
		goto junk;
	for (; p < end && isdigit((unsigned char)*p); p++) {
		unsigned d = (unsigned)(*p - '0');
		if (whole > (ULLONG_MAX - d) / 10)
			overflow = true;
		else
			whole = whole * 10 + d;
	}
	if (p < end && *p == '.') {
		has_frac = true;
		if (++p == end || !isdigit((unsigned char)*p))
			goto junk;
		for (; p < end && isdigit((unsigned char)*p); p++, fdigits++)
			if (fdigits < BYTES_DECIMALS) {
				frac = frac * 10 + (unsigned)(*p - '0');
				scale *= 10;
			}
	}
	if (p < end) {
		int shift = suffix_shift(*p++);
		if (shift < 0)
			goto junk;
		mult = 1ULL << shift;
		if (end - p == 2 && p[0] == 'i' && p[1] == 'B')
			p += 2;
		if (p != end)
			goto junk;
	}
	if (has_frac && mult == 1)
		return err_set(e, ERR_INVALID, "'%.*s' is not a whole number of bytes (a fraction needs a suffix: 1.5G)",
		               len, start);
	if (fdigits > BYTES_DECIMALS)
		return err_set(e, ERR_INVALID, "'%.*s' has more than %d decimals", len, start, BYTES_DECIMALS);
	/* Decimals below a byte are dropped: the kernel rounds to pages anyway. */
	if (overflow || whole > BYTES_LIMIT / mult || (v = whole * mult + frac * mult / scale) > BYTES_LIMIT)
		return err_set(e, ERR_INVALID, "'%.*s' is too large (at most %llu bytes; use max for no limit)", len,
		               start, BYTES_LIMIT);
	*out = v;
	return 0;
junk:
	return err_set(e, ERR_INVALID, "'%.*s' is not a size (use bytes or K, M, G, T suffixes, or max)", len, start);
}

typedef unsigned char cpu_bits[KEY_MAX_CPUS / 8];

static int cpu_number(const char **p, unsigned long *n)
{
	unsigned long v = 0;
	if (!isdigit((unsigned char)**p))
		return -1;
	for (; isdigit((unsigned char)**p); (*p)++)
		if (v < 1000000)
			v = v * 10 + (unsigned long)(**p - '0');
	*n = v;
	return 0;
}

static void skip_blanks(const char **p)
{
	while (**p == ' ' || **p == '\t')
		(*p)++;
}

static int cpulist_bits(const char *s, cpu_bits bits, struct err *e)
{
	const char *p = s;
	memset(bits, 0, sizeof(cpu_bits));
	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return 0;
	for (;;) {
		unsigned long a, b;
		skip_blanks(&p);
		if (cpu_number(&p, &a) < 0)
			goto junk;
		b = a;
		if (*p == '-') {
			p++;
			if (cpu_number(&p, &b) < 0)
				goto junk;
			if (b < a)
				return err_set(e, ERR_INVALID, "'%lu-%lu' is a reversed range (write the lower cpu first)", a,
				               b);
		}
		if (b >= KEY_MAX_CPUS)
			return err_set(e, ERR_INVALID, "cpu %lu is out of range (cpus are numbered below %d)", b,
			               KEY_MAX_CPUS);
		for (unsigned long i = a; i <= b; i++)
			bits[i / 8] |= (unsigned char)(1u << (i % 8));
		skip_blanks(&p);
		if (*p != ',')
			break;
		p++;
	}
	while (isspace((unsigned char)*p))
		p++;
	if (*p)
		goto junk;
	return 0;
junk:
	return err_set(e, ERR_INVALID, "'%.64s' is not a cpu list (use cpu numbers and ranges: 0-3,5)", s);
}

static bool bit(const cpu_bits bits, unsigned i)
{
	return i < KEY_MAX_CPUS && (bits[i / 8] >> (i % 8)) & 1;
}

int key_parse_cpulist(const char *s, char **canonical, struct err *e)
{
	cpu_bits bits;
	/* "0-8191," is the longest a group can print, and no list has more than 4096 groups. */
	size_t cap = 4096 * 11 + 1, len = 0;
	char *out;

	if (cpulist_bits(s, bits, e) < 0)
		return -1;
	out = malloc(cap);
	if (!out)
		return key_oom(e);
	out[0] = '\0';
	for (unsigned i = 0; i < KEY_MAX_CPUS; i++) {
		unsigned j = i;
		if (!bit(bits, i))
			continue;
		while (bit(bits, j + 1))
			j++;
		/* Ranges of two print as the kernel prints them, 0-1. */
		if (j > i)
			len += (size_t)snprintf(out + len, cap - len, "%s%u-%u", len ? "," : "", i, j);
		else
			len += (size_t)snprintf(out + len, cap - len, "%s%u", len ? "," : "", i);
		i = j;
	}
	*canonical = realloc(out, len + 1) ?: out;
	return 0;
}

int key_cpulist_count(const char *s)
{
	cpu_bits bits;
	struct err e;
	int n = 0;
	if (cpulist_bits(s, bits, &e) < 0)
		return -1;
	for (unsigned i = 0; i < KEY_MAX_CPUS; i++)
		n += bit(bits, i);
	return n;
}

int key_parse_centi_num(const char *s, bool percent, long *centi)
{
	const char *p, *end;
	long whole = 0, frac = 0;
	int len, fdigits = 0;

	trim(s, &p, &len);
	if (len <= 0 || len > VALUE_MAX)
		return -1;
	end = p + len;
	if (percent && end[-1] == '%')
		end--;
	if (p == end || !isdigit((unsigned char)*p))
		return -1;
	for (; p < end && isdigit((unsigned char)*p); p++) {
		if (whole > 100000000)
			return -1;
		whole = whole * 10 + (*p - '0');
	}
	if (p < end && *p == '.') {
		if (++p == end)
			return -1;
		for (; p < end && isdigit((unsigned char)*p); p++, fdigits++) {
			if (fdigits == 2)
				return -1;
			frac = frac * 10 + (*p - '0');
		}
		if (fdigits == 0)
			return -1;
	}
	if (p != end)
		return -1;
	*centi = whole * 100 + (fdigits == 1 ? frac * 10 : frac);
	return 0;
}

int key_parse_percent(const char *s, long *centi, struct err *e)
{
	const char *p;
	int len;
	trim(s, &p, &len);
	if (key_is_max_word(s)) {
		*centi = -1;
		return 0;
	}
	if (key_parse_centi_num(s, true, centi) < 0)
		return err_set(e, ERR_INVALID,
		               "'%.*s' is not a percentage (use a number such as 50 or 12.5%%, at most 2 decimals, or max)",
		               len, p);
	if (*centi <= 0 || *centi > 10000)
		return err_set(e, ERR_INVALID, "'%.*s' is out of range (more than 0%% and at most 100%%, or max)", len, p);
	return 0;
}

const char *key_format_centi(long centi, char buf[24])
{
	long whole = centi / 100, frac = centi % 100;
	if (frac == 0)
		snprintf(buf, 24, "%ld", whole);
	else if (frac % 10 == 0)
		snprintf(buf, 24, "%ld.%ld", whole, frac / 10);
	else
		snprintf(buf, 24, "%ld.%02ld", whole, frac);
	return buf;
}
