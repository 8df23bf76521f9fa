#!/usr/bin/env bash
# Generates the seed corpora of the fuzz targets (fuzz/README.md) from the
# project's own material; nothing here is committed:
#   bundle/   the built-in models (tfn-export mlp, cnn, transformer; mlp also
#             zstd-compressed and with static specs) and every ONNX node test
#             of Debian's libonnx-testdata that tfn-export --onnx imports;
#   onnx/     those ONNX node test models (model.onnx) as they are;
#   npy/      runtime/testdata's .npy files (NumPy's) and more written here in
#             NumPy's format (every dtype, versions 1-3, empty, scalar, rank 8,
#             big-endian, Fortran order);
#   checkpoint/ checkpoint bodies (runtime/checkpoint.h, without the checksum
#             fuzz/checkpoint_fuzz.cc appends): scalars, matrices, several
#             variables, an empty one;
#   aot_abi/  descriptors shaped like those tfn-aot emits (fuzz/aot_abi_fuzz.cc
#             documents the layout);
#   rest_codec/ REST request bodies for tfn-serve's parsers
#             (fuzz/rest_codec_fuzz.cc documents the layout).
# Usage: scripts/make-fuzz-seeds.sh [OUT_DIR]   (default build-fuzz/seeds)
# Environment: TFN_EXPORT, the tfn-export to use (default build/tools/tfn-export,
#   else build-fuzz's, built under /tmp/tfn-build.lock when missing);
#   ONNX_NODE_TESTS (default /usr/share/libonnx-testdata/data/node).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build-fuzz/seeds}
node_tests=${ONNX_NODE_TESTS:-/usr/share/libonnx-testdata/data/node}
export_bin=${TFN_EXPORT:-}
if [ -z "$export_bin" ]; then
  if [ -x build/tools/tfn-export ]; then
    export_bin=build/tools/tfn-export
  else
    export_bin=build-fuzz/tools/tfn-export
    [ -x "$export_bin" ] || flock /tmp/tfn-build.lock cmake --build build-fuzz -j"${JOBS:-2}" --target tfn-export
  fi
fi
if [ ! -d "$node_tests" ]; then
  echo "make-fuzz-seeds.sh: no ONNX node tests at $node_tests (install libonnx-testdata: scripts/setup.sh)" >&2
  exit 1
fi
rm -rf "$out.tmp"
mkdir -p "$out.tmp"/{bundle,onnx,npy,checkpoint,aot_abi,rest_codec}

# Bundles of the built-in models. The ASan build of tfn-export is slow but works too.
for m in mlp cnn transformer; do
  "$export_bin" "$m" -o "$out.tmp/bundle/$m.tfn" >/dev/null
done
"$export_bin" mlp -o "$out.tmp/bundle/mlp_zstd.tfn" --compress zstd:3 >/dev/null
"$export_bin" mlp -o "$out.tmp/bundle/mlp_static.tfn" --signature serving_default:x=f32[2,784] >/dev/null

