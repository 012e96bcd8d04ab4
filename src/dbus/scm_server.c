#include "dbus/scm_server.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cgfs/idmap.h"
#include "dbus/admission.h"
#include "dbus/conn.h"
#include "dbus/errors.h"
#include "ops/identity.h"
#include "ops/ops.h"
#include "scm/scm_io.h"
#include "scm/scm_out.h"
#include "util/list.h"
#include "util/log.h"

/* A client that has not sent its credentials by then loses the exchange. */
#define SCM_DEADLINE_USEC (5ULL * 1000000ULL)
/* Exchanges under way at once (each holds two fds until it ends): per connection (cgproxy relays one at a
 * time), per account but root's (a user's, or a whole container's: admission_account), and in all. */
#define SCM_PER_CONN 4
#define SCM_PER_UID 32
#define SCM_TOTAL 256

struct scm_exchange {
	int kind; /* LOOP_ITEM_SCM: the event loop tells items apart by it */
	struct server *srv;
	const struct scm_method *m;
	int fd;
	char *s[4];
	int32_t i[2];
	struct requester proxy; /* who relayed the call: the D-Bus peer */
	unsigned conn_serial;   /* of its connection, which may go first */
	uint64_t account;       /* of its connection (admission_account), which SCM_PER_UID counts by */
	struct ucred cred[2];
	int ncred;
	bool writing;
	bool orphaned; /* its connection closed first: it ends at the next expiry */
	uint64_t deadline;
	struct scm_out out;
	struct scm_exchange *prev, *next;
};

static void exchange_free(struct scm_exchange *x)
{
	struct scm_registry *reg = server_scm(x->srv);
	LIST_REMOVE(reg->head, x, prev, next);
	reg->count--;
	if (x->fd >= 0) {
		epoll_ctl(server_epoll_fd(x->srv), EPOLL_CTL_DEL, x->fd, NULL);
		close(x->fd);
	}
	if (x->proxy.pidfd >= 0)
		close(x->proxy.pidfd);
	requester_release(&x->proxy);
	for (int k = 0; k < 4; k++)
		free(x->s[k]);
	scm_out_free(&x->out);
	free(x);
}

/* Reads the method's arguments before the fd: strings and int32s in signature order. */
static int read_args(sd_bus_message *m, struct scm_exchange *x)
{
	int ns = 0, ni = 0, r = 0;
	for (const char *t = x->m->args; *t && r >= 0; t++) {
		if (*t == 's') {
			const char *v;
			r = sd_bus_message_read_basic(m, 's', &v);
			if (r > 0 && !(x->s[ns++] = strdup(v)))
				r = -ENOMEM;
		} else {
			r = sd_bus_message_read_basic(m, 'i', &x->i[ni++]);
		}
	}
	return r;
}

/* The protocol is datagrams (a zero-length one is an answer); a stream socket would run answers together. */
static int check_unix_dgram(int fd)
{
	int type, domain;
	socklen_t len = sizeof(type);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0)
		return -errno;
	len = sizeof(domain);
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0)
		return -errno;
	return domain == AF_UNIX && type == SOCK_DGRAM ? 0 : -EPROTOTYPE;
}

/* Whether one more exchange of c fits the limits; *n is how many it is counted against. */
static bool within_limits(const struct conn *c, const struct scm_registry *reg, unsigned *n)
{
	unsigned mine = 0, accounts = 0;
	uint64_t account = admission_account(c->slot);
	for (const struct scm_exchange *x = reg->head; x; x = x->next) {
		mine += x->conn_serial == c->serial;
		accounts += x->account == account;
	}
	*n = reg->count >= SCM_TOTAL ? reg->count : mine >= SCM_PER_CONN ? mine : accounts;
	return mine < SCM_PER_CONN && (account == 0 || accounts < SCM_PER_UID) && reg->count < SCM_TOTAL;
}

