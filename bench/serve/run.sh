#!/usr/bin/env bash
# Builds serve_bench, tfn-serve and tfn-export and runs serve_bench on them
# (bench/serve/README.md); results in bench/RESULTS.md, "tfn-serve".
#
#   bench/serve/run.sh [serve_bench flags, e.g. --seconds 3 --threads 2]
#   BUILD=build WORKDIR=... QUIET_MAX=300 bench/serve/run.sh
#
# BUILD is an existing or new CMake build tree (default: build). The build
# takes the lock TFN_BUILD_LOCK (default /tmp/tfn-build.lock) with flock(1)
# when it is installed, since the tree may be shared with someone building
# at the same time, and uses -j2 (two shared cores). Before the run it
# waits until 3 consecutive 1-second samples of /proc/stat show under 5%
# CPU use (at most QUIET_MAX seconds, default 300; 0: no wait), as
# bench/run_all.sh does: every figure here is a latency on a shared machine.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
WORKDIR=${WORKDIR:-$BUILD/bench/serve/work}
QUIET_MAX=${QUIET_MAX:-300}
LOCK=${TFN_BUILD_LOCK:-/tmp/tfn-build.lock}

locked() {  # locked COMMAND...: COMMAND under the build lock when flock exists
  if command -v flock >/dev/null; then flock "$LOCK" "$@"; else "$@"; fi
}

if [[ ! -f $BUILD/CMakeCache.txt ]]; then
  locked cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null || exit 1
fi
locked cmake --build "$BUILD" -j2 --target serve_bench tfn-serve tfn-export || exit 1

source bench/wait_quiet.sh  # wait_quiet

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), git $(git rev-parse --short HEAD 2>/dev/null); $(wait_quiet)"
mkdir -p "$WORKDIR"
# Bounded: the bench itself takes about 2 minutes at --seconds 3.
exec timeout 1200 "$BUILD/bench/serve/serve_bench" --serve "$BUILD/serve/tfn-serve" \
  --export "$BUILD/tools/tfn-export" --workdir "$WORKDIR" "$@"
