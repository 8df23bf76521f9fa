// Reference kernels of softmax, log_softmax and layer_norm. Everything is
// computed in double and rounded once to the output type, so the oracle is
// as accurate as it can be; softmax subtracts the row maximum first, as every
// real implementation does, so large inputs do not overflow exp.
//
// A NaN anywhere in a softmax row makes the whole row NaN; a row containing
// +inf, or a row of only -inf, is NaN too (inf - inf), as in TensorFlow.
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/scalar_ops.h"
#include "kernels/ref/tensor_util.h"

namespace tfn::kernels {

TFN_KERNEL(tfn_ref_softmax) {
  const auto& p = *static_cast<const SoftmaxParams*>(params);
  const TfnTensor& x = inputs[0];
  if (p.axis < 0 || p.axis >= x.rank) return TFN_KERNEL_BAD_SHAPE;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < p.axis; ++d) outer *= x.dims[d];
  for (int d = p.axis + 1; d < x.rank; ++d) inner *= x.dims[d];
  const int64_t n = x.dims[p.axis];
  return DispatchDType(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!kIsFloat<T>) {
      return TFN_KERNEL_UNSUPPORTED;
    } else {
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          const T* row = DataOf<T>(x) + o * n * inner + i;
          T* out = DataOf<T>(outputs[0]) + o * n * inner + i;
          double max = -std::numeric_limits<double>::infinity();
          for (int64_t t = 0; t < n; ++t) {
            double v = row[t * inner];
            if (std::isnan(v) || v > max) max = v;
            if (std::isnan(v)) break;
          }
          double sum = 0;
          for (int64_t t = 0; t < n; ++t) sum += std::exp(row[t * inner] - max);
          for (int64_t t = 0; t < n; ++t) {
            double shifted = row[t * inner] - max;
            out[t * inner] =
                static_cast<T>(p.log ? shifted - std::log(sum) : std::exp(shifted) / sum);
          }
        }
      }
      return TFN_KERNEL_OK;
    }
  });
}

// y = (x - mean) / sqrt(var + epsilon) * scale + bias over the trailing dims
// [axis, rank); var is the biased variance (mean of squared deviations).
TFN_KERNEL(tfn_ref_layer_norm) {
  const auto& p = *static_cast<const LayerNormParams*>(params);
  const TfnTensor& x = inputs[0];
  if (p.axis < 0 || p.axis >= x.rank) return TFN_KERNEL_BAD_SHAPE;
  int64_t rows = 1, cols = 1;
  for (int d = 0; d < p.axis; ++d) rows *= x.dims[d];
  for (int d = p.axis; d < x.rank; ++d) cols *= x.dims[d];
  if (NumElementsOf(inputs[1]) != cols || NumElementsOf(inputs[2]) != cols) {
    return TFN_KERNEL_BAD_SHAPE;
  }
  return DispatchDType(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!kIsFloat<T>) {
      return TFN_KERNEL_UNSUPPORTED;
    } else {
      const T* scale = DataOf<T>(inputs[1]);
      const T* bias = DataOf<T>(inputs[2]);
      for (int64_t r = 0; r < rows; ++r) {
        const T* row = DataOf<T>(x) + r * cols;
        T* out = DataOf<T>(outputs[0]) + r * cols;
        double mean = 0;
        for (int64_t c = 0; c < cols; ++c) mean += row[c];
        mean /= static_cast<double>(cols);
        double var = 0;
        for (int64_t c = 0; c < cols; ++c) var += (row[c] - mean) * (row[c] - mean);
        var /= static_cast<double>(cols);
        const double inv_std = 1.0 / std::sqrt(var + p.epsilon);
        for (int64_t c = 0; c < cols; ++c) {
          out[c] = static_cast<T>((row[c] - mean) * inv_std * scale[c] + bias[c]);
        }
      }
      return TFN_KERNEL_OK;
    }
  });
}

// The node has passed CheckNode: x is there and the axis is within its rank.
Status PrepareNormalize(const NodeSignature& node, KernelPlan* plan) {
  TFN_DCHECK(node.num_inputs >= 1);
  int normalized = 0;
  const bool axis_ok = NormalizeAxis(node.attrs->GetInt("axis"), node.in_ranks[0], &normalized);
  TFN_DCHECK(axis_ok);
  (void)axis_ok;
  if (node.op == OpId::kLayerNorm) {
    auto* p = plan->As<LayerNormParams>();
    p->axis = normalized;
    p->epsilon = node.attrs->GetFloat("epsilon");
    plan->fn = tfn_ref_layer_norm;
    plan->symbol = "tfn_ref_layer_norm";
    return Status::Ok();
  }
  auto* p = plan->As<SoftmaxParams>();
  p->axis = normalized;
  p->log = node.op == OpId::kLogSoftmax;
  plan->fn = tfn_ref_softmax;
  plan->symbol = "tfn_ref_softmax";
  return Status::Ok();
}

}  // namespace tfn::kernels
