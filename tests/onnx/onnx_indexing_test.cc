// The converters of ops_indexing.cc, ops_generate.cc, ops_split_tile.cc,
// ops_einsum.cc and shape_runtime.cc on cases ONNX's backend tests leave
// out: Einsum's ellipses, chains and outer products, dims known only at run
// time (Trilu, ReverseSequence), Range and Slice to a sequence length
// read from Shape (their dims stay expressions), run-time axes and sizes, OneHot's index
// wrapping, the errors for bad equations and bad indices, and ops_recurrent's
// layout 1 with initial states (against layout 0, which ONNX's node tests
// and PyTorch check) and its refusal of a dynamic sequence. Every model is
// imported, exported to a bundle and run; results are hand-computed.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "importers/onnx/onnx_importer.h"
#include "onnx/onnx_pb.h"
#include "tests/onnx/run_model.h"
#include "runtime/planner.h"
#include "tfn/runtime.h"

namespace tfn::onnx_import {
namespace {

using I64 = std::vector<int64_t>;

using Model = TestModel;

void SetString(onnx::NodeProto* n, const std::string& name, const std::string& v) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

constexpr int kF = onnx::TensorProto::FLOAT;
constexpr int kI = onnx::TensorProto::INT64;

ConstTensor Floats(Shape shape, std::vector<float> v) {
  return ConstTensor::Copy(DType::kFloat32, shape, v.data());
}
ConstTensor Longs(Shape shape, I64 v) { return ConstTensor::Copy(DType::kInt64, shape, v.data()); }



// One Einsum node over float inputs of the given shapes.
std::vector<ConstTensor> Einsum(const std::string& equation, std::vector<I64> shapes, int out_rank,
                                const std::vector<ConstTensor>& inputs,
                                std::string* error = nullptr) {
  Model m;
  std::vector<std::string> names;
  for (size_t i = 0; i < shapes.size(); ++i) {
    names.push_back("x" + std::to_string(i));
    m.Input(names.back(), kF, shapes[i]);
  }
  SetString(m.Node("Einsum", names, {"y"}), "equation", equation);
  m.OutputOfRank("y", kF, out_rank);
  return RunModel(m, inputs, error);
}

TEST(OnnxIndexing, EinsumForms) {
  ConstTensor a = Floats({2, 3}, {1, 2, 3, 4, 5, 6});
  ConstTensor b = Floats({3, 2}, {1, 0, 0, 1, 1, 1});
  // Implicit output ("ik"), and the same through an ellipsis with a batch of 1 broadcast.
  auto out = Einsum("ij,jk", {{2, 3}, {3, 2}}, 2, {a, b});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape, (Shape{2, 2}));
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{4, 5, 10, 11}));
  out =
      Einsum("...ij,jk->...ik", {{1, 2, 3}, {3, 2}}, 3, {Floats({1, 2, 3}, {1, 2, 3, 4, 5, 6}), b});
  EXPECT_EQ(out[0].shape, (Shape{1, 2, 2}));
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{4, 5, 10, 11}));
  // Three operands: (a b) c with c = [[1], [2]].
  out = Einsum("ij,jk,kl->il", {{2, 3}, {3, 2}, {2, 1}}, 2, {a, b, Floats({2, 1}, {1, 2})});
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{14, 32}));
  // Outer product, and a trace (a repeated label, implicit scalar output).
  out = Einsum("i,j->ij", {{2}, {3}}, 2, {Floats({2}, {1, 2}), Floats({3}, {1, 10, 100})});
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{1, 10, 100, 2, 20, 200}));
  out = Einsum("ii", {{3, 3}}, 0, {Floats({3, 3}, {1, 9, 9, 9, 2, 9, 9, 9, 3})});
  EXPECT_EQ(out[0].shape, (Shape{}));
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{6}));
  // A label summed inside one operand, the other shared: sum_j a[i][j] * sum_k b[k].
  out = Einsum("ij,k->i", {{2, 3}, {2}}, 1, {a, Floats({2}, {1, 1})});
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{12, 30}));
}

