#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

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

void log_msg(enum log_level level, const char *fmt, ...)
{
	static const int syslog_prio[] = {LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG};
	va_list ap;

	if (level > max_level)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "%s: %s: ", ident, level_names[level]);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	if (to_syslog) {
		va_start(ap, fmt);
		vsyslog(syslog_prio[level], fmt, ap);
		va_end(ap);
	}
}
