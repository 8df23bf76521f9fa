// The one memory planner: where each buffer of a run lives in one region.
//
// Both backends describe their buffers the same way, as a lifetime in steps
// of their schedule (core/fusion_schedule.h gives both the same steps) and a
// size in bytes, and get back an offset per buffer such that two buffers
// whose lifetimes overlap never overlap in memory.
//
// The size type is the only difference. The code generator plans with
// SymDim sizes, once, and the generated code (and the header's formula)
// evaluates the offsets and the total for the dims of a call; the runtime
// plans with int64_t sizes, the same decisions made on the actual dims of a
// run. A comparison that symbolic sizes cannot answer (is ?n*4 at least
// ?m*8?) counts as "no", so a symbolic plan never relies on an order of sizes
// that some dims would break: it is correct for every dims, and shares less.
//
// The policy is greedy by size, as TFLite's arena planner: the largest
// buffers first (symbolic sizes are ordered by their value with every symbol
// at kSizeHintDim; the order only affects how well memory is shared), each
// at the lowest offset where it overlaps no placed buffer that is alive at
// the same time. The candidates are 0 and the end of each such buffer; a
// candidate is taken only when it is known to fit, and the end of all of
// them always fits.
//
// Pure functions of their arguments; thread-safe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/sym_dim.h"

namespace tfn {

template <typename Bytes>
struct BufferLifetime {
  int32_t first = 0;  // the step that writes it
  int32_t last = 0;   // the last step that reads it (>= first)
  Bytes bytes{};
};

template <typename Bytes>
struct BufferPlacement {
  std::vector<Bytes> offset;  // per buffer, from the start of the region
  Bytes total{};              // the region's size: the largest offset + bytes
};

// a >= b, known for every value of the dims.
template <typename Bytes>
bool KnownAtLeast(const Bytes& a, const Bytes& b) {
  return KnownNonNegative(a - b);
}

// The larger of two sizes where one is known larger; otherwise a bound at
// least both that stays a polynomial (UpperMax, core/sym_dim.h): exact for
// concrete sizes, and never a max() node to nest.
template <typename Bytes>
Bytes KnownMax(const Bytes& a, const Bytes& b) {
  if (KnownAtLeast(a, b)) return a;
  if (KnownAtLeast(b, a)) return b;
  return UpperMax(a, b);
}

inline constexpr int64_t kSizeHintDim = 64;
inline int64_t SizeHint(int64_t bytes) { return bytes; }
inline int64_t SizeHint(const SymDim& bytes) {
  int64_t v = 0;
  auto every_symbol = [](const std::string&, int64_t* out) {
    *out = kSizeHintDim;
    return true;
  };
  Evaluate(bytes, every_symbol, &v);
  return v;
}

template <typename Bytes>
BufferPlacement<Bytes> PlaceBuffers(const std::vector<BufferLifetime<Bytes>>& buffers) {
  size_t n = buffers.size();
  std::vector<int64_t> hint(n);
  std::vector<int32_t> order(n);
  for (size_t i = 0; i < n; ++i) {
    hint[i] = SizeHint(buffers[i].bytes);
    order[i] = static_cast<int32_t>(i);
  }
  // Largest first; equal sizes in the order they were given.
  std::sort(order.begin(), order.end(),
            [&](int32_t a, int32_t b) { return hint[a] != hint[b] ? hint[a] > hint[b] : a < b; });
  BufferPlacement<Bytes> plan;
  plan.offset.assign(n, Bytes(0));
  plan.total = Bytes(0);
  std::vector<int32_t> placed;
  std::vector<int32_t> alive;  // placed buffers alive with the current one
  auto end_of = [&](int32_t q) { return plan.offset[q] + buffers[q].bytes; };
  for (int32_t b : order) {
    const BufferLifetime<Bytes>& buf = buffers[b];
    int32_t last = std::max(buf.last, buf.first);
    alive.clear();
    for (int32_t q : placed) {
      if (buffers[q].first <= last && buf.first <= std::max(buffers[q].last, buffers[q].first)) {
        alive.push_back(q);
      }
    }
    // Does [at, at + bytes) miss every alive buffer, for every dims?
    auto fits = [&](const Bytes& at) {
      Bytes end = at + buf.bytes;
      for (int32_t q : alive) {
        if (!KnownAtLeast(plan.offset[q], end) && !KnownAtLeast(at, end_of(q))) return false;
      }
      return true;
    };
    // The lowest candidate that fits: 0, else the lowest alive end that does
    // (by hint), else above them all.
    Bytes offset(0);
    if (!fits(offset)) {
      Bytes above(0);
      for (int32_t q : alive) above = KnownMax(above, end_of(q));
      offset = above;
      int64_t lowest = SizeHint(above);
      for (int32_t q : alive) {
        Bytes at = end_of(q);
        int64_t h = SizeHint(at);
        if (h < lowest && fits(at)) {
          offset = at;
          lowest = h;
        }
      }
    }
    plan.offset[b] = offset;
    plan.total = KnownMax(plan.total, offset + buf.bytes);
    placed.push_back(b);
  }
  return plan;
}

}  // namespace tfn