TEST(OnnxIndexing, EinsumErrors) {
  std::string error;
  Einsum("ij,jk->ik", {{2, 3}}, 2, {Floats({2, 3}, {1, 2, 3, 4, 5, 6})}, &error);
  EXPECT_NE(error.find("has 2 terms for 1 inputs"), std::string::npos) << error;
  Einsum("ijk->i", {{2, 3}}, 1, {Floats({2, 3}, {1, 2, 3, 4, 5, 6})}, &error);
  EXPECT_NE(error.find("does not match input"), std::string::npos) << error;
  Einsum("ij->iz", {{2, 3}}, 2, {Floats({2, 3}, {1, 2, 3, 4, 5, 6})}, &error);
  EXPECT_NE(error.find("names a label no input has"), std::string::npos) << error;
  Einsum("i1->i", {{2, 3}}, 1, {Floats({2, 3}, {1, 2, 3, 4, 5, 6})}, &error);
  EXPECT_NE(error.find("unexpected character '1'"), std::string::npos) << error;
}

TEST(OnnxIndexing, TriluAndReverseSequenceWithRunTimeDims) {
  Model m;
  m.Input("x", kF, {-1, -1});
  SetInt(m.Node("Trilu", {"x"}, {"y"}), "upper", 0);
  m.OutputOfRank("y", kF, 2);
  auto out = RunModel(m, {Floats({2, 3}, {1, 2, 3, 4, 5, 6})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{1, 0, 0, 4, 5, 0}));
  Model r;
  r.Input("x", kF, {-1, 2});
  r.Input("lens", kI, {2});
  onnx::NodeProto* n = r.Node("ReverseSequence", {"x", "lens"}, {"y"});
  SetInt(n, "time_axis", 0);
  SetInt(n, "batch_axis", 1);
  r.OutputOfRank("y", kF, 2);
  // Column 0 reverses its first 3 steps, column 1 its first 1 (no change).
  out = RunModel(r, {Floats({3, 2}, {1, 10, 2, 20, 3, 30}), Longs({2}, {3, 1})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{3, 10, 2, 20, 1, 30}));
  std::string error;
  RunModel(r, {Floats({3, 2}, {1, 10, 2, 20, 3, 30}), Longs({2}, {4, 1})}, &error);
  EXPECT_NE(error.find("gather_elements"), std::string::npos) << error;
}

TEST(OnnxIndexing, RunTimeAxesSizesAndShapes) {
  // Slice with every parameter a graph input, axes negative.
  Model s;
  s.Input("x", kF, {2, 4});
  for (const char* name : {"starts", "ends", "axes", "steps"}) s.Input(name, kI, {1});
  s.Node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
  s.OutputOfRank("y", kF, 2);
  auto out = RunModel(s, {Floats({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7}), Longs({1}, {-1}),
                          Longs({1}, {INT64_MIN}), Longs({1}, {-1}), Longs({1}, {-2})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape, (Shape{2, 2}));
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{3, 1, 7, 5}));
  // Unsqueeze then Squeeze with run-time axes.
  Model u;
  u.Input("x", kF, {2, 3});
  u.Input("add", kI, {2});
  u.Input("remove", kI, {1});
  u.Node("Unsqueeze", {"x", "add"}, {"u"});
  u.Node("Squeeze", {"u", "remove"}, {"y"});
  u.OutputOfRank("u", kF, 4);
  u.OutputOfRank("y", kF, 3);
  out = RunModel(u, {Floats({2, 3}, {1, 2, 3, 4, 5, 6}), Longs({2}, {-1, 1}), Longs({1}, {1})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].shape, (Shape{2, 1, 3, 1}));
  EXPECT_EQ(out[1].shape, (Shape{2, 3, 1}));
  // ConstantOfShape and Split with run-time shapes and sizes.
  Model c;
  c.Input("shape", kI, {2});
  c.Input("sizes", kI, {2});
  c.Node("ConstantOfShape", {"shape"}, {"z"});
  c.Node("Split", {"z", "sizes"}, {"a", "b"});
  c.OutputOfRank("a", kF, 2);
  c.OutputOfRank("b", kF, 2);
  out = RunModel(c, {Longs({2}, {5, 2}), Longs({2}, {1, 4})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].shape, (Shape{1, 2}));
  EXPECT_EQ(out[1].shape, (Shape{4, 2}));
  std::string error;
  RunModel(c, {Longs({2}, {5, 2}), Longs({2}, {1, 3})}, &error);
  EXPECT_NE(error.find("do not add up"), std::string::npos) << error;
  RunModel(c, {Longs({2}, {-5, 2}), Longs({2}, {1, 3})}, &error);
  EXPECT_NE(error.find("negative dim"), std::string::npos) << error;
}

