// Implementation of EvaluateOp.
#include "kernels/evaluate.h"

#include <memory>
#include <string>

namespace tfn::kernels {

Status EvaluateOp(OpId op, const Attrs& attrs, const std::vector<ConstTensor>& inputs,
                  std::vector<ConstTensor>* outputs, Variant variant) {
  const OpDef& def = GetOpDef(op);
  int n_in = static_cast<int>(inputs.size());
  std::vector<DType> in_types(n_in);
  std::vector<Shape> in_shapes(n_in);
  std::vector<int> in_ranks(n_in);
  std::vector<const ConstTensor*> in_values(n_in);
  std::vector<TfnTensor> in_views(n_in);
  for (int i = 0; i < n_in; ++i) {
    in_types[i] = inputs[i].dtype;
    in_shapes[i] = inputs[i].shape;
    in_ranks[i] = inputs[i].shape.rank();
    in_values[i] = &inputs[i];
    in_views[i] = MakeTensor(const_cast<void*>(inputs[i].data), inputs[i].dtype, inputs[i].shape);
  }
  int n_out = def.NumOutputs(attrs, n_in);
  if (n_out < 0) return Internal(std::string(def.name) + " cannot be evaluated on its own");
  std::vector<DType> out_types(n_out);
  std::vector<Shape> out_shapes(n_out);
  TFN_RETURN_IF_ERROR(InferOp(def, attrs, n_in, in_types.data(), in_shapes.data(),
                              in_values.data(), n_out, out_types.data(), out_shapes.data()));
  std::vector<int> out_ranks(n_out);
  for (int i = 0; i < n_out; ++i) out_ranks[i] = out_shapes[i].rank();
  NodeSignature node{op,    &attrs,           n_in,         in_types.data(), in_ranks.data(),
                     n_out, out_types.data(), out_ranks.data()};
  KernelPlan plan;
  TFN_RETURN_IF_ERROR(PrepareKernel(node, variant, &plan));
  outputs->clear();
  std::vector<TfnTensor> out_views(n_out);
  for (int i = 0; i < n_out; ++i) {
    int64_t n;
    if (!CheckedNumElements(out_shapes[i], &n) ||
        n > (int64_t{1} << 62) / (DTypeSize(out_types[i]) ? DTypeSize(out_types[i]) : 1)) {
      return ResourceExhausted(std::string(def.name) + ": output " + std::to_string(i) + " " +
                               TypeToString(static_cast<int>(out_types[i]), out_shapes[i]) +
                               " is too large");
    }
    void* data = nullptr;
    outputs->push_back(ConstTensor::Allocate(out_types[i], out_shapes[i], &data));
    if (!data) {
      return ResourceExhausted(std::string(def.name) + ": out of memory allocating " +
                               TypeToString(static_cast<int>(out_types[i]), out_shapes[i]));
    }
    out_views[i] = MakeTensor(data, out_types[i], out_shapes[i]);
  }
  int64_t scratch = ScratchBytes(plan, in_views.data(), n_in, out_views.data(), n_out);
  std::shared_ptr<void> scratch_mem = AllocateAligned(static_cast<size_t>(scratch));
  if (scratch > 0 && !scratch_mem) {
    return ResourceExhausted(std::string(def.name) + ": out of memory for scratch");
  }
  TfnKernelContext ctx{};
  ctx.scratch = scratch_mem.get();
  ctx.scratch_bytes = scratch;
  ctx.num_threads = 1;
  int32_t code = plan.fn(plan.params, in_views.data(), n_in, out_views.data(), n_out, &ctx);
  return KernelError(code, op, in_views.data(), n_in);
}

}  // namespace tfn::kernels
