/*
 * Intrusive doubly linked lists: each item holds its own prev and next pointers (named by the caller, so one
 * item can be on several lists), the list a head pointer and, where items are appended, a tail pointer.
 * Arguments are evaluated more than once: pass plain lvalues.
 */
#pragma once
#include <stddef.h>

#define LIST_PREPEND(head, item, prev, next)                                                                 \
	do {                                                                                                   \
		(item)->prev = NULL;                                                                           \
		(item)->next = (head);                                                                         \
		if (head)                                                                                      \
			(head)->prev = (item);                                                                 \
		(head) = (item);                                                                               \
	} while (0)

#define LIST_REMOVE(head, item, prev, next)                                                                  \
	do {                                                                                                   \
		if ((item)->prev)                                                                              \
			(item)->prev->next = (item)->next;                                                     \
		else                                                                                           \
			(head) = (item)->next;                                                                 \
		if ((item)->next)                                                                              \
			(item)->next->prev = (item)->prev;                                                     \
		(item)->prev = (item)->next = NULL;                                                            \
	} while (0)

#define LIST_APPEND_TAILED(head, tail, item, prev, next)                                                     \
	do {                                                                                                   \
		(item)->prev = (tail);                                                                         \
		(item)->next = NULL;                                                                           \
		if (tail)                                                                                      \
			(tail)->next = (item);                                                                 \
		else                                                                                           \
			(head) = (item);                                                                       \
		(tail) = (item);                                                                               \
	} while (0)

#define LIST_REMOVE_TAILED(head, tail, item, prev, next)                                                     \
	do {                                                                                                   \
		if (!(item)->next)                                                                             \
			(tail) = (item)->prev;                                                                 \
		LIST_REMOVE(head, item, prev, next);                                                           \
	} while (0)
