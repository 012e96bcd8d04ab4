/* Reading the io keys: weights, and the per-device lines of weights and rate limits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys/internal.h"

int key_get_blkio_weight(const struct key_ref *k, char **out, struct err *e)
{
	unsigned long long v;
	bool found;
	if (k->version == 1)
		return key_get_number(k, out, e);
	/* v2 io.weight starts with "default N"; per-device lines follow. */
	if (key_read_field(k, k->ctrl, k->file, "default", &v, &found, e) < 0)
		return -1;
	if (!found)
		return err_set(e, ERR_FAILED, "%s: %s has no default line", k->key, k->file);
	return key_answer_fmt(out, e, "%llu", v);
}

/* Whether WORD is MAJ:MIN in decimal. */
static bool is_devnum(const char *word)
{
	unsigned long long a, b;
	const char *colon = strchr(word, ':');
	char maj[16];
	if (!colon || (size_t)(colon - word) >= sizeof(maj))
		return false;
	memcpy(maj, word, (size_t)(colon - word));
	maj[colon - word] = '\0';
	return key_parse_u64(maj, &a) && key_parse_u64(colon + 1, &b);
}

/*
 * Every "MAJ:MIN ..." line of K's file as "MAJ:MIN VALUE": VALUE the second
 * word, or with FIELD the value of its FIELD=VALUE word, the device left out
 * when that is max (no limit). Other lines ("default 100") are not devices.
 */
static int device_lines(const struct key_ref *k, const char *field, char **out, struct err *e)
{
	char *text, *save, *answer = NULL;
	size_t size = 0, flen = field ? strlen(field) : 0;
	FILE *f;
	bool first = true;

	if (key_read(k, k->ctrl, k->file, &text, e) < 0)
		return -1;
	f = open_memstream(&answer, &size);
	if (!f) {
		free(text);
		return key_oom(e);
	}
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *words, *wsave, *dev, *value = NULL;
		words = line;
		dev = strtok_r(words, " \t", &wsave);
		if (!dev || !is_devnum(dev))
			continue;
		for (char *w = strtok_r(NULL, " \t", &wsave); w; w = strtok_r(NULL, " \t", &wsave)) {
			if (!field) {
				value = w;
				break;
			}
			if (strncmp(w, field, flen) == 0 && w[flen] == '=') {
				value = w + flen + 1;
				break;
			}
		}
		if (!value || (field && strcmp(value, "max") == 0))
			continue;
		fprintf(f, "%s%s %s", first ? "" : "\n", dev, value);
		first = false;
	}
	free(text);
	if (fclose(f) != 0) {
		free(answer);
		return key_oom(e);
	}
	*out = answer;
	return 0;
}

int key_get_weight_device(const struct key_ref *k, char **out, struct err *e)
{
	return device_lines(k, NULL, out, e);
}

int key_get_throttle(const struct key_ref *k, char **out, struct err *e)
{
	if (k->version == 1)
		return device_lines(k, NULL, out, e);
	return device_lines(k, k->def->arg ? "wbps" : "rbps", out, e);
}
