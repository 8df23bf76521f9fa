// Golden text tests of the passes. Each file in testdata/ holds
//   # pass: <name>            (a pass, or "pipeline" for the whole pipeline)
//   # input
//   graph { ... }
//   # expected
//   graph { ... }
// The test parses the input, runs the pass with Verify after it, prints the
// result and compares it with the expected text exactly. Set
// TFN_UPDATE_GOLDEN=1 to rewrite the expected sections (review the diff!).
#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>

#include "ir/passes/algebraic_simplify.h"
#include "ir/passes/constant_folding.h"
#include "ir/passes/conv_affine_fold.h"
#include "ir/passes/conv_dead_taps.h"
#include "ir/passes/cse.h"
#include "ir/passes/dead_node_elimination.h"
#include "ir/passes/fuse_elementwise.h"
#include "ir/passes/fuse_epilogue.h"
#include "ir/passes/fuse_qdq.h"
#include "ir/passes/pad_folding.h"
#include "ir/passes/prepack_weights.h"
#include "ir/passes/rematerialize.h"
#include "ir/passes/transpose_sinking.h"
#include "ir/passes/unlower_fused.h"
#include "ir/pipeline.h"
#include "ir/text.h"
#include "ir/verify.h"
#include "kernels/evaluate.h"

namespace tfn::ir {
namespace {

absl::StatusOr<std::vector<ConstTensor>> Evaluate(OpId op, const Attrs& attrs,
                                                  const std::vector<ConstTensor>& inputs) {
  std::vector<ConstTensor> out;
  Status s = kernels::EvaluateOp(op, attrs, inputs, &out, kernels::Variant::kReference);
  if (!s.ok()) return ToAbsl(s);
  return out;
}

absl::Status RunPass(const std::string& name, Graph& g) {
  absl::StatusOr<bool> changed = false;
  if (name == "algebraic_simplify") {
    changed = SimplifyAlgebra(g);
  } else if (name == "constant_folding") {
    changed = FoldConstants(g, Evaluate);
  } else if (name == "cse") {
    changed = EliminateCommonSubexpressions(g);
  } else if (name == "dead_node_elimination") {
    changed = EliminateDeadNodes(g);
  } else if (name == "transpose_sinking") {
    changed = SinkTransposes(g);
  } else if (name == "conv_affine_fold") {
    changed = FoldConvAffine(g);
  } else if (name == "pad_folding") {
    changed = FoldPads(g);
  } else if (name == "conv_dead_taps") {
    changed = DropDeadConvTaps(g);
  } else if (name == "fuse_epilogue") {
    changed = FuseEpilogues(g);
  } else if (name == "fuse_qdq") {
    changed = FuseQdq(g);
  } else if (name == "prepack_weights") {
    changed = PrepackWeights(g);
  } else if (name == "unlower_fused") {
    changed = UnlowerFusedOps(g);
  } else if (name == "rematerialize") {
    changed = Rematerialize(g);
  } else if (name == "fuse_elementwise") {
    changed = FuseElementwise(g);
  } else if (name == "pipeline" || name == "pipeline_lowering") {
    PipelineOptions options;
    options.evaluator = Evaluate;
    options.verify_each_pass = true;
    options.kernel_lowering = name == "pipeline_lowering";
    return Optimize(g, options);
  } else {
    return absl::InvalidArgumentError("unknown pass '" + name + "'");
  }
  if (!changed.ok()) return changed.status();
  return Verify(g);
}

struct Golden {
  std::string path, pass, input, expected;
};

Golden Load(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  Golden g{path, "", "", ""};
  std::string* section = nullptr;
  while (std::getline(in, line)) {
    if (line.rfind("# pass: ", 0) == 0) {
      g.pass = line.substr(8);
    } else if (line == "# input") {
      section = &g.input;
    } else if (line == "# expected") {
      section = &g.expected;
    } else if (section) {
      *section += line + "\n";
    }
  }
  return g;
}

std::vector<std::string> GoldenFiles() {
  std::vector<std::string> files;
  DIR* dir = opendir(TFN_IR_TESTDATA);
  if (!dir) return files;
  while (dirent* e = readdir(dir)) {
    std::string name = e->d_name;
    if (name.size() > 4 && name.substr(name.size() - 4) == ".txt") {
      files.push_back(std::string(TFN_IR_TESTDATA) + "/" + name);
    }
  }
  closedir(dir);
  std::sort(files.begin(), files.end());
  return files;
}

TEST(PassGolden, AllFiles) {
  std::vector<std::string> files = GoldenFiles();
  ASSERT_GE(files.size(), 8u) << "golden files missing in " << TFN_IR_TESTDATA;
  bool update = std::getenv("TFN_UPDATE_GOLDEN") != nullptr;
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    Golden golden = Load(path);
    absl::StatusOr<Graph> g = ParseGraph(golden.input);
    ASSERT_TRUE(g.ok()) << g.status();
    absl::Status st = RunPass(golden.pass, *g);
    ASSERT_TRUE(st.ok()) << st;
    PrintOptions print;
    print.max_constant_elements = 256;  // prepacked weights are shown whole
    std::string actual = PrintGraph(*g, print);
    if (update) {
      std::ofstream out(path);
      out << "# pass: " << golden.pass << "\n# input\n" << golden.input << "# expected\n" << actual;
      continue;
    }
    EXPECT_EQ(actual, golden.expected);
    // The expected text itself parses and is stable under the pass.
    absl::StatusOr<Graph> again = ParseGraph(golden.expected);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(PrintGraph(*again, print), golden.expected);
  }
}

// A float32 constant of `shape` with values uniform in [-1, 1).
ConstTensor RandomFloats(std::mt19937& rng, const Shape& shape) {
  std::uniform_real_distribution<float> u(-1, 1);
  void* data = nullptr;
  ConstTensor t = ConstTensor::Allocate(DType::kFloat32, shape, &data);
  for (int64_t i = 0; i < t.num_elements(); ++i) static_cast<float*>(data)[i] = u(rng);
  return t;
}

// A float32 parameter "x" of a static shape.
ValueRef StaticParameter(Graph& g, const Shape& shape) {
  SymShape dims;
  for (int i = 0; i < shape.rank(); ++i) dims.push_back(SymDim(shape[i]));
  return g.AddParameter(TensorType{DType::kFloat32, dims}, "x");
}

// Prepacked weights (panel layout, Winograd U = G g G^T) compute what the
// unpacked ones do: each fused_conv2d / fused_matmul of a graph is evaluated
// by the reference kernels before and after prepack_weights.
TEST(PrepackWeights, PackedOpsEvaluateLikeTheUnpacked) {
  std::mt19937 rng(3);
  auto random = [&](const Shape& shape) { return RandomFloats(rng, shape); };
  struct Case {
    OpId op;
    Shape x, w;
    Attrs attrs;
    const char* packed_attr;
  };
  const Case cases[] = {
      {OpId::kFusedConv2D,
       Shape{1, 7, 6, 16},
       Shape{3, 3, 16, 40},
       {{"padding", AttrValue::String("SAME")}},
       "winograd"},
      {OpId::kFusedConv2D,
       Shape{2, 5, 5, 6},
       Shape{3, 2, 3, 34},
       {{"groups", AttrValue::Int(2)}, {"strides", AttrValue::Ints({2, 1})}},
       "packed_out_channels"},
      {OpId::kFusedMatMul, Shape{3, 33}, Shape{33, 70}, {}, "packed_n"},
      {OpId::kFusedMatMul,
       Shape{2, 4, 9},
       Shape{17, 9},
       {{"transpose_b", AttrValue::Int(1)}},
       "packed_n"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(OpName(c.op));
    Graph g;
    const ValueRef x = StaticParameter(g, c.x);
    const ConstTensor w = random(c.w);
    absl::StatusOr<ValueRef> y = g.Add(c.op, {x, g.AddConstant(w)}, c.attrs);
    ASSERT_TRUE(y.ok()) << y.status();
    g.SetResults({*y});
    const Attrs attrs = g.node(y->node).attrs;  // normalized: defaults filled in
    absl::StatusOr<bool> changed = PrepackWeights(g);
    ASSERT_TRUE(changed.ok() && *changed);
    const Node& packed = g.node(g.results()[0].node);
    ASSERT_EQ(packed.op, c.op);
    EXPECT_NE(packed.attrs.GetInt(c.packed_attr), 0);
    const ConstTensor input = random(c.x);
    std::vector<ConstTensor> want, got;
    ASSERT_TRUE(
        kernels::EvaluateOp(c.op, attrs, {input, w}, &want, kernels::Variant::kReference).ok());
    ASSERT_TRUE(kernels::EvaluateOp(c.op, packed.attrs, {input, *g.ConstantValue(packed.inputs[1])},
                                    &got, kernels::Variant::kReference)
                    .ok());
    ASSERT_EQ(got[0].shape, want[0].shape);
    for (int64_t i = 0; i < want[0].num_elements(); ++i) {
      EXPECT_NEAR(got[0].ElementAsDouble(i), want[0].ElementAsDouble(i), 1e-5) << i;
    }
  }
}

// Unlowering undoes epilogue fusion and prepacking: a graph of canonical
// convs and matmuls, each with a different epilogue and packing (Winograd,
// panels, grouped, depthwise, transposed b), lowered, unlowered and lowered
// again prints the same, its constants equal (Winograd filters within a
// float rounding), and the unlowered filters are the original ones.
TEST(UnlowerFused, InvertsEpilogueFusionAndPrepacking) {
  std::mt19937 rng(5);
  auto random = [&](const Shape& shape) { return RandomFloats(rng, shape); };
  Graph g;
  const ValueRef x = StaticParameter(g, Shape{1, 6, 6, 16});
  auto scalar = [&](float v) { return g.AddConstant(ConstTensor::Scalar<float>(v)); };
  auto conv = [&](ValueRef in, const Shape& w, int64_t groups) {
    Attrs attrs = {{"padding", AttrValue::String("SAME")}, {"groups", AttrValue::Int(groups)}};
    return *g.Add(OpId::kConv2D, {in, g.AddConstant(random(w)), g.AddConstant(random(Shape{w[3]}))},
                  attrs);
  };
  std::vector<ValueRef> results;
  const ValueRef wino = conv(x, Shape{3, 3, 16, 40}, 1);  // Winograd
  results.push_back(*g.Add(OpId::kRelu, {wino}));
  const ValueRef panels = conv(x, Shape{1, 1, 16, 16}, 1);  // panels
  const ValueRef lo = *g.Add(OpId::kMaximum, {panels, scalar(0)});
  results.push_back(*g.Add(OpId::kMinimum, {lo, scalar(6)}));  // clip
  const ValueRef grouped = conv(x, Shape{3, 3, 4, 8}, 4);      // grouped, panels
  results.push_back(*g.Add(OpId::kMul, {grouped, *g.Add(OpId::kSigmoid, {grouped})}));  // silu
  const ValueRef dw = conv(x, Shape{3, 3, 1, 16}, 16);  // depthwise: HWIO
  results.push_back(*g.Add(OpId::kAdd, {dw, x}));       // residual
  const ValueRef flat = *g.Add(OpId::kReshape, {x}, {{"shape", AttrValue::Ints({-1, 96})}});
  const ValueRef mm = *g.Add(OpId::kMatMul, {flat, g.AddConstant(random(Shape{40, 96}))},
                             {{"transpose_b", AttrValue::Int(1)}});
  const ValueRef hs = *g.Add(
      OpId::kMul, {*g.Add(OpId::kAdd, {mm, g.AddConstant(random(Shape{40}))}), scalar(1.0f / 6)});
  const ValueRef hs2 = *g.Add(
      OpId::kMaximum,
      {*g.Add(OpId::kMinimum, {*g.Add(OpId::kAdd, {hs, scalar(0.5f)}), scalar(1)}), scalar(0)});
  results.push_back(hs2);  // hard_sigmoid
  results.push_back(
      *g.Add(OpId::kGelu, {*g.Add(OpId::kMatMul, {flat, g.AddConstant(random(Shape{96, 10}))})}));
  g.SetResults(results);
  const Graph canonical = g;

  auto lower = [](Graph& graph) {
    ASSERT_TRUE(FuseEpilogues(graph).ok());
    ASSERT_TRUE(PrepackWeights(graph).ok());
    ASSERT_TRUE(EliminateDeadNodes(graph).ok());
    ASSERT_TRUE(Verify(graph).ok());
  };
  Graph lowered = canonical;
  lower(lowered);
  Graph unlowered = lowered;
  absl::StatusOr<bool> changed = UnlowerFusedOps(unlowered);
  ASSERT_TRUE(changed.ok() && *changed) << changed.status();
  ASSERT_TRUE(EliminateDeadNodes(unlowered).ok());
  ASSERT_TRUE(Verify(unlowered).ok());
  for (const Node& n : unlowered.nodes()) {
    EXPECT_NE(n.op, OpId::kFusedConv2D);
    EXPECT_NE(n.op, OpId::kFusedMatMul);
  }
  // The unlowered filters are the canonical graph's (in the same order).
  std::vector<const ConstTensor*> want_filters, got_filters;
  for (const Graph* graph : std::vector<const Graph*>{&canonical, &unlowered}) {
    for (const Node& n : graph->nodes()) {
      if (n.op == OpId::kConv2D || n.op == OpId::kMatMul) {
        (graph == &canonical ? want_filters : got_filters)
            .push_back(graph->ConstantValue(n.inputs[1]));
      }
    }
  }
  ASSERT_EQ(got_filters.size(), want_filters.size());
  for (size_t i = 0; i < want_filters.size(); ++i) {
    SCOPED_TRACE("filter " + std::to_string(i));
    ASSERT_TRUE(got_filters[i] && want_filters[i]);
    ASSERT_EQ(got_filters[i]->shape.rank(), 2 + 2 * (want_filters[i]->shape.rank() == 4));
    // the transposed matmul weight comes back as [K, N]
    const bool transposed = want_filters[i]->shape == Shape{40, 96};
    for (int64_t k = 0; k < want_filters[i]->num_elements(); ++k) {
      const int64_t j = transposed ? (k % 96) * 40 + k / 96 : k;
      EXPECT_NEAR(got_filters[i]->as<float>()[j], want_filters[i]->as<float>()[k], 1e-6) << k;
    }
  }
  Graph relowered = unlowered;
  lower(relowered);
  PrintOptions print;
  print.max_constant_elements = 0;
  EXPECT_EQ(PrintGraph(relowered, print), PrintGraph(lowered, print));
  ASSERT_EQ(relowered.num_nodes(), lowered.num_nodes());
  for (int i = 0; i < lowered.num_nodes(); ++i) {
    const ConstTensor* a = lowered.ConstantValue(ValueRef{i, 0});
    const ConstTensor* b = relowered.ConstantValue(ValueRef{i, 0});
    ASSERT_EQ(a == nullptr, b == nullptr) << i;
    if (!a) continue;
    ASSERT_EQ(a->num_elements(), b->num_elements());
    for (int64_t k = 0; k < a->num_elements(); ++k) {
      EXPECT_NEAR(a->ElementAsDouble(k), b->ElementAsDouble(k), 2e-6)
          << "node " << i << " element " << k;
    }
  }
}

// Dropping dead conv taps changes no value: dilated convs on small maps
// (ASPP's rates on 14x14), strides, asymmetric pads, groups, and convs with
// nothing to drop, each evaluated by the reference kernels before and after.
TEST(ConvDeadTaps, RewrittenConvsEvaluateLikeTheOriginals) {
  std::mt19937 rng(11);
  auto random = [&](const Shape& shape) { return RandomFloats(rng, shape); };
  struct Case {
    Shape x, w;
    std::vector<int64_t> dilations, pads, strides;
    int64_t groups;
    Shape want_filter;  // after the pass; the original's when nothing is dead
  };
  // One case per line.
  // clang-format off
  const Case cases[] = {
      {Shape{1, 14, 14, 8}, Shape{3, 3, 8, 4}, {36, 36}, {36, 36, 36, 36}, {1, 1}, 1, Shape{1, 1, 8, 4}},
      {Shape{1, 14, 14, 8}, Shape{3, 3, 8, 4}, {24, 24}, {24, 24, 24, 24}, {1, 1}, 1, Shape{1, 1, 8, 4}},
      {Shape{1, 14, 14, 8}, Shape{3, 3, 8, 4}, {12, 12}, {12, 12, 12, 12}, {1, 1}, 1, Shape{3, 3, 8, 4}},
      {Shape{2, 5, 9, 6}, Shape{3, 3, 3, 6}, {6, 2}, {6, 6, 2, 2}, {1, 1}, 2, Shape{1, 3, 3, 6}},
      {Shape{1, 6, 6, 4}, Shape{5, 3, 4, 2}, {4, 3}, {9, 7, 9, 0}, {2, 1}, 1, Shape{2, 2, 4, 2}},
      {Shape{1, 7, 7, 3}, Shape{3, 3, 3, 5}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1, Shape{3, 3, 3, 5}},
  };
  // clang-format on
  for (const Case& c : cases) {
    SCOPED_TRACE(ShapeToString(c.w) + " dilations " + std::to_string(c.dilations[0]));
    Graph g;
    const ValueRef x = StaticParameter(g, c.x);
    const ConstTensor w = random(c.w);
    const ConstTensor b = random(Shape{c.w[3]});
    Attrs attrs = {{"dilations", AttrValue::Ints(c.dilations)},
                   {"padding", AttrValue::String("EXPLICIT")},
                   {"pads", AttrValue::Ints(c.pads)},
                   {"strides", AttrValue::Ints(c.strides)},
                   {"groups", AttrValue::Int(c.groups)}};
    absl::StatusOr<ValueRef> y =
        g.Add(OpId::kConv2D, {x, g.AddConstant(w), g.AddConstant(b)}, attrs);
    ASSERT_TRUE(y.ok()) << y.status();
    g.SetResults({*y});
    const Attrs before = g.node(y->node).attrs;
    absl::StatusOr<bool> changed = DropDeadConvTaps(g);
    ASSERT_TRUE(changed.ok()) << changed.status();
    ASSERT_TRUE(Verify(g).ok());
    const Node& conv = g.node(g.results()[0].node);
    ASSERT_EQ(conv.op, OpId::kConv2D);
    const ConstTensor& filter = *g.ConstantValue(conv.inputs[1]);
    EXPECT_EQ(filter.shape, c.want_filter);
    EXPECT_EQ(*changed, filter.shape != c.w);
    const ConstTensor input = random(c.x);
    std::vector<ConstTensor> want, got;
    ASSERT_TRUE(kernels::EvaluateOp(OpId::kConv2D, before, {input, w, b}, &want,
                                    kernels::Variant::kReference)
                    .ok());
    ASSERT_TRUE(kernels::EvaluateOp(OpId::kConv2D, conv.attrs, {input, filter, b}, &got,
                                    kernels::Variant::kReference)
                    .ok());
    ASSERT_EQ(got[0].shape, want[0].shape);
    for (int64_t i = 0; i < want[0].num_elements(); ++i) {
      EXPECT_NEAR(got[0].ElementAsDouble(i), want[0].ElementAsDouble(i), 1e-5) << i;
    }
  }
}

}  // namespace
}  // namespace tfn::ir
