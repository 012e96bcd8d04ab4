/*
 * devbpf CGROUP_DIR RULE...   applies the rules ("c 1:3 rwm deny", in order) as the cgroup's device program
 * devbpf CGROUP_DIR --list    prints the stored rules, one a line
 * devbpf CGROUP_DIR --count   prints "OURS OTHERS": device programs attached to the cgroup itself
 * devbpf CGROUP_DIR --foreign attaches an allow-all device program named "foreign", as another manager would
 * devbpf CGROUP_DIR --foreign-override  attaches a deny-all one with BPF_F_ALLOW_OVERRIDE instead
 * Exits 0 on success, 1 with the error on stderr, 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgfs/devices_bpf.h"
#include "cgfs/libbpf_lazy.h"

/*
 * A device program not named as ours: allow-all under BPF_F_ALLOW_MULTI, or deny-all under
 * BPF_F_ALLOW_OVERRIDE (which a program attached beneath would replace). The cgroup keeps it after exit.
 */
static int attach_foreign(int cgfd, bool override)
{
	const struct bpf_insn insns[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = override ? 0 : 1},
		{.code = BPF_JMP | BPF_EXIT},
	};
	struct err e = {0};
	const struct libbpf *bpf = libbpf_lazy(&e);
	if (!bpf) {
		fprintf(stderr, "devbpf: %s\n", e.msg);
		return 1;
	}
	LIBBPF_OPTS(bpf_prog_attach_opts, opts, .flags = override ? BPF_F_ALLOW_OVERRIDE : BPF_F_ALLOW_MULTI);
	int fd = bpf->prog_load(BPF_PROG_TYPE_CGROUP_DEVICE, "foreign", "GPL", insns, 2, NULL);
	if (fd < 0 || bpf->prog_attach_opts(fd, cgfd, BPF_CGROUP_DEVICE, &opts) < 0) {
		fprintf(stderr, "devbpf: cannot %s the foreign program: %s\n", fd < 0 ? "load" : "attach", strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct err e = {0};
	int fd, rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: devbpf CGROUP_DIR RULE... | --list | --count\n");
		return 2;
	}
	if ((fd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		perror(argv[1]);
		return 1;
	}
	if (argc == 3 && strcmp(argv[2], "--list") == 0) {
		struct dev_rule *rules;
		size_t n;
		if (devices_bpf_rules(fd, &rules, &n, &e) < 0) {
			rc = 1;
		} else {
			for (size_t i = 0; i < n; i++) {
				char line[DEVICES_RULE_MAX];
				devices_rule_format(&rules[i], line, sizeof(line));
				puts(line);
			}
			free(rules);
		}
	} else if (argc == 3 && strcmp(argv[2], "--foreign") == 0) {
		return attach_foreign(fd, false);
	} else if (argc == 3 && strcmp(argv[2], "--foreign-override") == 0) {
		return attach_foreign(fd, true);
	} else if (argc == 3 && strcmp(argv[2], "--count") == 0) {
		size_t ours, others;
		if (devices_bpf_count(fd, &ours, &others, &e) < 0)
			rc = 1;
		else
			printf("%zu %zu\n", ours, others);
	} else {
		size_t n = (size_t)argc - 2;
		struct dev_rule *rules = calloc(n ? n : 1, sizeof(*rules));
		if (!rules) {
			close(fd);
			return 1;
		}
		for (size_t i = 0; i < n; i++)
			if (devices_rule_parse(argv[i + 2], &rules[i]) < 0) {
				fprintf(stderr, "devbpf: malformed rule '%s'\n", argv[i + 2]);
				free(rules);
				close(fd);
				return 2;
			}
		if (devices_bpf_apply(fd, rules, n, &e) < 0)
			rc = 1;
		free(rules);
	}
	if (rc)
		fprintf(stderr, "devbpf: %s\n", e.msg);
	close(fd);
	return rc;
}
