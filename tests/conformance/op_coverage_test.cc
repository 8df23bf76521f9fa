// What the two conformance bundles hold (make_bundle.cc): every op of the op
// table (core/op_list.inc) is run by some case, and the oracle's bundle is
// really the graphs as traced, before any pass.
//
// An op is covered when it is in a graph (subgraphs included) of the
// optimized bundle: the interpreter, the JIT and the AOT object then run it,
// compared with the reference kernels on the unoptimized graph. The ops that
// cannot be are listed below, each with the reason; a listed op that is
// covered after all fails too, so that the list stays true.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "core/op_def.h"
#include "exporter/bundle_reader.h"

namespace tfn::conformance {
namespace {

enum class Why {
  // No conformance case can run it through all four backends: in neither bundle.
  kNoCase,
  // The pipeline removes it wherever it appears: in the unoptimized bundle
  // (the reference kernels run it), never in the optimized one.
  kRemovedByPasses,
};

struct Exclusion {
  Why why;
  const char* reason;
};

const std::map<OpId, Exclusion>& Exclusions() {
  static const auto* exclusions = new std::map<OpId, Exclusion>{
      {OpId::kPrint,
       {Why::kNoCase,
        "no outputs: nothing to compare; its text is checked by tests/runtime/session_test.cc "
        "(interpreter) and the tracer's function_test.cc"}},
      {OpId::kVarAssign,
       {Why::kNoCase,
        "compiled objects are stateless (aot/codegen_graph.cc refuses a signature that updates "
        "a variable), so no case can run it through the JIT and AOT; variable updates are tested "
        "by tests/runtime/session_test.cc, loader/ and the tracer"}},
      {OpId::kVarAssignAdd, {Why::kNoCase, "as var_assign"}},
      // One reference kernel serves both the interpreter and the oracle, so
      // a case would add only a check of the passes around them.
      {OpId::kNonZero,
       {Why::kNoCase,
        "a data-dependent output shape: compiled code needs every shape to follow from the "
        "input dims (aot/codegen.cc refuses it), so no case runs through the JIT and AOT; its "
        "kernel is tested in kernels/ref/data_dependent_test.cc, traced in "
        "tracer/indexing_ops_test.cc"}},
      {OpId::kUnique, {Why::kNoCase, "as non_zero"}},
      {OpId::kIdentity,
       {Why::kRemovedByPasses,
        "algebraic_simplify replaces every identity by its input, so only the oracle runs it"}},
  };
  return *exclusions;
}

void CollectOps(const ir::Graph& graph, std::set<OpId>* ops) {
  for (const ir::Node& n : graph.nodes()) {
    ops->insert(n.op);
    for (const ir::Graph& sub : n.subgraphs) CollectOps(sub, ops);
  }
}

// The ops in every graph of a bundle, per signature too.
struct BundleOps {
  std::set<OpId> all;
  std::map<std::string, std::set<OpId>> by_signature;
  std::map<std::string, int> nodes;
};

BundleOps ReadOps(const char* path) {
  BundleOps out;
  auto bundle = exporter::ReadBundleFile(path);
  EXPECT_TRUE(bundle.ok()) << path << ": " << bundle.status();
  if (!bundle.ok()) return out;
  for (const exporter::SignatureToExport& s : bundle->signatures) {
    CollectOps(s.graph, &out.by_signature[s.name]);
    out.all.insert(out.by_signature[s.name].begin(), out.by_signature[s.name].end());
    out.nodes[s.name] = s.graph.num_nodes();
  }
  return out;
}

const BundleOps& Optimized() {
  static const BundleOps* ops = new BundleOps(ReadOps(TFN_CONFORMANCE_BUNDLE));
  return *ops;
}

const BundleOps& Unoptimized() {
  static const BundleOps* ops = new BundleOps(ReadOps(TFN_CONFORMANCE_UNOPTIMIZED_BUNDLE));
  return *ops;
}

TEST(OpCoverage, EveryOpHasAConformanceCase) {
  const BundleOps& optimized = Optimized();
  const BundleOps& unoptimized = Unoptimized();
  ASSERT_FALSE(optimized.all.empty());
  std::string missing;
  for (int i = 0; i < static_cast<int>(OpId::kNumOps); ++i) {
    OpId op = static_cast<OpId>(i);
    const char* name = OpName(op);
    auto ex = Exclusions().find(op);
    bool in_optimized = optimized.all.count(op) > 0, in_unoptimized = unoptimized.all.count(op) > 0;
    if (ex == Exclusions().end()) {
      if (!in_optimized) missing += std::string(missing.empty() ? "" : ", ") + name;
      continue;
    }
    if (ex->second.why == Why::kNoCase) {
      EXPECT_FALSE(in_optimized || in_unoptimized)
          << name << " is excluded as having no case (" << ex->second.reason
          << "), but a case uses it: drop it from the exclusions";
    } else {
      EXPECT_TRUE(in_unoptimized) << name << " is excluded as removed by the passes ("
                                  << ex->second.reason
                                  << "); add a case that uses it, so that the oracle runs it";
      EXPECT_FALSE(in_optimized) << name << " is excluded as removed by the passes ("
                                 << ex->second.reason
                                 << "), but the optimized bundle holds it: drop the exclusion";
    }
  }
  EXPECT_TRUE(missing.empty())
      << "ops with no conformance case (in no optimized graph of the conformance bundle): "
      << missing
      << ". Add a case to tests/conformance/cases.cc that keeps each of them after the passes "
         "(constants fold: use the inputs), or list it in Exclusions() with the reason";
}

// The oracle is independent of the passes only if its bundle skipped them:
// it holds none of the ops that only passes make, and the example models'
// graphs (whose factories make their own FunctionOptions, so the passes are
// skipped through TFN_DISABLE_PASSES for them) differ in size between the two
// bundles: constants fold and epilogues fuse in each.
TEST(OpCoverage, TheOracleRunsTheGraphsAsTraced) {
  const BundleOps& optimized = Optimized();
  const BundleOps& unoptimized = Unoptimized();
  for (OpId made_by_passes : {OpId::kFusedMatMul, OpId::kFusedConv2D}) {
    EXPECT_EQ(unoptimized.all.count(made_by_passes), 0u) << OpName(made_by_passes);
    EXPECT_EQ(optimized.all.count(made_by_passes), 1u) << OpName(made_by_passes);
  }
  ASSERT_EQ(optimized.nodes.size(), unoptimized.nodes.size());
  int models = 0;
  for (const auto& [name, nodes] : optimized.nodes) {
    ASSERT_EQ(unoptimized.nodes.count(name), 1u) << name;
    if (name.rfind("model_", 0) != 0) continue;
    ++models;
    EXPECT_NE(nodes, unoptimized.nodes.at(name)) << name << ": the same graph in both bundles";
  }
  EXPECT_GT(models, 0);
}

}  // namespace
}  // namespace tfn::conformance
