// Lowering an optimized ir::Graph to the runtime's Module, so that traced
// functions run on the same executor as loaded bundles.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/graph.h"
#include "kernels/kernels.h"
#include "runtime/program.h"

namespace tfn::detail {

struct LoweredModule {
  std::shared_ptr<runtime::Module> module;  // program 0 is the graph itself
  std::vector<std::string> variable_names;  // module variable i
};

// Programs for the graph and each of its subgraphs; variables are collected
// from var_* nodes (their initial values are left empty: in process they are
// bound to live tfn::Variables).
absl::StatusOr<LoweredModule> LowerToModule(const ir::Graph& graph, const std::string& name,
                                            kernels::Variant variant = kernels::Variant::kOptimized);

}  // namespace tfn::detail
