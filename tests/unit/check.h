/* A minimal unit-test runner: each case prints "PASS unit: name" or "FAIL unit: name". */
#pragma once
#include <stdio.h>
#include <string.h>

static int check_failed_cases, check_passed_cases, check_case_failed;

#define CHECK(cond)                                                                          \
	do {                                                                                     \
		if (!(cond)) {                                                                       \
			fprintf(stderr, "    %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);      \
			check_case_failed = 1;                                                           \
		}                                                                                    \
	} while (0)

#define CHECK_STR(a, b)                                                                      \
	do {                                                                                     \
		const char *a_ = (a), *b_ = (b);                                                     \
		if (strcmp(a_, b_) != 0) {                                                           \
			fprintf(stderr, "    %s:%d: '%s' != '%s'\n", __FILE__, __LINE__, a_, b_);         \
			check_case_failed = 1;                                                           \
		}                                                                                    \
	} while (0)

#define RUN(fn)                                                                              \
	do {                                                                                     \
		check_case_failed = 0;                                                               \
		fn();                                                                                \
		printf("%s unit: %s\n", check_case_failed ? "FAIL" : "PASS", #fn);                   \
		if (check_case_failed)                                                               \
			check_failed_cases++;                                                            \
		else                                                                                 \
			check_passed_cases++;                                                            \
	} while (0)

#define CHECK_EXIT() (printf("%d passed, %d failed\n", check_passed_cases, check_failed_cases), check_failed_cases != 0)
