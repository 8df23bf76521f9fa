#!/usr/bin/env bash
# Training-step speed, tfn against PyTorch 1.13 (issue 16): builds
# train_bench and runs it interleaved with bench/train/torch_train.py, round
# by round (tfn interpreted, compiled in process by the code generator
# tfn-aot uses (jit_compile), and as an object compiled by tfn-aot with the
# state in the app's buffers; then PyTorch eager and TorchScript), on one
# thread each, and prints every round's figures and the ratios of the best
# minima. Results in bench/RESULTS.md, "Training".
#
#   bench/train/run.sh                      # 3 rounds of 2 s per engine and model
#   ROUNDS=5 SECONDS_PER_RUN=3 MODELS="mlp cnn lenet rnn" BUILD=build QUIET_MAX=300 bench/train/run.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
ROUNDS=${ROUNDS:-3}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-2}
MODELS=${MODELS:-"mlp cnn rnn"}
QUIET_MAX=${QUIET_MAX:-300}
LOCK=${TFN_BUILD_LOCK:-/tmp/tfn-build.lock}
source bench/wait_quiet.sh

locked() {  # locked COMMAND...: COMMAND under the build lock when flock exists
  if command -v flock >/dev/null; then flock "$LOCK" "$@"; else "$@"; fi
}
if [[ ! -f $BUILD/CMakeCache.txt ]]; then
  locked cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null || exit 1
fi
locked cmake --build "$BUILD" -j2 --target train_bench tfn-aot || exit 1
/usr/bin/python3 -c "import torch" 2>/dev/null || {
  echo "run.sh: PyTorch is missing (scripts/setup.sh installs python3-torch)" >&2
  exit 1
}
wait_quiet
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for ((round = 1; round <= ROUNDS; ++round)); do
  for model in $MODELS; do
    taskset -c 0 "$BUILD/bench/train_bench" --model "$model" --seconds "$SECONDS_PER_RUN" | tee -a "$log"
    taskset -c 0 "$BUILD/bench/train_bench" --model "$model" --seconds "$SECONDS_PER_RUN" --jit 1 |
      tee -a "$log"
    taskset -c 0 "$BUILD/bench/train_bench" --model "$model" --seconds "$SECONDS_PER_RUN" \
      --aot "$BUILD/tools/tfn-aot" | tee -a "$log"
    taskset -c 0 /usr/bin/python3 bench/train/torch_train.py --model "$model" \
      --seconds "$SECONDS_PER_RUN" | tee -a "$log"
  done
done
echo "best minima over $ROUNDS rounds (µs per step) and tfn / PyTorch:"
for model in $MODELS; do
  best() { grep "^$1 $model:" "$log" | sed 's/.*min \([0-9.]*\) us.*/\1/' | sort -g | head -1; }
  t=$(best "tfn traced") j=$(best "tfn jit") a=$(best "tfn aot")
  e=$(best "pytorch eager") s=$(best "pytorch torchscript")
  awk -v m="$model" -v t="$t" -v j="$j" -v a="$a" -v e="$e" -v s="$s" 'BEGIN {
    printf "  %s: tfn traced %.1f, tfn jit %.1f, tfn AOT object %.1f, PyTorch eager %.1f, TorchScript %.1f\n",
           m, t, j, a, e, s
    printf "    traced/eager %.2f, traced/TorchScript %.2f, jit/eager %.2f, AOT/eager %.2f, AOT/TorchScript %.2f\n",
           t / e, t / s, j / e, a / e, a / s }'
done
