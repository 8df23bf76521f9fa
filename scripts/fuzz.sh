#!/usr/bin/env bash
# Runs one libFuzzer target (fuzz/README.md) for a while:
#   scripts/fuzz.sh TARGET SECONDS     TARGET: bundle, npy, checkpoint, onnx, aot_abi or rest_codec
#   scripts/fuzz.sh --build            only configure, build every target, make seeds
# Configures and builds build-fuzz/ (clang-19, -DTFN_FUZZ=ON) when needed,
# generates the seed corpora when missing (scripts/make-fuzz-seeds.sh), then
# fuzzes with the inputs found so far (build-fuzz/corpus/TARGET/, kept
# between runs) and the seeds. Builds and the run hold /tmp/tfn-build.lock.
# A crash, leak, sanitizer report, hang (one input over FUZZ_TIMEOUT s) or
# out-of-memory (over FUZZ_RSS_MB) stops the run; the input is saved in
# build-fuzz/crashes/TARGET/ and the exit status is non-zero. Prints exec/s,
# coverage and corpus size at the end.
# Environment: FUZZ_BUILD_DIR (default build-fuzz), FUZZ_TIMEOUT (default 25),
#   FUZZ_RSS_MB (default 2560), JOBS (default 2), FUZZ_ARGS (more libFuzzer flags),
#   FUZZ_BESIDE_BUILDS=1 (the run, one core, does not hold the lock, so that a
#   long run leaves the other core to builds and tests; builds still do).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --build ] && [ $# -eq 1 ]; then
  target=""
elif [ $# -eq 2 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]]; then  # libFuzzer reads 0 s as no limit
  target=${1#fuzz_}
  seconds=$2
  case "$target" in
    bundle | npy | checkpoint | onnx | aot_abi | rest_codec) ;;
    *) echo "fuzz.sh: unknown target '$1' (expected bundle, npy, checkpoint, onnx, aot_abi or rest_codec)" >&2; exit 2 ;;
  esac
else
  echo "usage: scripts/fuzz.sh TARGET SECONDS (TARGET: bundle, npy, checkpoint, onnx, aot_abi, rest_codec; SECONDS > 0)" >&2
  echo "       scripts/fuzz.sh --build" >&2
  exit 2
fi
build=${FUZZ_BUILD_DIR:-build-fuzz}
jobs=${JOBS:-2}
lock=/tmp/tfn-build.lock

if [ ! -f "$build/build.ninja" ]; then
  # -O1 with line tables: fast enough to fuzz, stacks with file:line, asserts on.
  # (build.ninja, not CMakeCache.txt: a configure that failed, say before
  # clang-19 was installed, leaves a cache but nothing to build.)
  CC=clang-19 CXX=clang++-19 flock "$lock" cmake -S . -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DTFN_FUZZ=ON -DTFN_BUILD_BENCH=OFF >/dev/null
fi
flock "$lock" cmake --build "$build" -j"$jobs" --target "${target:+fuzz_}${target:-tfn_fuzz}"
[ -d "$build/seeds/${target:-bundle}" ] || scripts/make-fuzz-seeds.sh "$build/seeds"
[ -n "$target" ] || exit 0

corpus=$build/corpus/$target
crashes=$build/crashes/$target
mkdir -p "$corpus" "$crashes"
log=$build/fuzz_$target.log
export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
echo "== fuzz_$target for ${seconds}s (corpus $corpus, crashes to $crashes/, log $log) =="
status=0
# shellcheck disable=SC2086
run_lock=(flock "$lock")
[ "${FUZZ_BESIDE_BUILDS:-0}" = 1 ] && run_lock=()
"${run_lock[@]}" "$build/fuzz/fuzz_$target" "$corpus" "$build/seeds/$target" -max_total_time="$seconds" \
  -timeout="${FUZZ_TIMEOUT:-25}" -rss_limit_mb="${FUZZ_RSS_MB:-2560}" -print_final_stats=1 \
  -artifact_prefix="$crashes/" ${FUZZ_ARGS:-} >"$log" 2>&1 || status=$?
# The last status line has the coverage (cov: edges, ft: features), the
# corpus and exec/s; print_final_stats adds the totals.
last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
echo "fuzz_$target: ${last:-no status line}"
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" | tr '\n' ' ' || true
echo
if [ "$status" != 0 ]; then
  grep -E 'ERROR: |SUMMARY: |runtime error|Test unit written|==[0-9]+== ?ERROR|fuzz_onnx:' "$log" | head -20 >&2 || true
  echo "fuzz.sh: fuzz_$target failed (status $status); input saved in $crashes/, full report in $log" >&2
  exit "$status"
fi
