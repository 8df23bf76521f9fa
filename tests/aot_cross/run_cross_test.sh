#!/usr/bin/env bash
# The AOT objects of the built-in models, for the host and for AArch64, give
# the runtime's outputs. Per model: export the bundle, compile it with tfn-aot
# for the host, link it into aot_driver.c (a plain C program: no tfn library),
# write deterministic inputs, run the same inputs through tfn-run, and compare.
# Then the same for --target aarch64-linux-gnu --cpu generic, linked with
# Debian's aarch64-linux-gnu-gcc and run under qemu-aarch64. The objects may
# only need libc and libm. Missing cross tools are a failure, not a skip
# (scripts/setup.sh installs them).
#
#   run_cross_test.sh BIN_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
bin=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
cc=${CC:-cc}
have_cross=1
command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64 >/dev/null || have_cross=0

# Every undefined symbol of an object must come from libc or libm.
check_self_contained() {
  local obj=$1 nm=$2
  local undefined
  undefined=$("$nm" -u "$obj" | awk '{print $2}' | sed 's/@.*//' | sort -u)
  local allowed='^(memcpy|memmove|memset|malloc|free|abort|__stack_chk_fail|fprintf|printf|fputs|fwrite|fflush|puts|putchar|stderr|stdout|snprintf|strlen|pthread_.*|sched_yield|exp|expf|log|logf|pow|powf|fmod|fmodf|tanh|tanhf|sin|sinf|cos|cosf|tan|tanf|asin|asinf|acos|acosf|atan|atanf|atan2|atan2f|sinh|sinhf|cosh|coshf|asinh|asinhf|acosh|acoshf|atanh|atanhf|erf|erff|sqrt|sqrtf|floor|floorf|ceil|ceilf|round|roundf|rint|rintf|nearbyint|nearbyintf|trunc|truncf|fabs|fabsf|exp2|exp2f|log2|log2f|log1p|log1pf|expm1|expm1f|lrint|lrintf|llrint|llrintf|fmax|fmaxf|fmin|fminf|__.*_finite|_GLOBAL_OFFSET_TABLE_)$'
  local bad
  bad=$(echo "$undefined" | grep -Ev "$allowed" | grep -v '^$' || true)
  if [ -n "$bad" ]; then
    echo "FAIL: $obj needs symbols outside libc/libm: $bad" >&2
    exit 1
  fi
}

batch=3
for model in mlp cnn transformer; do
  dir=$work/$model
  mkdir -p "$dir/in" "$dir/ref" "$dir/host" "$dir/arm"
  "$bin/tfn-export" "$model" -o "$dir/$model.tfn" >/dev/null

  echo "== $model: host"
  "$bin/tfn-aot" "$dir/$model.tfn" --signature serving_default --name "$model" -o "$dir/host" >/dev/null
  check_self_contained "$dir/host/$model.o" nm
  "$cc" -O2 -std=c11 -I"$src/schema" -DTFN_TABLE="${model}_signatures" -DTFN_COUNT="${model}_num_signatures" \
    "$src/tests/aot_cross/aot_driver.c" "$dir/host/$model.o" -lm -o "$dir/host/driver"
  "$dir/host/driver" serving_default --batch $batch --write "$dir/in"
  inputs=()
  for f in "$dir"/in/*.npy; do inputs+=(--input "$(basename "$f" .npy)=$f"); done
  "$bin/tfn-run" "$dir/$model.tfn" "${inputs[@]}" --output-dir "$dir/ref" >/dev/null
  "$dir/host/driver" serving_default --batch $batch --compare "$dir/ref"

  [ $have_cross = 1 ] || continue
  echo "== $model: aarch64 (qemu)"
  "$bin/tfn-aot" "$dir/$model.tfn" --signature serving_default --name "$model" \
    --target aarch64-linux-gnu --cpu generic -o "$dir/arm" >/dev/null
  file_type=$(od -An -tx1 -j18 -N2 "$dir/arm/$model.o" | tr -d ' ')
  if [ "$file_type" != "b700" ]; then  # e_machine 183 = EM_AARCH64
    echo "FAIL: $dir/arm/$model.o is not an AArch64 ELF object (e_machine bytes $file_type)" >&2
    exit 1
  fi
  check_self_contained "$dir/arm/$model.o" aarch64-linux-gnu-nm
  aarch64-linux-gnu-gcc -O2 -std=c11 -I"$src/schema" -DTFN_TABLE="${model}_signatures" \
    -DTFN_COUNT="${model}_num_signatures" "$src/tests/aot_cross/aot_driver.c" "$dir/arm/$model.o" -lm \
    -o "$dir/arm/driver"
  qemu-aarch64 -L /usr/aarch64-linux-gnu "$dir/arm/driver" serving_default --batch $batch --compare "$dir/ref"
done

if [ $have_cross = 0 ]; then
  echo "FAIL: the AArch64 part cannot run: aarch64-linux-gnu-gcc or qemu-aarch64 is missing" \
       "(scripts/setup.sh installs them)" >&2
  exit 1
fi
echo "all objects agree with the runtime"
