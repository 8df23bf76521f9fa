#!/usr/bin/env bash
# Fails when a ctest run skipped a test that tests/expected-skips.txt does not
# list: a skip hides a claim the suite no longer checks (missing test data, a
# missing cross compiler), so every skip must be expected and say why.
#
#   scripts/check-skips.sh CTEST_LOG
#
# CTEST_LOG is ctest's output. A test it did not run is listed under "The
# following tests did not run:" as "  N - NAME (Skipped)" (or "(Disabled)").
# tests/expected-skips.txt: one extended regex per line matched against NAME,
# then " # " and the reason; blank lines and lines starting with # are ignored.
set -euo pipefail
log=${1:?usage: check-skips.sh CTEST_LOG}
allow=$(dirname "$0")/../tests/expected-skips.txt
[ -r "$log" ] || { echo "check-skips.sh: cannot read the ctest log '$log'" >&2; exit 2; }

skipped=$(awk '/The following tests did not run:/ {f = 1; next}
               f && /^[[:space:]]*[0-9]+ - / {sub(/^[[:space:]]*[0-9]+ - /, ""); print; next}
               f {f = 0}' "$log")
[ -n "$skipped" ] || exit 0

patterns=()
if [ -r "$allow" ]; then
  while IFS= read -r line; do
    line=${line%%#*}
    line=$(printf '%s' "$line" | sed -e 's/[[:space:]]*$//' -e 's/^[[:space:]]*//')
    [ -n "$line" ] && patterns+=("$line")
  done <"$allow"
fi

unexpected=()
while IFS= read -r entry; do
  name=${entry% (*}
  ok=0
  for p in "${patterns[@]+"${patterns[@]}"}"; do
    if [[ $name =~ ^($p)$ ]]; then ok=1; break; fi
  done
  [ $ok = 1 ] || unexpected+=("$entry")
done <<<"$skipped"

if [ ${#unexpected[@]} -gt 0 ]; then
  echo "check-skips.sh: FAIL: ctest skipped tests that tests/expected-skips.txt does not expect:" >&2
  printf '  %s\n' "${unexpected[@]}" >&2
  echo "Each skip above names its reason in the test's output (ctest --output-on-failure -R NAME -V)." >&2
  echo "Install what it lacks (scripts/setup.sh), fix the test, or list it with a reason." >&2
  exit 1
fi
echo "check-skips.sh: every skipped test is expected (tests/expected-skips.txt)"
