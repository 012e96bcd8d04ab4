#include "scm/scm_out.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scm/scm_io.h"
#include "scm/scm_methods.h"

int scm_out_push(struct scm_out *q, const void *buf, size_t len, const struct ucred *cred)
{
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 8;
		struct scm_datagram *d = realloc(q->d, cap * sizeof(*d));
		if (!d)
			return -ENOMEM;
		q->d = d;
		q->cap = cap;
	}
	char *copy = malloc(len ? len : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, buf, len);
	q->d[q->n] = (struct scm_datagram){.buf = copy, .len = len, .has_cred = cred != NULL};
	if (cred)
		q->d[q->n].cred = *cred;
	q->n++;
	return 0;
}

int scm_out_byte(struct scm_out *q, char c)
{
	return scm_out_push(q, &c, 1, NULL);
}

int scm_out_string(struct scm_out *q, const char *s)
{
	return s ? scm_out_push(q, s, strlen(s) + 1, NULL) : scm_out_push(q, "", 0, NULL);
}

int scm_out_int32(struct scm_out *q, int32_t v)
{
	return scm_out_push(q, &v, sizeof(v), NULL);
}

int scm_out_pids(struct scm_out *q, const pid_t *pids, size_t n)
{
	int r = scm_out_int32(q, (int32_t)n);
	for (size_t i = 0; r >= 0 && i < n; i++) {
		struct ucred c = {.pid = pids[i], .uid = 0, .gid = 0};
		r = scm_out_push(q, "p", 1, &c);
	}
	return r;
}

int scm_out_blob(struct scm_out *q, int32_t count, const char *data, size_t len)
{
	uint32_t l = (uint32_t)len;
	int r = scm_out_int32(q, count);
	if (r >= 0 && count > 0)
		r = scm_out_push(q, &l, sizeof(l), NULL);
	if (r >= 0 && count > 0)
		r = scm_out_push(q, data, len, NULL);
	return r;
}

int scm_out_reason(struct scm_out *q, const char *error_name, const char *message)
{
	size_t ln = strlen(error_name), lm = strlen(message);
	char *buf = malloc(ln + lm + 3);
	int r;
	if (!buf)
		return -ENOMEM;
	buf[0] = SCM_REASON_TAG;
	memcpy(buf + 1, error_name, ln + 1);
	memcpy(buf + 2 + ln, message, lm + 1);
	r = scm_out_push(q, buf, ln + lm + 3, NULL);
	free(buf);
	return r;
}

int scm_out_flush(struct scm_out *q, int fd)
{
	while (q->sent < q->n) {
		struct scm_datagram *d = &q->d[q->sent];
		int r = scm_send(fd, d->buf, d->len, d->has_cred ? &d->cred : NULL);
		if (r == -EAGAIN)
			return 0;
		/*
		 * A task that exited meanwhile cannot be vouched for. The count is
		 * already out, so send our own pid in its place: outside our pid
		 * namespace it reads as 0, which receivers drop.
		 */
		if (r == -ESRCH && d->has_cred && d->cred.pid != getpid()) {
			d->cred.pid = getpid();
			continue;
		}
		if (r < 0)
			return r;
		q->sent++;
	}
	return 1;
}

void scm_out_free(struct scm_out *q)
{
	for (size_t i = 0; i < q->n; i++)
		free(q->d[i].buf);
	free(q->d);
	*q = (struct scm_out){0};
}
