#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#define LOG_LINE_MAX 4096

static enum log_level max_level = LOG_LVL_INFO;
static bool to_syslog;
static const char *ident = "cgmanager";

void log_set_ident(const char *name)
{
	ident = name;
	if (to_syslog) {
		closelog();
		openlog(ident, LOG_PID, LOG_DAEMON);
	}
}

static const char *const level_names[] = {"error", "warn", "info", "debug"};

void log_setup(enum log_level level, bool use_syslog)
{
	max_level = level;
	to_syslog = use_syslog;
	if (use_syslog)
		openlog("cgmanager", LOG_PID, LOG_DAEMON);
}

int log_level_from_name(const char *name)
{
	for (int i = 0; i < (int)(sizeof(level_names) / sizeof(level_names[0])); i++)
		if (strcmp(name, level_names[i]) == 0)
			return i;
	return -1;
}

bool log_limit_pass(struct log_limit *l, uint64_t now, uint64_t interval_usec, unsigned *n)
{
	l->count++;
	if (l->logged_at && now - l->logged_at < interval_usec)
		return false;
	*n = l->count;
	l->count = 0;
	l->logged_at = now;
	return true;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	static const int syslog_prio[] = {LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG};
	va_list ap;

	if (level > max_level)
		return;
	/* One write per line: lines of the daemon's two threads do not interleave, and a line costs one system
	 * call (stderr is unbuffered: three calls would be three writes). Longer lines are cut. */
	char line[LOG_LINE_MAX];
	int n = snprintf(line, sizeof(line), "%s: %s: ", ident, level_names[level]);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < sizeof(line))
		vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	size_t len = strnlen(line, sizeof(line) - 2);
	line[len] = '\n';
	fwrite(line, 1, len + 1, stderr);
	if (to_syslog) {
		va_start(ap, fmt);
		vsyslog(syslog_prio[level], fmt, ap);
		va_end(ap);
	}
}
