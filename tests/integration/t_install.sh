# What 'meson install' puts where: the service files of each init system -Dinit names and cgm's bash
# completion (install tags 'init' and 'bash-completion', so that nothing needs compiling); and the sysvinit
# script started and stopped for real, against a daemon on a private socket, in a private mount namespace.

INSTALL_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# installed_files DIR: the files under DIR as "mode path" lines, sorted by path.
installed_files() { (cd "$1" && find . -type f -printf '%m %P\n' | sort -k2); }

test_install_service_files_per_init_option() {
	local b=$WORK/inst-build d init got want out
	command -v meson >/dev/null || skip "meson is not installed"
	# What meson installs is the same whichever build runs the suite; its setups take a minute.
	[ "$LANE" = host ] || skip "the same in every lane: run in lane host"
	# A prefix other than /usr shows the daemon's path put into the scripts as installed.
	meson setup "$b" "$INSTALL_SRC" --prefix=/opt/cgm --sysconfdir=/etc >"$WORK/inst.log" 2>&1 ||
		{ cat "$WORK/inst.log"; fail "meson setup failed"; return 1; }
	local completion="644 opt/cgm/share/bash-completion/completions/cgm"
	local -A expect=(
		[none]=""
		[openrc]=$'644 etc/conf.d/cgmanager\n755 etc/init.d/cgmanager'
		[runit]="755 etc/sv/cgmanager/run"
		[s6]=$'755 etc/s6/sv/cgmanager/run\n644 etc/s6/sv/cgmanager/type'
		[sysvinit]=$'644 etc/default/cgmanager\n755 etc/init.d/cgmanager'
	)
	for init in none openrc runit s6 sysvinit; do
		d=$WORK/inst-$init
		meson setup --reconfigure "$b" -Dinit="${init/none/}" >"$WORK/inst.log" 2>&1 &&
			meson install -C "$b" --no-rebuild --tags init,bash-completion --destdir "$d" >>"$WORK/inst.log" 2>&1 ||
			{ cat "$WORK/inst.log"; fail "-Dinit=$init: meson setup or install failed"; return 1; }
		got=$(installed_files "$d")
		want=$(printf '%s\n' "${expect[$init]}" "$completion" | grep . | sort -k2)
		expect_eq "$got" "$want" "files installed with -Dinit=$init"
		for f in "$d"/etc/init.d/cgmanager "$d"/etc/sv/cgmanager/run "$d"/etc/s6/sv/cgmanager/run; do
			[ -e "$f" ] || continue
			sh -n "$f" || fail "$f: sh -n"
			grep -q '/opt/cgm/sbin/cgmanager' "$f" || fail "$f does not run /opt/cgm/sbin/cgmanager"
			grep -q '/usr/sbin/cgmanager' "$f" && fail "$f still names /usr/sbin/cgmanager"
		done
	done
	# Two init systems at once, each its own files.
	meson setup --reconfigure "$b" -Dinit=runit,s6 >"$WORK/inst.log" 2>&1 &&
		meson install -C "$b" --no-rebuild --tags init --destdir "$WORK/inst-two" >>"$WORK/inst.log" 2>&1 ||
		{ cat "$WORK/inst.log"; fail "-Dinit=runit,s6 failed"; return 1; }
	expect_eq "$(installed_files "$WORK/inst-two")" "$(printf '%s\n' "${expect[runit]}" "${expect[s6]}" | sort -k2)" \
		"files installed with -Dinit=runit,s6"
	# OpenRC's and sysvinit's scripts are both /etc/init.d/cgmanager: configuring both is an error.
	out=$(meson setup --reconfigure "$b" -Dinit=openrc,sysvinit 2>&1) && fail "-Dinit=openrc,sysvinit was accepted"
	echo "$out" | grep -q "openrc and sysvinit both install /etc/init.d/cgmanager" || fail "-Dinit=openrc,sysvinit: $out"
	out=$(meson setup --reconfigure "$b" -Dinit=upstart 2>&1) && fail "-Dinit=upstart was accepted"
	# The completion's directory: set, or "no" for none.
	meson setup --reconfigure "$b" -Dinit= -Dbashcompletiondir=no >"$WORK/inst.log" 2>&1 &&
		meson install -C "$b" --no-rebuild --tags init,bash-completion --destdir "$WORK/inst-nocomp" >>"$WORK/inst.log" 2>&1 ||
		{ cat "$WORK/inst.log"; fail "-Dbashcompletiondir=no failed"; return 1; }
	expect_eq "$(installed_files "$WORK/inst-nocomp" 2>/dev/null)" "" "files installed with -Dbashcompletiondir=no"
	rm -rf "$b" "$WORK"/inst-*
}

test_install_sysvinit_script_starts_and_stops_the_daemon() {
	local sock=$WORK/sysv.sock pidfile=$WORK/sysv.pid out pid
	command -v start-stop-daemon >/dev/null || skip "start-stop-daemon is not installed"
	cgm_root new sysv
	# /etc/default/cgmanager on a tmpfs of a private mount namespace points the script at this build, a pid
	# file and a socket of this test's; the host's /etc and /run stay as they are.
	out=$(run_as 0 sysv unshare -m --propagation private sh -c '
		script=$1 daemon=$2 sock=$3 pidfile=$4 cgm=$5
		mount -t tmpfs tmpfs /etc/default || exit 90
		printf "DAEMON=%s\nPIDFILE=%s\nSOCKET=%s\nCGMANAGER_OPTS=\"--log-level debug\"\n" \
			"$daemon" "$pidfile" "$sock" >/etc/default/cgmanager
		step() { "$script" "$@" >/dev/null 2>&1; echo "$* $?"; }
		step status
		step start
		"$cgm" --socket "$sock" ping && echo "ping ok"
		cat "$pidfile" >"$pidfile.seen"
		step start
		step status
		step restart
		"$cgm" --socket "$sock" ping && echo "ping ok"
		step stop
		step status
		[ -e "$sock" ] || echo "socket removed"
		step stop' _ "$INSTALL_SRC/data/sysvinit/cgmanager" "$CGMANAGER" "$sock" "$pidfile" "$CGM" 2>&1)
	# Whatever happened, no daemon of this test outlives it.
	for pid in $(cat "$pidfile" "$pidfile.seen" 2>/dev/null || true); do
		[ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$CGMANAGER" ] && end_pids "$pid"
	done
	expect_eq "$out" "$(printf '%s\n' 'status 3' 'start 0' 'ping ok' 'start 0' 'status 0' 'restart 0' 'ping ok' \
		'stop 0' 'status 3' 'socket removed' 'stop 0')" "the script's steps"
	cgm_root delete sysv
}
