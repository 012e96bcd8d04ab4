#include "libbpf_lazy.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>

static struct libbpf fns;
static bool loaded;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Looks up one symbol into *slot; false (with e set) when the library lacks it. */
static bool sym(void *h, const char *name, void *slot, struct err *e)
{
	void *p = dlsym(h, name);
	if (!p) {
		err_set(e, ERR_NOT_SUPPORTED, "device rules on cgroup2 need %s >= 1.0, and the one installed lacks %s",
		        LIBBPF_SONAME, name);
		return false;
	}
	*(void **)slot = p;
	return true;
}

const struct libbpf *libbpf_lazy(struct err *e)
{
	struct libbpf f;
	void *h;
	bool ok;

	pthread_mutex_lock(&lock);
	if (loaded) {
		pthread_mutex_unlock(&lock);
		return &fns;
	}
	/* RTLD_LOCAL: its symbols serve only these pointers; the handle stays open for the process's life. */
	h = dlopen(LIBBPF_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *why = dlerror();
		pthread_mutex_unlock(&lock);
		err_set(e, ERR_NOT_SUPPORTED, "device rules on cgroup2 need %s (Debian: libbpf1), which cannot be loaded: %s",
		        LIBBPF_SONAME, why ? why : "unknown error");
		return NULL;
	}
	ok = sym(h, "bpf_prog_load", &f.prog_load, e) && sym(h, "bpf_prog_query", &f.prog_query, e) &&
	     sym(h, "bpf_prog_get_fd_by_id", &f.prog_get_fd_by_id, e) &&
	     sym(h, "bpf_obj_get_info_by_fd", &f.obj_get_info_by_fd, e) &&
	     sym(h, "bpf_prog_attach_opts", &f.prog_attach_opts, e) && sym(h, "bpf_prog_detach2", &f.prog_detach2, e);
	if (ok) {
		fns = f;
		loaded = true;
	} else {
		dlclose(h);
	}
	pthread_mutex_unlock(&lock);
	return ok ? &fns : NULL;
}
