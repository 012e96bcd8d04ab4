#include "proxy/upstream.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cgmanager_wire.h"
#include "ops/victim.h"
#include "scm/scm_io.h"
#include "util/log.h"

#define CALL_TIMEOUT_USEC (5ULL * 1000000ULL)
#define STEP_TIMEOUT_MS 2000

int upstream_ensure(struct upstream *u)
{
	char address[4200];
	int r;
	if (u->bus && sd_bus_is_open(u->bus) > 0)
		return 0;
	upstream_close(u);
	snprintf(address, sizeof(address), "unix:path=%s", u->path);
	if ((r = sd_bus_new(&u->bus)) < 0 || (r = sd_bus_set_address(u->bus, address)) < 0 ||
	    (r = sd_bus_negotiate_fds(u->bus, 1)) < 0 || (r = sd_bus_start(u->bus)) < 0) {
		upstream_close(u);
		return r;
	}
	log_info("connected to cgmanager at %s", u->path);
	return 0;
}

void upstream_close(struct upstream *u)
{
	u->bus = sd_bus_flush_close_unref(u->bus);
}

static bool gone(int r)
{
	return r == -ECONNRESET || r == -ENOTCONN || r == -EPIPE || r == -ECONNREFUSED || r == -ENOENT;
}

static int reply_errno(sd_bus_message *m, int r, const char *what)
{
	return sd_bus_reply_method_errorf(m, gone(r) ? SD_BUS_ERROR_NO_SERVER : SD_BUS_ERROR_FAILED,
	                                  "cgproxy: %s: %s", what, strerror(-r));
}

/* Copies the plain call's arguments that the Scm call also has; the rest become the second credential. */
static int build_call(struct upstream *u, struct scm_request *q, int fd, sd_bus_message **out)
{
	sd_bus_message *call = NULL;
	int32_t ints[2];
	int ni = 0, r;
	size_t ncopy = strlen(q->m->args);

	r = sd_bus_message_new_method_call(u->bus, &call, NULL, CGMANAGER_OBJECT_PATH, CGMANAGER_IFACE0, q->m->name);
	r = r < 0 ? r : sd_bus_message_rewind(q->plain, true);
	for (const char *t = q->m->plain_args; r >= 0 && *t; t++) {
		bool copy = (size_t)(t - q->m->plain_args) < ncopy;
		if (*t == 's') {
			const char *s;
			r = sd_bus_message_read_basic(q->plain, 's', &s);
			if (r >= 0 && copy)
				r = sd_bus_message_append_basic(call, 's', s);
		} else {
			int32_t v;
			r = sd_bus_message_read_basic(q->plain, 'i', &v);
			if (r >= 0 && copy)
				r = sd_bus_message_append_basic(call, 'i', &v);
			else if (r >= 0 && ni < 2)
				ints[ni++] = v;
		}
	}
	if (r >= 0)
		r = sd_bus_message_append_basic(call, 'h', &fd);
	if (r < 0) {
		sd_bus_message_unref(call);
		return r;
	}
	if (q->m->second == SCM_SECOND_PID)
		q->victim = ni > 0 ? ints[0] : 0;
	if (q->m->second == SCM_SECOND_IDS) {
		q->uid = ni > 0 ? (uid_t)ints[0] : (uid_t)-1;
		q->gid = ni > 1 ? (gid_t)ints[1] : (gid_t)-1;
	}
	*out = call;
	return 0;
}

/* Waits for the daemon's kick, then sends one credential. */
static int send_credential(int fd, const struct ucred *c)
{
	char kick;
	bool have;
	struct ucred ignored;
	int r = scm_wait_readable(fd, STEP_TIMEOUT_MS);
	if (r < 0)
		return r;
	if (scm_recv(fd, &kick, 1, &ignored, &have) != 1 || kick != SCM_KICK)
		return -EPROTO;
	return scm_send(fd, (char[]){SCM_CRED_BYTE}, 1, c);
}

/* Receives the next datagram of the result, waiting a little for it. */
static ssize_t recv_part(int fd, void *buf, size_t len, struct ucred *c, bool *have)
{
	int r = scm_wait_readable(fd, STEP_TIMEOUT_MS);
	if (r < 0)
		return r;
	return scm_recv(fd, buf, len, c, have);
}

/* After a failure the daemon says why; 0.42 daemons do not, and then the reason is generic. */
static int reply_refusal(sd_bus_message *m, int fd, const struct scm_method *method)
{
	char buf[1024];
	struct ucred c;
	bool have;
	ssize_t n = recv_part(fd, buf, sizeof(buf) - 1, &c, &have);
	if (n > 2 && buf[0] == SCM_REASON_TAG) {
		buf[n] = '\0';
		const char *name = buf + 1, *msg = name + strlen(name) + 1;
		if (msg < buf + n)
			return sd_bus_reply_method_errorf(m, name, "%s", msg);
	}
	return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_FAILED, "cgmanager refused %s", method->name);
}

