# The real container runtimes of Debian, run from inside a login session's cgroups (issue 15): rootless runc and
# podman and unprivileged lxc-start in lane v2, rootful runc on this host's v1 hierarchies. Each test checks the
# container's limits in cgroupfs, that the kernel enforces them (a fork past pids.max fails), and that the limits
# root set on the user's cgroup hold throughout.
#
# The session is a real one, opened by pamtester through pam_cgm (t_pam.sh), relative to the daemon's root: user/NAME (root's, with the limits of
# pam.conf), user/NAME/N (root's: the PAM application and the login shell, on cgroup2 in its task leaf) and
# user/NAME/N/delegated (the user's, with the session's controllers). From the shell the user names the last
# "delegated" and runs a program in a cgroup of its own there with `cgm exec delegated/SOMETHING -- CMD`.

SESSION_UID=$((TEST_UID2 + 4))
SESSION_MEM=536870912 SESSION_PIDS=200

# session_open NAME: pamtester opens a real session (pam_cgm, t_pam.sh's private /etc/pam.d) of user cgm-NAME
# (uid SESSION_UID), whose pam.conf line limits user/cgm-NAME; SESSION is the session's cgroup, SESSION_USER the
# user's. The session is held open until session_close.
session_open() {
	pam_setup
	SESSION_USER=user/cgm-$1 SESSION=user/cgm-$1/0 SESSION_TAG=$1
	echo "cgm-$1:x:$SESSION_UID:$SESSION_UID::/:/bin/sh" >>"$PW/passwd"
	printf 'cgm-%s memory.limit %s\ncgm-%s pids.limit %s\n' "$1" "$SESSION_MEM" "$1" "$SESSION_PIDS" >"$PW/session.conf"
	pam_open "$1" "cgm-$1" "socket=$SOCK" "config=$PW/session.conf" || return 1
	SESSION_PID=$PAMTESTER_PID
	expect_owner "$(sb_path "$MH")/$SESSION/delegated" "$SESSION_UID" "$SESSION_UID"
}

# session_close: what the user left in its delegated cgroup is ended, then pamtester closes the session, whose
# cgroups, the user's included, must go.
session_close() {
	cgm_root delete -f "$SESSION/delegated" >/dev/null || true
	pam_close "$SESSION_TAG" "$SESSION_PID" || return 1
	wait_until 5 pam_gone "cgm-$SESSION_TAG" || pam_expect_gone "cgm-$SESSION_TAG"
}

# session_exec CGROUP CMD...: the session's user runs CMD from its shell's cgroup through
# `cgm exec delegated/CGROUP`; session_spawn the same in the background (its pid printed and recorded).
session_exec() { local cg=$1; shift; run_as "$SESSION_UID" "$SESSION" "$CGM" --socket "$SOCK" exec "delegated/$cg" -- "$@"; }
session_spawn() { local cg=$1; shift; spawn_as "$SESSION_UID" "$SESSION" "$CGM" --socket "$SOCK" exec "delegated/$cg" -- "$@"; }

# session_limits_hold: the user's cgroup still has root's limits, stays root's, and the user cannot raise them.
session_limits_hold() {
	local m p
	m=$(sb_path "$MH")/$SESSION_USER p=$(sb_path "$PH")/$SESSION_USER
	expect_eq "$(cat "$m/$MLIM")" "$SESSION_MEM" "the user's memory limit" || return 1
	expect_eq "$(cat "$p/pids.max")" "$SESSION_PIDS" "the user's pids limit" || return 1
	expect_owner "$m/$MLIM" 0 0 && expect_owner "$p/pids.max" 0 0 || return 1
	run_as "$SESSION_UID" "" sh -c 'echo max >"$0/pids.max"' "$p" 2>/dev/null && fail "the user raised its pids limit"
	expect_eq "$(cat "$p/pids.max")" "$SESSION_PIDS" "the user's pids limit after the user's write"
}

