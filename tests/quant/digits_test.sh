#!/usr/bin/env bash
# tfn-quantize's accuracy check, run as a user would run the tools: a CNN
# trained on scikit-learn's digits (make_digits.py), exported from ONNX,
# quantized to int8 by tfn-quantize with each calibration method (and
# dynamically), and run by tfn-run on the held-out split. Passes when:
#   - the float bundle's top-1 equals PyTorch's (within one image),
#   - each int8 bundle's top-1 is within 1 point of the float bundle's
#     (static: every calibration method; dynamic: the linear layers),
#   - every conv and linear layer runs int8 (tfn-inspect shows no float conv2d/matmul),
#   - the int8 bundle is at most 30% of the float bundle's size,
#   - with --fp16-weights and --bf16, top-1 within 1 point of float32's, and
#     the large bf16 linear layer on bfloat16 panels (the bf16 GEMM),
#   - a calibration folder that does not fit the signature is a one-line
#     error naming the input, and no output file is written.
#
#   digits_test.sh BIN_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
bin=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
/usr/bin/python3 -c "import sklearn" 2>/dev/null ||
  { echo "FAIL: needs scikit-learn's digits: install python3-sklearn (scripts/setup.sh does)" >&2; exit 1; }
/usr/bin/python3 "$src/tests/quant/make_digits.py" "$work" 2>&1 | grep -v -i warn || true
test -f "$work/digits.onnx"
"$bin/tfn-export" --onnx "$work/digits.onnx" -o "$work/digits.tfn" >/dev/null
"$bin/tfn-run" "$work/digits.tfn" --input x="$work/test_x.npy" --output-dir "$work/float" >/dev/null

accuracy() {  # accuracy OUTPUT_DIR -> the top-1 of logits.npy on test_y.npy
  /usr/bin/python3 -c "
import numpy as np, sys
logits = np.load('$1/logits.npy'); y = np.load('$work/test_y.npy')
print(f'{(logits.argmax(1) == y).mean():.6f}')"
}
float_acc=$(accuracy "$work/float")
torch_acc=$(cat "$work/torch_accuracy.txt")
echo "float32: top-1 $float_acc (PyTorch $torch_acc)"
/usr/bin/python3 -c "import sys; sys.exit(abs($float_acc - $torch_acc) > 1.5 / 360)" ||
  { echo "FAIL: the float bundle's top-1 $float_acc differs from PyTorch's $torch_acc" >&2; exit 1; }

float_size=$(stat -c %s "$work/digits.tfn")
for method in minmax percentile entropy; do
  q="$work/digits_$method.tfn"
  "$bin/tfn-quantize" "$work/digits.tfn" -o "$q" --calibration "$work/calib" --method "$method" \
    >"$work/report_$method.txt"
  cat "$work/report_$method.txt"
  "$bin/tfn-run" "$q" --input x="$work/test_x.npy" --output-dir "$work/$method" >/dev/null
  acc=$(accuracy "$work/$method")
  size=$(stat -c %s "$q")
  echo "int8 ($method): top-1 $acc, $size bytes = $((100 * size / float_size))% of $float_size"
  /usr/bin/python3 -c "import sys; sys.exit($float_acc - $acc > 0.01)" ||
    { echo "FAIL: int8 ($method) top-1 $acc is more than 1 point under float32's $float_acc" >&2; exit 1; }
  [ $((100 * size)) -le $((30 * float_size)) ] ||
    { echo "FAIL: the int8 bundle is $size bytes, over 30% of $float_size" >&2; exit 1; }
  graph=$("$bin/tfn-inspect" "$q" --graph serving_default)
  for op in qlinear_conv2d qlinear_matmul; do
    [ "$(grep -c " = $op " <<<"$graph")" = 2 ] ||
      { echo "FAIL: expected 2 $op in the int8 graph:" >&2; echo "$graph" >&2; exit 1; }
  done
  if grep -Eq " = (conv2d|matmul|fused_conv2d|fused_matmul) " <<<"$graph"; then
    echo "FAIL: a float conv or matmul is left in the int8 graph:" >&2; echo "$graph" >&2; exit 1
  fi
done

