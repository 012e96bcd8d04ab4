/*
 * libbpf, loaded (dlopen of libbpf.so.1) by the first call that needs a cgroup2 device program, not at
 * start-up: most daemons never set a device rule on cgroup2, and linking libbpf mapped it with libelf and
 * libz into every daemon (about 250 KiB of resident pages, BENCHMARKS.md). Only the calls
 * devices_bpf.c makes are looked up; their types come from libbpf's own header, so a changed signature
 * fails the build.
 */
#pragma once
#include <bpf/bpf.h>

#include "util/err.h"

/* The shared object loaded: libbpf's ABI version 1 (meson.build requires libbpf >= 1.0 to build). */
#define LIBBPF_SONAME "libbpf.so.1"

struct libbpf {
	typeof(bpf_prog_load) *prog_load;
	typeof(bpf_prog_query) *prog_query;
	typeof(bpf_prog_get_fd_by_id) *prog_get_fd_by_id;
	typeof(bpf_obj_get_info_by_fd) *obj_get_info_by_fd;
	typeof(bpf_prog_attach_opts) *prog_attach_opts;
	typeof(bpf_prog_detach2) *prog_detach2;
};

/*
 * libbpf's calls, loading the library at the first call. NULL, with e saying that device rules on cgroup2
 * need libbpf and why it could not be loaded, when it is not installed (tried again at the next call,
 * so installing it needs no restart).
 */
const struct libbpf *libbpf_lazy(struct err *e);
