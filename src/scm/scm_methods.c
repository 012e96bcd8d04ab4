#include "scm/scm_methods.h"

#include <string.h>

const struct scm_method scm_methods[] = {
	{"GetPidCgroupScm", "GetPidCgroup", "s", "si", "s", SCM_SECOND_PID, SCM_RES_STRING},
	{"GetPidCgroupAbsScm", "GetPidCgroupAbs", "s", "si", "s", SCM_SECOND_PID, SCM_RES_STRING},
	{"CreateScm", "Create", "ss", "ss", "i", SCM_SECOND_NONE, SCM_RES_CREATE},
	{"ChownScm", "Chown", "ss", "ssii", "", SCM_SECOND_IDS, SCM_RES_STATUS},
	{"ChmodScm", "Chmod", "sssi", "sssi", "", SCM_SECOND_NONE, SCM_RES_STATUS},
	{"MovePidScm", "MovePid", "ss", "ssi", "", SCM_SECOND_PID, SCM_RES_STATUS},
	{"MovePidAbsScm", "MovePidAbs", "ss", "ssi", "", SCM_SECOND_PID, SCM_RES_STATUS},
	{"GetValueScm", "GetValue", "sss", "sss", "s", SCM_SECOND_NONE, SCM_RES_STRING},
	{"SetValueScm", "SetValue", "ssss", "ssss", "", SCM_SECOND_NONE, SCM_RES_STATUS},
	{"RemoveScm", "Remove", "ssi", "ssi", "i", SCM_SECOND_NONE, SCM_RES_REMOVE},
	{"GetTasksScm", "GetTasks", "ss", "ss", "ai", SCM_SECOND_NONE, SCM_RES_PIDS},
	{"GetTasksRecursiveScm", "GetTasksRecursive", "ss", "ss", "ai", SCM_SECOND_NONE, SCM_RES_PIDS},
	{"ListChildrenScm", "ListChildren", "ss", "ss", "as", SCM_SECOND_NONE, SCM_RES_NAMES},
	{"RemoveOnEmptyScm", "RemoveOnEmpty", "ss", "ss", "", SCM_SECOND_NONE, SCM_RES_STATUS},
	{"PruneScm", "Prune", "ss", "ss", "", SCM_SECOND_NONE, SCM_RES_REMOVE},
	{"ListKeysScm", "ListKeys", "ss", "ss", "a(suuu)", SCM_SECOND_NONE, SCM_RES_KEYS},
};

const unsigned scm_method_count = sizeof(scm_methods) / sizeof(scm_methods[0]);

const struct scm_method *scm_method_by_name(const char *name)
{
	for (unsigned i = 0; i < scm_method_count; i++)
		if (strcmp(scm_methods[i].name, name) == 0)
			return &scm_methods[i];
	return NULL;
}

const struct scm_method *scm_method_by_plain(const char *plain)
{
	for (unsigned i = 0; i < scm_method_count; i++)
		if (strcmp(scm_methods[i].plain, plain) == 0)
			return &scm_methods[i];
	return NULL;
}
