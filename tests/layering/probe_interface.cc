// Layering probe (tests/layering/CMakeLists.txt): a component that links
// tfn_runtime sees its interface headers and, through its public links,
// those of tfn_kernels and tfn_core. This file must compile.
#include "core/status.h"
#include "kernels/kernel_abi.h"
#include "runtime/runtime.h"

int tfn_layering_probe_interface() { return tfn::Status::Ok().ok() ? 0 : 1; }
