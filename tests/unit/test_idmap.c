#include "cgfs/idmap.h"
#include "check.h"

static void identity_map_of_the_host(void)
{
	struct idmap m;
	uint32_t x;
	CHECK(idmap_parse("         0          0 4294967295\n", &m) == 0);
	CHECK(m.n == 1);
	CHECK(idmap_to_ns(&m, 1000, &x) && x == 1000);
	CHECK(idmap_to_host(&m, 0, &x) && x == 0);
}

static void container_map(void)
{
	struct idmap m;
	uint32_t x;
	CHECK(idmap_parse("0 100000 65536\n", &m) == 0);
	CHECK(idmap_to_ns(&m, 100000, &x) && x == 0);
	CHECK(idmap_to_ns(&m, 165535, &x) && x == 65535);
	CHECK(!idmap_to_ns(&m, 165536, &x));
	CHECK(!idmap_to_ns(&m, 0, &x));
	CHECK(!idmap_to_ns(&m, 99999, &x));
	CHECK(idmap_to_host(&m, 1000, &x) && x == 101000);
	CHECK(!idmap_to_host(&m, 65536, &x));
}

static void several_extents(void)
{
	struct idmap m;
	uint32_t x;
	CHECK(idmap_parse("0 1000 1\n1 200000 999\n", &m) == 0);
	CHECK(m.n == 2);
	CHECK(idmap_to_ns(&m, 1000, &x) && x == 0);
	CHECK(idmap_to_ns(&m, 200000, &x) && x == 1);
	CHECK(!idmap_to_ns(&m, 1001, &x));
}

static void malformed_maps(void)
{
	struct idmap m;
	CHECK(idmap_parse("0 100000\n", &m) < 0);
	CHECK(idmap_parse("0 100000 0\n", &m) < 0);
	CHECK(idmap_parse("a b c\n", &m) < 0);
	CHECK(idmap_parse("0 4294967295 2\n", &m) < 0); /* overflows */
	CHECK(idmap_parse("0 1 1 junk\n", &m) < 0);
	CHECK(idmap_parse("", &m) == 0 && m.n == 0);   /* an unwritten map maps nothing */
}

int main(void)
{
	RUN(identity_map_of_the_host);
	RUN(container_map);
	RUN(several_extents);
	RUN(malformed_maps);
	return CHECK_EXIT();
}