/* The daemon sent a failure result; its reason follows (reply_refusal). Not an errno. */
#define REFUSED 1

/* A names or keys result: its count, then its length and its entries as one block (NUL-ended here). */
static int recv_block(int fd, int32_t *count, char **data, uint32_t *len)
{
	struct ucred c;
	bool have;
	*len = 0;
	if (recv_part(fd, count, sizeof(*count), &c, &have) != sizeof(*count) || *count < 0)
		return REFUSED;
	if (*count > 0 && recv_part(fd, len, sizeof(*len), &c, &have) != sizeof(*len))
		return REFUSED;
	if (!(*data = calloc(1, (size_t)*len + 1)))
		return -ENOMEM;
	if (*count > 0 && recv_part(fd, *data, *len, &c, &have) != (ssize_t)*len) {
		free(*data);
		return REFUSED;
	}
	return 0;
}

/*
 * Reads the result as the method's result kind sends it into reply, whose signature is the plain method's
 * (the row's plain_reply; an array is open). 0, REFUSED or -errno.
 */
static int read_result(sd_bus_message *reply, int fd, const struct scm_method *method)
{
	const char *sig = method->plain_reply;
	char buf[65536], *data = NULL;
	struct ucred c;
	bool have;
	int32_t count;
	uint32_t len;
	ssize_t n;
	int r = 0;

	switch (method->result) {
	case SCM_RES_STATUS:
	case SCM_RES_CREATE:
	case SCM_RES_REMOVE:
		n = recv_part(fd, buf, 1, &c, &have);
		if (n != 1 || buf[0] == '0')
			return REFUSED;
		/* Whether the cgroup was there, for the plain methods that say it. */
		if (*sig)
			r = sd_bus_message_append_basic(reply, *sig, &(int32_t){buf[0] == '2' ? 1 : -1});
		break;
	case SCM_RES_STRING:
		n = recv_part(fd, buf, sizeof(buf) - 1, &c, &have);
		if (n <= 0)
			return REFUSED;
		buf[n] = '\0';
		r = sd_bus_message_append_basic(reply, *sig, buf);
		break;
	case SCM_RES_PIDS:
		if (recv_part(fd, &count, sizeof(count), &c, &have) != sizeof(count) || count < 0)
			return REFUSED;
		for (int32_t k = 0; r >= 0 && k < count; k++) {
			n = recv_part(fd, buf, 1, &c, &have);
			if (n < 0)
				r = (int)n;
			/* 0: a task this namespace cannot see. */
			else if (have && c.pid > 0)
				r = sd_bus_message_append_basic(reply, sig[1], &c.pid);
		}
		break;
	case SCM_RES_NAMES:
	case SCM_RES_KEYS:
		if ((r = recv_block(fd, &count, &data, &len)) != 0)
			return r;
		for (char *p = data; r >= 0 && count-- > 0 && p < data + len;) {
			if (method->result == SCM_RES_NAMES) {
				r = sd_bus_message_append_basic(reply, sig[1], p);
				p += strlen(p) + 1;
				continue;
			}
			char name[4096];
			unsigned uid, gid, mode;
			int used = 0;
			if (sscanf(p, "%4095[^\n]\n%u\n%u\n%u\n%n", name, &uid, &gid, &mode, &used) != 4 || used == 0) {
				r = -EPROTO;
				break;
			}
			r = sd_bus_message_append(reply, sig + 1, name, uid, gid, mode);
			p += used;
		}
		free(data);
		break;
	default:
		r = -EINVAL;
	}
	return r < 0 ? r : 0;
}

static int reply_result(sd_bus_message *m, int fd, const struct scm_method *method)
{
	sd_bus_message *reply = NULL;
	const char *sig = method->plain_reply;
	int r = sd_bus_message_new_method_return(m, &reply);

	if (r >= 0 && sig[0] == SD_BUS_TYPE_ARRAY)
		r = sd_bus_message_open_container(reply, SD_BUS_TYPE_ARRAY, sig + 1);
	if (r >= 0)
		r = read_result(reply, fd, method);
	if (r == REFUSED) {
		sd_bus_message_unref(reply);
		return reply_refusal(m, fd, method);
	}
	if (r >= 0 && sig[0] == SD_BUS_TYPE_ARRAY)
		r = sd_bus_message_close_container(reply);
	if (r >= 0)
		r = sd_bus_send(NULL, reply, NULL);
	sd_bus_message_unref(reply);
	return r;
}

