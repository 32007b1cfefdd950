#!/usr/bin/env bash
# Prepares .device/ for the device check, from the project root on the development machine:
# the node binary, Vulkan loader and GL dispatch libraries (../shared/device/prepare.sh, when that
# folder is beside the checkout) and the check's bundle (bench/device/build.mjs, after a build).
# Then, on the GPU machine, carrying .device:  . .device/unpack.sh; bash bench/device/check.sh $OUT
set -eu
if [ -x ../shared/device/prepare.sh ] || [ -f ../shared/device/prepare.sh ]; then
  bash ../shared/device/prepare.sh
else
  echo "no ../shared/device/prepare.sh: .device/ needs node.xz, debs/ and unpack.sh from the GPU machine's recipe" >&2
fi
[ -f dist/bench/device/check.js ] || npm run build
node bench/device/build.mjs .device/kiln
du -sh .device
