// tfn: the tracing front end. Tensors and eager ops, tfn::function with its
// trace cache, Variables, control flow and printing (and, as they land,
// export). Link tfn::tfn.
#pragma once

#include "tracer/control_flow.h"
#include "tracer/function.h"
#include "tracer/gradient_tape.h"
#include "tracer/logging.h"
#include "tracer/losses.h"
#include "tracer/ops.h"
#include "tracer/optimizers.h"
#include "tracer/tensor.h"
#include "tracer/variable.h"
#include "exporter/save.h"
