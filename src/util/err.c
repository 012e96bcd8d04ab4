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

/* A message cut short must not end inside a UTF-8 sequence: D-Bus refuses to send invalid UTF-8. */
static void trim_partial_utf8(char *s, size_t len)
{
	size_t i = len, cont = 0, need;
	while (i > 0 && cont < 3 && ((unsigned char)s[i - 1] & 0xC0) == 0x80) {
		i--;
		cont++;
	}
	if (i == 0)
		return;
	unsigned char lead = (unsigned char)s[i - 1];
	need = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : 0;
	if (need > cont)
		s[i - 1] = '\0';
}

int err_set(struct err *e, enum err_kind kind, const char *fmt, ...)
{
	va_list ap;
	int n;
	e->kind = kind;
	va_start(ap, fmt);
	n = vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(e->msg))
		trim_partial_utf8(e->msg, strlen(e->msg));
	return -1;
}

int err_errno(struct err *e, int errnum, const char *fmt, ...)
{
	va_list ap;
	size_t len;
	e->kind = err_kind_of_errno(errnum);
	va_start(ap, fmt);
	if (vsnprintf(e->msg, sizeof(e->msg), fmt, ap) >= (int)sizeof(e->msg))
		trim_partial_utf8(e->msg, strlen(e->msg));
	va_end(ap);
	len = strlen(e->msg);
	snprintf(e->msg + len, sizeof(e->msg) - len, ": %s", strerror(errnum));
	return -1;
}

int err_prefix(struct err *e, const char *prefix)
{
	char msg[sizeof(e->msg)];
	memcpy(msg, e->msg, sizeof(msg));
	return err_set(e, e->kind, "%s: %s", prefix, msg);
}

int err_append(struct err *e, const char *text)
{
	size_t len = strlen(e->msg);
	if (snprintf(e->msg + len, sizeof(e->msg) - len, "%s", text) >= (int)(sizeof(e->msg) - len))
		trim_partial_utf8(e->msg, strlen(e->msg));
	return -1;
}
