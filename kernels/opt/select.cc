// The table of optimized kernels: for each op, the conditions under which a
// faster kernel replaces the reference one chosen by PrepareKernel.
#include "kernels/opt/opt_kernels.h"
#include "kernels/ref/ref_kernels.h"

namespace tfn::kernels {

void SelectOptimized(const NodeSignature& node, KernelPlan* plan) {
  switch (node.op) {
    default: break;  // no optimized kernel: keep the reference one
  }
  (void)plan;
}

}  // namespace tfn::kernels