int scm_exchange_start(struct conn *c, sd_bus_message *m, const struct scm_method *method)
{
	struct scm_registry *reg = server_scm(c->srv);
	struct epoll_event ev = {.events = EPOLLIN};
	unsigned n;
	int fd, r;

	if (!within_limits(c, reg, &n))
		return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_LIMITS_EXCEEDED,
		                                  "%u Scm exchanges are under way (at most %u per connection, %u per uid, %u "
		                                  "in all); finish them first",
		                                  n, SCM_PER_CONN, SCM_PER_UID, SCM_TOTAL);
	struct scm_exchange *x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->kind = LOOP_ITEM_SCM;
	x->srv = c->srv;
	x->m = method;
	x->fd = -1;
	x->conn_serial = c->serial;
	x->account = admission_account(c->slot);
	x->proxy = c->req;
	x->proxy.cred.uidmap = x->proxy.cred.gidmap = NULL; /* the connection's, and it may go first: copied below */
	x->proxy.pidfd = c->req.pidfd >= 0 ? fcntl(c->req.pidfd, F_DUPFD_CLOEXEC, 3) : -1;
	x->proxy.cgroup_fd = -1; /* the connection's, and it may go first */
	x->deadline = now_usec() + SCM_DEADLINE_USEC;
	LIST_PREPEND(reg->head, x, prev, next);
	reg->count++;
	/* What a peer in a user namespace could have sent depends on its maps (vouched). */
	if (c->req.cred.uidmap && c->req.cred.gidmap) {
		x->proxy.cred.uidmap = malloc(sizeof(struct idmap));
		x->proxy.cred.gidmap = malloc(sizeof(struct idmap));
		if (!x->proxy.cred.uidmap || !x->proxy.cred.gidmap) {
			exchange_free(x);
			return -ENOMEM;
		}
		*x->proxy.cred.uidmap = *c->req.cred.uidmap;
		*x->proxy.cred.gidmap = *c->req.cred.gidmap;
	} else {
		x->proxy.cred.ns_root = false; /* no maps, no power over them */
	}

	r = read_args(m, x);
	if (r >= 0)
		r = sd_bus_message_read_basic(m, 'h', &fd);
	if (r < 0) {
		exchange_free(x);
		return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_INVALID_ARGS, "%s takes (%sh)", method->name,
		                                  method->args);
	}
	x->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	r = x->fd < 0 ? -errno : check_unix_dgram(x->fd);
	if (r >= 0 && (fcntl(x->fd, F_SETFL, O_NONBLOCK) < 0 || scm_enable_passcred(x->fd) < 0))
		r = -errno;
	if (r >= 0)
		r = scm_send(x->fd, (char[]){SCM_KICK}, 1, NULL);
	if (r < 0) {
		exchange_free(x);
		return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_INVALID_ARGS,
		                                  "%s needs an AF_UNIX SOCK_DGRAM socket: %s", method->name, strerror(-r));
	}
	ev.data.ptr = x;
	if (epoll_ctl(server_epoll_fd(c->srv), EPOLL_CTL_ADD, x->fd, &ev) < 0) {
		r = -errno;
		exchange_free(x);
		return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_LIMITS_EXCEEDED, "cannot watch the Scm socket: %s",
		                                  strerror(-r));
	}
	return sd_bus_reply_method_return(m, "");
}

/*
 * The kernel checked whoever sent each credential, but that need not be the peer that passed the socket: the
 * daemon writes to every Scm socket too, as root (its kicks and answers carry its own credentials, and
 * GetTasksScm's answers each task's pid with uid 0), so a socket wired back to one of its own would lend
 * root's. Each credential must be one the peer could have sent itself: ids it may claim (policy_may_vouch)
 * and a pid its pid namespace sees.
 */
static int vouched(const struct scm_exchange *x, struct err *e)
{
	char why[POLICY_WHY_MAX];
	for (int k = 0; k < x->ncred; k++) {
		const struct ucred *c = &x->cred[k];
		const char *which = k == 0 ? "requester's" : x->m->second == SCM_SECOND_PID ? "victim's" : "new owner's";
		if (!policy_may_vouch(&x->proxy.cred, c->uid, c->gid, which, why))
			return err_set(e, ERR_ACCESS, "%s", why);
		/* A pid that is gone is left to the operation, which says so. */
		if (x->proxy.other_pidns && c->pid > 0 && !pid_visible_in(c->pid, x->proxy.pidns) && kill(c->pid, 0) == 0)
			return err_set(e, ERR_ACCESS,
			               "refused the %s credential (pid %d): that task is not in your pid namespace, so you "
			               "could not have sent it (another process, such as this daemon, wrote it to the socket "
			               "you passed)",
			               which, (int)c->pid);
	}
	return 0;
}

