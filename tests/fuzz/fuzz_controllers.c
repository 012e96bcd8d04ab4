/*
 * Controller lists, from the kernel's text to the requester's argument: the lines of /proc/self/cgroup
 * and mountinfo and the cgroup.controllers that hierarchy discovery parses (cgfs/hierarchy_parse.h), the
 * 0.42 controller argument ("memory", "cpu,memory", "name=systemd", "all"; hierarchies_select) and the key
 * API's controller list (hierarchy_for_controller, ops_key_hierarchies, ops_key_list_controllers,
 * ops_list_controllers) over the hierarchies the first two make.
 *
 * Input, split at NULs: /proc/self/cgroup text, cgroup.controllers text, mountinfo text, a 0.42
 * controller argument, then the key API's controller names, one per piece.
 */
#include <errno.h>

#include "fuzz.h"
#include "cgfs/hierarchy_parse.h"
#include "cgfs/proc.h"
#include "ops/ops.h"
#include "ops/key_api.h"

#define MAX_PIECES 16

static bool well_formed_list(const strv *l, char sep)
{
	for (size_t i = 0; i < l->n; i++)
		if (!l->v[i][0] || strchr(l->v[i], sep))
			return false;
	return l->v == NULL || l->v[l->n] == NULL;
}

static char *join(const strv *l, char sep)
{
	size_t len = 1;
	for (size_t i = 0; i < l->n; i++)
		len += strlen(l->v[i]) + 1;
	char *s = calloc(1, len);
	FUZZ_CHECK(s);
	for (size_t i = 0; i < l->n; i++) {
		if (i)
			strncat(s, &sep, 1);
		strcat(s, l->v[i]);
	}
	return s;
}

static bool same_list(const strv *a, const strv *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i], b->v[i]) != 0)
			return false;
	return true;
}

/* One /proc/self/cgroup line: agrees with proc_cgroups_parse, and its fields print back to it. */
static void check_self_line(const char *line, struct hierarchies *hs)
{
	struct hierarchy h;
	struct proc_cgroups pc;
	const char *eol = strchrnul(line, '\n');
	char *one = strndup(line, (size_t)(eol - line));
	FUZZ_CHECK(one);
	int r = hierarchy_parse_self_line(&h, one);
	if (r < 0) {
		FUZZ_CHECK(r == -EINVAL || r == -ENOMEM);
		FUZZ_CHECK(!h.name && !h.root_path && h.controllers.n == 0);
		free(one);
		return;
	}
	FUZZ_CHECK(proc_cgroups_parse(one, &pc) == 0 && pc.n == 1 && pc.e[0].id == h.id);
	FUZZ_CHECK(h.root_fd == -1 && h.root_path);
	if (h.unified) {
		FUZZ_CHECK(h.id == 0 && h.controllers.n == 0 && strcmp(h.name, "unified") == 0);
		/* The path, less a last .leaf (the daemon started in a cgroup2 task leaf). */
		char *stripped = strdup(pc.e[0].path);
		FUZZ_CHECK(stripped);
		cgroup2_strip_leaf(stripped);
		FUZZ_CHECK(strcmp(stripped, h.root_path) == 0);
		free(stripped);
	} else {
		FUZZ_CHECK(h.controllers.n > 0 && well_formed_list(&h.controllers, ','));
		FUZZ_CHECK(strcmp(pc.e[0].path, h.root_path) == 0 && h.root_path[0] == '/');
		char *name = join(&h.controllers, ',');
		FUZZ_CHECK(strcmp(name, h.name) == 0);
		/* The canonical line parses to the same hierarchy. */
		char *again_line = malloc(strlen(name) + strlen(h.root_path) + 16);
		FUZZ_CHECK(again_line);
		sprintf(again_line, "%d:%s:%s", h.id, name, h.root_path);
		struct hierarchy again;
		FUZZ_CHECK(hierarchy_parse_self_line(&again, again_line) == 0);
		FUZZ_CHECK(!again.unified && again.id == h.id && same_list(&again.controllers, &h.controllers) &&
		           strcmp(again.root_path, h.root_path) == 0);
		hierarchy_clear(&again);
		free(again_line);
		free(name);
	}
	proc_cgroups_free(&pc);
	free(one);
	/* The kernel lists each hierarchy once and binds a controller to one: keep only such lines for the host. */
	bool clash = false;
	for (size_t i = 0; i < hs->n; i++) {
		clash |= hs->h[i].id == h.id;
		for (size_t j = 0; j < h.controllers.n; j++)
			clash |= strv_contains(&hs->h[i].controllers, h.controllers.v[j]);
	}
	if (!clash && hs->n < PROC_CGROUP_MAX) {
		hs->h = realloc(hs->h, (hs->n + 1) * sizeof(*hs->h));
		FUZZ_CHECK(hs->h);
		hs->h[hs->n++] = h;
	} else {
		hierarchy_clear(&h);
	}
}

