// Copying a strided view of a tensor into a contiguous output: the one
// data-movement loop of the optimized transpose and slice (and of any op
// whose output is a view of its input with per-dim strides).
//
// The output's dims are simplified first (StridedLayout::Add): size-1 dims
// dropped, and neighbours that are also neighbours in the input merged.
// Then either the output's innermost dim is contiguous in the input too
// (copies of whole rows), or a lone dim with a stride (a strided loop), or
// the data moves in 16 x 16 tiles between the output's innermost dim and the
// dim that is innermost in the input (each tile's rows stay in L1), e.g. an
// NCHW <-> NHWC layout change. Input strides may be negative (reversed
// slices). Outer dims and tile strips are split over ctx's threads.
//
// Pure functions; thread-safe for distinct outputs.
#pragma once

#include <cstdint>

#include "kernels/kernel_abi.h"

namespace tfn::kernels {

struct StridedLayout {
  int rank = 0;
  int64_t dims[TFN_KERNEL_MAX_RANK];
  int64_t in_strides[TFN_KERNEL_MAX_RANK];   // input stride of each output dim, in elements
  int64_t out_strides[TFN_KERNEL_MAX_RANK];  // contiguous output strides (Finish)

  // Appends the next output dim (outermost first) and its input stride.
  void Add(int64_t size, int64_t in_stride);
  // Sets the contiguous output strides; call once after the last Add.
  void Finish();
};

// Copies the view: out[i] = in[sum_d i_d * in_strides[d]] over the layout's
// dims, elements of `element_bytes` (1, 2, 4 or 8; anything else is
// TFN_KERNEL_UNSUPPORTED). `in` points at the view's first element. The
// layout must not have a zero dim (the caller returns early on empty outputs).
int32_t CopyStrided(const StridedLayout& layout, const void* in, void* out, int element_bytes,
                    const TfnKernelContext* ctx);

}  // namespace tfn::kernels
