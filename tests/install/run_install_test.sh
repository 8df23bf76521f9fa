#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, then:
#   1. checks that only the public API is installed: no internal header (every
#      installed header is one cmake/TfnInstall.cmake lists), nothing that
#      includes LLVM, Abseil or FlatBuffers, no generated header;
#   2. compiles every installed header alone against the installed tree (C++17;
#      the C API headers also as C11), so a public header that includes an
#      uninstalled one fails here;
#   3. configures, builds and runs an outside project that finds the package
#      with find_package(tfn).
# Usage: run_install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
inc=$work/prefix/include

fail=0
headers=$(cd "$inc" && find . -type f | sed 's|^\./||' | sort)
for h in $headers; do
  case "$h" in
    *.h) ;;
    *) echo "FAIL: $inc/$h is installed but is not a header" >&2; fail=1; continue ;;
  esac
  if grep -Eq '#include [<"](llvm|absl|flatbuffers)/|_generated\.h' "$inc/$h"; then
    echo "FAIL: installed header tfn/${h#tfn/} includes a dependency's header:" >&2
    grep -En '#include [<"](llvm|absl|flatbuffers)/|_generated\.h' "$inc/$h" >&2
    fail=1
  fi
  # A translation unit that includes only this header, as an app's would.
  flags=(-fsyntax-only -Wall -Wextra -Werror -I"$inc" -I"$inc/tfn")
  tu="#include <$h>"
  if ! echo "$tu" | c++ -std=c++17 "${flags[@]}" -x c++ - 2>"$work/err"; then
    echo "FAIL: installed header $h does not compile alone as C++17:" >&2
    cat "$work/err" >&2
    fail=1
  fi
  # The C API: the runtime's C header and the AOT ABI are plain C11.
  case "$h" in
    tfn/tfn_runtime.h | tfn/runtime/tfn_runtime.h | tfn/aot_thread_pool.h | tfn/schema/aot_abi.h)
      if ! echo "$tu" | cc -std=c11 "${flags[@]}" -x c - 2>"$work/err"; then
        echo "FAIL: installed C header $h does not compile alone as C11:" >&2
        cat "$work/err" >&2
        fail=1
      fi
      ;;
  esac
done
count=$(echo "$headers" | grep -c . || true)
[ "$count" -gt 0 ] || { echo "FAIL: no header installed under $inc" >&2; fail=1; }
[ $fail = 0 ] || exit 1
echo "install: $count public headers, each compiles alone"

cmake -S "$src/tests/install/consumer" -B "$work/consumer" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
"$work/consumer/consumer"
