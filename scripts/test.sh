#!/usr/bin/env bash
# Builds tfn and runs its whole test suite. Installs any missing Debian
# packages first (scripts/setup.sh); quick when everything is already built.
#
# Stages:
#   1. a Release build and every ctest test. With --fresh-clone (the default
#      when CI=true) it runs in a fresh clone of the committed HEAD in an
#      empty temporary directory, with nothing beside it: proof that the suite
#      needs nothing outside the repository but what setup.sh installs.
#      Otherwise in build/.
#   2. an ASan/UBSan build in build-asan/ (-O2 with line tables only, -g1:
#      stacks keep file:line, and the compiler writes far less than -g) of the
#      tests labelled "sanitize" (hostile bundles, corrupt files, fuzzed
#      bytes, and the unit tests of every component but the LLVM code
#      generator) and those tests;
#   3. configures (only) of what packagers build: the runtime alone with its
#      optimized kernels (-DTFN_RUNTIME_ONLY=ON, build-runtime/: CMake does
#      not even look for LLVM or Abseil) and the tree without tests and
#      benchmarks (build-notests/). Stage 4 builds and tests a runtime-only
#      tree; stage 1 tests the optimized kernels;
#   4. the minimal runtime (-DTFN_RUNTIME_ONLY=ON -DTFN_OPTIMIZED_KERNELS=OFF:
#      reference kernels only, optimized for size) in build-minimal/, its
#      tests, and its size (bench/runtime_size.sh --check, with stage 1's
#      tfn-export making the bundle): over issue 4's 300 KB target fails.
#   5. ThreadSanitizer (scripts/stages/tsan.sh): the tests labelled tsan and
#      what they need built with clang-19 in build-tsan/, then those tests;
#   6. fuzzing (scripts/stages/fuzz.sh): the libFuzzer targets of fuzz/ built
#      with clang-19 in build-fuzz/, their regression inputs, then each target
#      for FUZZ_SECONDS (default 60); a crash, leak or hang fails.
# Every ctest run fails on a skipped test that tests/expected-skips.txt does
# not list (scripts/check-skips.sh).
#
#   scripts/test.sh                  every stage
#   scripts/test.sh --fast           stage 1 only
#   scripts/test.sh --fresh-clone    stage 1 in a fresh clone (CI=true: the default)
#   scripts/test.sh --in-place       stage 1 in build/ even when CI=true
#
# Environment: BUILD_DIR (default build), JOBS (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
fast=0
fresh=0
[ "${CI:-}" = true ] && fresh=1
for arg in "$@"; do
  case "$arg" in
    --fast) fast=1 ;;
    --fresh-clone) fresh=1 ;;
    --in-place) fresh=0 ;;
    *) echo "test.sh: unknown option '$arg' (expected --fast, --fresh-clone or --in-place)" >&2; exit 2 ;;
  esac
done
scripts/setup.sh
build=${BUILD_DIR:-build}
jobs=${JOBS:-2}

# ctest, then the skip check on what it printed.
run_ctest() {
  local dir=$1
  shift
  ctest --test-dir "$dir" -j"$jobs" --output-on-failure "$@" 2>&1 | tee "$dir/ctest.log"
  scripts/check-skips.sh "$dir/ctest.log"
}

if [ "$fresh" = 1 ]; then
  tmp=$(mktemp -d)
  echo "== stage 1 in a fresh clone of $(git rev-parse --short HEAD) at $tmp/tfn (nothing beside it) =="
  if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
    echo "test.sh: note: the clone holds the committed HEAD; uncommitted changes are not tested" >&2
  fi
  git clone -q "$PWD" "$tmp/tfn"
  (cd "$tmp/tfn" && BUILD_DIR=build JOBS="$jobs" scripts/test.sh --fast --in-place)
  stage1_build=$tmp/tfn/build
else
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTFN_VERIFY_PASSES=ON >/dev/null
  cmake --build "$build" -j"$jobs"
  run_ctest "$build" --timeout 900
  stage1_build=$build
fi
if [ "$fast" = 0 ]; then
  echo "== sanitizer stage (ASan/UBSan) =="
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
    -DTFN_SANITIZE=address,undefined -DTFN_BUILD_BENCH=OFF -DTFN_VERIFY_PASSES=ON >/dev/null
  cmake --build build-asan -j"$jobs" --target tfn_sanitize_tests
  run_ctest build-asan -L sanitize --timeout 1800
  echo "== configure: the runtime alone (no LLVM, no Abseil); without tests and benchmarks =="
  cmake -S . -B build-runtime -G Ninja -DCMAKE_BUILD_TYPE=Release -DTFN_RUNTIME_ONLY=ON >/dev/null
  cmake -S . -B build-notests -G Ninja -DCMAKE_BUILD_TYPE=Release -DTFN_BUILD_TESTS=OFF \
    -DTFN_BUILD_BENCH=OFF >/dev/null
  echo "== minimal runtime stage (reference kernels only, size checked) =="
  cmake -S . -B build-minimal -G Ninja -DCMAKE_BUILD_TYPE=Release -DTFN_RUNTIME_ONLY=ON \
    -DTFN_OPTIMIZED_KERNELS=OFF >/dev/null
  cmake --build build-minimal -j"$jobs"
  run_ctest build-minimal --timeout 900
  bench/runtime_size.sh --check --export "$stage1_build/tools/tfn-export" build-minimal
  scripts/stages/tsan.sh
  # The seed corpora are made with stage 1's tfn-export (the fuzz build's own
  # is instrumented, and slow to build and to run over ONNX's node tests).
  TFN_EXPORT="$stage1_build/tools/tfn-export" scripts/stages/fuzz.sh
fi
if [ "$fresh" = 1 ]; then
  rm -rf "$tmp"  # kept when a stage fails, for a look at what it built
fi