/* The requester the first credential names: the kernel vouched for it and translated it. */
static int requester_of(const struct scm_exchange *x, struct requester *r, struct err *e)
{
	*r = (struct requester){.pid = x->cred[0].pid, .pidfd = -1, .cgroup_fd = -1, .proxy = &x->proxy};
	r->cred.uid = x->cred[0].uid;
	r->cred.gid = x->cred[0].gid;
	if (r->pid > 0)
		r->pidfd = pidfd_open(r->pid, 0);
	return requester_identify(server_ops(x->srv), r, e);
}

static int status(struct scm_exchange *x, int rc)
{
	return scm_out_byte(&x->out, rc == 0 ? '1' : '0');
}

/* The failure answer of the method, before the reason. */
static void fail_result(struct scm_exchange *x)
{
	switch (x->m->result) {
	case SCM_RES_STRING:
		scm_out_string(&x->out, NULL);
		break;
	case SCM_RES_PIDS:
	case SCM_RES_NAMES:
	case SCM_RES_KEYS:
		scm_out_int32(&x->out, -1);
		break;
	default:
		scm_out_byte(&x->out, '0');
	}
}

/* Runs the operation and queues its answer. */
static void run(struct scm_exchange *x)
{
	struct ops *o = server_ops(x->srv);
	struct requester r = {.pidfd = -1, .cgroup_fd = -1};
	struct err e = {0};
	char *str = NULL;
	pidv pids = {0};
	strv names = {0};
	keyv keys = {0};
	struct hierarchy_set set;
	int rc = -1, n = 0;

	/* Every Scm method's first argument is a controller list, parsed here once. */
	if (vouched(x, &e) < 0 || requester_of(x, &r, &e) < 0 || hierarchies_select(&o->hs, x->s[0], &set, &e) < 0)
		goto answer_failure;
	switch (x->m->result) {
	case SCM_RES_STRING:
		if (x->m->second == SCM_SECOND_PID)
			rc = ops_get_pid_cgroup(o, &r, &set, x->cred[1].pid, strcmp(x->m->plain, "GetPidCgroupAbs") == 0,
			                        &str, &e);
		else
			rc = ops_get_value(o, &r, &set, x->s[1], x->s[2], &str, &e);
		scm_out_string(&x->out, rc == 0 ? str : NULL);
		break;
	case SCM_RES_CREATE:
		rc = ops_create(o, &r, &set, x->s[1], &n, &e);
		scm_out_byte(&x->out, rc < 0 ? '0' : n == 1 ? '2' : '1');
		break;
	case SCM_RES_REMOVE:
		if (strcmp(x->m->plain, "Remove") == 0)
			rc = ops_remove(o, &r, &set, x->s[1], x->i[0] != 0, &n, &e);
		else
			rc = ops_prune(o, &r, &set, x->s[1], &n, &e);
		scm_out_byte(&x->out, rc < 0 ? '0' : n == 1 ? '2' : '1');
		break;
	case SCM_RES_PIDS:
		rc = ops_get_tasks(o, &r, &set, x->s[1], strcmp(x->m->plain, "GetTasksRecursive") == 0, &pids, &e);
		if (rc == 0)
			scm_out_pids(&x->out, pids.v, pids.n);
		else
			scm_out_int32(&x->out, -1);
		break;
	case SCM_RES_NAMES:
	case SCM_RES_KEYS: {
		char *blob = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&blob, &len);
		if (x->m->result == SCM_RES_NAMES) {
			rc = ops_list_children(o, &r, &set, x->s[1], &names, &e);
			for (size_t k = 0; rc == 0 && f && k < names.n; k++)
				fwrite(names.v[k], 1, strlen(names.v[k]) + 1, f);
			n = (int)names.n;
		} else {
			rc = ops_list_keys(o, &r, &set, x->s[1], &keys, &e);
			for (size_t k = 0; rc == 0 && f && k < keys.n; k++)
				fprintf(f, "%s\n%u\n%u\n%u\n", keys.v[k].name, (unsigned)keys.v[k].uid, (unsigned)keys.v[k].gid,
				        (unsigned)keys.v[k].mode);
			n = (int)keys.n;
		}
		if (f)
			fclose(f);
		scm_out_blob(&x->out, rc == 0 && blob ? n : -1, blob, len);
		free(blob);
		break;
	}
	case SCM_RES_STATUS:
		if (strcmp(x->m->plain, "Chown") == 0)
			rc = ops_chown(o, &r, &set, x->s[1], x->cred[1].uid, x->cred[1].gid, &e);
		else if (strcmp(x->m->plain, "Chmod") == 0)
			rc = ops_chmod(o, &r, &set, x->s[1], x->s[2], x->i[0], &e);
		else if (strcmp(x->m->plain, "MovePid") == 0 || strcmp(x->m->plain, "MovePidAbs") == 0)
			rc = ops_move_pid(o, &r, &set, x->s[1], x->cred[1].pid, strcmp(x->m->plain, "MovePidAbs") == 0, &e);
		else if (strcmp(x->m->plain, "SetValue") == 0)
			rc = ops_set_value(o, &r, &set, x->s[1], x->s[2], x->s[3], &e);
		else
			rc = ops_remove_on_empty(o, &r, &set, x->s[1], &e);
		status(x, rc);
		break;
	}
	if (rc < 0) {
		log_debug("%s for pid %d (via pid %d): %s", x->m->name, (int)r.pid, (int)x->proxy.pid, e.msg);
		scm_out_reason(&x->out, dbus_error_name(e.kind), e.msg);
	}
	goto out;
