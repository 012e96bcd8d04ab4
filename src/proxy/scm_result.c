#include "proxy/scm_result.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int scm_result_begin(struct scm_reader *r, sd_bus_message *call, const struct scm_method *m)
{
	*r = (struct scm_reader){.m = m};
	int e = sd_bus_message_new_method_return(call, &r->reply);
	if (e >= 0 && m->plain_reply[0] == SD_BUS_TYPE_ARRAY)
		e = sd_bus_message_open_container(r->reply, SD_BUS_TYPE_ARRAY, m->plain_reply + 1);
	return e < 0 ? e : 0;
}

void scm_result_buffer(struct scm_reader *r, void *scratch, size_t scratch_len, void **buf, size_t *len)
{
	if (r->block) {
		*buf = r->block;
		*len = r->len;
	} else {
		*buf = scratch;
		*len = scratch_len - 1;
	}
}

void scm_result_free(struct scm_reader *r)
{
	r->reply = sd_bus_message_unref(r->reply);
	free(r->block);
	r->block = NULL;
}

static int complete(struct scm_reader *r)
{
	int e = r->m->plain_reply[0] == SD_BUS_TYPE_ARRAY ? sd_bus_message_close_container(r->reply) : 0;
	return e < 0 ? e : SCM_RESULT_DONE;
}

/* The count a list result starts with; a negative one is the failure answer. */
static int take_count(struct scm_reader *r, const char *buf, size_t n)
{
	if (n != sizeof(r->count))
		return SCM_RESULT_REFUSED;
	memcpy(&r->count, buf, sizeof(r->count));
	if (r->count < 0)
		return SCM_RESULT_REFUSED;
	return r->count == 0 ? complete(r) : 0;
}

/* A names or keys result's block: NUL-ended names, or "name\nuid\ngid\nmode\n" per key. */
static int take_block(struct scm_reader *r, size_t n)
{
	const char *sig = r->m->plain_reply;
	int e = 0;
	if (n != r->len)
		return SCM_RESULT_REFUSED;
	for (char *p = r->block; e >= 0 && r->count-- > 0 && p < r->block + r->len;) {
		if (r->m->result == SCM_RES_NAMES) {
			e = sd_bus_message_append_basic(r->reply, sig[1], p);
			p += strlen(p) + 1;
			continue;
		}
		char name[4096];
		unsigned uid, gid, mode;
		int used = 0;
		if (sscanf(p, "%4095[^\n]\n%u\n%u\n%u\n%n", name, &uid, &gid, &mode, &used) != 4 || used == 0)
			return -EPROTO;
		e = sd_bus_message_append(r->reply, sig + 1, name, uid, gid, mode);
		p += used;
	}
	return e < 0 ? e : complete(r);
}

int scm_result_take(struct scm_reader *r, char *buf, size_t n, const struct ucred *c, bool have)
{
	const char *sig = r->m->plain_reply;
	int part = r->parts++, e;

	switch (r->m->result) {
	case SCM_RES_STATUS:
	case SCM_RES_CREATE:
	case SCM_RES_REMOVE:
		if (n != 1 || buf[0] == '0')
			return SCM_RESULT_REFUSED;
		/* Whether the cgroup was there, for the plain methods that say it. */
		if (*sig && (e = sd_bus_message_append_basic(r->reply, *sig, &(int32_t){buf[0] == '2' ? 1 : -1})) < 0)
			return e;
		return complete(r);
	case SCM_RES_STRING:
		if (n == 0)
			return SCM_RESULT_REFUSED;
		buf[n] = '\0';
		e = sd_bus_message_append_basic(r->reply, *sig, buf);
		return e < 0 ? e : complete(r);
	case SCM_RES_PIDS:
		if (part == 0)
			return take_count(r, buf, n);
		/* 0: a task this namespace cannot see. */
		if (have && c->pid > 0 && (e = sd_bus_message_append_basic(r->reply, sig[1], &c->pid)) < 0)
			return e;
		return part >= r->count ? complete(r) : 0;
	case SCM_RES_NAMES:
	case SCM_RES_KEYS:
		if (part == 0)
			return take_count(r, buf, n);
		if (part == 1) {
			if (n != sizeof(r->len))
				return SCM_RESULT_REFUSED;
			memcpy(&r->len, buf, sizeof(r->len));
			return (r->block = calloc(1, (size_t)r->len + 1)) ? 0 : -ENOMEM;
		}
		return take_block(r, n);
	}
	return -EINVAL;
}

int scm_result_reply_refusal(sd_bus_message *call, const struct scm_method *m, char *buf, ssize_t n)
{
	if (buf && n > 2 && buf[0] == SCM_REASON_TAG) {
		buf[n] = '\0';
		const char *name = buf + 1, *msg = name + strlen(name) + 1;
		if (msg < buf + n)
			return sd_bus_reply_method_errorf(call, name, "%s", msg);
	}
	return sd_bus_reply_method_errorf(call, SD_BUS_ERROR_FAILED, "cgmanager refused %s", m->name);
}
