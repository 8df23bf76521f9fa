// The indexing op functions of the front end (declared in tracer/ops.h):
// gather_elements, scatter_elements, gather_nd, scatter_nd, top_k, non_zero,
// unique. Each builds attributes and goes through detail::ApplyOp.
#include "tracer/ops.h"
#include "tracer/trace_context.h"

namespace tfn {

using detail::Apply1;
using detail::ApplyOp;

Tensor gather_elements(const Tensor& params, const Tensor& indices, int64_t axis) {
  return Apply1(OpId::kGatherElements, {params, indices}, {{"axis", AttrValue::Int(axis)}});
}

Tensor scatter_elements(const Tensor& data, const Tensor& indices, const Tensor& updates,
                        int64_t axis, const std::string& reduction) {
  return Apply1(OpId::kScatterElements, {data, indices, updates},
                {{"axis", AttrValue::Int(axis)}, {"reduction", AttrValue::String(reduction)}});
}

Tensor gather_nd(const Tensor& params, const Tensor& indices, int64_t batch_dims) {
  return Apply1(OpId::kGatherND, {params, indices}, {{"batch_dims", AttrValue::Int(batch_dims)}});
}

Tensor scatter_nd(const Tensor& data, const Tensor& indices, const Tensor& updates,
                  const std::string& reduction) {
  return Apply1(OpId::kScatterND, {data, indices, updates},
                {{"reduction", AttrValue::String(reduction)}});
}

std::pair<Tensor, Tensor> top_k(const Tensor& x, const Tensor& k, int64_t axis, bool largest) {
  std::vector<Tensor> out = ApplyOp(
      OpId::kTopK, {x, k}, {{"axis", AttrValue::Int(axis)}, {"largest", AttrValue::Int(largest)}});
  return {out[0], out[1]};
}

std::pair<Tensor, Tensor> top_k(const Tensor& x, int64_t k, int64_t axis, bool largest) {
  return top_k(x, constant(std::vector<int64_t>{k}), axis, largest);
}

Tensor non_zero(const Tensor& x) { return Apply1(OpId::kNonZero, {x}); }

UniqueResult unique(const Tensor& x, std::optional<int64_t> axis, bool sorted) {
  std::vector<int64_t> axes;
  if (axis) axes.push_back(*axis);
  std::vector<Tensor> out =
      ApplyOp(OpId::kUnique, {x},
              {{"axis", AttrValue::Ints(std::move(axes))}, {"sorted", AttrValue::Int(sorted)}});
  return {out[0], out[1], out[2], out[3]};
}

}  // namespace tfn
