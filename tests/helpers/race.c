/*
 * race: a racing owner and a racing requester against a running daemon (tests/integration/t_races.sh).
 * Every mode is a loop bounded both in iterations and in seconds; each prints one line of counts
 * ("iterations N ...") and exits 0, or 1 where it saw the invariant broken, 2 on a usage or setup error.
 *
 *   race churn DIR SECONDS NAME...
 *       As the owner of DIR: each NAME made, grown into NAME/a/b, renamed to NAME.old while a new NAME is
 *       made and removed, renamed back (cgroup v1 allows a rename within one parent; cgroup2 refuses it,
 *       and the loop goes on), emptied and made again, until SECONDS pass.
 *   race calls SOCK CTRL ITER SECONDS KEY VALUE UID PID... -- NAME...
 *       As the requester: Create, SetValue KEY=VALUE, Chown to UID:UID, MovePid of each PID and Remove
 *       (recursive), each on every NAME in turn, ITER calls in all; prints how many were answered and refused.
 *   race create-swap SOCK CTRL DIR NAME VICTIM ITER SECONDS [values]
 *       As the owner of DIR (the requester's cgroup in CTRL's hierarchy): asks the daemon to Create NAME
 *       (with "values", the key API's Create with memory.limit, which a refusal undoes) while another
 *       process of ours renames the new directory away the moment it appears and renames VICTIM (a cgroup
 *       root made in DIR) to NAME. Broken if VICTIM's files ever become ours, or VICTIM is gone.
 *   race exec-move SOCK CTRL DEST BIN ITER SECONDS MAX_DELAY_US [strict]
 *       As the requester: a child of ours execs BIN (a setuid-root program) 0..MAX_DELAY_US after we ask
 *       the daemon to MovePid it into DEST. A refused move must leave it where it was; with "strict" (the
 *       daemon slowed so that the exec surely lands between its check and its write) a task running as
 *       root must never be in DEST.
 *   race exit-move SOCK CTRL DEST UID OTHER_UID ITER SECONDS
 *       As root: a task of UID exits while UID asks to MovePid it into DEST, and its pid is handed at once
 *       (clone3 set_tid) to a task of OTHER_UID. Broken if that task is ever in DEST.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgmanager.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "race: %s: %s\n", what, strerror(errno));
	exit(2);
}

static cgm_client *connect_or_die(const char *sock)
{
	cgm_client *c;
	cgm_error e = {0};
	if (cgm_connect(sock, &c, &e) < 0) {
		fprintf(stderr, "race: cannot connect to %s: %s\n", sock, e.message ? e.message : "?");
		exit(2);
	}
	return c;
}

/*
 * The path of pid's cgroup in the hierarchy holding ctrl ("" or "unified" for cgroup2, which also stands
 * for a controller that has no v1 hierarchy; "all" looks at memory's), or "" if none.
 */
static void cgroup_of(pid_t pid, const char *ctrl, char *out, size_t len)
{
	if (strcmp(ctrl, "all") == 0) {
		cgroup_of(pid, "memory", out, len);
		if (!*out)
			cgroup_of(pid, "", out, len);
		return;
	}
	char path[64], line[4096];
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	FILE *f = fopen(path, "re");
	out[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
		if (!b)
			continue;
		*b = '\0';
		bool hit = false;
		if (*ctrl == '\0' || strcmp(ctrl, "unified") == 0) {
			hit = a[1] == '\0';
		} else {
			for (char *tok = strtok(a + 1, ","); tok; tok = strtok(NULL, ","))
				hit |= strcmp(tok, ctrl) == 0;
		}
		if (hit) {
			b[1 + strcspn(b + 1, "\n")] = '\0';
			snprintf(out, len, "%s", b + 1);
			break;
		}
	}
	fclose(f);
	/* On a pure cgroup2 host every controller is cgroup2's. */
	if (!*out && *ctrl && strcmp(ctrl, "unified") != 0)
		cgroup_of(pid, "", out, len);
}

/* cg ends in "/DEST" or "/DEST/.leaf" (cgroup2's task leaf). */
static bool in_dest(const char *cg, const char *dest)
{
	size_t n = strlen(cg), d = strlen(dest);
	if (n > 6 && strcmp(cg + n - 6, "/.leaf") == 0)
		n -= 6;
	return n > d && cg[n - d - 1] == '/' && strncmp(cg + n - d, dest, d) == 0;
}

