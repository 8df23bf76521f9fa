#!/usr/bin/env bash
# The main job on the built-in example, as a user would run it: installs what
# is missing, builds tfn, then
#   1. runs the quick-start (eager ops, a traced polymorphic tfn::function),
#   2. traces the built-in mlp model into a bundle       (tfn-export),
#   3. shows what the bundle holds and verifies it        (tfn-inspect),
#   4. compiles its signature ahead of time with LLVM     (tfn-aot -> mlp.o + mlp.h),
#   5. links mlp.o into a plain C program with `cc ... -lm` and runs it,
#   6. runs the same bundle in the runtime                (tfn-run),
#   7. checks the linked app's output against the runtime's (1e-5).
# Outputs go to $EXAMPLE_DIR (default build/example); BUILD_DIR picks the build tree.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
out=${EXAMPLE_DIR:-$build/example}
# TFN_PREBUILT=1 (the test suite): use what is already built in $BUILD_DIR.
if [ "${TFN_PREBUILT:-0}" != 1 ]; then
  scripts/setup.sh
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j"${JOBS:-2}" --target quickstart tfn-export tfn-inspect tfn-aot tfn-run
fi
bin=$(cd "$build/tools" && pwd)
rm -rf "$out" && mkdir -p "$out"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() { printf '$ %s\n' "$*"; "$@"; }

step "1. quick start: eager ops and a traced tfn::function"
"$build/examples/quickstart"

step "2. trace the mlp model into a bundle"
show "$bin/tfn-export" mlp -o "$out/mlp.tfn"

step "3. inspect and verify the bundle"
show "$bin/tfn-inspect" "$out/mlp.tfn" --verify

step "4. compile serving_default ahead of time (LLVM)"
show "$bin/tfn-aot" "$out/mlp.tfn" --signature serving_default --name mlp -o "$out"
ls -l "$out/mlp.o" "$out/mlp.h"

step "5. link mlp.o into a C app (no tfn library) and run it"
show cc -O2 -std=c11 -I"$out" -Iinclude examples/aot_app/main.c "$out/mlp.o" -lm -pthread -o "$out/mlp_app"
show "$out/mlp_app" --batch 4 --threads 2 --write "$out"

step "6. run the same bundle in the runtime"
show "$bin/tfn-run" "$out/mlp.tfn" --input x="$out/input.npy" --output-dir "$out"

step "7. the linked app agrees with the runtime"
show "$out/mlp_app" --batch 4 --compare "$out/probabilities.npy"
printf '\nAll steps passed. Files are in %s\n' "$out"
