/* idmap_parse on arbitrary uid_map text, then idmap_to_host and idmap_to_ns on the map. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "cgfs/idmap.h"

static bool overlaps(const struct idmap *m, bool host)
{
	for (int i = 0; i < m->n; i++)
		for (int j = i + 1; j < m->n; j++) {
			uint64_t a = host ? m->e[i].host_first : m->e[i].ns_first;
			uint64_t b = host ? m->e[j].host_first : m->e[j].ns_first;
			if (a < b + m->e[j].count && b < a + m->e[i].count)
				return true;
		}
	return false;
}

/* Maps id both ways and checks what must hold. */
static void probe(const struct idmap *m, uint32_t id, bool inverse)
{
	uint32_t h, n;
	if (idmap_to_host(m, id, &h)) {
		FUZZ_CHECK(idmap_to_ns(m, h, &n));
		if (inverse)
			FUZZ_CHECK(n == id);
	} else {
		/* Unmapped: no extent covers it on the namespace side. */
		for (int i = 0; i < m->n; i++)
			FUZZ_CHECK(!(id >= m->e[i].ns_first && id - m->e[i].ns_first < m->e[i].count));
	}
	if (idmap_to_ns(m, id, &n)) {
		FUZZ_CHECK(idmap_to_host(m, n, &h));
		if (inverse)
			FUZZ_CHECK(h == id);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct idmap m, again;
	char *text = strndup((const char *)data, size);
	if (!text)
		return 0;
	if (idmap_parse(text, &m) == 0) {
		FUZZ_CHECK(m.n >= 0 && m.n <= IDMAP_MAX_EXTENTS);
		for (int i = 0; i < m.n; i++) {
			const struct idmap_extent *e = &m.e[i];
			FUZZ_CHECK(e->count > 0);
			FUZZ_CHECK((uint64_t)e->ns_first + e->count - 1 <= UINT32_MAX);
			FUZZ_CHECK((uint64_t)e->host_first + e->count - 1 <= UINT32_MAX);
		}
		/* The kernel's format of the map parses back to it. */
		size_t cap = (size_t)m.n * 40 + 1, len = 0;
		char *buf = malloc(cap);
		FUZZ_CHECK(buf);
		buf[0] = '\0';
		for (int i = 0; i < m.n; i++)
			len += (size_t)snprintf(buf + len, cap - len, "%10u %10u %10u\n", m.e[i].ns_first, m.e[i].host_first,
			                        m.e[i].count);
		FUZZ_CHECK(idmap_parse(buf, &again) == 0);
		FUZZ_CHECK(again.n == m.n && memcmp(again.e, m.e, (size_t)m.n * sizeof(m.e[0])) == 0);
		free(buf);
		/* Without overlaps (the kernel refuses them) the two directions are inverses. */
		bool inverse = !overlaps(&m, false) && !overlaps(&m, true);
		for (int i = 0; i < m.n && i < 64; i++) {
			const struct idmap_extent *e = &m.e[i];
			probe(&m, e->ns_first, inverse);
			probe(&m, e->ns_first + e->count - 1, inverse);
			probe(&m, e->host_first, inverse);
			probe(&m, e->host_first + e->count - 1, inverse);
			if (e->ns_first)
				probe(&m, e->ns_first - 1, inverse);
			probe(&m, e->ns_first + e->count, inverse);
		}
		probe(&m, 0, inverse);
		probe(&m, UINT32_MAX, inverse);
		if (size >= 4) {
			uint32_t id;
			memcpy(&id, data + size - 4, 4);
			probe(&m, id, inverse);
		}
	}
	free(text);
	return 0;
}
