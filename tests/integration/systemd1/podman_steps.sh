#!/bin/bash
# podman --cgroup-manager=systemd runs a busybox container (--rootfs, no image) against cgmanager's systemd1
# interface, on cgroup2 alone; run inside world.sh with WORLD_CGROUPNS=1. Its storage and state are in
# WORK_DIR. The container must be in its libpod-ID.scope under machine.slice, with podman's limits; after
# podman rm, the scope must be gone. Prints what failed.
set -u
failed=0
fail() { echo "  FAILED: $*" >&2; failed=1; }
pm() {
	podman --cgroup-manager=systemd --root "$WORK_DIR/storage" --runroot "$WORK_DIR/runroot" --tmpdir "$WORK_DIR/tmp" \
		--storage-driver vfs --events-backend file --runtime crun "$@"
}
mkdir -p "$WORK_DIR/tmp"
id=$(pm run -d --name cgmtest --network none --log-driver k8s-file --memory 32m --pids-limit 64 \
	--rootfs "$BUNDLE/rootfs" sleep 300) || { fail "podman run failed: $id"; exit 1; }
pid=$(pm inspect --format '{{.State.Pid}}' cgmtest)
scope=/sys/fs/cgroup/machine.slice/libpod-$id.scope
rel=$(sed -n 's/^0:://p' "/proc/$pid/cgroup")
case /sys/fs/cgroup$rel in
"$scope" | "$scope"/*) ;;
*) fail "the container's pid $pid is in $rel, not in $scope" ;;
esac
[ "$(cat "/sys/fs/cgroup$rel/memory.max")" = 33554432 ] || fail "memory.max is $(cat "/sys/fs/cgroup$rel/memory.max")"
[ "$(cat "/sys/fs/cgroup$rel/pids.max")" = 64 ] || fail "pids.max is $(cat "/sys/fs/cgroup$rel/pids.max")"
busctl call org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager GetUnit s \
	"libpod-$id.scope" >/dev/null || fail "GetUnit libpod-$id.scope"
pm rm -f -t 0 cgmtest >/dev/null || fail "podman rm failed"
for _ in $(seq 100); do [ -d "$scope" ] || break; sleep 0.1; done
[ ! -d "$scope" ] || fail "$scope is still there after podman rm"
exit $failed