answer_failure:
	log_debug("%s for pid %d (via pid %d): %s", x->m->name, (int)x->cred[0].pid, (int)x->proxy.pid, e.msg);
	fail_result(x);
	scm_out_reason(&x->out, dbus_error_name(e.kind), e.msg);
out:
	if (r.pidfd >= 0)
		close(r.pidfd);
	requester_release(&r);
	free(str);
	pidv_free(&pids);
	strv_free(&names);
	keyv_free(&keys);
}

static bool receive_credential(struct scm_exchange *x)
{
	char byte;
	bool have;
	struct ucred c;
	ssize_t n;

	while ((n = scm_recv(x->fd, &byte, 1, &c, &have)) >= 0) {
		if (n == 0 && !have)
			return false; /* the client closed its end */
		if (!have)
			continue; /* a datagram without credentials proves nothing */
		x->cred[x->ncred++] = c;
		int needed = x->m->second == SCM_SECOND_NONE ? 1 : 2;
		if (x->ncred == needed)
			return true;
		if (scm_send(x->fd, (char[]){SCM_KICK}, 1, NULL) < 0)
			return false;
	}
	return n == -EAGAIN;
}

static void start_writing(struct scm_exchange *x)
{
	struct epoll_event ev = {.events = EPOLLOUT, .data.ptr = x};
	x->writing = true;
	epoll_ctl(server_epoll_fd(x->srv), EPOLL_CTL_MOD, x->fd, &ev);
}

void scm_exchange_event(struct scm_exchange *x, uint32_t events)
{
	int needed = x->m->second == SCM_SECOND_NONE ? 1 : 2;
	if (!x->writing) {
		if (!receive_credential(x)) {
			exchange_free(x);
			return;
		}
		if (x->ncred < needed)
			return;
		run(x);
		start_writing(x);
	} else if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
		return;
	}
	int r = scm_out_flush(&x->out, x->fd);
	if (r != 0)
		exchange_free(x); /* all sent, or the client is gone */
}

uint64_t scm_registry_next_deadline(const struct scm_registry *reg)
{
	uint64_t best = UINT64_MAX;
	for (const struct scm_exchange *x = reg->head; x; x = x->next)
		if (x->deadline < best)
			best = x->deadline;
	return best;
}

void scm_registry_expire(struct scm_registry *reg, uint64_t now)
{
	for (struct scm_exchange *x = reg->head, *next; x; x = next) {
		next = x->next;
		if (x->deadline > now)
			continue;
		if (x->orphaned)
			log_debug("%s from pid %d: its connection closed before the credentials came; dropped", x->m->name,
			          (int)x->proxy.pid);
		else
			log_info("%s from pid %d: no credentials in time; dropped", x->m->name, (int)x->proxy.pid);
		exchange_free(x);
	}
}

void scm_registry_cancel_conn(struct scm_registry *reg, unsigned conn_serial)
{
	for (struct scm_exchange *x = reg->head, *next; x; x = next) {
		next = x->next;
		/* Not freed here: an event of this turn may still name it. */
		if (x->conn_serial == conn_serial && !x->writing) {
			x->orphaned = true;
			x->deadline = 0;
		}
	}
}

void scm_registry_free(struct scm_registry *reg)
{
	while (reg->head)
		exchange_free(reg->head);
}
