// tfn: the tracing front end, eager ops, and (as they land) functions,
// variables, control flow and export. Link tfn::tfn.
#pragma once

#include "tracer/ops.h"
#include "tracer/tensor.h"
