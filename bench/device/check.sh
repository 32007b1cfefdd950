#!/usr/bin/env bash
# The device check on a GPU machine without Node.js (bench/device/README.md says how it travels).
# From the project root there, after `. .device/unpack.sh` (node on PATH, the Vulkan loader and GL
# dispatch libraries in place):
#   bash bench/device/check.sh OUT_DIR [SECONDS [--quick]]
# SECONDS (default 480) is the check's own time budget; its parts stop in time and write their
# figures to OUT_DIR (check.jsonl, check.md, check.log) as they finish. --quick shrinks every part
# (to test the check itself on a software GPU).
set -uo pipefail
out=${1:?usage: bash bench/device/check.sh OUT_DIR [SECONDS]}
seconds=${2:-480}
shift $(($# < 2 ? $# : 2))
kiln=.device/kiln
mkdir -p "$out" "$kiln/dist/linux-x64"
[ -s "$kiln/dist/linux-x64/dawn.node" ] ||
  python3 -c "import lzma,shutil,sys;shutil.copyfileobj(lzma.open(sys.argv[1]),open(sys.argv[2],'wb'))" "$kiln/dawn.node.xz" "$kiln/dist/linux-x64/dawn.node"
{
  node --version
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo 'nvidia-smi: not available'
  nproc
} > "$out/machine.txt" 2>&1
timeout $((seconds + 60)) node "$kiln/check.js" --out "$out" --seconds "$seconds" "$@" 2>&1 | tee "$out/check.log"
