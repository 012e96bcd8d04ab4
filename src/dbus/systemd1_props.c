/* The a(sv) of StartTransientUnit and SetUnitProperties read into struct unit_prop, for systemd1/unit_props.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dbus/systemd1_internal.h"

#define PROPS_MAX 1024 /* properties in one call; systemd-run sends a dozen */

static int read_pairs(sd_bus_message *m, bool numbers, struct unit_prop *p)
{
	struct unit_prop_pair *pairs = NULL;
	size_t n = 0;
	int r = sd_bus_message_enter_container(m, 'a', numbers ? "(st)" : "(ss)");
	while (r >= 0) {
		struct unit_prop_pair one = {0};
		r = numbers ? sd_bus_message_read(m, "(st)", &one.first, &one.number)
		            : sd_bus_message_read(m, "(ss)", &one.first, &one.second);
		if (r <= 0)
			break;
		struct unit_prop_pair *grown = realloc(pairs, (n + 1) * sizeof(*grown));
		if (!grown) {
			r = -ENOMEM;
			break;
		}
		pairs = grown;
		pairs[n++] = one;
	}
	p->pairs = pairs;
	p->n = n;
	return r < 0 ? r : sd_bus_message_exit_container(m);
}

/* The variant's value by its signature; a signature no property has is skipped, for the decoder to judge. */
static int read_value(sd_bus_message *m, const char *sig, struct unit_prop *p)
{
	const void *data;
	size_t size;
	uint32_t u32;
	int32_t i32;
	int b, r;

	if (strcmp(sig, "t") == 0)
		return sd_bus_message_read(m, "t", &p->u);
	if (strcmp(sig, "u") == 0) {
		r = sd_bus_message_read(m, "u", &u32);
		p->u = u32;
		return r;
	}
	if (strcmp(sig, "b") == 0) {
		r = sd_bus_message_read(m, "b", &b);
		p->u = b != 0;
		return r;
	}
	if (strcmp(sig, "x") == 0)
		return sd_bus_message_read(m, "x", &p->i);
	if (strcmp(sig, "i") == 0) {
		r = sd_bus_message_read(m, "i", &i32);
		p->i = i32;
		return r;
	}
	if (strcmp(sig, "s") == 0)
		return sd_bus_message_read(m, "s", &p->s);
	if (strcmp(sig, "ay") == 0 || strcmp(sig, "au") == 0) {
		r = sd_bus_message_read_array(m, sig[1], &data, &size);
		if (sig[1] == 'y') {
			p->bytes = data;
			p->n = size;
		} else {
			p->u32 = data;
			p->n = size / sizeof(uint32_t);
		}
		return r;
	}
	if (strcmp(sig, "a(ss)") == 0 || strcmp(sig, "a(st)") == 0)
		return read_pairs(m, sig[3] == 't', p);
	return sd_bus_message_skip(m, sig);
}

int sd1_props_read(sd_bus_message *m, struct unit_prop **props, size_t *n)
{
	struct unit_prop *v = NULL;
	size_t count = 0;
	int r = sd_bus_message_enter_container(m, 'a', "(sv)");
	while (r >= 0 && (r = sd_bus_message_enter_container(m, 'r', "sv")) > 0) {
		struct unit_prop p = {0};
		const char *sig;
		char type;
		if (count == PROPS_MAX) {
			r = -E2BIG;
			break;
		}
		if ((r = sd_bus_message_read(m, "s", &p.name)) < 0 || (r = sd_bus_message_peek_type(m, &type, &sig)) < 0)
			break;
		if (!(p.sig = strdup(sig))) {
			r = -ENOMEM;
			break;
		}
		struct unit_prop *grown = realloc(v, (count + 1) * sizeof(*grown));
		if (!grown) {
			free((char *)p.sig);
			r = -ENOMEM;
			break;
		}
		v = grown;
		v[count++] = p;
		if ((r = sd_bus_message_enter_container(m, 'v', p.sig)) < 0 ||
		    (r = read_value(m, p.sig, &v[count - 1])) < 0 || (r = sd_bus_message_exit_container(m)) < 0 ||
		    (r = sd_bus_message_exit_container(m)) < 0)
			break;
	}
	if (r >= 0)
		r = sd_bus_message_exit_container(m);
	if (r < 0) {
		sd1_props_free(v, count);
		return r;
	}
	*props = v;
	*n = count;
	return 0;
}

void sd1_props_free(struct unit_prop *props, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)props[i].sig);
		free((void *)props[i].pairs);
	}
	free(props);
}
