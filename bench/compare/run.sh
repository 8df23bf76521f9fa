#!/usr/bin/env bash
# The side-by-side benchmark of tfn against ONNX Runtime (issue 7), in one
# command: installs what is missing, builds the tools and the driver, writes
# the ONNX models, converts each to a tfn bundle (tfn-export --onnx) and an
# AOT shared library (tfn-aot + cc -shared), and runs compare_driver on each,
# which prints one Markdown table row per engine. See bench/compare/README.md.
#
# Usage: bench/compare/run.sh          the benchmark models (make_models.py)
#        bench/compare/run.sh --zoo    the model zoo (tests/zoo/make_zoo.py: 32
#                                      real architectures), then a summary
#                                      table with geometric means (summarize.py)
#        bench/compare/run.sh --qdq    PyTorch's post-training-quantized resnet18
#                                      and mobilenet_v2 as QDQ ONNX graphs
#                                      (tests/quant/make_qdq_models.py): int8
# Environment (all optional):
#   BUILD_DIR      CMake build tree (default: build/ in the repository root);
#                  configured as Release with Ninja when it has no build.ninja
#   JOBS           build parallelism (default: 2)
#   MODELS         models to run (default: all; names as in make_models.py,
#                  or with --zoo as in make_zoo.py)
#   BENCH_SECONDS  timed seconds per model and batch (default: 3)
#   ORT_LIB        a libonnxruntime.so.1 to use instead of the npm package
#   NO_TORCH=1     skip resnet18, mobilenet_v2 and deeplabv3_mobilenet_v3_large (which
#                  need PyTorch to export)
# Everything it writes goes under $BUILD_DIR/bench-compare/ (the table also
# to results.md there); the npm package is cached in $BUILD_DIR/ort-npm/.
set -euo pipefail
zoo=0
qdq=0
for arg in "$@"; do
  case $arg in
    --zoo) zoo=1 ;;
    --qdq) qdq=1 ;;
    *) echo "run.sh: unknown argument '$arg' (expected --zoo, --qdq or nothing)" >&2; exit 2 ;;
  esac
