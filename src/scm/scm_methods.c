#include "scm/scm_methods.h"

#include <string.h>

const struct scm_method scm_methods[SCM_METHOD_COUNT] = {
	[SCM_GET_PID_CGROUP] = {"GetPidCgroupScm", "GetPidCgroup", "s", "si", "s", SCM_SECOND_PID, SCM_RES_STRING},
	[SCM_GET_PID_CGROUP_ABS] = {"GetPidCgroupAbsScm", "GetPidCgroupAbs", "s", "si", "s",
	                            SCM_SECOND_PID, SCM_RES_STRING},
	[SCM_CREATE] = {"CreateScm", "Create", "ss", "ss", "i", SCM_SECOND_NONE, SCM_RES_CREATE},
	[SCM_CHOWN] = {"ChownScm", "Chown", "ss", "ssii", "", SCM_SECOND_IDS, SCM_RES_STATUS},
	[SCM_CHMOD] = {"ChmodScm", "Chmod", "sssi", "sssi", "", SCM_SECOND_NONE, SCM_RES_STATUS},
	[SCM_MOVE_PID] = {"MovePidScm", "MovePid", "ss", "ssi", "", SCM_SECOND_PID, SCM_RES_STATUS},
	[SCM_MOVE_PID_ABS] = {"MovePidAbsScm", "MovePidAbs", "ss", "ssi", "", SCM_SECOND_PID, SCM_RES_STATUS},
	[SCM_GET_VALUE] = {"GetValueScm", "GetValue", "sss", "sss", "s", SCM_SECOND_NONE, SCM_RES_STRING},
	[SCM_SET_VALUE] = {"SetValueScm", "SetValue", "ssss", "ssss", "", SCM_SECOND_NONE, SCM_RES_STATUS},
	[SCM_REMOVE] = {"RemoveScm", "Remove", "ssi", "ssi", "i", SCM_SECOND_NONE, SCM_RES_REMOVE},
	[SCM_GET_TASKS] = {"GetTasksScm", "GetTasks", "ss", "ss", "ai", SCM_SECOND_NONE, SCM_RES_PIDS},
	[SCM_GET_TASKS_RECURSIVE] = {"GetTasksRecursiveScm", "GetTasksRecursive", "ss", "ss", "ai",
	                             SCM_SECOND_NONE, SCM_RES_PIDS},
	[SCM_LIST_CHILDREN] = {"ListChildrenScm", "ListChildren", "ss", "ss", "as", SCM_SECOND_NONE, SCM_RES_NAMES},
	[SCM_REMOVE_ON_EMPTY] = {"RemoveOnEmptyScm", "RemoveOnEmpty", "ss", "ss", "", SCM_SECOND_NONE, SCM_RES_STATUS},
	[SCM_PRUNE] = {"PruneScm", "Prune", "ss", "ss", "", SCM_SECOND_NONE, SCM_RES_REMOVE},
	[SCM_LIST_KEYS] = {"ListKeysScm", "ListKeys", "ss", "ss", "a(suuu)", SCM_SECOND_NONE, SCM_RES_KEYS},
};

const struct scm_method *scm_method_by_name(const char *name)
{
	for (unsigned i = 0; i < SCM_METHOD_COUNT; i++)
		if (strcmp(scm_methods[i].name, name) == 0)
			return &scm_methods[i];
	return NULL;
}

const struct scm_method *scm_method_by_plain(const char *plain)
{
	for (unsigned i = 0; i < SCM_METHOD_COUNT; i++)
		if (strcmp(scm_methods[i].plain, plain) == 0)
			return &scm_methods[i];
	return NULL;
}
