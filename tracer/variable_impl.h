// Internal: the state behind a tfn::Variable.
#pragma once

#include <string>

#include "runtime/variables.h"

namespace tfn::detail {

struct VariableImpl {
  VariableImpl(std::string n, const ConstTensor& initial) : name(std::move(n)), slot(initial) {}
  const std::string name;
  runtime::VariableSlot slot;
};

}  // namespace tfn::detail