static void check_controllers_file(struct hierarchy *h, const char *text)
{
	struct hierarchy again = {0};
	FUZZ_CHECK(hierarchy_parse_controllers(h, text) == 0);
	FUZZ_CHECK(well_formed_list(&h->controllers, ' '));
	for (size_t i = 0; i < h->controllers.n; i++)
		FUZZ_CHECK(!strchr(h->controllers.v[i], '\n'));
	char *line = join(&h->controllers, ' ');
	FUZZ_CHECK(hierarchy_parse_controllers(&again, line) == 0 && same_list(&again.controllers, &h->controllers));
	strv_free(&again.controllers);
	free(line);
}

/* The kernel's mountinfo escaping (fs/proc_namespace.c: mangle, " \t\n\\"). */
static char *escape(const char *s)
{
	char *out = malloc(strlen(s) * 4 + 1), *o = out;
	FUZZ_CHECK(out);
	for (; *s; s++) {
		if (strchr(" \t\n\\", *s))
			o += sprintf(o, "\\%03o", (unsigned char)*s);
		else
			*o++ = *s;
	}
	*o = '\0';
	return out;
}

static void check_mount_line(const char *line)
{
	struct mount_entry m, again;
	int r = mountinfo_parse_line(line, &m);
	FUZZ_CHECK(r >= 0 || r == -ENOMEM);
	if (r <= 0) {
		FUZZ_CHECK(!m.root && !m.mountpoint && m.options.n == 0);
		return;
	}
	FUZZ_CHECK(m.root && m.mountpoint && well_formed_list(&m.options, ','));
	for (size_t i = 0; i < m.options.n; i++)
		FUZZ_CHECK(!strpbrk(m.options.v[i], " \n"));
	/* What the kernel would print for this mount parses to the same entry, but for NULs it never escapes. */
	char *root = escape(m.root), *mp = escape(m.mountpoint), *opts = join(&m.options, ',');
	char *text = malloc(strlen(root) + strlen(mp) + strlen(opts) + 64);
	FUZZ_CHECK(text);
	sprintf(text, "30 25 0:26 %s %s rw,nosuid - %s cgroup %s", root, mp, m.unified ? "cgroup2" : "cgroup",
	        m.options.n ? opts : "rw");
	FUZZ_CHECK(mountinfo_parse_line(text, &again) == 1);
	FUZZ_CHECK(again.unified == m.unified && strcmp(again.root, m.root) == 0 &&
	           strcmp(again.mountpoint, m.mountpoint) == 0);
	if (m.options.n)
		FUZZ_CHECK(same_list(&again.options, &m.options));
	mount_entry_free(&again);
	free(text), free(root), free(mp), free(opts);
	mount_entry_free(&m);
}

/* Does name (as a 0.42 argument names one hierarchy) denote h? */
/* A v1 hierarchy that has name as a controller or as its own name. */
static bool v1_own_name(const struct hierarchy *h, const char *name)
{
	return !h->unified && (strv_contains(&h->controllers, name) || strcmp(h->name, name) == 0);
}

/*
 * What a name in a controller list means: a v1 hierarchy's own controller or name first; only if no
 * hierarchy has it, "unified"/"cgroup2" the cgroup2 hierarchy, "systemd" name=systemd, and a controller
 * the cgroup2 hierarchy that offers it.
 */
static bool denotes(const struct hierarchies *hs, const struct hierarchy *h, const char *name)
{
	if (v1_own_name(h, name))
		return true;
	for (size_t i = 0; i < hs->n; i++)
		if (v1_own_name(&hs->h[i], name))
			return false;
	if (strcmp(name, "unified") == 0 || strcmp(name, "cgroup2") == 0)
		return h->unified;
	if (strcmp(name, "systemd") == 0)
		return v1_own_name(h, "name=systemd");
	return h->unified && strv_contains(&h->controllers, name);
}

static void check_select(const struct hierarchies *hs, const char *spec)
{
	struct hierarchy_set set;
	struct err e = {0};
	int rc = hierarchies_select(hs, spec, &set, &e);
	if (rc < 0) {
		FUZZ_CHECK(rc == -1 && e.msg[0] && e.kind != ERR_NONE);
		return;
	}
	FUZZ_CHECK(rc == 0 && set.n <= hs->n);
	int n = (int)set.n;
	struct hierarchy **out = set.h;
	for (int i = 0; i < n; i++) {
		FUZZ_CHECK(out[i] >= hs->h && out[i] < hs->h + hs->n);
		for (int j = 0; j < i; j++)
			FUZZ_CHECK(out[i] != out[j]);
	}
	if (strcmp(spec, "all") == 0) {
		FUZZ_CHECK((size_t)n == hs->n);
		return;
	}
	/* Every name denotes a selected hierarchy and every selected hierarchy is denoted by a name. */
	strv names = {0};
	FUZZ_CHECK(strv_split(&names, spec, ',') == 0 && names.n > 0);
	for (size_t k = 0; k < names.n; k++) {
		bool found = false;
		for (int i = 0; i < n; i++)
			found |= denotes(hs, out[i], names.v[k]);
		FUZZ_CHECK(found);
	}
	for (int i = 0; i < n; i++) {
		bool named = false;
		for (size_t k = 0; k < names.n; k++)
			named |= denotes(hs, out[i], names.v[k]);
		FUZZ_CHECK(named);
	}
	strv_free(&names);
}