static int relay_once(struct upstream *u, struct scm_request *q, bool *retry)
{
	sd_bus_error err = SD_BUS_ERROR_NULL;
	sd_bus_message *call = NULL, *ack = NULL;
	int sv[2], r;

	*retry = false;
	if ((r = upstream_ensure(u)) < 0) {
		*retry = true;
		return r;
	}
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	if ((r = scm_enable_passcred(sv[0])) < 0 || (r = build_call(u, q, sv[1], &call)) < 0)
		goto out;
	r = sd_bus_call(u->bus, call, CALL_TIMEOUT_USEC, &err, &ack);
	close(sv[1]);
	sv[1] = -1;
	if (r < 0) {
		if (gone(r)) {
			upstream_close(u);
			*retry = true;
		} else {
			r = sd_bus_reply_method_error(q->plain, &err);
		}
		goto out;
	}
	/* Checked again as late as can be: the process that connected may have exited since the call came in. */
	if (!pidfd_alive(q->requester_pidfd)) {
		r = upstream_refuse_gone_requester(q->plain, q->requester.pid);
		goto abandon;
	}
	if ((r = send_credential(sv[0], &q->requester)) < 0) {
		r = reply_errno(q->plain, r, "cgmanager did not take the request");
		goto abandon;
	}
	if (q->m->second != SCM_SECOND_NONE) {
		struct ucred second = {.pid = getpid(), .uid = getuid(), .gid = getgid()};
		if (q->m->second == SCM_SECOND_PID)
			second.pid = q->victim;
		else {
			second.uid = q->uid;
			second.gid = q->gid;
		}
		r = send_credential(sv[0], &second);
		if (r == -EINVAL || r == -EPERM || r == -ESRCH) {
			/* The kernel would not vouch for it: the pid is not ours to see, or the ids are not mapped here. */
			const char *name = r == -ESRCH ? SD_BUS_ERROR_FILE_NOT_FOUND : SD_BUS_ERROR_ACCESS_DENIED;
			if (q->m->second == SCM_SECOND_PID)
				r = sd_bus_reply_method_errorf(q->plain, name, "pid %d is not a task this namespace can vouch for: %s",
				                               (int)q->victim, strerror(-r));
			else
				r = sd_bus_reply_method_errorf(q->plain, name, "uid %u gid %u are not mapped in this namespace: %s",
				                               (unsigned)q->uid, (unsigned)q->gid, strerror(-r));
			goto abandon;
		}
		if (r < 0) {
			r = reply_errno(q->plain, r, "cgmanager did not take the second credential");
			goto abandon;
		}
	}
	r = reply_result(q->plain, sv[0], q->m);
	goto out;
abandon:
	/*
	 * The daemon holds the exchange until the credential it waits for comes (5 s), and counts it against
	 * this connection's few (SCM_PER_CONN): left so, a handful of refused pids would stop the proxy for
	 * every user of the container. Closing the connection ends its exchanges at once; the next request
	 * reconnects.
	 */
	upstream_close(u);
out:
	sd_bus_error_free(&err);
	sd_bus_message_unref(call);
	sd_bus_message_unref(ack);
	close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	return r;
}

int upstream_refuse_gone_requester(sd_bus_message *m, pid_t pid)
{
	return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_ACCESS_DENIED,
	                                  "cgproxy vouches for no one on this connection: the process that opened it (pid "
	                                  "%d) has exited, and its pid may be another process's now; connect again",
	                                  (int)pid);
}

int upstream_relay(struct upstream *u, struct scm_request *q)
{
	bool retry;
	int r = relay_once(u, q, &retry);
	if (retry)
		r = relay_once(u, q, &retry);
	if (retry)
		return reply_errno(q->plain, r, "cannot reach cgmanager");
	return r;
}

int upstream_relay_plain(struct upstream *u, sd_bus_message *m)
{
	for (int attempt = 0; attempt < 2; attempt++) {
		sd_bus_error err = SD_BUS_ERROR_NULL;
		sd_bus_message *call = NULL, *reply = NULL, *out = NULL;
		int r = upstream_ensure(u);
		if (r < 0)
			continue;
		r = sd_bus_message_new_method_call(u->bus, &call, NULL, sd_bus_message_get_path(m),
		                                   sd_bus_message_get_interface(m), sd_bus_message_get_member(m));
		r = r < 0 ? r : sd_bus_message_rewind(m, true);
		r = r < 0 ? r : sd_bus_message_copy(call, m, true);
		r = r < 0 ? r : sd_bus_call(u->bus, call, CALL_TIMEOUT_USEC, &err, &reply);
		sd_bus_message_unref(call);
		if (r < 0 && gone(r)) {
			sd_bus_error_free(&err);
			upstream_close(u);
			continue;
		}
		if (r < 0) {
			r = sd_bus_reply_method_error(m, &err);
			sd_bus_error_free(&err);
			return r;
		}
		r = sd_bus_message_new_method_return(m, &out);
		r = r < 0 ? r : sd_bus_message_copy(out, reply, true);
		r = r < 0 ? r : sd_bus_send(NULL, out, NULL);
		sd_bus_message_unref(out);
		sd_bus_message_unref(reply);
		return r;
	}
	return reply_errno(m, -ENOTCONN, "cannot reach cgmanager");
}
