#include "check.h"
#include "dbus/owner_reserve.h"

/* The defaults: 8 of 128 connections, 4 of 32 Scm exchanges; a cap too small for both keeps half. */
static void reserve_is_at_most_half_the_cap(void)
{
	CHECK(owner_reserve(128, 8) == 8);
	CHECK(owner_reserve(32, 4) == 4);
	CHECK(owner_reserve(3, 8) == 1);
	CHECK(owner_reserve(2, 8) == 1);
	CHECK(owner_reserve(1, 8) == 0);
	CHECK(owner_reserve(0, 8) == 0);
}

/* Members together stop at cap less the reserve, whoever of them holds what. */
static void members_stop_short_of_the_reserve(void)
{
	CHECK(owner_reserve_admits(0, 0, 128, 8, false));
	CHECK(owner_reserve_admits(119, 119, 128, 8, false));
	CHECK(!owner_reserve_admits(120, 120, 128, 8, false));
	/* The owner's own do not count against the members. */
	CHECK(owner_reserve_admits(125, 119, 128, 8, false));
	CHECK(!owner_reserve_admits(126, 120, 128, 8, false));
}

/* The owner reaches the cap and no further: never more than the account had before the reserve. */
static void owner_reaches_the_cap_and_no_further(void)
{
	CHECK(owner_reserve_admits(120, 120, 128, 8, true));
	CHECK(owner_reserve_admits(127, 120, 128, 8, true));
	CHECK(!owner_reserve_admits(128, 120, 128, 8, true));
	CHECK(!owner_reserve_admits(128, 0, 128, 8, true));
	CHECK(!owner_reserve_admits(32, 0, 32, 4, true));
}

/* The account's total is the cap whatever the mix: members never take the owner's share, nor the owner more. */
static void total_never_passes_the_cap(void)
{
	for (unsigned members = 0; members <= 40; members++)
		for (unsigned owners = 0; owners <= 40; owners++) {
			unsigned held = members + owners;
			if (owner_reserve_admits(held, members, 32, 4, false))
				CHECK(held < 32 && members < 28);
			if (owner_reserve_admits(held, members, 32, 4, true))
				CHECK(held < 32);
		}
}

/* Without a reserve (a cap of 1), members and owner share as one. */
static void no_reserve_shares_as_one(void)
{
	CHECK(owner_reserve_admits(0, 0, 1, 0, false));
	CHECK(!owner_reserve_admits(1, 0, 1, 0, false));
	CHECK(!owner_reserve_admits(1, 1, 1, 0, true));
}

/* The owner's uid, effective and real; a set-uid program of the owner run by a member is the member's. */
static void owner_by_both_uids(void)
{
	CHECK(owner_is(100000, 100000, 100000));
	CHECK(!owner_is(100000, 101000, 100000));
	CHECK(!owner_is(101000, 100000, 100000));
	CHECK(!owner_is(101000, 101000, 100000));
	CHECK(!owner_is((uid_t)-1, (uid_t)-1, (uid_t)-1));
}

int main(void)
{
	RUN(reserve_is_at_most_half_the_cap);
	RUN(members_stop_short_of_the_reserve);
	RUN(owner_reaches_the_cap_and_no_further);
	RUN(total_never_passes_the_cap);
	RUN(no_reserve_shares_as_one);
	RUN(owner_by_both_uids);
	return CHECK_EXIT();
}
