#!/usr/bin/env bash
# CI stage: ThreadSanitizer. Configures a clang-19 build in build-tsan/ with
# -DTFN_SANITIZE=thread (benchmarks off), builds the tests labelled tsan and
# what they need (target tfn_tsan_tests: the runtime, the tracer, tfn-aot and
# the compiled mlp, with clang's -Werror), then runs them: the runtime's
# thread pool, Session::Run on one bundle from many threads, tfn::function
# from many threads, and a linked AOT object on <tfn/aot_thread_pool.h> and
# on the runtime's pool. Any race
# report fails the test (halt_on_error). Builds and tests hold
# /tmp/tfn-build.lock.
# Usage: scripts/stages/tsan.sh
# Environment: TSAN_BUILD_DIR (default build-tsan), JOBS (default 2).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${TSAN_BUILD_DIR:-build-tsan}
jobs=${JOBS:-2}
lock=/tmp/tfn-build.lock
echo "== ThreadSanitizer stage (clang-19, the tests labelled tsan) =="
start=$(date +%s)
if [ ! -f "$build/CMakeCache.txt" ]; then
  # -O1 with line tables: TSan's usual optimization level, stacks with file:line.
  CC=clang-19 CXX=clang++-19 flock "$lock" cmake -S . -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DTFN_SANITIZE=thread \
    -DTFN_BUILD_BENCH=OFF -DTFN_VERIFY_PASSES=ON >/dev/null
fi
flock "$lock" cmake --build "$build" -j"$jobs" --target tfn_tsan_tests
built=$(date +%s)
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
flock "$lock" ctest --test-dir "$build" -j"$jobs" -L tsan --output-on-failure --timeout 900
echo "tsan stage: configure+build $((built - start)) s, tests $(($(date +%s) - built)) s"
