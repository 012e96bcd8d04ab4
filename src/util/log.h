/* Levelled logging to stderr and, on request, syslog. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

enum log_level { LOG_LVL_ERROR, LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DEBUG };

void log_setup(enum log_level level, bool use_syslog);
/* The program name in each line (default "cgmanager"). */
void log_set_ident(const char *name);
/* Returns -1 for a name it does not know. */
int log_level_from_name(const char *name);
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOG_LVL_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LVL_DEBUG, __VA_ARGS__)

/*
 * A line any client can cause over and over is logged at most once per interval, or it floods the journal:
 * the occurrences in between are counted, and the next line says how many it stands for.
 */
struct log_limit {
	uint64_t logged_at; /* of the last line (monotonic us); 0: none yet */
	unsigned count;     /* occurrences since then */
};
/* One more occurrence at now (monotonic us): whether to log it now, with *n the occurrences the line stands for. */
bool log_limit_pass(struct log_limit *l, uint64_t now, uint64_t interval_usec, unsigned *n);