# Dynamic quantization: the two linear layers quantize their inputs at run
# time (matmul_integer), the convs stay float; no calibration data.
q="$work/digits_dynamic.tfn"
"$bin/tfn-quantize" "$work/digits.tfn" -o "$q" --dynamic >"$work/report_dynamic.txt"
cat "$work/report_dynamic.txt"
"$bin/tfn-run" "$q" --input x="$work/test_x.npy" --output-dir "$work/dynamic" >/dev/null
acc=$(accuracy "$work/dynamic")
echo "int8 (dynamic): top-1 $acc"
/usr/bin/python3 -c "import sys; sys.exit($float_acc - $acc > 0.01)" ||
  { echo "FAIL: int8 (dynamic) top-1 $acc is more than 1 point under float32's $float_acc" >&2; exit 1; }
[ "$("$bin/tfn-inspect" "$q" --graph serving_default | grep -c " = matmul_integer ")" = 2 ] ||
  { echo "FAIL: expected 2 matmul_integer in the dynamic graph" >&2; exit 1; }

# Reduced float: float16 weights (float32 compute) and bfloat16 (weights, and
# the linear layers' inputs rounded to bfloat16 for the bf16 GEMM); no
# calibration data. Top-1 within 1 point of float32; the bf16 linear layer
# reads bfloat16 panels.
for mode in fp16-weights bf16; do
  q="$work/digits_$mode.tfn"
  "$bin/tfn-quantize" "$work/digits.tfn" -o "$q" "--$mode" >"$work/report_$mode.txt"
  cat "$work/report_$mode.txt"
  "$bin/tfn-run" "$q" --input x="$work/test_x.npy" --output-dir "$work/$mode" >/dev/null
  acc=$(accuracy "$work/$mode")
  size=$(stat -c %s "$q")
  echo "$mode: top-1 $acc, $size bytes = $((100 * size / float_size))% of $float_size"
  /usr/bin/python3 -c "import sys; sys.exit($float_acc - $acc > 0.01)" ||
    { echo "FAIL: $mode top-1 $acc is more than 1 point under float32's $float_acc" >&2; exit 1; }
done
# The bf16 bundle compiled by LLVM in process (tfn-aot's code generation):
# the bf16 GEMM as an AOT object runs it.
"$bin/tfn-run" "$work/digits_bf16.tfn" --jit --input x="$work/test_x.npy" --output-dir "$work/bf16_jit" >/dev/null
acc=$(accuracy "$work/bf16_jit")
echo "bf16 (compiled by LLVM): top-1 $acc"
/usr/bin/python3 -c "import sys; sys.exit($float_acc - $acc > 0.01)" ||
  { echo "FAIL: compiled bf16 top-1 $acc is more than 1 point under float32's $float_acc" >&2; exit 1; }
graph=$("$bin/tfn-inspect" "$work/digits_bf16.tfn" --graph serving_default)
# (The small 128x10 layer's weight is widened at export: constant folding
# keeps a cast constant narrow only above 64 KiB of float32.)
grep -q " = constant {value=bf16\[4,512,64\] " <<<"$graph" ||
  { echo "FAIL: expected the 1024x128 linear layer's weight as bfloat16 panels:" >&2; echo "$graph" >&2; exit 1; }

# A calibration array of the wrong shape: one line naming the input, no output.
mkdir -p "$work/bad_calib"
/usr/bin/python3 -c "import numpy as np; np.save('$work/bad_calib/0.npy', np.zeros((4, 8, 8), np.float32))"
if "$bin/tfn-quantize" "$work/digits.tfn" -o "$work/bad.tfn" --calibration "$work/bad_calib" \
  2>"$work/bad.err"; then
  echo "FAIL: tfn-quantize accepted a calibration array of the wrong shape" >&2; exit 1
fi
cat "$work/bad.err"
[ "$(wc -l <"$work/bad.err")" = 1 ] && grep -q "input 'x' f32\[?.*,1,8,8\] was given f32\[4,8,8\]" "$work/bad.err" ||
  { echo "FAIL: the error should be one line naming input 'x'" >&2; exit 1; }
[ ! -e "$work/bad.tfn" ] || { echo "FAIL: a bundle was written despite the error" >&2; exit 1; }
echo "digits: PASS"