/* Effective uid from /proc/PID/status, -1 if gone. */
static long euid_of(pid_t pid)
{
	char path[64], line[256];
	long r = -1, u[4];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %ld %ld %ld %ld", &u[0], &u[1], &u[2], &u[3]) == 4)
			r = u[1];
	fclose(f);
	return r;
}

/* rmdir of a tree of cgroups beneath the current directory, children first (a cgroup's files go with it). */
static void rmdir_tree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char sub[4096];
	while (d && (de = readdir(d)))
		if (de->d_type == DT_DIR && strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
			snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
			rmdir_tree(sub);
		}
	if (d)
		closedir(d);
	/* Our tasks that a requester moved in go back to the cgroup we run in (v1: a task's owner may). */
	snprintf(sub, sizeof(sub), "%s/cgroup.procs", path);
	FILE *f = fopen(sub, "re");
	int pid;
	while (f && fscanf(f, "%d", &pid) == 1) {
		FILE *to = fopen("cgroup.procs", "we");
		if (to) {
			fprintf(to, "%d\n", pid);
			fclose(to);
		}
	}
	if (f)
		fclose(f);
	rmdir(path);
}

static int churn(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	if (chdir(argv[0]) < 0)
		die(argv[0]);
	double end = now_s() + atof(argv[1]);
	long ops = 0, renames = 0;
	char p[512], q[512];
	while (now_s() < end) {
		for (int i = 2; i < argc; i++) {
			const char *n = argv[i];
			ops += mkdir(n, 0755) == 0;
			snprintf(p, sizeof(p), "%s/a", n);
			ops += mkdir(p, 0755) == 0;
			snprintf(p, sizeof(p), "%s/a/b", n);
			ops += mkdir(p, 0755) == 0;
			snprintf(q, sizeof(q), "%s.old", n);
			if (rename(n, q) == 0) {
				renames++;
				/* A new tree of the same name, then the old one back in its place. */
				ops += mkdir(n, 0755) == 0;
				ops += rmdir(n) == 0;
				ops += rename(q, n) == 0;
			}
			ops += rmdir(p) == 0;
			snprintf(p, sizeof(p), "%s/a", n);
			ops += rmdir(p) == 0;
			ops += rmdir(n) == 0;
			ops += mkdir(n, 0755) == 0;
		}
	}
	/* A NAME left aside (a requester made a tree of the new NAME meanwhile) goes back in its place. */
	for (int i = 2; i < argc; i++) {
		snprintf(q, sizeof(q), "%s.old", argv[i]);
		if (access(q, F_OK) == 0) {
			rmdir_tree(argv[i]);
			if (rename(q, argv[i]) < 0)
				fprintf(stderr, "churn: cannot put %s back: %s\n", argv[i], strerror(errno));
		}
	}
	printf("churn: %ld changes, %ld renames\n", ops, renames);
	return 0;
}

