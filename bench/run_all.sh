#!/usr/bin/env bash
# Builds the benchmarks of bench/RESULTS.md's "Tracer", "Runtime", "AOT" and
# "Runtime size" sections and runs them with the flags used there, writing
# each one's output to OUT_DIR (default BUILD_DIR/bench-results) and the
# machine's load before each, since the machine is shared.
#
#   bench/run_all.sh [BUILD_DIR]                      (default: build-bench)
#   REPS=5 MIN_TIME=0.2 QUIET_MAX=300 bench/run_all.sh  (the defaults)
#
# Google Benchmark cases run REPS times each (--benchmark_repetitions); the
# benchmarks print, after their own output, the best time of each case over
# the repetitions and the ratios between cases (bench/bench_ratio.h): other
# jobs only ever add time, so the best repetition is the least disturbed one.
# Before each benchmark it waits until 3 consecutive 1-second samples of
# /proc/stat show under 5% CPU use (at most QUIET_MAX seconds; 0: no wait),
# as the GEMM and Elementwise sections did, and says how long it waited.
# The build is -j1 on purpose: the machine has two cores, shared.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-bench}
REPS=${REPS:-5}
MIN_TIME=${MIN_TIME:-0.2}
QUIET_MAX=${QUIET_MAX:-300}
OUT_DIR=${OUT_DIR:-$BUILD/bench-results}
mkdir -p "$OUT_DIR"

cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTFN_VERIFY_PASSES=OFF >/dev/null || exit 1
cmake --build "$BUILD" -j1 --target tracer_bench runtime_bench aot_bench tfn-export tfn-aot \
  runtime_size_app runtime_size_hello || exit 1

{
  echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), git $(git rev-parse --short HEAD 2>/dev/null) (plus uncommitted changes)"
  lscpu | grep -E '^(Model name|CPU\(s\)|L2|L3)' || true
  uptime
} | tee "$OUT_DIR/machine.txt"

flags=(--benchmark_repetitions="$REPS" --benchmark_min_time="$MIN_TIME")

source bench/wait_quiet.sh  # wait_quiet

status=0
run() {  # run NAME COMMAND...: output to OUT_DIR/NAME.txt and the terminal
  local name=$1
  shift
  local quiet
  quiet=$(wait_quiet)
  { echo "# $* ($(date -u '+%Y-%m-%d %H:%M UTC'); $quiet; $(uptime | sed 's/.*load/load/'))"; "$@"; } 2>&1 |
    tee "$OUT_DIR/$name.txt"
  local rc=${PIPESTATUS[0]}
  echo "# after: $(uptime | sed 's/.*load/load/')" | tee -a "$OUT_DIR/$name.txt"
  ((rc == 0)) || { echo "run_all.sh: $name exited with $rc" >&2; status=1; }
}

run tracer "$BUILD/bench/tracer_bench" "${flags[@]}"
run runtime "$BUILD/bench/runtime_bench" "${flags[@]}"
run aot "$BUILD/bench/aot_bench" "${flags[@]}"
run aot_compile_time bench/aot_compile_time.sh "$BUILD"
run runtime_size bench/runtime_size.sh "$BUILD"
echo "outputs in $OUT_DIR"
exit $status
