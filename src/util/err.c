#include "err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum err_kind err_kind_of_errno(int errnum)
{
	switch (errnum) {
	case EACCES:
	case EPERM:
		return ERR_ACCESS;
	case EINVAL:
	case ERANGE:
	case ENAMETOOLONG:
	case ENOTDIR:
	case EXDEV:
	case ELOOP:
		return ERR_INVALID;
	case ENOENT:
	case ESRCH:
		return ERR_NOT_FOUND;
	case EBUSY:
	case ENOTEMPTY:
	case EEXIST:
		return ERR_BUSY;
	case EOPNOTSUPP:
	case ENOSYS:
		return ERR_NOT_SUPPORTED;
	case ENOSPC:
	case EAGAIN:
	case EMFILE:
	case ENFILE:
	case ENOMEM:
		return ERR_LIMIT;
	default:
		return ERR_FAILED;
	}
}

int err_set(struct err *e, enum err_kind kind, const char *fmt, ...)
{
	va_list ap;
	e->kind = kind;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int err_errno(struct err *e, int errnum, const char *fmt, ...)
{
	va_list ap;
	size_t len;
	e->kind = err_kind_of_errno(errnum);
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	len = strlen(e->msg);
	snprintf(e->msg + len, sizeof(e->msg) - len, ": %s", strerror(errnum));
	return -1;
}
