/*
 * The journal of the operation under way: a daemon killed in the middle of
 * one (SIGKILL, the OOM killer, a crash) leaves it for the next daemon on
 * the same socket, which finishes or undoes the operation before it serves.
 *
 * A Create notes each hierarchy's topmost new directory before making it:
 * the next daemon removes what a cut-short Create made. A Chown or a Remove
 * notes every cgroup it is about to change once each one is checked, then
 * "go" before its first change: the next daemon carries a noted operation
 * through (the checks passed; a chown or rmdir cannot be given back as it
 * was) where "go" was written, and forgets one without it (nothing was
 * changed yet). An operation empties the journal once it is done.
 *
 * Kill and Freeze need no record: a signal is sent or not, and freezer.state
 * is one write that the kernel carries through by itself.
 */
#pragma once
#include <sys/types.h>

#include "ops/ops.h"
#include "ops/target.h"

/*
 * Opens (or makes) the journal at path, owned by root and nobody else's to
 * write, replays what a killed daemon left there within the hierarchies
 * this one serves, and empties it. Without a usable journal (-1, logged)
 * the daemon runs as before, with nothing to recover from.
 */
int journal_open(struct ops *o, const char *path);
void journal_close(struct ops *o);

/* Each note fails (e set) if it cannot be written: the operation then changes nothing. */
int journal_note_mkdir(struct ops *o, const struct hierarchy *h, const char *rel, uid_t uid, gid_t gid,
                       struct err *e);
int journal_note_chown(struct ops *o, const struct target *t, uid_t uid, gid_t gid, struct err *e);
int journal_note_rmdir(struct ops *o, const struct target *t, struct err *e);
int journal_go(struct ops *o, struct err *e);
/* Takes back the last note (its mkdir made nothing, or was undone). */
void journal_drop_last(struct ops *o);
/* The operation is over, done or undone. */
void journal_end(struct ops *o);