// arange(seq) and table[:seq] for seq = x.shape[1], as attention layers
// exported with a dynamic sequence compute positions and slice causal-mask
// buffers: the outputs keep dims that follow from the input's (compiled
// code needs them), and give the values the run-time sizes ask for.
TEST(OnnxIndexing, RangeAndSliceToARunTimeLengthKeepTheirDims) {
  Model m;
  m.Input("x", kF, {-1, -1});
  m.Input("table", kF, {4, 2});
  m.Node("Shape", {"x"}, {"shape"});
  SetInts(m.Node("Constant", {}, {"one"}), "value_ints", {1});
  SetInts(m.Node("Constant", {}, {"zeros"}), "value_ints", {0});
  m.Node("Gather", {"shape", "one"}, {"seq1"});   // [seq]
  m.Node("Squeeze", {"seq1", "zeros"}, {"seq"});  // scalar
  onnx::NodeProto* start = m.Node("Constant", {}, {"start"});
  SetInt(start, "value_int", 0);
  onnx::NodeProto* step = m.Node("Constant", {}, {"step"});
  SetInt(step, "value_int", 1);
  m.Node("Range", {"start", "seq", "step"}, {"positions"});
  m.Node("Slice", {"table", "zeros", "seq1", "zeros"}, {"rows"});
  m.OutputOfRank("positions", kI, 1);
  m.OutputOfRank("rows", kF, 2);
  absl::StatusOr<ImportResult> imported = ImportOnnxBytes(m.model.SerializeAsString(), ".");
  ASSERT_TRUE(imported.ok()) << imported.status();
  const ir::Graph& g = imported->signature.graph;
  ASSERT_EQ(g.results().size(), 2u);
  EXPECT_EQ(g.type(g.results()[0]).ToString(), "int64[?N1]");
  EXPECT_EQ(g.type(g.results()[1]).ToString(), "f32[min(4,?N1),2]");
  const std::vector<float> table = {1, 2, 3, 4, 5, 6, 7, 8};
  auto out = RunModel(m, {Floats({2, 3}, std::vector<float>(6)), Floats({4, 2}, table)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Values<int64_t>(out[0]), (I64{0, 1, 2}));
  EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  out = RunModel(m, {Floats({1, 6}, std::vector<float>(6)), Floats({4, 2}, table)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].shape, (Shape{6}));
  EXPECT_EQ(Values<float>(out[1]), table);  // clamped to the table's 4 rows
}

// Shape(x) -> ConstantOfShape: the constant's shape is data the model
// computes, but from x's shape alone, so the runtime's plan settles it (and
// everything after it) when it is made for x's shape: no value of the plan is
// left to be inferred and allocated on each run (runtime/planner.cc).
TEST(OnnxIndexing, ShapeArithmeticIsSettledWhenThePlanIsMade) {
  Model m;
  m.Input("x", kF, {-1, -1});
  m.Node("Shape", {"x"}, {"shape"});
  m.Node("ConstantOfShape", {"shape"}, {"zeros"});
  m.Node("Add", {"x", "zeros"}, {"y"});
  m.OutputOfRank("y", kF, 2);
  absl::StatusOr<ImportResult> imported = ImportOnnxBytes(m.model.SerializeAsString(), ".");
  ASSERT_TRUE(imported.ok()) << imported.status();
  absl::StatusOr<std::string> bytes = exporter::SerializeBundle({imported->signature}, {});
  ASSERT_TRUE(bytes.ok());
  auto owned = std::make_shared<std::string>(*bytes);
  auto bundle = runtime::Bundle::FromMemory(owned->data(), owned->size(), owned);
  ASSERT_TRUE(bundle.ok()) << bundle.status().ToString();
  const runtime::Module& module = *(*bundle)->module();
  const Shape shapes[] = {Shape{2, 3}};
  Result<runtime::Plan> plan = runtime::MakePlan(module, (*bundle)->program_of(0), shapes);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  for (size_t v = 0; v < plan->dynamic.size(); ++v) EXPECT_EQ(plan->dynamic[v], 0) << "value " << v;
  const std::vector<float> x = {1, -2, 3, -4, 5, -6};
  auto out = RunModel(m, {Floats({2, 3}, x)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values<float>(out[0]), x);
}

TEST(OnnxIndexing, OneHotWrapsAndDropsIndices) {
  Model m(11);
  m.Input("i", kI, {4});
  m.Input("depth", kF, {});
  m.Input("values", kF, {2});
  SetInt(m.Node("OneHot", {"i", "depth", "values"}, {"y"}), "axis", 0);
  m.OutputOfRank("y", kF, 2);
  // -1 is the last class; 3 and -4 are outside [-3, 3): all off.
  auto out = RunModel(m, {Longs({4}, {0, -1, 3, -4}), Floats({}, {3}), Floats({2}, {0, 5})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape, (Shape{3, 4}));
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{5, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0}));
}

TEST(OnnxIndexing, BadIndicesFailWhenTheModelRuns) {
  Model m(13);
  m.Input("x", kF, {2, 2});
  m.Input("i", kI, {1, 2});
  SetInt(m.Node("GatherElements", {"x", "i"}, {"y"}), "axis", 1);
  m.OutputOfRank("y", kF, 2);
  std::string error;
  RunModel(m, {Floats({2, 2}, {1, 2, 3, 4}), Longs({1, 2}, {0, 5})}, &error);
  EXPECT_NE(error.find("gather_elements: an index is outside the valid range"), std::string::npos)
      << error;
  Model t(11);
  t.Input("x", kF, {3});
  t.Input("k", kI, {1});
  t.Node("TopK", {"x", "k"}, {"v", "i"});
  t.OutputOfRank("v", kF, 1);
  t.OutputOfRank("i", kI, 1);
  RunModel(t, {Floats({3}, {1, 2, 3}), Longs({1}, {4})}, &error);
  EXPECT_NE(error.find("top_k: k = 4 must be in [0, 3]"), std::string::npos) << error;
}

// A bidirectional LSTM with initial states in layout 1 ([batch, seq, ...],
// states [batch, dirs, H]) gives layout 0's results, transposed.
TEST(OnnxRecurrent, BatchFirstLayoutWithInitialStates) {
  constexpr int64_t kS = 4, kB = 3, kI = 5, kH = 6, kD = 2;
  auto values = [](Shape shape, int seed) {
    std::vector<float> v(static_cast<size_t>(shape[0] * shape[1] * shape[2]));
    for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.7f * static_cast<float>(i) + seed);
    return Floats(shape, v);
  };
  auto lstm = [&](int layout) {
    Model m;
    m.Input("X", kF, layout ? I64{kB, kS, kI} : I64{kS, kB, kI});
    m.Input("W", kF, {kD, 4 * kH, kI});
    m.Input("R", kF, {kD, 4 * kH, kH});
    m.Input("B", kF, {kD, 8 * kH});
    m.Input("h0", kF, layout ? I64{kB, kD, kH} : I64{kD, kB, kH});
    m.Input("c0", kF, layout ? I64{kB, kD, kH} : I64{kD, kB, kH});
    onnx::NodeProto* n = m.Node("LSTM", {"X", "W", "R", "B", "", "h0", "c0"}, {"Y", "Yh", "Yc"});
    SetInt(n, "hidden_size", kH);
    SetInt(n, "layout", layout);
    SetString(n, "direction", "bidirectional");
    m.OutputOfRank("Y", kF, 4);
    m.OutputOfRank("Yh", kF, 3);
    m.OutputOfRank("Yc", kF, 3);
    return m;
  };
  // Layout 0's inputs, and the same values transposed for layout 1.
  ConstTensor x = values({kS, kB, kI}, 1), h0 = values({kD, kB, kH}, 2),
              c0 = values({kD, kB, kH}, 3);
  ConstTensor w = values({kD, 4 * kH, kI}, 4), r = values({kD, 4 * kH, kH}, 5);
  std::vector<float> bias(static_cast<size_t>(kD * 8 * kH));
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = 0.01f * static_cast<float>(i % 17);
  ConstTensor b = Floats({kD, 8 * kH}, bias);
  auto swap01 = [](const ConstTensor& t) {
    Shape s{t.shape[1], t.shape[0], t.shape[2]};
    std::vector<float> v(static_cast<size_t>(t.num_elements()));
    for (int64_t i = 0; i < t.shape[0]; ++i)
      for (int64_t j = 0; j < t.shape[1]; ++j)
        for (int64_t k = 0; k < t.shape[2]; ++k)
          v[static_cast<size_t>((j * t.shape[0] + i) * t.shape[2] + k)] =
              t.as<float>()[(i * t.shape[1] + j) * t.shape[2] + k];
    return Floats(s, v);
  };
  std::vector<ConstTensor> want = RunModel(lstm(0), {x, w, r, b, h0, c0});
  std::vector<ConstTensor> got = RunModel(lstm(1), {swap01(x), w, r, b, swap01(h0), swap01(c0)});
  ASSERT_EQ(want.size(), 3u);
  ASSERT_EQ(got.size(), 3u);
  // Y: [S, D, B, H] against [B, S, D, H].
  ASSERT_EQ(got[0].shape, (Shape{kB, kS, kD, kH}));
  for (int64_t t = 0; t < kS; ++t)
    for (int64_t d = 0; d < kD; ++d)
      for (int64_t n = 0; n < kB; ++n)
        for (int64_t h = 0; h < kH; ++h)
          EXPECT_EQ(got[0].as<float>()[((n * kS + t) * kD + d) * kH + h],
                    want[0].as<float>()[((t * kD + d) * kB + n) * kH + h]);
  for (int k = 1; k < 3; ++k) {  // Y_h, Y_c: [D, B, H] against [B, D, H]
    ConstTensor back = swap01(got[k]);
    ASSERT_EQ(back.shape, want[k].shape);
    EXPECT_EQ(Values<float>(back), Values<float>(want[k])) << (k == 1 ? "Y_h" : "Y_c");
  }
}

