// The length of an integer range [start, limit) in steps of delta, exact for
// every int64 (ONNX's Range, tfn's range): the one definition, for range's
// shape rule (core/rules/rules_basic.h) and for the kernel's check of a
// length its "dims" attribute stated (kernels/ref/factory.cc).
#pragma once

#include <cstdint>

namespace tfn {

// False when delta is 0 or the length is above 2^53; else *count >= 0.
inline bool IntRangeCount(int64_t start, int64_t limit, int64_t delta, int64_t* count) {
  *count = 0;
  if (delta == 0) return false;
  if (delta > 0 ? limit <= start : limit >= start) return true;
  const uint64_t span = delta > 0 ? static_cast<uint64_t>(limit) - static_cast<uint64_t>(start)
                                  : static_cast<uint64_t>(start) - static_cast<uint64_t>(limit);
  const uint64_t step = delta > 0 ? static_cast<uint64_t>(delta)
                                  : ~static_cast<uint64_t>(delta) + 1;  // |INT64_MIN| too
  const uint64_t n = span / step + (span % step != 0);
  if (n > (uint64_t{1} << 53)) return false;
  *count = static_cast<int64_t>(n);
  return true;
}

}  // namespace tfn
