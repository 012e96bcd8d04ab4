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
#include "dbus/loop.h"
#include "dbus/owner_reserve.h"
#include "ops/identity.h"
#include "ops/ops.h"
#include "scm/scm_io.h"
#include "scm/scm_out.h"
#include "util/list.h"
#include "util/log.h"

/* A client that has not sent its credentials by then loses the exchange. */
#define SCM_DEADLINE_USEC (5ULL * 1000000ULL)
/* Exchanges under way at once (each holds two fds until it ends): per connection (cgproxy relays one at a
 * time), per account but root's (a user's, or a whole container's: admission_account), and in all. Of an
 * account's, its members (a container's users) leave one connection's to its owner (the container's root,
 * whose cgproxy relays the container's calls): dbus/owner_reserve.h. */
#define SCM_PER_CONN 4
#define SCM_PER_UID 32
#define SCM_OWNER_RESERVED SCM_PER_CONN
#define SCM_TOTAL 256

struct scm_exchange {
	struct scm_registry *reg;
	const struct scm_method *m;
	int fd;
	struct loop_watch watch; /* fd, once the kick went out */
	char *s[4];
	int32_t i[2];
	struct requester proxy; /* who relayed the call: the D-Bus peer */
	unsigned conn_serial;   /* of its connection, which may go first */
	uint64_t account;       /* of its connection (admission_account), which SCM_PER_UID counts by */
	bool owner;             /* its connection is the account's owner's (admission_owner) */
	struct ucred cred[2];
	int ncred;
	bool writing;
	bool orphaned; /* its connection closed first: its deadline is moved to now */
	struct loop_timer deadline;
	struct scm_out out;
	struct scm_exchange *prev, *next;
};

void scm_registry_init(struct scm_registry *reg, struct loop *loop, struct ops *ops)
{
	*reg = (struct scm_registry){.loop = loop, .ops = ops};
}

static void exchange_free(struct scm_exchange *x)
{
	struct scm_registry *reg = x->reg;
	LIST_REMOVE(reg->head, x, prev, next);
	reg->count--;
	loop_timer_cancel(reg->loop, &x->deadline);
	loop_watch_remove(reg->loop, &x->watch);
	if (x->fd >= 0)
		close(x->fd);
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
	unsigned mine = 0, accounts = 0, members = 0;
	uint64_t account = admission_account(c->slot);
	bool owner = admission_owner(c->slot);
	for (const struct scm_exchange *x = reg->head; x; x = x->next) {
		mine += x->conn_serial == c->serial;
		accounts += x->account == account;
		members += x->account == account && !x->owner;
	}
	*n = reg->count >= SCM_TOTAL ? reg->count : mine >= SCM_PER_CONN ? mine : owner ? accounts : members;
	return mine < SCM_PER_CONN &&
	       (account == 0 || owner_reserve_admits(accounts, members, SCM_PER_UID, SCM_OWNER_RESERVED, owner)) &&
	       reg->count < SCM_TOTAL;
}

static void exchange_event(void *owner, uint32_t events);
static void exchange_expired(void *owner, uint64_t now);

int scm_exchange_start(struct conn *c, sd_bus_message *m, const struct scm_method *method)
{
	struct scm_registry *reg = c->scm;
	unsigned n;
	int fd, r;

	if (!within_limits(c, reg, &n))
		return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_LIMITS_EXCEEDED,
		                                  "%u Scm exchanges are under way (at most %u per connection, %u per uid, of "
		                                  "which %u are kept for its owner, %u in all); finish them first",
		                                  n, SCM_PER_CONN, SCM_PER_UID, SCM_OWNER_RESERVED, SCM_TOTAL);
	struct scm_exchange *x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->reg = reg;
	x->m = method;
	x->fd = -1;
	x->conn_serial = c->serial;
	x->account = admission_account(c->slot);
	x->owner = admission_owner(c->slot);
	x->proxy = c->req;
	x->proxy.cred.uidmap = x->proxy.cred.gidmap = NULL; /* the connection's, and it may go first: copied below */
	x->proxy.pidfd = c->req.pidfd >= 0 ? fcntl(c->req.pidfd, F_DUPFD_CLOEXEC, 3) : -1;
	x->proxy.cgroup_fd = -1; /* the connection's, and it may go first */
	loop_timer_init(&x->deadline, exchange_expired, x);
	loop_timer_set(reg->loop, &x->deadline, now_usec() + SCM_DEADLINE_USEC);
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
	if ((r = loop_watch_add(reg->loop, &x->watch, x->fd, EPOLLIN, true, exchange_event, x)) < 0) {
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
	return requester_identify(x->reg->ops, r, e);
}

/* What an operation gives back; its method's result kind says which and how it is sent (queue_answer). */
struct scm_answer {
	char *str;   /* SCM_RES_STRING */
	int existed; /* SCM_RES_CREATE, SCM_RES_REMOVE: as ops_create and ops_remove set it */
	pidv pids;
	strv names;
	keyv keys;
};

