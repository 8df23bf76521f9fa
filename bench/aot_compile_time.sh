#!/usr/bin/env bash
# Times tfn-aot on the mlp and transformer examples (issue 5: target under 2 s
# each): the whole tool as a build runs it (read and verify the bundle,
# optimize, lower to LLVM IR, link the kernels' bitcode, O3, emit the object
# and the header), wall time, best of REPS runs (default 3; the machine is
# shared, so the best run is the one least disturbed by other jobs). User and
# system CPU of the best run are printed too: more than the wall time means
# LLVM used a second thread, less means the process waited.
#
#   bench/aot_compile_time.sh [BUILD_DIR]     (default: build-bench)
#
# The tools must be built: cmake --build BUILD_DIR -j1 --target tfn-export tfn-aot
# Exits non-zero only when something fails, not when a target is missed.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-bench}
REPS=${REPS:-3}
EXPORT=$BUILD/tools/tfn-export
AOT=$BUILD/tools/tfn-aot
for tool in "$EXPORT" "$AOT"; do
  [[ -x $tool ]] || { echo "aot_compile_time.sh: $tool is not built" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "tfn-aot compile time, best of $REPS (wall s; user, sys s of that run); $(uptime | sed 's/.*load/load/')"
for model in mlp transformer; do
  "$EXPORT" "$model" -o "$tmp/$model.tfn" >/dev/null
  best="" all=""
  for ((i = 0; i < REPS; ++i)); do
    rm -rf "$tmp/out"
    # bash's `time` keyword: real, user and system seconds of the command.
    t=$( { TIMEFORMAT='%R %U %S'; time "$AOT" "$tmp/$model.tfn" --signature serving_default --name "$model" \
           -o "$tmp/out" >/dev/null; } 2>&1 )
    read -r real user sys <<<"$t"
    all+=" $real"
    if [[ -z $best ]] || awk -v a="$real" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
      best="$real $user $sys"
    fi
  done
  read -r real user sys <<<"$best"
  object=$(stat -c %s "$tmp/out/$model.o")
  verdict=$(awk -v t="$real" 'BEGIN { print (t < 2.0) ? "meets" : "MISSES" }')
  printf '  %-12s %6.2f s  (user %.2f, sys %.2f; runs:%s)  object %d bytes  target < 2 s: %s\n' \
    "$model" "$real" "$user" "$sys" "$all" "$object" "$verdict"
done