static int calls(int argc, char **argv)
{
	int sep = -1;
	for (int i = 0; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			sep = i;
	if (argc < 8 || sep < 7 || sep + 1 >= argc)
		return 2;
	cgm_client *c = connect_or_die(argv[0]);
	const char *ctrl = argv[1], *key = argv[4], *value = argv[5];
	long iter = atol(argv[2]), done = 0, ok = 0, refused = 0, moved = 0;
	double end = now_s() + atof(argv[3]);
	uid_t uid = (uid_t)atol(argv[6]);
	char **pids = argv + 7, **names = argv + sep + 1;
	int npids = sep - 7, nnames = argc - sep - 1, nwhy = 0;
	char whys[16][64], example[16][200];
	long nwhys[16] = {0};
	while (done < iter && now_s() < end) {
		const char *n = names[done % nnames];
		cgm_error e = {0};
		int existed, r;
		/* Rounds over every name: Create, SetValue, Chown, MovePid, Remove. */
		switch ((done / nnames) % 5) {
		case 0:
			r = cgm_create(c, ctrl, n, &existed, &e);
			break;
		case 1:
			r = cgm_set_value(c, ctrl, n, key, value, &e);
			break;
		case 2:
			r = cgm_chown(c, ctrl, n, uid, uid, &e);
			break;
		case 3:
			r = cgm_move_pid(c, ctrl, n, (pid_t)atol(pids[done % npids]), &e);
			moved += r == 0;
			break;
		default:
			r = cgm_remove(c, ctrl, n, 1, &existed, &e);
			break;
		}
		if (r == 0) {
			ok++;
		} else {
			refused++;
			const char *why = e.name ? strrchr(e.name, '.') + 1 : "?";
			int k = 0;
			while (k < nwhy && strcmp(whys[k], why) != 0)
				k++;
			if (k == nwhy && nwhy < 16) {
				snprintf(example[nwhy], sizeof(example[0]), "%s", e.message ? e.message : "?");
				snprintf(whys[nwhy++], sizeof(whys[0]), "%s", why);
			}
			if (k < nwhy)
				nwhys[k]++;
		}
		if (e.name && strcmp(e.name, "org.freedesktop.DBus.Error.NoServer") == 0) {
			printf("iterations %ld: the daemon stopped answering: %s\n", done, e.message ? e.message : "");
			cgm_error_clear(&e);
			cgm_disconnect(c);
			return 1;
		}
		cgm_error_clear(&e);
		done++;
	}
	cgm_disconnect(c);
	printf("iterations %ld: %ld done, %ld refused (%ld moves done); refusals:", done, ok, refused, moved);
	for (int k = 0; k < nwhy; k++)
		printf(" %s %ld", whys[k], nwhys[k]);
	printf("\n");
	/* What a refusal of a kind other than the usual ones said (the first of each). */
	for (int k = 0; k < nwhy; k++)
		if (strcmp(whys[k], "AccessDenied") != 0 && strcmp(whys[k], "FileNotFound") != 0 &&
		    strcmp(whys[k], "InvalidArgs") != 0 && strcmp(whys[k], "Busy") != 0)
			printf("  %s: %s\n", whys[k], example[k]);
	return 0;
}

/* Shared with the spinner: 1 while a Create is under way, 2 once the spinner swapped. */
struct swap_shm {
	atomic_int phase, swapped, idle;
};

static int create_swap(int argc, char **argv)
{
	if (argc < 7)
		return 2;
	const char *sock = argv[0], *ctrl = argv[1], *dir = argv[2], *name = argv[3], *victim = argv[4];
	long iter = atol(argv[5]), done = 0, refused = 0, swaps = 0;
	double end = now_s() + atof(argv[6]);
	bool with_values = argc > 7 && strcmp(argv[7], "values") == 0;
	char aside[300];
	struct stat st;
	snprintf(aside, sizeof(aside), "%s.aside", name);
	if (chdir(dir) < 0)
		die(dir);
	struct swap_shm *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		die("mmap");
	pid_t spinner = fork();
	if (spinner < 0)
		die("fork");
	if (spinner == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* The instant NAME appears, it goes aside and VICTIM takes its name. */
		for (;;) {
			if (atomic_load(&s->phase) != 1) {
				atomic_store(&s->idle, 1);
				if (atomic_load(&s->phase) == 3)
					_exit(0);
				continue;
			}
			atomic_store(&s->idle, 0);
			if (atomic_load(&s->swapped) == 0 && rename(name, aside) == 0) {
				int ok = rename(victim, name) == 0;
				atomic_store(&s->swapped, ok ? 2 : 1);
			}
		}
	}
	cgm_client *c = connect_or_die(sock);
	int broken = 0;
	while (done < iter && now_s() < end && !broken) {
		cgm_error e = {0};
		int existed;
		atomic_store(&s->swapped, 0);
		atomic_store(&s->phase, 1);
		int r;
		if (with_values) {
			const char *ctrls[] = {ctrl, NULL};
			cgm1_value v = {.key = (char *)"memory.limit", .value = (char *)"67108864"};
			r = cgm1_create(c, name, ctrls, &v, 1, &existed, &e);
		} else {
			r = cgm_create(c, ctrl, name, &existed, &e);
		}
		refused += r < 0;
		atomic_store(&s->phase, 0);
		while (atomic_load(&s->idle) == 0)
			;
		cgm_error_clear(&e);
		/* Put everything back: VICTIM under its own name, no NAME, no NAME.aside. */
		if (atomic_load(&s->swapped) == 2) {
			swaps++;
			if (stat(name, &st) == 0 && st.st_uid == getuid())
				broken = 1;
			if (rename(name, victim) < 0) {
				printf("iteration %ld: %s is gone (%s)\n", done, victim, strerror(errno));
				broken = 1;
			}
		}
		rmdir(aside);
		rmdir(name);
		done++;
	}
	cgm_disconnect(c);
	atomic_store(&s->phase, 3);
	waitpid(spinner, NULL, 0);
	if (stat(victim, &st) == 0 && st.st_uid == getuid())
		broken = 1;
	printf("iterations %ld: %ld swaps during the call, %ld calls refused%s\n", done, swaps, refused,
	       broken ? "; the victim cgroup became ours, or was removed" : "");
	return broken;
}

static void spin_us(long us)
{
	double end = now_s() + (double)us / 1e6;
	while (now_s() < end)
		;
}

static int exec_move(int argc, char **argv)
{
	if (argc < 7)
		return 2;
	const char *sock = argv[0], *ctrl = argv[1], *dest = argv[2], *bin = argv[3];
	long iter = atol(argv[4]), max_delay = atol(argv[6]), done = 0;
	long ok_moved = 0, ok_root_in_dest = 0, refused_in_place = 0, refused_moved = 0, other = 0, exec_after_move = 0;
	bool strict = argc > 7 && strcmp(argv[7], "strict") == 0;
	double end = now_s() + atof(argv[5]);
	char before[4096], after[4096], first_refusal[1024] = "";
	cgm_client *c = connect_or_die(sock);
	srand((unsigned)getpid());
	while (done < iter && now_s() < end) {
		int go[2];
		if (pipe2(go, O_CLOEXEC) < 0)
			die("pipe");
		long delay = max_delay > 0 ? rand() % (max_delay + 1) : 0;
		pid_t pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			char b;
			close(go[1]);
			if (read(go[0], &b, 1) != 1)
				_exit(1);
			spin_us(delay);
			execl(bin, "sleep", "600", (char *)NULL);
			_exit(127);
		}
		close(go[0]);
		cgroup_of(pid, ctrl, before, sizeof(before));
		cgm_error e = {0};
		if (write(go[1], "g", 1) != 1)
			die("write");
		close(go[1]);
		int r = cgm_move_pid(c, ctrl, dest, pid, &e);
		/*
		 * Root already when the answer came: the daemon moved a task that was root before it answered. Root only
		 * later: the exec came after the move (a machine too busy to run it in the window), as it may at any time.
		 */
		bool root_at_reply = euid_of(pid) == 0;
		/* Once the exec is done (euid 0), where it is says what the daemon did. */
		for (int i = 0; i < 2000 && euid_of(pid) != 0; i++)
			usleep(500);
		long euid = euid_of(pid);
		cgroup_of(pid, ctrl, after, sizeof(after));
		bool moved = strcmp(before, after) != 0, there = in_dest(after, dest);
		if (r == 0 && there)
			ok_moved++;
		else if (r < 0 && !moved)
			refused_in_place++;
		else if (r < 0 && moved)
			refused_moved++;
		else
			other++;
		if (euid == 0 && there && strict && root_at_reply)
			ok_root_in_dest++;
		else if (euid == 0 && there && strict)
			exec_after_move++;
		if ((r < 0 && moved) || (strict && root_at_reply && there))
			fprintf(stderr, "iteration %ld: pid %d (euid %ld) is in %s after %s%s\n", done, (int)pid, euid, after,
			        r == 0 ? "a move done" : "a refusal: ", r == 0 ? "" : (e.message ? e.message : "?"));
		if (r < 0 && !*first_refusal)
			snprintf(first_refusal, sizeof(first_refusal), "%s", e.message ? e.message : "?");
		cgm_error_clear(&e);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		done++;
	}
	cgm_disconnect(c);
	printf("iterations %ld: %ld moved, %ld refused and left in place, %ld refused but moved, %ld other; "
	       "%ld ran as root in %s when the move was answered, %ld only after\n", done, ok_moved, refused_in_place,
	       refused_moved, other, ok_root_in_dest, dest, exec_after_move);
	if (*first_refusal)
		printf("the first refusal: %s\n", first_refusal);
	return refused_moved || ok_root_in_dest;
}