/*
 * The operation of one method, with the exchange's arguments: the hierarchies its controller argument names (set,
 * parsed from x->s[0]), the other strings and int32s before the fd (x->s, x->i) and the second credential
 * (x->cred[1]). 0, or -1 with e set.
 */
typedef int (*scm_operation)(struct ops *o, const struct requester *r, const struct hierarchy_set *set,
                             const struct scm_exchange *x, struct scm_answer *a, struct err *e);

static int op_get_pid_cgroup(struct ops *o, const struct requester *r, const struct hierarchy_set *set,
                             const struct scm_exchange *x, struct scm_answer *a, struct err *e)
{
	return ops_get_pid_cgroup(o, r, set, x->cred[1].pid, false, &a->str, e);
}

static int op_get_pid_cgroup_abs(struct ops *o, const struct requester *r, const struct hierarchy_set *set,
                                 const struct scm_exchange *x, struct scm_answer *a, struct err *e)
{
	return ops_get_pid_cgroup(o, r, set, x->cred[1].pid, true, &a->str, e);
}

static int op_create(struct ops *o, const struct requester *r, const struct hierarchy_set *set,
                     const struct scm_exchange *x, struct scm_answer *a, struct err *e)
{
	return ops_create(o, r, set, x->s[1], &a->existed, e);
}

static int op_chown(struct ops *o, const struct requester *r, const struct hierarchy_set *set,
                    const struct scm_exchange *x, struct scm_answer *a, struct err *e)
{
	return ops_chown(o, r, set, x->s[1], x->cred[1].uid, x->cred[1].gid, e);
}

static int op_chmod(struct ops *o, const struct requester *r, const struct hierarchy_set *set,
                    const struct scm_exchange *x, struct scm_answer *a, struct err *e)
{
	return ops_chmod(o, r, set, x->s[1], x->s[2], x->i[0], e);
}

static int op_move_pid(struct ops *o, const struct requester *r, const struct hierarchy_set *set,
                       const struct scm_exchange *x, struct scm_answer *a, struct err *e)
{
	return ops_move_pid(o, r, set, x->s[1], x->cred[1].pid, false, e);
}

static int op_move_pid_abs(struct ops *o, const struct requester *r, const struct hierarchy_set *set,
                           const struct scm_exchange *x, struct scm_answer *a, struct err *e)
{
	return ops_move_pid(o, r, set, x->s[1], x->cred[1].pid, true, e);
}

static int op_get_value(struct ops *o, const struct requester *r, const struct hierarchy_set *set,
                        const struct scm_exchange *x, struct scm_answer *a, struct err *e)
{
	return ops_get_value(o, r, set, x->s[1], x->s[2], &a->str, e);
}

static int op_set_value(struct ops *o, const struct requester *r, const struct hierarchy_set *set,
                        const struct scm_exchange *x, struct scm_answer *a, struct err *e)
{
	return ops_set_value(o, r, set, x->s[1], x->s[2], x->s[3], e);
}

static int op_remove(struct ops *o, const struct requester *r, const struct hierarchy_set *set,
                     const struct scm_exchange *x, struct scm_answer *a, struct err *e)
{
	return ops_remove(o, r, set, x->s[1], x->i[0] != 0, &a->existed, e);
}

static int op_get_tasks(struct ops *o, const struct requester *r, const struct hierarchy_set *set,
                        const struct scm_exchange *x, struct scm_answer *a, struct err *e)
{
	return ops_get_tasks(o, r, set, x->s[1], false, &a->pids, e);
}

static int op_get_tasks_recursive(struct ops *o, const struct requester *r, const struct hierarchy_set *set,
                                  const struct scm_exchange *x, struct scm_answer *a, struct err *e)
{
	return ops_get_tasks(o, r, set, x->s[1], true, &a->pids, e);
}

static int op_list_children(struct ops *o, const struct requester *r, const struct hierarchy_set *set,
                            const struct scm_exchange *x, struct scm_answer *a, struct err *e)
{
	return ops_list_children(o, r, set, x->s[1], &a->names, e);
}

static int op_remove_on_empty(struct ops *o, const struct requester *r, const struct hierarchy_set *set,
                              const struct scm_exchange *x, struct scm_answer *a, struct err *e)
{
	return ops_remove_on_empty(o, r, set, x->s[1], e);
}

static int op_prune(struct ops *o, const struct requester *r, const struct hierarchy_set *set,
                    const struct scm_exchange *x, struct scm_answer *a, struct err *e)
{
	return ops_prune(o, r, set, x->s[1], &a->existed, e);
}

static int op_list_keys(struct ops *o, const struct requester *r, const struct hierarchy_set *set,
                        const struct scm_exchange *x, struct scm_answer *a, struct err *e)
{
	return ops_list_keys(o, r, set, x->s[1], &a->keys, e);
}

