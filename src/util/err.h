/* A refusal or failure with a kind a program can test and a sentence a person can act on. */
#pragma once

enum err_kind {
	ERR_NONE,
	ERR_ACCESS,        /* policy or kernel refused */
	ERR_INVALID,       /* malformed argument */
	ERR_NOT_FOUND,     /* cgroup, file, controller or task does not exist */
	ERR_BUSY,          /* cgroup populated or has children */
	ERR_NOT_SUPPORTED, /* not (yet) possible here */
	ERR_LIMIT,         /* a kernel or daemon limit was hit */
	ERR_FAILED,        /* anything else */
};

struct err {
	enum err_kind kind;
	char msg[512];
};

/* Both return -1 so that callers can write `return err_set(...)`. */
int err_set(struct err *e, enum err_kind kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Kind derived from errnum; the message ends with the kernel's reason. */
int err_errno(struct err *e, int errnum, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
enum err_kind err_kind_of_errno(int errnum);
/* Puts "PREFIX: " before the message, keeping the kind. */
int err_prefix(struct err *e, const char *prefix);
/* Adds text at the end of e's message (cut short where it does not fit); returns -1. */
int err_append(struct err *e, const char *text);