done

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$root/build}
case $BUILD_DIR in /*) ;; *) BUILD_DIR=$PWD/$BUILD_DIR ;; esac
JOBS=${JOBS:-2}
SECONDS_PER_CASE=${BENCH_SECONDS:-3}  # not SECONDS: bash keeps its own
ORT_VERSION=1.30.0
all_models="mlp chain lenet convstack transformer trivial resnet18 mobilenet_v2 deeplabv3_mobilenet_v3_large"
[ "${NO_TORCH:-0}" = 1 ] && all_models="mlp chain lenet convstack transformer trivial"
work=$BUILD_DIR/bench-compare
# Debian's interpreter, where python3-onnx/numpy/torch live: a python3 earlier
# on PATH (pyenv, a virtualenv) would not see them.
py=/usr/bin/python3

say() { echo "run.sh: $*" >&2; }
die() { echo "run.sh: error: $*" >&2; exit 1; }

# 1. Debian packages: the build's and python3-onnx/numpy/torch (setup.sh is
#    idempotent and quick when everything is present), and npm.
"$root/scripts/setup.sh"
if ! command -v npm >/dev/null 2>&1; then
  say "installing npm (for the onnxruntime-node package)"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends npm >/dev/null \
    || { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends npm; }
fi

# 2. ONNX Runtime: libonnxruntime.so.1 ships inside the npm package
#    onnxruntime-node. ONNXRUNTIME_NODE_INSTALL=skip stops its install script,
#    which would otherwise fail downloading GPU libraries.
npm_dir=$BUILD_DIR/ort-npm
if [ -z "${ORT_LIB:-}" ]; then
  ORT_LIB=$npm_dir/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1
  if [ ! -f "$ORT_LIB" ]; then
    say "installing onnxruntime-node@$ORT_VERSION from npm into $npm_dir"
    mkdir -p "$npm_dir"
    (cd "$npm_dir" && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund --loglevel=error \
      "onnxruntime-node@$ORT_VERSION" >&2) || die "npm install onnxruntime-node@$ORT_VERSION failed (no network?); set ORT_LIB to a libonnxruntime.so.1"
    [ -f "$ORT_LIB" ] || die "the npm package has no $ORT_LIB (its layout changed?); set ORT_LIB"
  fi
fi
[ -f "$ORT_LIB" ] || die "ORT_LIB=$ORT_LIB does not exist"

# 3. Build.
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S "$root" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null || true)
[ "$build_type" = Release ] || say "warning: $BUILD_DIR is a '${build_type:-unset}' build, not Release: tfn's timings will not be representative"
cmake --build "$BUILD_DIR" -j"$JOBS" --target tfn-export tfn-aot compare_driver >&2
driver=$BUILD_DIR/bench/compare/compare_driver
[ -x "$driver" ] || die "$driver was not built (is TFN_BUILD_BENCH off?)"
ort_found=$("$driver" --ort-lib "$ORT_LIB" --ort-version) || die "cannot load $ORT_LIB"
[ "$ort_found" = "$ORT_VERSION" ] || say "warning: $ORT_LIB is ONNX Runtime $ort_found, not $ORT_VERSION"

# 4. Models: regenerated when one is missing or their script changed.
zoo_script=$root/tests/zoo/make_zoo.py
qdq_script=$root/tests/quant/make_qdq_models.py
if [ $zoo = 1 ]; then
  all_models=$("$py" "$zoo_script" --list)
  models_dir=$work/zoo
  results=$work/results-zoo.md
elif [ $qdq = 1 ]; then
  all_models="resnet18_qdq mobilenet_v2_qdq"
  models_dir=$work/qdq
  results=$work/results-qdq.md
else
  models_dir=$work/models
  results=$work/results.md
fi
MODELS=${MODELS:-$all_models}
stamp=$models_dir/.stamp
need_models=0
for m in $MODELS; do [ -f "$models_dir/$m.onnx" ] || need_models=1; done
[ -f "$stamp" ] && [ "$stamp" -nt "$here/make_models.py" ] && [ "$stamp" -nt "$zoo_script" ] \
  && [ "$stamp" -nt "$qdq_script" ] || need_models=1
if [ $need_models = 1 ] && [ $qdq = 1 ]; then
  "$py" "$qdq_script" "$models_dir" $all_models >&2
  touch "$stamp"
elif [ $need_models = 1 ] && [ $zoo = 1 ]; then
  # Every model, so that the stamp covers them all; then ONNX shape inference
  # in place, which gives the driver the intermediate shapes it counts FLOPs from.
  "$py" "$zoo_script" "$models_dir" >&2
  for m in $all_models; do
    "$py" -c 'import onnx.shape_inference as s, sys; s.infer_shapes_path(sys.argv[1], sys.argv[1])' \
      "$models_dir/$m.onnx" || say "note: no shape inference for $m (FLOPs unknown)"
  done
  touch "$stamp"
elif [ $need_models = 1 ]; then
  torch_flag=""
  case " $MODELS " in *" resnet18 "*|*" mobilenet_v2 "*|*" deeplabv3_mobilenet_v3_large "*) ;; *) torch_flag=--no-torch ;; esac
  "$py" "$here/make_models.py" "$models_dir" $torch_flag >&2
  [ -z "$torch_flag" ] && touch "$stamp"
fi

# 5. Convert and run. A model tfn cannot import (or compile) still gets its
#    ONNX Runtime rows, with the reason in the tfn rows.
mkdir -p "$work/tfn" "$work/aot"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
{
  echo "ONNX Runtime $ort_found ($ORT_LIB) vs tfn $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$root" diff --quiet 2>/dev/null || echo ' + local changes'), $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) cores; load average before: $load_before"
  echo
  "$driver" --header
} | tee "$results"
failures=()
for m in $MODELS; do
  onnx=$models_dir/$m.onnx
  [ -f "$onnx" ] || die "no model '$m' in $models_dir (known: $(echo $all_models))"
  tfn_args=()
  if err=$("$BUILD_DIR/tools/tfn-export" --onnx "$onnx" -o "$work/tfn/$m.tfn" 2>&1 >/dev/null); then
    tfn_args+=(--tfn "$work/tfn/$m.tfn")
    name=${m}_aot
    if err=$("$BUILD_DIR/tools/tfn-aot" "$work/tfn/$m.tfn" --signature serving_default --name "$name" \
               -o "$work/aot" 2>&1 >/dev/null) \
       && err=$(cc -shared -o "$work/aot/lib$name.so" "$work/aot/$name.o" -lm 2>&1); then
      tfn_args+=(--aot-lib "$work/aot/lib$name.so" --aot-name "$name")
    else
      tfn_args+=(--aot-skip "tfn-aot: $(echo "$err" | tail -1)")
      failures+=("$m: AOT compile failed: $(echo "$err" | tail -1)")
    fi
  else
    tfn_args+=(--tfn-skip "import failed: $(echo "$err" | tail -1)")
    failures+=("$m: tfn-export --onnx failed: $(echo "$err" | tail -1)")
  fi
  batches=fixed
  [ "$m" = mlp ] && batches="1 64"
  [ $zoo = 1 ] && batches=npy  # the zoo's own first input (token ids, dynamic dims)
  [ $qdq = 1 ] && batches=npy
  for b in $batches; do
    batch_args=()
    case $b in
      fixed) ;;
      npy) batch_args=(--input-npy "$models_dir/${m}_input.npy") ;;
      *) batch_args=(--batch "$b") ;;
    esac
    # The zoo runs each thread count in a process of its own: on a 2-core VM,
    # an ORT session with a 2-thread pool in the same process made ORT's
    # 1-thread session up to 3x slower (RegNet-X: 30-54 ms against 9-12 ms
    # alone; tfn's 1-thread rows did not change), which flattered tfn.
    thread_sets="1,2"
    [ $zoo = 1 ] || [ $qdq = 1 ] && thread_sets="1 2"
    for t in $thread_sets; do
      "$driver" --ort-lib "$ORT_LIB" --onnx "$onnx" --model "$m" "${batch_args[@]}" "${tfn_args[@]}" \
        --ort-threads "$t" --tfn-threads "$t" --seconds "$SECONDS_PER_CASE" | tee -a "$results" \
        || failures+=("$m (batch $b, threads $t): compare_driver failed (see above)")
    done
  done
done
{
  echo
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  if grep -q MISMATCH "$results"; then echo "OUTPUTS DISAGREE in: $(grep MISMATCH "$results" | cut -d'|' -f2,6 | tr '\n' ';')"; fi
  for f in "${failures[@]}"; do echo "not run by tfn: $f"; done
} | tee -a "$results"
if [ $zoo = 1 ]; then
  echo
  "$py" "$here/summarize.py" "$results" | tee "$work/summary-zoo.md"
  say "table written to $results, summary to $work/summary-zoo.md"
else
  say "table written to $results"
fi
