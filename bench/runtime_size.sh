#!/usr/bin/env bash
# The size of the runtime's own code (issue 4: target <= 300 KB with all
# kernels): text+data, as `size` reports them, of runtime_size_app (a C app
# that loads and runs a bundle with the C API, bench/runtime_size_app.c,
# linked against the static tfn_runtime and its kernels through tfn::runtime,
# which links with --gc-sections, dynamically against libc, libstdc++, libm
# and libzstd) minus the same for a C++ hello-world built with the same
# compiler, flags and linker, --gc-sections included (runtime_size_hello,
# written by bench/CMakeLists.txt). The difference is what linking the runtime adds
# to an app; bss is left out (it costs no file bytes and no code).
#
#   bench/runtime_size.sh [--check] [--export TFN_EXPORT] [BUILD_DIR]
#     BUILD_DIR      default: build-bench
#     --export PATH  the tfn-export that makes the bundle (default:
#                    BUILD_DIR/tools/tfn-export, built if missing); a
#                    runtime-only build (-DTFN_RUNTIME_ONLY=ON) has none, so
#                    give it one from a full build
#     --check        fail (exit 1) when the runtime is over the target; CI
#                    uses it for the minimal runtime (-DTFN_OPTIMIZED_KERNELS=OFF)
#
# It builds the two programs (and tfn-export, to make a bundle the app runs,
# proving it works), then prints the figures and the largest objects of the
# runtime's archives. Without --check it exits non-zero only when something
# fails, not when the target is missed.
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
export_tool=
BUILD=
while (($#)); do
  case "$1" in
    --check) check=1 ;;
    --export)
      [[ $# -ge 2 ]] || { echo "runtime_size.sh: --export needs a path" >&2; exit 2; }
      export_tool=$2
      shift
      ;;
    -*) echo "runtime_size.sh: unknown option '$1' (expected --check, --export PATH)" >&2; exit 2 ;;
    *) BUILD=$1 ;;
  esac
  shift
done
BUILD=${BUILD:-build-bench}
cmake --build "$BUILD" -j1 --target runtime_size_app runtime_size_hello >/dev/null
if [[ -z $export_tool ]]; then
  if grep -qs '^TFN_RUNTIME_ONLY:BOOL=ON$' "$BUILD/CMakeCache.txt"; then
    echo "runtime_size.sh: $BUILD is a runtime-only build, without tfn-export;" \
      "pass --export PATH with one from a full build" >&2
    exit 2
  fi
  export_tool=$BUILD/tools/tfn-export
  [[ -x $export_tool ]] || cmake --build "$BUILD" -j1 --target tfn-export >/dev/null
fi
app=$BUILD/bench/runtime_size_app
hello=$BUILD/bench/runtime_size_hello
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The app must really load and run a bundle, or its size means nothing.
"$export_tool" mlp -o "$tmp/mlp.tfn" >/dev/null
"$app" "$tmp/mlp.tfn" serving_default >"$tmp/run.txt"
grep -q 'output 0: dtype 4, shape \[1,10\]' "$tmp/run.txt" ||
  { echo "runtime_size.sh: runtime_size_app did not run the mlp bundle:" >&2; cat "$tmp/run.txt" >&2; exit 1; }

text_data() { size -B -d "$1" | awk 'NR == 2 { print $1 + $2 }'; }
app_bytes=$(text_data "$app")
hello_bytes=$(text_data "$hello")
diff=$((app_bytes - hello_bytes))
echo "runtime code size (size -B: text + data)"
size -B -d "$app" "$hello" | sed 's/^/  /'
printf '  runtime_size_app   %8d bytes\n  runtime_size_hello %8d bytes\n' "$app_bytes" "$hello_bytes"
awk -v d="$diff" 'BEGIN {
  verdict = d <= 300000 ? "meets" : sprintf("MISSES by %d bytes (%.2fx the target)", d - 300000, d / 300000)
  printf "  difference         %8d bytes = %.1f KiB = %.1f KB   target <= 300 KB (300,000 bytes): %s\n",
         d, d / 1024, d / 1000, verdict
}'
over=$((diff > 300000))
echo "  dynamic libraries of the app: $(ldd "$app" | awk '{ print $1 }' | grep -v -e vdso -e ld-linux | tr '\n' ' ')"

# Where the bytes come from: the link map (lld's format; written by the
# runtime_size_app target) summed per archive and per archive member, over
# every input section except .bss/.tbss (they take no file bytes). Sections
# the linker makes itself (PLT, relocations) are "<internal>".
map=$BUILD/bench/runtime_size_app.map
if [[ -f $map ]]; then
  echo "where the app's bytes come from (link map, all sections but bss):"
  awk 'function hex(s,   i, v) { v = 0; s = tolower(s)
                                  for (i = 1; i <= length(s); ++i) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
                                  return v }
       NF == 5 && $5 ~ /:\(/ {
         where = $5; sub(/:\(.*/, "", where); sec = $5; sub(/.*:\(/, "", sec)
         if (sec ~ /^\.t?bss/) next
         lib = where; sub(/\(.*/, "", lib); n = split(lib, p, "/"); lib = p[n]
         libs[lib] += hex($3)
         if (where ~ /\(/) { member = where; sub(/.*\(/, "", member); sub(/\)$/, "", member); members[lib ": " member] += hex($3) }
       }
       END { for (l in libs) print "L", libs[l], l; for (m in members) print "M", members[m], m }' "$map" >"$tmp/map.txt"
  grep '^L' "$tmp/map.txt" | sort -k2,2nr | awk '{ printf "  %-40s %9d bytes\n", $3, $2 }'
  echo "  largest archive members:"
  grep '^M' "$tmp/map.txt" | sort -k2,2nr | head -15 | awk '{ printf "    %-48s %9d bytes\n", $3 " " $4, $2 }'
fi
if ((check && over)); then
  echo "runtime_size.sh: the runtime is $diff bytes, over the 300,000-byte target (--check)" >&2
  exit 1
fi
