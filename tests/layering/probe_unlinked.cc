// Layering probe (tests/layering/CMakeLists.txt): ir/graph.h is an interface
// header of tfn_ir, which this probe does not link (nor does tfn_runtime,
// which it links), so it must not find it. This file must fail to compile,
// with "No such file".
#include "ir/graph.h"
