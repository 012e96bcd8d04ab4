#!/usr/bin/env bash
# build.sh DIR [meson options...]: configures DIR once, then builds it.
set -eu
dir=$1
shift
cd "$(dirname "$0")/.."
if [ ! -f "$dir/build.ninja" ]; then
	meson setup "$dir" "$@" >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log"; exit 1; }
	rm -f "$dir.setup.log"
fi
ninja -C "$dir" >"$dir.ninja.log" 2>&1 || { cat "$dir.ninja.log"; exit 1; }
rm -f "$dir.ninja.log"
