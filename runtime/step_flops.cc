// Operation counts of matmul and conv for the profiler (step_flops.h). The
// filter layouts are those of core/rules/rules_nn.h and rules_fused.h.
#include "runtime/step_flops.h"

namespace tfn::runtime {
namespace {

double Elements(const Shape& s) {
  double n = 1;
  for (int64_t d : s) n *= static_cast<double>(d);
  return n;
}

// Multiply-adds per output element of a conv: KH * KW * Cin/groups, read off
// the filter in each of its layouts.
double ConvTaps(const Attrs& attrs, const Shape& filter) {
  if (attrs.GetInt("winograd", 0) != 0 && filter.rank() == 4) return 9.0 * filter[2];
  if (filter.rank() == 6) return static_cast<double>(filter[2]) * filter[3] * filter[4];
  if (filter.rank() == 4) return static_cast<double>(filter[0]) * filter[1] * filter[2];
  return 0;
}

}  // namespace

double StepFlops(OpId op, const Attrs& attrs, const Shape* inputs, int num_inputs,
                 const Shape& output) {
  if (num_inputs < 2) return 0;
  const Shape& a = inputs[0];
  switch (op) {
    case OpId::kMatMul:
    case OpId::kFusedMatMul: {
      if (a.rank() < 2) return 0;
      const bool ta = attrs.GetInt("transpose_a", 0) != 0;
      const int64_t k = ta ? a[a.rank() - 2] : a[a.rank() - 1];
      return 2.0 * Elements(output) * static_cast<double>(k);
    }
    case OpId::kConv2D:
    case OpId::kFusedConv2D:
      return 2.0 * Elements(output) * ConvTaps(attrs, inputs[1]);
    case OpId::kConv2DTranspose: {
      // Every input element scatters into KH * KW * Cout/groups outputs.
      const Shape& f = inputs[1];
      if (f.rank() != 4) return 0;
      return 2.0 * Elements(a) * static_cast<double>(f[0]) * f[1] * f[2];
    }
    default:
      return 0;
  }
}

}  // namespace tfn::runtime