// Steps are unrolled: a sequence of unknown length is refused, by name.
TEST(OnnxRecurrent, DynamicSequenceIsRefused) {
  Model m;
  m.Input("X", kF, {-1, 2, 3});
  m.Input("W", kF, {1, 4, 3});
  m.Input("R", kF, {1, 4, 4});
  SetInt(m.Node("RNN", {"X", "W", "R"}, {"Y"}), "hidden_size", 4);
  m.OutputOfRank("Y", kF, 4);
  std::string error;
  RunModel(m, {}, &error);
  EXPECT_NE(error.find("a RNN over a dynamic sequence length"), std::string::npos) << error;
  EXPECT_NE(error.find("export it with a fixed sequence length"), std::string::npos) << error;
}

// A sequence longer than 64 steps: the unrolled steps' split and concat have
// an operand per step (the planner once refused more than 64). Checked
// against h_t = tanh(W x_t + R h_{t-1} + Wb + Rb) computed here in double.
TEST(OnnxRecurrent, HundredsOfStepsRun) {
  constexpr int64_t kS = 150, kI = 2, kH = 3;
  Model m;
  m.Input("X", kF, {kS, 1, kI});
  m.Input("W", kF, {1, kH, kI});
  m.Input("R", kF, {1, kH, kH});
  m.Input("B", kF, {1, 2 * kH});
  SetInt(m.Node("RNN", {"X", "W", "R", "B"}, {"Y"}), "hidden_size", kH);
  m.OutputOfRank("Y", kF, 4);
  std::vector<float> x(kS * kI), w(kH * kI), r(kH * kH), b(2 * kH);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.3f * static_cast<float>(i));
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.5f * std::cos(1.1f * static_cast<float>(i));
  for (size_t i = 0; i < r.size(); ++i) r[i] = 0.4f * std::sin(0.9f * static_cast<float>(i) + 1);
  for (size_t i = 0; i < b.size(); ++i) b[i] = 0.05f * static_cast<float>(i) - 0.1f;
  auto out = RunModel(m, {Floats({kS, 1, kI}, x), Floats({1, kH, kI}, w), Floats({1, kH, kH}, r),
                          Floats({1, 2 * kH}, b)});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].shape, (Shape{kS, 1, 1, kH}));
  std::vector<double> h(kH, 0.0), next(kH);
  for (int64_t t = 0; t < kS; ++t) {
    for (int64_t j = 0; j < kH; ++j) {
      double s = b[j] + b[kH + j];
      for (int64_t k = 0; k < kI; ++k) s += w[j * kI + k] * x[t * kI + k];
      for (int64_t k = 0; k < kH; ++k) s += r[j * kH + k] * h[k];
      next[j] = std::tanh(s);
    }
    h = next;
    for (int64_t j = 0; j < kH; ++j) {
      EXPECT_NEAR(out[0].as<float>()[t * kH + j], h[j], 1e-5) << "step " << t << ", unit " << j;
    }
  }
}

}  // namespace
}  // namespace tfn::onnx_import
