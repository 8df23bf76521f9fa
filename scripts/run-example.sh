#!/usr/bin/env bash
# The main job on the built-in example: installs what is missing, builds tfn
# and runs the quick-start example (eager ops, then a traced tfn::function).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"${JOBS:-2}" --target quickstart
"$build/examples/quickstart"