# static_busybox: a statically linked /bin/busybox to copy into a container's root (busybox-static).
static_busybox() { [ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1; }

# busybox_rootfs DIR OWNER: a container root of busybox's sh and sleep, owned by OWNER (uid:gid).
busybox_rootfs() {
	local a
	mkdir -p "$1/bin" "$1/proc" "$1/sys" "$1/dev" "$1/tmp" "$1/etc"
	cp /bin/busybox "$1/bin/"
	for a in sh sleep; do ln -s busybox "$1/bin/$a"; done
	chown -R "$2" "$1"
}

# oci_config FILE CGROUPS_PATH: an OCI config (from `runc spec`) runs sh, which marks /ready and sleeps, in
# cgroup CGROUPS_PATH with a 64 MiB memory and a 10 pids limit.
oci_config() {
	python3 - "$1" "$2" <<-'PY'
		import json, sys
		path, cgroup = sys.argv[1], sys.argv[2]
		c = json.load(open(path))
		c["process"]["terminal"] = False
		c["root"]["readonly"] = False  # the marker /ready is written there
		c["process"]["args"] = ["sh", "-c", ": >/ready; exec sleep 300"]
		c["linux"]["cgroupsPath"] = cgroup
		# `runc spec --rootless` leaves no resources at all.
		c["linux"].setdefault("resources", {})["memory"] = {"limit": 67108864}
		c["linux"]["resources"]["pids"] = {"limit": 10}
		json.dump(c, open(path, "w"))
	PY
}

# expect_fork_refused LIMIT CMD...: CMD (a way into the container) runs a shell there that forks twice LIMIT
# sleeps; busybox's sh gives up at the first fork the kernel refuses.
expect_fork_refused() {
	local n=$1 out
	shift
	out=$("$@" sh -c 'i=0; while [ $i -lt $0 ]; do sleep 60 >/dev/null 2>&1 & i=$((i+1)); done' $((2 * n)) 2>&1) &&
		fail "$((2 * n)) forks succeeded under pids.max $n"
	echo "$out" | grep -q "can't fork" || fail "no fork failed past pids.max $n: $out"
}

# What the session's layout rests on: from root's session cgroup the user moves its own task down into its delegated
# cgroup (as `cgm exec` does), which cgroup2's delegation rule alone would refuse (the common ancestor, the session's
# cgroup, is root's); moving a task across from another session, or root's task, stays refused.
test_v2_session_user_moves_its_own_task_down_into_its_delegated_cgroup() {
	local d mine roots other
	session_open mv
	d=$(sb_path unified)/$SESSION_USER
	mine=$(spawn_sleeper "$SESSION_UID" "$SESSION")
	roots=$(spawn_sleeper 0 "$SESSION")
	cgm_as "$SESSION_UID" "$SESSION" new delegated/x >/dev/null
	cgm_as "$SESSION_UID" "$SESSION" move delegated/x "$mine"
	grep -qx "$mine" "$d/0/delegated/x/cgroup.procs" || fail "the user's task is not in its delegated/x"
	expect_refused "runs as uid 0" cgm_as "$SESSION_UID" "$SESSION" move delegated/x "$roots"
	cgm_root new "$SESSION_USER/1" >/dev/null
	other=$(spawn_sleeper "$SESSION_UID" "$SESSION_USER/1")
	expect_refused "common ancestor" cgm_as "$SESSION_UID" "$SESSION_USER" move 0/delegated/x "$other"
	grep -qx "$other" "$d/1/cgroup.procs" || fail "the task of session 1 left it"
	end_pids "$mine" "$roots" "$other"
	cgm_root delete "$SESSION_USER/1" >/dev/null
	session_close
}

# session_oci_runtime RUNTIME [OPTION...]: rootless RUNTIME (runc or crun, with its cgroupfs OPTIONs) runs from
# delegated/RUNTIME; the container's cgroup is its sibling delegated/c1: a cgroup that holds the runtime cannot
# hand controllers to a child (cgroup2's rule for cgroups with tasks).
session_oci_runtime() {
	local rt=$1 b=$WORK/$1 d
	shift
	command -v "$rt" >/dev/null || skip "no $rt (scripts/install-deps.sh installs it)"
	static_busybox || skip "no static /bin/busybox (busybox-static)"
	session_open "$rt"
	d=$(sb_path unified)/$SESSION/delegated
	busybox_rootfs "$b/rootfs" "$SESSION_UID:$SESSION_UID"
	chown "$SESSION_UID:$SESSION_UID" "$b"
	session_exec "$rt" sh -c 'cd "$0" && "$1" spec --rootless' "$b" "$rt" || fail "$rt spec failed"
	oci_config "$b/config.json" "${d#/sys/fs/cgroup}/c1"
	session_spawn "$rt" sh -c 'cd "$0" && exec "$@" --root "$0/state" run c1 >"$0/out" 2>&1' "$b" "$rt" "$@" >/dev/null
	wait_until 60 test -e "$b/rootfs/ready" || { fail "the container did not get ready: $(cat "$b/out")"; return 1; }
	expect_eq "$(cat "$d/c1/memory.max")" 67108864 "the container's memory.max"
	expect_eq "$(cat "$d/c1/pids.max")" 10 "the container's pids.max"
	expect_fork_refused 10 session_exec "$rt" "$rt" --root "$b/state" exec c1
	[ "$(cat "$d/c1/pids.current")" -le 10 ] || fail "pids.current $(cat "$d/c1/pids.current") above pids.max"
	session_limits_hold
	session_exec "$rt" "$rt" --root "$b/state" kill c1 KILL
	wait_until 20 sh -c "[ ! -e '$d/c1' ] || [ -z \"\$(cat '$d/c1/cgroup.procs')\" ]"
	session_exec "$rt" "$rt" --root "$b/state" delete -f c1
	expect_missing "$d/c1"
	session_close
}

test_v2_session_rootless_runc_applies_its_limits() { session_oci_runtime runc; }
test_v2_session_rootless_crun_applies_its_limits() { session_oci_runtime crun --cgroup-manager=cgroupfs; }

# podman_env DIR: the environment of a rootless podman whose every file is beneath DIR: its storage (vfs, beneath
# DIR) and the settings a host without systemd needs (containers.conf: the cgroupfs manager, events and logs to
# files instead of the journal). The cgroup parent has no containers.conf key: it is given with --cgroup-parent.
podman_env() {
	mkdir -p "$1/home" "$1/config/containers" "$1/run"
	chmod 700 "$1/run"
	cat >"$1/config/containers/containers.conf" <<-CONF
		[engine]
		cgroup_manager = "cgroupfs"
		events_logger = "file"
		[containers]
		log_driver = "k8s-file"
	CONF
	cat >"$1/config/containers/storage.conf" <<-CONF
		[storage]
		driver = "vfs"
		runroot = "$1/run/storage"
		graphroot = "$1/storage"
	CONF
	chown -R "$SESSION_UID:$SESSION_UID" "$1"
	PODMAN=(env USER=cgm-pm HOME="$1/home" XDG_CONFIG_HOME="$1/config" XDG_RUNTIME_DIR="$1/run" podman)
}

# Rootless podman from delegated/podman, with --cgroup-parent naming the session's delegated cgroup: its container
# goes into delegated/libpod-ID, conmon into delegated/conmon, and podman's pause process (the keeper of its user
# namespace) stays in delegated/podman. No network, no image: the root is a local directory (--rootfs).
test_v2_session_rootless_podman_run_memory_and_pids_limit() {
	local b=$WORK/podman d id c pause
	command -v podman >/dev/null || skip "no podman (scripts/install-deps.sh installs it)"
	static_busybox || skip "no static /bin/busybox (busybox-static)"
	session_open pm
	d=$(sb_path unified)/$SESSION/delegated
	podman_env "$b"
	busybox_rootfs "$b/rootfs" "$SESSION_UID:$SESSION_UID"
	id=$(session_exec podman "${PODMAN[@]}" run -d --name c1 --network=none --memory 64m --pids-limit 20 \
		--cgroup-parent="${d#/sys/fs/cgroup}" --rootfs "$b/rootfs" sh -c ': >/ready; exec sleep 300' 2>"$b/err") ||
		{ fail "podman run failed: $(cat "$b/err")"; return 1; }
	pause=$(cat "$b/run/libpod/tmp/pause.pid" 2>/dev/null) && SB_PIDS+=("$pause")
	wait_until 60 test -e "$b/rootfs/ready" || { fail "the container did not get ready: $(cat "$b/err")"; return 1; }
	c=$d/libpod-$id
	expect_exists "$c" || return 1
	expect_eq "$(cat "$c/memory.max")" 67108864 "the container's memory.max"
	expect_eq "$(cat "$c/pids.max")" 20 "the container's pids.max"
	expect_fork_refused 20 session_exec podman "${PODMAN[@]}" exec c1
	[ "$(cat "$c/pids.current")" -le 20 ] || fail "pids.current $(cat "$c/pids.current") above pids.max"
	session_limits_hold
	session_exec podman "${PODMAN[@]}" rm -f -t 0 c1 >/dev/null
	wait_until 20 test ! -e "$c" || fail "the container's cgroup $c is still there after podman rm"
	# conmon ends after the container, once its exit command (podman container cleanup) is done; the pause process
	# outlives every podman and is ended by its pid. Then nothing of podman's is left to race the removal.
	wait_until 30 cgroup_empty "$d/conmon" || fail "conmon's cgroup still has $(tasks_of "$d/conmon")"
	[ -n "$pause" ] || fail "no pause process in $b/run/libpod/tmp/pause.pid"
	end_pids "$pause"
	wait_until 10 cgroup_empty "$d/podman" || fail "podman's cgroup still has $(tasks_of "$d/podman")"
	session_close
}

# cgroup_empty DIR: cgroup DIR is gone or holds no task; tasks_of DIR names the tasks it holds.
cgroup_empty() { [ ! -e "$1/cgroup.procs" ] || [ -z "$(cat "$1/cgroup.procs")" ]; }
tasks_of() { local p; for p in $(cat "$1/cgroup.procs" 2>/dev/null); do printf '%s(%s) ' "$p" "$(cat "/proc/$p/comm" 2>/dev/null)"; done; }

# Unprivileged LXC needs the user's subordinate ids (newuidmap reads /etc/subuid, /etc/subgid and the user's
# /etc/passwd line): they are bound over /etc's files in a private mount namespace, entered as root in the
# session's cgroup, before the user runs CMD there (lxc_exec CGROUP CMD...).
lxc_exec() {
	local cg=$1
	shift
	run_as 0 "$SESSION" unshare -m --propagation private sh -c '
		for f in passwd group subuid subgid; do mount --bind "$0/$f" /etc/$f || exit 99; done
		exec "$@"' "$LXC_ETC" setpriv --reuid="$SESSION_UID" --regid="$SESSION_UID" --clear-groups --inh-caps=-all -- \
		env HOME="$LXC_ETC" "$CGM" --socket "$SOCK" exec "delegated/$cg" -- "$@"
}

# LXC 5.0 takes the cgroup lxc-start runs in as its base, less a last "init.scope" (lxc/lxc
# src/lxc/cgroups/cgfsng.c, __initialize_cgroups and prune_init_scope), makes lxc.monitor.NAME and lxc.payload.NAME
# beneath the base and enables every controller of the base in the base's cgroup.subtree_control. The kernel
# refuses that (EBUSY) while lxc-start itself sits in the base, so it runs in delegated/lxc/init.scope: the base is
# delegated/lxc, whose controllers the daemon enabled when it made init.scope beneath it.
test_v2_session_unprivileged_lxc_start_with_cgroup2_limits() {
	local b=$WORK/lxc d p
	command -v lxc-start >/dev/null || skip "no lxc-start (scripts/install-deps.sh installs lxc)"
	command -v newuidmap >/dev/null || skip "no newuidmap (scripts/install-deps.sh installs uidmap)"
	static_busybox || skip "no static /bin/busybox (busybox-static)"
	session_open lx
	d=$(sb_path unified)/$SESSION/delegated
	LXC_ETC=$b/etc
	mkdir -p "$LXC_ETC" "$b/lxc/c1"
	cp /etc/passwd /etc/group "$LXC_ETC/"
	echo "cgm-lx:x:$SESSION_UID:$SESSION_UID::$LXC_ETC:/bin/sh" >>"$LXC_ETC/passwd"
	echo "cgm-lx:x:$SESSION_UID:" >>"$LXC_ETC/group"
	echo "cgm-lx:300000:65536" >"$LXC_ETC/subuid"
	echo "cgm-lx:300000:65536" >"$LXC_ETC/subgid"
	busybox_rootfs "$b/lxc/c1/rootfs" 300000:300000
	# lxc.init.cmd is split at blanks, quotes or not: the command is a script.
	printf '#!/bin/sh\n: >/ready\nexec sleep 300\n' >"$b/lxc/c1/rootfs/init.sh"
	chmod 755 "$b/lxc/c1/rootfs/init.sh"
	cat >"$b/lxc/c1/config" <<-CONF
		lxc.uts.name = c1
		lxc.rootfs.path = dir:$b/lxc/c1/rootfs
		lxc.idmap = u 0 300000 65536
		lxc.idmap = g 0 300000 65536
		lxc.net.0.type = empty
		lxc.init.cmd = /init.sh
		lxc.mount.auto = proc:mixed sys:ro
		lxc.autodev = 1
		lxc.tty.max = 0
		lxc.console.path = none
		lxc.apparmor.profile = unconfined
		lxc.cgroup2.memory.max = 67108864
		lxc.cgroup2.pids.max = 10
	CONF
	chown -R "$SESSION_UID:$SESSION_UID" "$b/lxc/c1/config" "$b/lxc/c1" "$b/lxc" "$b"
	chown -R 300000:300000 "$b/lxc/c1/rootfs"
	lxc_exec lxc/init.scope lxc-start -n c1 -P "$b/lxc" -d -l DEBUG -o "$b/lxc.log" ||
		{ fail "lxc-start failed: $(grep -E 'ERROR|WARN' "$b/lxc.log" | tail -20)"; return 1; }
	wait_until 60 test -e "$b/lxc/c1/rootfs/ready" || { fail "the container did not get ready: $(tail -30 "$b/lxc.log")"; return 1; }
	p=$d/lxc/lxc.payload.c1
	expect_exists "$p" || { echo "  lxc's cgroups: $(find "$d" -type d)" >&2; return 1; }
	expect_eq "$(cat "$p/memory.max")" 67108864 "the container's memory.max"
	expect_eq "$(cat "$p/pids.max")" 10 "the container's pids.max"
	# The monitor moved itself into its own cgroup beside the payload's.
	[ -n "$(cat "$d/lxc/lxc.monitor.c1/cgroup.procs")" ] || fail "no monitor in lxc.monitor.c1"
	expect_fork_refused 10 lxc_exec lxc/init.scope lxc-attach -n c1 -P "$b/lxc" --
	[ "$(cat "$p/pids.current")" -le 10 ] || fail "pids.current $(cat "$p/pids.current") above pids.max"
	session_limits_hold
	lxc_exec lxc/init.scope lxc-stop -n c1 -P "$b/lxc" -k || fail "lxc-stop failed: $(tail -20 "$b/lxc.log")"
	expect_eq "$(lxc_exec lxc/init.scope lxc-info -n c1 -P "$b/lxc" -s -H)" STOPPED "the container's state"
	wait_until 20 sh -c "[ ! -e '$p' ] && [ ! -e '$d/lxc/lxc.monitor.c1' ]" ||
		fail "lxc's cgroups are still there after lxc-stop: $(find "$d/lxc" -type d)"
	session_close
}

# As an administrator would `sudo runc run` from a login session: root's runc in the session's cgroup user/NAME/0,
# with a relative cgroupsPath, which runc takes as relative to its own cgroup in each v1 hierarchy.
test_session_rootful_runc_from_the_session_cgroup() {
	local b=$WORK/rootful h pid
	command -v runc >/dev/null || skip "no runc (scripts/install-deps.sh installs it)"
	static_busybox || skip "no static /bin/busybox (busybox-static)"
	has_hierarchy memory && has_hierarchy pids || skip "needs v1's memory and pids hierarchies"
	session_open rr
	busybox_rootfs "$b/rootfs" 0:0
	(cd "$b" && runc spec) || fail "runc spec failed"
	oci_config "$b/config.json" c1
	spawn_as 0 "$SESSION" sh -c 'cd "$0" && exec runc --root "$0/state" run c1 >"$0/out" 2>&1' "$b" >/dev/null
	wait_until 60 test -e "$b/rootfs/ready" || { fail "the container did not get ready: $(cat "$b/out")"; return 1; }
	pid=$(runc --root "$b/state" state c1 | python3 -c 'import json, sys; print(json.load(sys.stdin)["pid"])')
	expect_in_cgroup "$pid" memory "$SESSION/c1"
	expect_in_cgroup "$pid" pids "$SESSION/c1"
	expect_eq "$(cat "$(sb_path memory)/$SESSION/c1/memory.limit_in_bytes")" 67108864 "the container's memory limit"
	expect_eq "$(cat "$(sb_path pids)/$SESSION/c1/pids.max")" 10 "the container's pids.max"
	expect_fork_refused 10 run_as 0 "$SESSION" runc --root "$b/state" exec c1
	session_limits_hold
	run_as 0 "$SESSION" runc --root "$b/state" kill c1 KILL
	wait_until 20 pid_gone "$pid"
	run_as 0 "$SESSION" runc --root "$b/state" delete -f c1
	for h in $(sb_hierarchies); do expect_missing "$(sb_path "$h")/$SESSION/c1" || return 1; done
	session_close
}
