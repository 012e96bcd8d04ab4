# Sourced by ns.sh and world.sh, in a private mount namespace: a tmpfs over /run/systemd (or over /run where the
# host has no /run/systemd: then RUN_IS_OURS=1) holding an empty /run/systemd/system.
RUN_IS_OURS=
if [ -d /run/systemd ]; then
	mount -t tmpfs -o mode=0755 tmpfs /run/systemd
else
	mount -t tmpfs -o mode=0755 tmpfs /run
	mkdir /run/systemd
	RUN_IS_OURS=1
fi
mkdir /run/systemd/system
