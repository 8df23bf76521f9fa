#!/usr/bin/env bash
# The HTTP library comparison behind tfn-serve's choice of cpp-httplib
# (issue 17; bench/serve/http_libs/README.md, bench/RESULTS.md "tfn-serve").
# The same two endpoints (common.h) on cpp-httplib, Boost.Beast,
# libmicrohttpd, CivetWeb and libevhtp, driven by wrk over loopback with
# keep-alive: one connection (the latency a request adds, p50) and 64
# connections (throughput). Interleaved: ROUNDS rounds, each library in
# turn within a round; the table gives each figure's median over rounds.
#
#   bench/serve/http_libs/http_libs.sh
#   ROUNDS=5 CASE_SECONDS=5 BUILD=build bench/serve/http_libs/http_libs.sh
#
# Installs what is missing (apt, idempotent), builds the servers in
# $BUILD/http_libs (a project of its own: none of these libraries is a
# dependency of tfn), waits for a quiet machine (bench/wait_quiet.sh), runs.
# wrk shares the machine's cores with the server, as every client here does.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
BUILD=${BUILD:-$root/build}
ROUNDS=${ROUNDS:-3}
CASE_SECONDS=${CASE_SECONDS:-3}
PORT=${PORT:-18400}  # each server gets a port of its own from here (none waits for TIME_WAIT)
QUIET_MAX=${QUIET_MAX:-300}  # bench/wait_quiet.sh: seconds to wait for a quiet machine at most
LOCK=${TFN_BUILD_LOCK:-/tmp/tfn-build.lock}
out=$BUILD/http_libs

need=""
for p in libboost-dev libmicrohttpd-dev libcivetweb-dev libevhtp-dev libevent-dev \
  libcpp-httplib-dev wrk curl cmake ninja-build g++ pkg-config; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || need="$need $p"
done
if [[ -n $need ]]; then
  echo "http_libs.sh: installing$need" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
fi
cmake -S "$here" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
flock "$LOCK" cmake --build "$out" -j2 >/dev/null

# name:threads. Thread-per-connection libraries get 128 threads, as
# tfn-serve runs cpp-httplib (--http-threads); event loops get 2, the cores.
libs="httplib:128 beast:2 microhttpd:2 civetweb:128 evhtp:2"
lua=$out/post.lua
cat >"$lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"id":"42","inputs":[{"name":"x","shape":[1,4],"datatype":"FP32","data":[1.5,2.5,3.5,4.5]}]}'
LUA

# wrk's "50%" latency in microseconds, and its Requests/sec.
p50_us() { awk '$1 == "50%" { v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v);
  f = (u == "ms") ? 1000 : (u == "s") ? 1e6 : 1; printf "%.1f", v * f }'; }
rps() { awk '/^Requests\/sec/ { printf "%.0f", $2 }'; }

source "$root/bench/wait_quiet.sh"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), git $(git -C "$root" rev-parse --short HEAD 2>/dev/null); $(wait_quiet)"
results=$out/results.txt
: >"$results"
port=$PORT
for ((round = 1; round <= ROUNDS; round++)); do
  for entry in $libs; do
    lib=${entry%%:*} threads=${entry##*:}
    port=$((port + 1))
    url=http://127.0.0.1:$port/v2/models/echo/infer
    "$out/server_$lib" "$port" "$threads" 2>"$out/$lib.err" &
    pid=$!
    for _ in $(seq 100); do
      curl -sf "http://127.0.0.1:$port/v2/health/ready" >/dev/null 2>&1 && break
      sleep 0.05
    done
    if ! curl -sf "http://127.0.0.1:$port/v2/health/ready" >/dev/null; then
      echo "http_libs.sh: server_$lib did not answer; $(cat "$out/$lib.err")" >&2
      kill "$pid" 2>/dev/null || true
      exit 1
    fi
    answer=$(curl -sf -X POST -H 'Content-Type: application/json' -d '{"a":1}' "$url")
    [[ $answer == *'"data":[7,'* ]] || { echo "http_libs.sh: server_$lib answered '$answer'" >&2; exit 1; }
    one=$(wrk -t1 -c1 -d"${CASE_SECONDS}s" --latency -s "$lua" "$url")
    many=$(wrk -t2 -c64 -d"${CASE_SECONDS}s" -s "$lua" "$url")
    echo "$lib $threads $(p50_us <<<"$one") $(rps <<<"$one") $(rps <<<"$many")" >>"$results"
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
done

echo "| library | server threads | p50, 1 connection | req/s, 1 connection | req/s, 64 connections |"
echo "|---|---:|---:|---:|---:|"
for entry in $libs; do
  lib=${entry%%:*}
  awk -v lib="$lib" 'BEGIN { n = 0 } $1 == lib { t = $2; p[n] = $3; a[n] = $4; b[n] = $5; n++ }
    function med(x, n,   i, j, s) { for (i = 0; i < n; i++) for (j = i + 1; j < n; j++)
      if (x[j] < x[i]) { s = x[i]; x[i] = x[j]; x[j] = s } return x[int(n / 2)] }
    END { printf "| %s | %s | %.1f us | %d | %d |\n", lib, t, med(p, n), med(a, n), med(b, n) }' "$results"
done
echo "(medians of $ROUNDS interleaved rounds of ${CASE_SECONDS} s per case; raw rows in $results)"
