// The counter-based generator behind random_uniform and random_normal, and
// the portable math that turns its bits into samples. Exposed so that
// optimized kernels can reproduce the reference stream exactly and tests can
// check the pieces on their own. Defined in ref/factory.cc; all functions are
// pure and safe to call from any thread.
#pragma once

#include <cstdint>

namespace tfn::kernels {

// Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as
// easy as 1, 2, 3", SC'11): 4 random words from a 128-bit counter and a
// 64-bit key. Matches the Random123 known-answer vectors.
void Philox4x32(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]);

// ln(x) for finite x > 0, computed with +, -, *, / and frexp only, so it is
// bit-identical on every IEEE-754 target (libm's log may differ in the last
// bit between platforms). Accurate to a few ulp.
double PortableLog(double x);

// cos(2 pi t) for t in [0, 1), portable in the same sense; absolute error
// below 1e-15.
double PortableCos2Pi(double t);

}  // namespace tfn::kernels