# ONNX node tests: the models as they are, and the bundles of those that import.
for d in "$node_tests"/*/; do
  name=$(basename "$d")
  [ -f "$d/model.onnx" ] && cp "$d/model.onnx" "$out.tmp/onnx/$name.onnx"
done
ls "$out.tmp/onnx" | sed 's/\.onnx$//' |
  xargs -P "${JOBS:-2}" -I{} sh -c '"$0" --onnx "$1/onnx/{}.onnx" -o "$1/bundle/onnx_{}.tfn" >/dev/null 2>&1 || true' \
    "$export_bin" "$out.tmp"

# .npy files: the reader's own test files (written by NumPy), and more cases
# written here in the same format (NumPy's header: magic, version, a dict
# padded to 64 bytes): every dtype, versions 1-3, empty, scalar, rank 8,
# big-endian, Fortran order, an unsupported dtype.
cp runtime/testdata/*.npy "$out.tmp/npy/"
python3 - "$out.tmp/checkpoint" <<'PY'
import struct, sys
d = sys.argv[1]
def body(variables):  # (name, dtype enum, dims, payload) as runtime/checkpoint.h lays them out
    b = b"TFNCKPT1" + struct.pack("<I", len(variables))
    for name, dtype, dims, payload in variables:
        b += struct.pack("<I", len(name)) + name.encode() + struct.pack("<iI", dtype, len(dims))
        b += b"".join(struct.pack("<q", x) for x in dims) + struct.pack("<Q", len(payload)) + payload
    return b
open(f"{d}/empty", "wb").write(body([]))
open(f"{d}/scalar_step", "wb").write(body([("adam/step", 3, [], struct.pack("<q", 7))]))
open(f"{d}/weights", "wb").write(body([("w", 4, [2, 3], struct.pack("<6f", *range(6))),
                                      ("b", 4, [3], struct.pack("<3f", 1, 2, 3)),
                                      ("m", 5, [1, 1], struct.pack("<d", 0.5))]))
PY
python3 - "$out.tmp/npy" <<'PY'
import struct, sys
d = sys.argv[1]
def npy(name, descr, shape, payload, fortran=False, version=1):
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %r, }" % (descr, fortran, tuple(shape))
    size_bytes = 2 if version == 1 else 4
    pad = 64 - (6 + 2 + size_bytes + len(header) + 1) % 64
    header = header + " " * (pad % 64) + "\n"
    size = struct.pack("<H" if version == 1 else "<I", len(header))
    open(f"{d}/{name}.npy", "wb").write(b"\x93NUMPY" + bytes([version, 0]) + size + header.encode() + payload)
npy("f32_3x4", "<f4", (3, 4), struct.pack("<12f", *range(12)))
npy("f64_2", "<f8", (2,), struct.pack("<2d", 1.5, -2.0))
npy("i32_scalar", "<i4", (), struct.pack("<i", 7))
npy("i64_2x1x3", "<i8", (2, 1, 3), struct.pack("<6q", *range(6)))
npy("bool_4", "|b1", (4,), bytes([1, 0, 1, 1]))
npy("f32_empty", "<f4", (0, 3), b"")
npy("f32_rank8", "<f4", (1, 2, 1, 2, 1, 2, 1, 2), struct.pack("<16f", *([1.0] * 16)))
npy("be_i64", ">i8", (3,), struct.pack(">3q", 0, 1, 2))
npy("fortran_f64", "<f8", (2, 3), struct.pack("<6d", *range(6)), fortran=True)
npy("u16", "<u2", (3,), struct.pack("<3H", 0, 1, 2))
for v in (1, 2, 3):
    npy(f"f32_4_v{v}", "<f4", (4,), struct.pack("<4f", 0, 1, 2, 3), version=v)
PY

# AOT descriptors (fuzz/aot_abi_fuzz.cc's layout): mlp's serving_default
# (x: f32[?,784] -> f32[?,10]), a two-input broadcast sharing one dynamic
# dim, a scalar op, and an ABI-1 object without run_with_options.
python3 - "$out.tmp/aot_abi" <<'PY'
import struct, sys
d = sys.argv[1]
F32, I64 = 4, 3  # tfn::DType values (core/dtype.h)
def desc(dtype, dims):
    sizes = [s if s >= 0 else -1 for s in dims] + [0] * (8 - len(dims))
    idx = [(-1 - s) if s < 0 else -1 for s in dims] + [-1] * (8 - len(dims))
    return struct.pack("<ii8q8i", dtype, len(dims), *sizes, *idx)
def case(name, abi, ins, outs, ndims, scratch=256, code=0, flags=0, out_dims=(), in_dims=()):
    b = struct.pack("<IiiiiiB3x", abi, len(ins), len(outs), ndims, scratch, code, flags)
    b += b"".join(desc(t, s) for t, s in ins + outs)
    b += bytes(out_dims).ljust(8 * len(outs), b"\0")
    b += bytes(in_dims)
    open(f"{d}/{name}", "wb").write(b)
case("mlp", 2, [(F32, [-1, 784])], [(F32, [-1, 10])], 1, scratch=4096, in_dims=[2])
case("mlp_threads", 2, [(F32, [-1, 784])], [(F32, [-1, 10])], 1, flags=2, in_dims=[3])
case("broadcast", 2, [(F32, [-1, 4]), (F32, [4])], [(F32, [-1, 4])], 1, in_dims=[3])
case("shared_dim", 2, [(F32, [-1, -2]), (I64, [-2])], [(I64, [-1]), (F32, [])], 2, in_dims=[2, 3, 3])
case("scalar_abi1", 1, [(F32, [])], [(F32, [])], 0, scratch=0, flags=4)
case("kernel_error", 2, [(F32, [5])], [(F32, [5])], 0, code=4)
PY
# REST bodies (fuzz/rest_codec_fuzz.cc's layout: byte 0 picks the parser in
# its low 2 bits and a signature in the others; mode 1 has the
# Inference-Header-Content-Length in bytes 1-2): v2 JSON with every dtype,
# nested and flat data, parameters and requested outputs; v2 with binary
# inputs; a raw binary request; v1 predict in row and columnar form.
python3 - "$out.tmp/rest_codec" <<'PY'
import json, struct, sys
d = sys.argv[1]
def seed(name, mode, body, header_length=None, sig=0):
    b = bytes([(sig << 2) | mode])
    if mode == 1:
        b += struct.pack("<H", header_length)
    open(f"{d}/{name}", "wb").write(b + body)
v2 = {"id": "1", "parameters": {"binary_data_output": True, "signature_name": "s"},
      "inputs": [{"name": "x", "shape": [2, 2], "datatype": "FP32", "data": [[1, 2.5], [float("nan"), 4]]},
                 {"name": "b", "shape": [3], "datatype": "BOOL", "data": [True, False, True]},
                 {"name": "i", "shape": [1, 2], "datatype": "INT32", "data": [7, -8]},
                 {"name": "l", "shape": [2], "datatype": "INT64", "data": [1, 9007199254740993]},
                 {"name": "d", "shape": [], "datatype": "FP64", "data": [1e300]}],
      "outputs": [{"name": "y", "parameters": {"binary_data": False}}]}
seed("v2_json", 0, json.dumps(v2).encode())
header = json.dumps({"inputs": [{"name": "x", "shape": [2, 2], "datatype": "FP32",
                                 "parameters": {"binary_data_size": 16}},
                                {"name": "l", "shape": [1], "datatype": "INT64",
                                 "parameters": {"binary_data_size": 8}}]}).encode()
seed("v2_binary", 1, header + struct.pack("<4fq", 1, 2, 3, 4, 5), header_length=len(header))
seed("v2_raw", 2, struct.pack("<8f", *range(8)))
seed("v1_rows", 3, json.dumps({"instances": [[1.0, 2.0], [3.0, 4.0]]}).encode())
seed("v1_columns", 3, json.dumps({"signature_name": "", "inputs": {"x": [[1, 2]]}}).encode(), sig=1)
seed("v1_objects", 3, json.dumps({"instances": [{"x": [1, 2], "y": 3}]}).encode(), sig=2)
PY
n_bundle=$(ls "$out.tmp/bundle" | wc -l)
rm -rf "$out"
mv "$out.tmp" "$out"
echo "make-fuzz-seeds.sh: $out: $n_bundle bundles, $(ls "$out/onnx" | wc -l) ONNX models," \
  "$(ls "$out/npy" | wc -l) .npy files, $(ls "$out/aot_abi" | wc -l) descriptors," \
  "$(ls "$out/rest_codec" | wc -l) REST bodies"
