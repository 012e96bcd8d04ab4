#include "dbus/owner_reserve.h"

unsigned owner_reserve(unsigned cap, unsigned preferred)
{
	return preferred < cap / 2 ? preferred : cap / 2;
}

bool owner_reserve_admits(unsigned held, unsigned members_held, unsigned cap, unsigned reserve, bool owner)
{
	if (held >= cap)
		return false;
	return owner || members_held + reserve < cap;
}

bool owner_is(uid_t euid, uid_t ruid, uid_t owner)
{
	return owner != (uid_t)-1 && euid == owner && ruid == owner;
}
