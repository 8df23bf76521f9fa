// TFN_DCHECK(cond): an assertion of an invariant some earlier check owns
// (e.g. a kernel's Prepare on a node that passed CheckNode). Aborts in debug
// builds; compiled out with NDEBUG (Release, RelWithDebInfo), where the
// owning check is what protects the code.
#pragma once

#include <cassert>

#define TFN_DCHECK(cond) assert(cond)
