#!/usr/bin/env bash
# Builds tfn and runs its whole test suite. Installs any missing Debian
# packages first (scripts/setup.sh); quick when everything is already built.
#
# Four stages:
#   1. a Release build in build/ and every ctest test;
#   2. an ASan/UBSan build in build-asan/ of the tests labelled "sanitize"
#      (hostile bundles, corrupt files, fuzzed bytes, and the unit tests of
#      every component but the LLVM code generator) and those tests;
#   3. the runtime alone (-DTFN_RUNTIME_ONLY=ON: core, schema, kernels,
#      loader; CMake does not even look for LLVM or Abseil) in
#      build-runtime/, and its tests: proof that it builds without them;
#      then a configure (only) with -DTFN_BUILD_TESTS=OFF -DTFN_BUILD_BENCH=OFF
#      in build-notests/, the options a packager uses;
#   4. the minimal runtime (-DTFN_RUNTIME_ONLY=ON -DTFN_OPTIMIZED_KERNELS=OFF:
#      reference kernels only, optimized for size) in build-minimal/, its
#      tests, and its size (bench/runtime_size.sh --check, with stage 1's
#      tfn-export making the bundle): over issue 4's 300 KB target fails.
#   scripts/test.sh --fast   stage 1 only
#
# Environment: BUILD_DIR (default build), JOBS (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
fast=0
for arg in "$@"; do
  case "$arg" in
    --fast) fast=1 ;;
    *) echo "test.sh: unknown option '$arg' (expected --fast)" >&2; exit 2 ;;
  esac
done
scripts/setup.sh
build=${BUILD_DIR:-build}
jobs=${JOBS:-2}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$jobs"
ctest --test-dir "$build" -j"$jobs" --output-on-failure --timeout 900
if [ "$fast" = 0 ]; then
  echo "== sanitizer stage (ASan/UBSan) =="
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTFN_SANITIZE=address,undefined -DTFN_BUILD_BENCH=OFF >/dev/null
  cmake --build build-asan -j"$jobs" --target tfn_sanitize_tests
  ctest --test-dir build-asan -j"$jobs" --output-on-failure -L sanitize --timeout 1800
  echo "== runtime-only stage (no LLVM, no Abseil) =="
  cmake -S . -B build-runtime -G Ninja -DCMAKE_BUILD_TYPE=Release -DTFN_RUNTIME_ONLY=ON >/dev/null
  cmake --build build-runtime -j"$jobs"
  ctest --test-dir build-runtime -j"$jobs" --output-on-failure --timeout 900
  echo "== configure without tests and benchmarks =="
  cmake -S . -B build-notests -G Ninja -DCMAKE_BUILD_TYPE=Release -DTFN_BUILD_TESTS=OFF \
    -DTFN_BUILD_BENCH=OFF >/dev/null
  echo "== minimal runtime stage (reference kernels only, size checked) =="
  cmake -S . -B build-minimal -G Ninja -DCMAKE_BUILD_TYPE=Release -DTFN_RUNTIME_ONLY=ON \
    -DTFN_OPTIMIZED_KERNELS=OFF >/dev/null
  cmake --build build-minimal -j"$jobs"
  ctest --test-dir build-minimal -j"$jobs" --output-on-failure --timeout 900
  bench/runtime_size.sh --check --export "$build/tools/tfn-export" build-minimal
fi