/* Each row's operation, by its enum scm_method_id: here, not in the rows, so that scm/ stays below ops/. */
static const scm_operation operations[SCM_METHOD_COUNT] = {
    [SCM_GET_PID_CGROUP] = op_get_pid_cgroup,
    [SCM_GET_PID_CGROUP_ABS] = op_get_pid_cgroup_abs,
    [SCM_CREATE] = op_create,
    [SCM_CHOWN] = op_chown,
    [SCM_CHMOD] = op_chmod,
    [SCM_MOVE_PID] = op_move_pid,
    [SCM_MOVE_PID_ABS] = op_move_pid_abs,
    [SCM_GET_VALUE] = op_get_value,
    [SCM_SET_VALUE] = op_set_value,
    [SCM_REMOVE] = op_remove,
    [SCM_GET_TASKS] = op_get_tasks,
    [SCM_GET_TASKS_RECURSIVE] = op_get_tasks_recursive,
    [SCM_LIST_CHILDREN] = op_list_children,
    [SCM_REMOVE_ON_EMPTY] = op_remove_on_empty,
    [SCM_PRUNE] = op_prune,
    [SCM_LIST_KEYS] = op_list_keys,
};

/* The answer of an operation that succeeded, as its method's result kind sends it. */
static void queue_answer(struct scm_exchange *x, const struct scm_answer *a)
{
	switch (x->m->result) {
	case SCM_RES_STATUS:
		scm_out_byte(&x->out, '1');
		break;
	case SCM_RES_CREATE:
	case SCM_RES_REMOVE:
		scm_out_byte(&x->out, a->existed == 1 ? '2' : '1');
		break;
	case SCM_RES_STRING:
		scm_out_string(&x->out, a->str);
		break;
	case SCM_RES_PIDS:
		scm_out_pids(&x->out, a->pids.v, a->pids.n);
		break;
	case SCM_RES_NAMES:
	case SCM_RES_KEYS: {
		char *blob = NULL;
		size_t len = 0, n = x->m->result == SCM_RES_NAMES ? a->names.n : a->keys.n;
		FILE *f = open_memstream(&blob, &len);
		for (size_t k = 0; f && k < n; k++) {
			if (x->m->result == SCM_RES_NAMES)
				fwrite(a->names.v[k], 1, strlen(a->names.v[k]) + 1, f);
			else
				fprintf(f, "%s\n%u\n%u\n%u\n", a->keys.v[k].name, (unsigned)a->keys.v[k].uid,
				        (unsigned)a->keys.v[k].gid, (unsigned)a->keys.v[k].mode);
		}
		if (f)
			fclose(f);
		scm_out_blob(&x->out, blob ? (int32_t)n : -1, blob, len);
		free(blob);
		break;
	}
	}
}

/* The failure answer of the method, before the reason. */
static void queue_failure(struct scm_exchange *x)
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
	struct requester r = {.pidfd = -1, .cgroup_fd = -1};
	struct scm_answer a = {0};
	struct hierarchy_set set;
	struct err e = {0};

	/*
	 * Every Scm method's first argument is a controller list, parsed here once; a name no hierarchy has is
	 * reported by the operation, after its checks of the other arguments (as for the plain calls).
	 */
	hierarchies_parse(&x->reg->ops->hs, x->s[0], &set);
	if (vouched(x, &e) < 0 || requester_of(x, &r, &e) < 0 ||
	    operations[scm_method_id(x->m)](x->reg->ops, &r, &set, x, &a, &e) < 0) {
		log_debug("%s for pid %d (via pid %d): %s", x->m->name, (int)x->cred[0].pid, (int)x->proxy.pid, e.msg);
		queue_failure(x);
		scm_out_reason(&x->out, dbus_error_name(e.kind), e.msg);
	} else {
		queue_answer(x, &a);
	}
	if (r.pidfd >= 0)
		close(r.pidfd);
	requester_release(&r);
	free(a.str);
	pidv_free(&a.pids);
	strv_free(&a.names);
	keyv_free(&a.keys);
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
	x->writing = true;
	loop_watch_set_events(x->reg->loop, &x->watch, EPOLLOUT);
}

static void exchange_event(void *owner, uint32_t events)
{
	struct scm_exchange *x = owner;
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

static void exchange_expired(void *owner, uint64_t now)
{
	struct scm_exchange *x = owner;
	if (x->orphaned)
		log_debug("%s from pid %d: its connection closed before the credentials came; dropped", x->m->name,
		          (int)x->proxy.pid);
	else
		log_info("%s from pid %d: no credentials in time; dropped", x->m->name, (int)x->proxy.pid);
	exchange_free(x);
}

void scm_registry_cancel_conn(struct scm_registry *reg, unsigned conn_serial)
{
	for (struct scm_exchange *x = reg->head, *next; x; x = next) {
		next = x->next;
		/* Not freed here: an event of this turn may still name it. */
		if (x->conn_serial == conn_serial && !x->writing) {
			x->orphaned = true;
			loop_timer_set(reg->loop, &x->deadline, 0);
		}
	}
}

void scm_registry_free(struct scm_registry *reg)
{
	while (reg->head)
		exchange_free(reg->head);
}
