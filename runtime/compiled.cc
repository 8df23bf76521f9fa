// Implementation of RunCompiled.
#include "runtime/compiled.h"

#include <algorithm>
#include <string>

#include "runtime/small_buffer.h"

namespace tfn::runtime {

Status CompiledError(int32_t code, const char* signature) {
  std::string s = std::string("compiled signature '") + (signature ? signature : "?") + "': ";
  switch (code) {
    case TFN_AOT_OK:
      return Status::Ok();
    case TFN_AOT_BAD_DIMS:
      return InvalidArgument(s + "a dynamic dim is negative or the sizes overflow");
    case TFN_AOT_SHAPE_MISMATCH:
      return InvalidArgument(
          s + "input dims that must agree at run time do not (e.g. two dims that broadcast)");
    case TFN_AOT_INDEX_OUT_OF_RANGE:
      return OutOfRange(s + "an index is outside the indexed axis");
    case TFN_AOT_KERNEL_ERROR:
      return Internal(s + "a kernel refused its inputs");
    case TFN_AOT_BAD_ARGUMENT:
      return InvalidArgument(s + "a NULL or misaligned pointer, or an index out of range");
    case TFN_AOT_WEIGHTS_NOT_BOUND:
      return FailedPrecondition(
          s +
          "the object reads its weights from the bundle (tfn-aot --weights external); "
          "call NAME_bind_weights with the mapped bundle first");
    case TFN_AOT_WEIGHTS_MISMATCH:
      return FailedPrecondition(
          s +
          "the bundle given to NAME_bind_weights is not the one the object was "
          "compiled from (magic, size or content hash differ)");
    default:
      return Internal(s + "failed with code " + std::to_string(code));
  }
}

namespace {

// The descriptor as far as it can be checked: counts, ranks, dtypes, the
// dynamic-dim indices RunCompiled writes through, and the entry points it
// calls. (Arrays shorter than their counts cannot be detected.) A
// descriptor from an object built against another ABI, or corrupt, gets an
// error instead of reads and writes out of bounds.
Status CheckDescriptor(const TfnAotSignature& sig, const std::string& name) {
  std::string s = "compiled signature '" + name + "': ";
  if (sig.num_inputs < 0 || sig.num_outputs < 0 || sig.num_dims < 0 ||
      (sig.num_inputs > 0 && !sig.inputs) || (sig.num_outputs > 0 && !sig.outputs))
    return FailedPrecondition(s + "negative counts or missing input/output descriptors");
  if (!sig.run || !sig.scratch_bytes || !sig.output_shape)
    return FailedPrecondition(s + "run, scratch_bytes or output_shape is NULL");
  for (int32_t i = 0; i < sig.num_inputs + sig.num_outputs; ++i) {
    bool input = i < sig.num_inputs;
    const TfnAotTensorDesc& d = input ? sig.inputs[i] : sig.outputs[i - sig.num_inputs];
    std::string what =
        std::string(input ? "input " : "output ") + std::to_string(input ? i : i - sig.num_inputs);
    if (!IsValidDType(d.dtype) || d.rank < 0 || d.rank > TFN_AOT_MAX_RANK)
      return FailedPrecondition(s + what + " has an invalid dtype or rank");
    for (int k = 0; input && k < d.rank; ++k) {
      if (d.dim_index[k] >= sig.num_dims || (d.dim_index[k] < 0 && d.size[k] < 0))
        return FailedPrecondition(s + what + " has a dim outside its dynamic dims");
    }
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<ConstTensor>> RunCompiled(const TfnAotSignature& sig,
                                             const std::vector<ConstTensor>& inputs,
                                             const TfnAotRunOptions* options) {
  std::vector<ConstTensor> outputs(sig.num_outputs > 0 ? static_cast<size_t>(sig.num_outputs) : 0);
  TFN_RETURN_IF_ERROR(RunCompiled(sig, inputs.data(), static_cast<int>(inputs.size()),
                                  outputs.data(), static_cast<int>(outputs.size()), options, 0));
  return outputs;
}

Status RunCompiled(const TfnAotSignature& sig, const ConstTensor* inputs, int num_inputs,
                   ConstTensor* outputs, int num_outputs, const TfnAotRunOptions* options,
                   int64_t max_run_bytes) {
  std::string name = sig.name ? sig.name : "?";
  if (sig.abi_version < 1)
    return FailedPrecondition("compiled signature '" + name + "' has an unknown ABI version");
  TFN_RETURN_IF_ERROR(CheckDescriptor(sig, name));
  if (num_inputs != sig.num_inputs || num_outputs != sig.num_outputs) {
    return InvalidArgument("compiled signature '" + name + "' takes " +
                           std::to_string(sig.num_inputs) + " inputs and returns " +
                           std::to_string(sig.num_outputs) + " outputs, got " +
                           std::to_string(num_inputs) + " and " + std::to_string(num_outputs));
  }
  runtime::SmallBuffer<int64_t, 16> dim_values(static_cast<size_t>(sig.num_dims) + 1);
  int64_t* dims = dim_values.data();
  std::fill(dims, dims + sig.num_dims + 1, -1);
  for (int32_t i = 0; i < sig.num_inputs; ++i) {
    const TfnAotTensorDesc& d = sig.inputs[i];
    const ConstTensor& t = inputs[i];
    Shape expected;
    for (int k = 0; k < d.rank; ++k) expected.push_back(d.dim_index[k] >= 0 ? kDynamic : d.size[k]);
    bool ok = static_cast<int32_t>(t.dtype) == d.dtype && ShapeMatches(expected, t.shape);
    for (int k = 0; ok && k < d.rank; ++k) {
      int32_t idx = d.dim_index[k];
      if (idx < 0) continue;
      if (dims[idx] >= 0 && dims[idx] != t.shape[k]) ok = false;
      dims[idx] = t.shape[k];
    }
    if (!ok) {
      return InvalidArgument("compiled signature '" + name + "': input '" +
                             (d.name ? d.name : "?") + "' expects " +
                             TypeToString(d.dtype, expected) + ", got " +
                             TypeToString(static_cast<int>(t.dtype), t.shape) +
                             " (dims with the same symbol must agree)");
    }
  }
  int64_t scratch_bytes = sig.scratch_bytes(dims);
  if (scratch_bytes < 0) return CompiledError(TFN_AOT_BAD_DIMS, sig.name);
  // Output shapes first: bound buffers are checked and the bytes counted
  // before anything is allocated.
  int64_t planned = scratch_bytes;
  for (int32_t o = 0; o < sig.num_outputs; ++o) {
    int64_t od[TFN_AOT_MAX_RANK] = {};
    int32_t code = sig.output_shape(dims, o, od);
    if (code != TFN_AOT_OK) return CompiledError(code, sig.name);
    Shape shape(od, od + sig.outputs[o].rank);
    DType dtype = static_cast<DType>(sig.outputs[o].dtype);
    int64_t n = 0;
    if (!CheckedNumElements(shape, &n) ||
        __builtin_mul_overflow(n, static_cast<int64_t>(DTypeSize(dtype)), &n))
      return CompiledError(TFN_AOT_BAD_DIMS, sig.name);
    ConstTensor& out = outputs[o];
    if (out.data) {
      if (out.dtype != dtype || out.shape != shape) {
        return InvalidArgument("compiled signature '" + name + "': output " + std::to_string(o) +
                               " is " + TypeToString(static_cast<int>(dtype), shape) +
                               ", but the buffer bound to it is " +
                               TypeToString(static_cast<int>(out.dtype), out.shape) +
                               "; bind a buffer of the output's dtype and shape");
      }
      continue;
    }
    out.dtype = dtype;
    out.shape = shape;
    if (__builtin_add_overflow(planned, n, &planned)) planned = INT64_MAX;
  }
  if (max_run_bytes > 0 && planned > max_run_bytes) {
    return ResourceExhausted("compiled signature '" + name + "': its scratch and outputs (" +
                             std::to_string(planned) + " bytes) exceed the run's limit of " +
                             std::to_string(max_run_bytes) +
                             " bytes; raise RunOptions::max_run_bytes (0: no limit) if the model "
                             "needs it");
  }
  std::shared_ptr<void> scratch = AllocateAligned(static_cast<size_t>(scratch_bytes));
  if (scratch_bytes > 0 && !scratch)
    return ResourceExhausted("out of memory for " + std::to_string(scratch_bytes) +
                             " bytes of scratch");
  runtime::SmallBuffer<void*, 16> out_ptrs(static_cast<size_t>(sig.num_outputs));
  runtime::SmallBuffer<const void*, 16> in_ptrs(static_cast<size_t>(sig.num_inputs));
  for (int32_t o = 0; o < sig.num_outputs; ++o) {
    ConstTensor& out = outputs[o];
    if (!out.data) {
      void* data = nullptr;
      out = ConstTensor::Allocate(out.dtype, out.shape, &data);
      if (!data && out.num_elements() > 0) return ResourceExhausted("out of memory for an output");
    }
    out_ptrs[o] = const_cast<void*>(out.data);
  }
  for (int32_t i = 0; i < sig.num_inputs; ++i) in_ptrs[i] = inputs[i].data;
  int32_t code =
      options && sig.abi_version >= 2 && sig.run_with_options
          ? sig.run_with_options(in_ptrs.data(), dims, out_ptrs.data(), scratch.get(), options)
          : sig.run(in_ptrs.data(), dims, out_ptrs.data(), scratch.get());
  return CompiledError(code, sig.name);
}

}  // namespace tfn::runtime
