#!/usr/bin/env bash
# Installs the Debian 12 packages tfn needs, only those that are missing.
# Idempotent: when everything is present it only runs dpkg-query (well under a second).
# Everything the build, the tests and the benchmarks use is installed by
# default, so a clean CI machine runs the whole suite:
#   - the AArch64 cross toolchain, C and C++ (the AArch64 kernel bitcode), and
#     qemu-user (the AOT cross test),
#   - libonnx-testdata (ONNX 1.12.0's backend test cases: the ONNX conformance suite),
#   - libclang-rt-19-dev (clang's sanitizer and libFuzzer runtimes: the clang,
#     ThreadSanitizer and fuzzing stages),
#   - python3-onnx/numpy/torch/torchvision (the tests export PyTorch models to
#     ONNX and compare the imported bundles against PyTorch's outputs), and
#     python3-sklearn (its digits data set: tfn-quantize's accuracy test),
#   - OpenBLAS (the GEMM benchmark's baseline),
#   - gRPC C++, cpp-httplib and RapidJSON (tfn-serve), and curl and Python's
#     grpcio (the clients its integration tests drive it with).
# Usage: scripts/setup.sh
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkgconf git ca-certificates
  llvm-19-dev clang-19 lld-19 zlib1g-dev libzstd-dev libedit-dev
  flatbuffers-compiler libflatbuffers-dev
  libabsl-dev libgtest-dev googletest libbenchmark-dev
  libxxhash-dev
  libonnx-dev libprotobuf-dev protobuf-compiler
  libopenblas-dev
  gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
  libonnx-testdata
  libclang-rt-19-dev
  python3-onnx python3-numpy python3-torch python3-torchvision python3-sklearn
  libgrpc++-dev protobuf-compiler-grpc libcpp-httplib-dev rapidjson-dev
  python3-grpcio python3-grpc-tools python3-yaml curl wrk
)
if [ $# -gt 0 ]; then
  echo "setup.sh: takes no arguments (got '$1')" >&2
  exit 2
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "setup.sh: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
# Refresh the index only when an install fails with a stale one.
if ! $SUDO apt-get install -y --no-install-recommends "${missing[@]}" >/tmp/tfn-apt.log 2>&1; then
  $SUDO apt-get update -qq
  $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi
