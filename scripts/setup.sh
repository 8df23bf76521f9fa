#!/usr/bin/env bash
# Installs the Debian 12 packages tfn needs, only those that are missing.
# Idempotent: when everything is present it only runs dpkg-query (well under a second).
# Usage: scripts/setup.sh [--bench] [--onnx-tools]
#   --bench       also the benchmark peers (OpenBLAS)
#   --cross       also the AArch64 cross toolchain and qemu-user for the AOT cross test
#   --python      also Debian's python3-onnx/numpy/torch used to generate test models
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkgconf git ca-certificates
  llvm-19-dev clang-19 lld-19 zlib1g-dev libzstd-dev libedit-dev
  flatbuffers-compiler libflatbuffers-dev
  libabsl-dev libgtest-dev googletest libbenchmark-dev
  libxxhash-dev
  libonnx-dev libprotobuf-dev protobuf-compiler
  libopenblas-dev
)
for arg in "$@"; do
  case "$arg" in
    --bench) packages+=(libopenblas-dev) ;;
    --cross) packages+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user) ;;
    --python) packages+=(python3-onnx python3-numpy python3-torch python3-torchvision) ;;
    *) echo "setup.sh: unknown option '$arg' (expected --bench, --cross or --python)" >&2; exit 2 ;;
  esac
done

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
