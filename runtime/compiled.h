// Running compiled signatures (an AOT object linked into the program, or JIT
// code) with runtime tensors: inputs are checked against the signature's
// descriptor, the dynamic dims are read off the inputs, outputs and scratch
// are allocated. This is how the runtime uses AOT objects instead of
// interpreting, and how the tracer runs jit_compile'd functions.
#pragma once

#include <vector>

#include "core/attrs.h"
#include "core/status.h"
#include "schema/aot_abi.h"

namespace tfn::runtime {

// Thread-safe (compiled code is reentrant; every call allocates its own
// scratch). `options` (may be null) gives code of ABI version 2 or later a
// thread pool (its run_with_options); older code runs single-threaded.
Result<std::vector<ConstTensor>> RunCompiled(const TfnAotSignature& signature,
                                             const std::vector<ConstTensor>& inputs,
                                             const TfnAotRunOptions* options = nullptr);
// As above, with outputs as Executor::Run takes them: `outputs` has one
// entry per output; an entry with data set is bound (written in place; its
// dtype and shape must be the output's), the others are allocated.
// `max_run_bytes` (0: none) bounds the scratch and allocated outputs, checked
// before the code runs.
Status RunCompiled(const TfnAotSignature& signature, const ConstTensor* inputs, int num_inputs,
                   ConstTensor* outputs, int num_outputs, const TfnAotRunOptions* options,
                   int64_t max_run_bytes);

// The message for a TFN_AOT_* code.
Status CompiledError(int32_t code, const char* signature);

}  // namespace tfn::runtime