static pid_t clone_with_pid(pid_t want)
{
	pid_t tid = want;
	struct clone_args a = {.exit_signal = SIGCHLD, .set_tid = (uint64_t)(uintptr_t)&tid, .set_tid_size = 1};
	return (pid_t)syscall(SYS_clone3, &a, sizeof(a));
}

static int exit_move(int argc, char **argv)
{
	if (argc < 7)
		return 2;
	const char *sock = argv[0], *ctrl = argv[1], *dest = argv[2];
	uid_t uid = (uid_t)atol(argv[3]), other = (uid_t)atol(argv[4]);
	long iter = atol(argv[5]), done = 0, reused = 0, moved_ok = 0, refused = 0, stolen = 0;
	double end = now_s() + atof(argv[6]);
	int req[2], ans[2];
	char cg[4096];
	if (pipe(req) < 0 || pipe(ans) < 0)
		die("pipe");
	/* The requester: uid UID, asks to move each pid it is sent and answers 1 (done) or 0 (refused). */
	pid_t rq = fork();
	if (rq < 0)
		die("fork");
	if (rq == 0) {
		pid_t p;
		close(req[1]);
		close(ans[0]);
		if (setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0)
			_exit(2);
		cgm_client *c = connect_or_die(sock);
		while (read(req[0], &p, sizeof(p)) == sizeof(p)) {
			cgm_error e = {0};
			char r = cgm_move_pid(c, ctrl, dest, p, &e) == 0;
			cgm_error_clear(&e);
			if (write(ans[1], &r, 1) != 1)
				_exit(2);
		}
		cgm_disconnect(c);
		_exit(0);
	}
	close(req[0]);
	close(ans[1]);
	srand((unsigned)getpid());
	while (done < iter && now_s() < end) {
		int go[2];
		if (pipe2(go, O_CLOEXEC) < 0)
			die("pipe");
		pid_t v = fork();
		if (v < 0)
			die("fork");
		if (v == 0) {
			char b;
			if (setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0)
				_exit(2);
			close(go[1]);
			(void)!read(go[0], &b, 1);
			_exit(0);
		}
		close(go[0]);
		/* Let the requester ask first, then end the task a moment later, reap it and reuse its pid. */
		if (write(req[1], &v, sizeof(v)) != sizeof(v))
			die("write");
		spin_us(rand() % 3000);
		close(go[1]);
		waitpid(v, NULL, 0);
		pid_t w = clone_with_pid(v);
		if (w == 0) {
			if (setresgid(other, other, other) < 0 || setresuid(other, other, other) < 0)
				_exit(2);
			pause();
			_exit(0);
		}
		char r;
		if (read(ans[0], &r, 1) != 1)
			die("read answer");
		moved_ok += r == 1;
		refused += r == 0;
		if (w > 0) {
			reused++;
			cgroup_of(w, ctrl, cg, sizeof(cg));
			if (in_dest(cg, dest)) {
				stolen++;
				fprintf(stderr, "iteration %ld: pid %d, now uid %u's, was moved into %s\n", done, (int)w,
				        (unsigned)other, cg);
			}
			kill(w, SIGKILL);
			waitpid(w, NULL, 0);
		}
		done++;
	}
	close(req[1]);
	waitpid(rq, NULL, 0);
	printf("iterations %ld: pid reused at once %ld times, %ld moves done, %ld refused; %ld of uid %u's tasks moved\n",
	       done, reused, moved_ok, refused, stolen, (unsigned)other);
	return stolen > 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: race churn|calls|create-swap|exec-move|exit-move ARGS...\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *m = argv[1];
	int r = 2;
	if (strcmp(m, "churn") == 0)
		r = churn(argc - 2, argv + 2);
	else if (strcmp(m, "calls") == 0)
		r = calls(argc - 2, argv + 2);
	else if (strcmp(m, "create-swap") == 0)
		r = create_swap(argc - 2, argv + 2);
	else if (strcmp(m, "exec-move") == 0)
		r = exec_move(argc - 2, argv + 2);
	else if (strcmp(m, "exit-move") == 0)
		r = exit_move(argc - 2, argv + 2);
	if (r == 2)
		fprintf(stderr, "race %s: wrong arguments (see tests/helpers/race.c)\n", m);
	return r;
}