static void check_key_api(struct ops *o, const char *const *ctrls)
{
	struct err e = {0};
	struct hierarchy_set set;
	int version;

	for (size_t i = 0; ctrls[i]; i++) {
		struct hierarchy *h = hierarchy_for_controller(o, ctrls[i], &version);
		FUZZ_CHECK(h ? (version == 1 && !h->unified) || (version == 2 && h->unified) : version == 0);
	}
	if (ops_key_hierarchies(o, ctrls, NULL, &set, &e) < 0) {
		FUZZ_CHECK(e.msg[0]);
	} else {
		/* The set holds the hierarchies behind ctrls, each once (all of them for none). */
		FUZZ_CHECK(set.n <= o->hs.n);
		for (unsigned i = 0; i < set.n; i++)
			for (unsigned j = 0; j < i; j++)
				FUZZ_CHECK(set.h[i] != set.h[j]);
		if (!ctrls[0])
			FUZZ_CHECK(set.n == o->hs.n);
		for (size_t i = 0; ctrls[i]; i++) {
			struct hierarchy *h = hierarchy_for_controller(o, ctrls[i], &version);
			bool found = false;
			for (unsigned j = 0; h && j < set.n; j++)
				found |= set.h[j] == h;
			FUZZ_CHECK(found || (!h && strncmp(ctrls[i], "name=", 5) == 0));
		}
	}

	strv names = {0}, versions = {0}, plain = {0};
	if (ops_key_list_controllers(o, &names, &versions, &e) == 0) {
		FUZZ_CHECK(names.n == versions.n);
		for (size_t i = 0; i < names.n; i++) {
			FUZZ_CHECK(strcmp(versions.v[i], "v1") == 0 || strcmp(versions.v[i], "v2") == 0);
			for (size_t j = 0; j < i; j++)
				FUZZ_CHECK(strcmp(names.v[i], names.v[j]) != 0);
			/* Listed as the version the key API then uses for it. */
			if (!strchr(names.v[i], '=')) {
				struct hierarchy *h = hierarchy_for_controller(o, names.v[i], &version);
				FUZZ_CHECK(h && version == (versions.v[i][1] - '0'));
			}
		}
	}
	/* Every v1 hierarchy by its name; cgroup2's controllers only where no v1 hierarchy is, and never "unified". */
	if (ops_list_controllers(o, &plain, &e) == 0) {
		bool any_v1 = false;
		for (size_t i = 0; i < o->hs.n; i++)
			if (!o->hs.h[i].unified) {
				any_v1 = true;
				FUZZ_CHECK(strv_contains(&plain, o->hs.h[i].name));
			}
		for (size_t i = 0; i < plain.n; i++) {
			bool named = false;
			for (size_t j = 0; j < o->hs.n; j++) {
				const struct hierarchy *h = &o->hs.h[j];
				named |= h->unified ? !any_v1 && strv_contains(&h->controllers, plain.v[i])
				                    : strcmp(h->name, plain.v[i]) == 0;
			}
			FUZZ_CHECK(named);
		}
	}
	strv_free(&names), strv_free(&versions), strv_free(&plain);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	const char *piece[MAX_PIECES + 1] = {0};
	size_t np = 0;
	struct ops o = {0};

	FUZZ_CHECK(text);
	memcpy(text, data, size);
	text[size] = '\0';
	for (char *p = text; np < MAX_PIECES && p <= text + size; p += strlen(p) + 1)
		piece[np++] = p;
	const char *self = piece[0] ? piece[0] : "", *ctrl_file = piece[1] ? piece[1] : "";
	const char *mounts = piece[2] ? piece[2] : "", *spec = piece[3] ? piece[3] : "all";

	for (const char *line = self; *line;) {
		const char *eol = strchrnul(line, '\n');
		check_self_line(line, &o.hs);
		line = *eol ? eol + 1 : eol;
	}
	for (size_t i = 0; i < o.hs.n; i++)
		if (o.hs.h[i].unified)
			check_controllers_file(&o.hs.h[i], ctrl_file);
	for (const char *line = mounts; *line;) {
		const char *eol = strchrnul(line, '\n');
		char *one = strndup(line, (size_t)(eol - line));
		FUZZ_CHECK(one);
		check_mount_line(one);
		free(one);
		line = *eol ? eol + 1 : eol;
	}
	check_select(&o.hs, spec);
	hierarchies_all(&o.hs, &o.all);
	check_key_api(&o, np > 4 ? &piece[4] : (const char *const[]){NULL});
	hierarchies_free(&o.hs);
	free(text);
	return 0;
}
