// What the conformance bundles hold (make_bundle.cc): every op of the op
// table (core/op_list.inc) is run by some case, and the oracle's bundles are
// really the graphs as traced, before any pass.
//
// An op is covered when it is in a graph (subgraphs included) of an
// optimized bundle: of conformance.tfn, which the interpreter, the JIT and
// the AOT object run, or, for the few ops compiled code refuses (listed in
// InterpreterOnly() with the reason), of conformance_interpreter.tfn, which
// the interpreter alone runs; each is compared with the reference kernels on
// the unoptimized graph. The ops that no case can cover are listed in
// Exclusions(), each with the reason. A listed op that is covered after all
// (or, for InterpreterOnly(), that a compiled case covers) fails too, so
// that the lists stay true.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>

#include "core/op_def.h"
#include "exporter/bundle_reader.h"

namespace tfn::conformance {
namespace {

enum class Why {
  // No conformance case can run it, not even through the interpreter alone:
  // in no bundle.
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
      {OpId::kIdentity,
       {Why::kRemovedByPasses,
        "algebraic_simplify replaces every identity by its input, so only the oracle runs it"}},
  };
  return *exclusions;
}

// The ops only interpreter-only cases (Case::compiled false) cover: compiled
// code cannot run them, so the JIT and the AOT object do not.
const std::map<OpId, const char*>& InterpreterOnly() {
  static const auto* ops = new std::map<OpId, const char*>{
      {OpId::kNonZero,
       "a data-dependent output shape: compiled code needs every shape to follow from the input "
       "dims (aot/codegen.cc refuses it)"},
      {OpId::kUnique, "as non_zero"},
      {OpId::kVarAssign,
       "compiled objects are stateless: variables are embedded as constants "
       "(aot/codegen_graph.cc refuses a signature that updates one)"},
      {OpId::kVarAssignAdd, "as var_assign"},
  };
  return *ops;
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

BundleOps Merged(const char* path, const char* interpreter_path) {
  BundleOps out = ReadOps(path);
  BundleOps more = ReadOps(interpreter_path);
  out.all.insert(more.all.begin(), more.all.end());
  for (auto& [name, ops] : more.by_signature) {
    EXPECT_EQ(out.by_signature.count(name), 0u) << name << " is in both bundles";
    out.by_signature[name] = std::move(ops);
  }
  out.nodes.insert(more.nodes.begin(), more.nodes.end());
  return out;
}

// The compiled cases' optimized bundle alone.
const BundleOps& Compiled() {
  static const BundleOps* ops = new BundleOps(ReadOps(TFN_CONFORMANCE_BUNDLE));
  return *ops;
}

// Every case: the compiled ones' bundle and the interpreter-only one.
const BundleOps& Optimized() {
  static const BundleOps* ops =
      new BundleOps(Merged(TFN_CONFORMANCE_BUNDLE, TFN_CONFORMANCE_INTERPRETER_BUNDLE));
  return *ops;
}

const BundleOps& Unoptimized() {
  static const BundleOps* ops = new BundleOps(
      Merged(TFN_CONFORMANCE_UNOPTIMIZED_BUNDLE, TFN_CONFORMANCE_INTERPRETER_UNOPTIMIZED_BUNDLE));
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
      << "ops with no conformance case (in no optimized graph of the conformance bundles): "
      << missing
      << ". Add a case to tests/conformance/cases.cc that keeps each of them after the passes "
         "(constants fold: use the inputs), or list it in Exclusions() with the reason";
}

// The interpreter-only cases cover only the ops compiled code refuses; every
// other op runs through the JIT and the AOT object too.
TEST(OpCoverage, OnlyOpsCompiledCodeRefusesAreLeftToTheInterpreter) {
  const BundleOps& compiled = Compiled();
  const BundleOps& all = Optimized();
  ASSERT_FALSE(compiled.all.empty());
  for (int i = 0; i < static_cast<int>(OpId::kNumOps); ++i) {
    OpId op = static_cast<OpId>(i);
    if (Exclusions().count(op) || !all.all.count(op)) continue;
    auto only = InterpreterOnly().find(op);
    if (only == InterpreterOnly().end()) {
      EXPECT_EQ(compiled.all.count(op), 1u)
          << OpName(op)
          << " is covered only by interpreter-only cases (Case::compiled false): add a compiled "
             "case that uses it, or list it in InterpreterOnly() with the reason";
    } else {
      EXPECT_EQ(compiled.all.count(op), 0u)
          << OpName(op) << " is listed as interpreter-only (" << only->second
          << "), but a compiled case uses it: drop it from InterpreterOnly()";
    }
  }
  for (const auto& [op, reason] : InterpreterOnly()) {
    EXPECT_EQ(all.all.count(op), 1u)
        << OpName(op) << " is listed as interpreter-only (" << reason << "), but no case uses it";
  }
}

// The oracle is independent of the passes only if its bundle skipped them:
// it holds none of the ops that only passes make, and the example models'
// graphs (traced with ExportRequest::optimize off, which their factories pass
// on as FunctionOptions::optimize) differ in size between the two bundles:
// constants fold and epilogues fuse in each.
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
