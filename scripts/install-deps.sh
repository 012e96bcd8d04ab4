#!/usr/bin/env bash
# Installs what building and testing cgmanager needs on Debian (run as root).
# Skips apt when everything is present already.
set -eu
packages=(
	gcc clang meson ninja-build pkg-config libsystemd-dev libbpf-dev   # build
	libclang-rt-dev                                         # ASan/UBSan and libFuzzer runtimes for clang
	libpam0g-dev pamtester                                  # pam_cgm.so and its tests (t_pam)
	valgrind                                                # the valgrind lane (memcheck of the daemon)
	util-linux procps dbus-bin libglib2.0-bin systemd       # tests: setpriv, dbus-send, gdbus, busctl
	python3 socat python3-jeepney                           # tests: raw-socket clients; a D-Bus client (t_systemd1)
	strace                                                  # tests: what the daemon does meanwhile (t_faults)
	qemu-system-x86 busybox-static cpio xz-utils            # the v2 lane's VM (../shared/v2vm)
	crun                                                    # lane v2: a rootless container in a delegated cgroup
	runc podman lxc uidmap                                  # t_runtimes: the runtimes in a login session's cgroups
	dbus-daemon file                                        # t_systemd1: a private bus, runc --systemd-cgroup,
	                                                        # podman (lane v2; systemd-run from systemd,
	                                                        # busybox-static and crun above)
)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} = 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: need root to install: ${missing[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
