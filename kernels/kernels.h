// The C++ side of tfn's kernels: choosing a kernel for a node and decoding its
// attributes into params, once, before any run.
//
// Two variants exist for every op: the reference kernels (simple loops, the
// test oracle) and the optimized ones, which fall back to the reference
// kernel for ops without an optimized implementation. A build with
// TFN_OPTIMIZED_KERNELS=OFF (the minimal runtime) has no optimized kernels:
// there kOptimized gives the reference kernel too. Plans are plain values:
// copy them freely; kernels are reentrant and may run on many threads at once
// as long as outputs and scratch differ.
#pragma once

#include <cstdint>

#include "core/attrs.h"
#include "core/node_check.h"
#include "core/op_def.h"
#include "core/status.h"
#include "kernels/kernel_abi.h"

namespace tfn::kernels {

enum class Variant { kReference, kOptimized };

inline constexpr int kMaxParamsBytes = 256;

// The contiguous form of an elementwise kernel, for callers that have
// already matched the operands to the output (the interpreter's fused
// chains, runtime/fused_chain.h): output[i] = f(inputs[0][i * strides[0]],
// ...) for i in [0, n), each stride 0 (one element for all) or 1. It skips
// what a kernel call costs on small tensors (broadcast analysis, dtype
// dispatch, the thread pool): a [1, 64] add is a few vector instructions.
// Runs on the calling thread; same results as the kernel.
using ElementwiseRowFn = void (*)(const void* params, const void* const* inputs,
                                  const int8_t* strides, void* output, int64_t n);

struct KernelPlan {
  TfnKernelFn fn = nullptr;
  TfnScratchFn scratch = nullptr;  // null: no scratch
  ElementwiseRowFn row = nullptr;  // null: none (only optimized float32 elementwise ops have one)
  const char* symbol = nullptr;    // extern "C" name of fn (aot links it by name)
  const char* scratch_symbol = nullptr;
  alignas(16) unsigned char params[kMaxParamsBytes] = {};
  uint32_t params_size = 0;

  template <class P>
  P* As() {
    static_assert(sizeof(P) <= kMaxParamsBytes, "params too large");
    params_size = sizeof(P);
    return reinterpret_cast<P*>(params);
  }
  template <class P>
  const P& Get() const {
    return *reinterpret_cast<const P*>(params);
  }
};

// What PrepareKernel knows about a node (core/node_check.h): its op,
// normalized attributes and the dtypes and ranks of its inputs and outputs.
using NodeSignature = tfn::NodeSignature;

// Fills `plan` for the node, which must pass CheckNode (the loader and the
// IR verifier run it; PrepareKernel runs it again, so no Prepare reads a
// malformed node whoever the caller). Ops executed by the graph executor itself
// (parameter, constant, control flow, variables, print) have no kernel.
Status PrepareKernel(const NodeSignature& node, Variant variant, KernelPlan* plan);

// Turns a kernel's status code into a message naming the op and its inputs.
Status KernelError(int32_t code, OpId op, const TfnTensor* inputs, int num_inputs);

// Fills a TfnTensor header (data pointer, dims, rank, dtype; dims past the
// rank are 0). FillTensor writes in place: the executor fills its views with
// it once per step, where copying a returned 80-byte struct stalled on store
// forwarding (perf: 12% of a small recurrent model's time).
void FillTensor(TfnTensor* t, void* data, DType dtype, const Shape& shape);
inline TfnTensor MakeTensor(void* data, DType dtype, const Shape& shape) {
  TfnTensor t;
  FillTensor(&t, data, dtype, shape);
  return t;
}

// Scratch bytes of a planned kernel for these tensors.
int64_t ScratchBytes(const KernelPlan& plan, const TfnTensor* inputs, int num_inputs,
                     const TfnTensor* outputs, int num_outputs);

}  // namespace tfn::kernels
