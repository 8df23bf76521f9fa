// What the importer and the pipeline make of NCHW convolution networks: a
// golden graph for Conv -> BatchNormalization -> Relu -> Conv (two conv2d ops
// and a relu, the batchnorm folded into the first conv, no transposes between
// the convs), a residual block and an upsample between convs whose transposes
// also cancel, a resize by constant scales whose output shape stays symbolic,
// and the optimized graphs computing what the unoptimized imports compute.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "importers/onnx/onnx_importer.h"
#include "ir/text.h"
#include "onnx/onnx_pb.h"
#include "tfn/runtime.h"

namespace tfn::onnx_import {
namespace {

struct ModelBuilder {
  onnx::ModelProto model;
  onnx::GraphProto* g = model.mutable_graph();
  int64_t salt = 0;

  ModelBuilder() {
    model.set_ir_version(8);
    model.add_opset_import()->set_version(13);
    g->set_name("layout_test");
  }
  void Input(const std::string& name, std::vector<int64_t> dims) {
    onnx::ValueInfoProto* v = g->add_input();
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) {
      auto* dim = t->mutable_shape()->add_dim();
      if (d < 0) {
        dim->set_dim_param("N");
      } else {
        dim->set_dim_value(d);
      }
    }
  }
  void Output(const std::string& name) {
    onnx::ValueInfoProto* v = g->add_output();
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (int i = 0; i < 4; ++i) t->mutable_shape()->add_dim();  // NCHW, sizes unstated
  }
  // An initializer with values in [lo, hi).
  void Weight(const std::string& name, std::vector<int64_t> dims, float lo = -1, float hi = 1) {
    onnx::TensorProto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    int64_t n = 1;
    for (int64_t d : dims) {
      t->add_dims(d);
      n *= d;
    }
    // Spread deterministically over [lo, hi) (no std distribution: the golden
    // text prints these values and must not depend on the standard library).
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = (i * 7919 + (++salt) * 104729) % 1000;
      t->add_float_data(lo + (hi - lo) * static_cast<float>(k) / 1000.0f);
    }
  }
  void Values(const std::string& name, std::vector<float> values) {
    onnx::TensorProto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_dims(static_cast<int64_t>(values.size()));
    for (float v : values) t->add_float_data(v);
  }
  onnx::NodeProto* Node(const std::string& op, std::vector<std::string> in, std::string out) {
    onnx::NodeProto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(out);
    for (const std::string& i : in) n->add_input(i);
    n->add_output(out);
    return n;
  }
  void Conv(const std::string& x, const std::string& w, const std::string& b, std::string out) {
    onnx::NodeProto* n = Node("Conv", {x, w, b}, std::move(out));
    onnx::AttributeProto* pads = n->add_attribute();
    pads->set_name("pads");
    pads->set_type(onnx::AttributeProto::INTS);
    for (int i = 0; i < 4; ++i) pads->add_ints(1);
  }
  void BatchNorm(const std::string& x, const std::string& prefix, int64_t c, std::string out) {
    Weight(prefix + "_scale", {c}, 0.5f, 2);
    Weight(prefix + "_bias", {c});
    Weight(prefix + "_mean", {c});
    Weight(prefix + "_var", {c}, 0.5f, 2);
    Node("BatchNormalization",
         {x, prefix + "_scale", prefix + "_bias", prefix + "_mean", prefix + "_var"},
         std::move(out));
  }
  std::string Bytes() const { return model.SerializeAsString(); }
};

ImportResult Import(const std::string& bytes, bool optimize) {
  ImportOptions options;
  options.optimize = optimize;
  absl::StatusOr<ImportResult> r = ImportOnnxBytes(bytes, ".", options);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : ImportResult{};
}

int CountOps(const ir::Graph& g, OpId op) {
  int n = 0;
  for (const ir::Node& node : g.nodes()) n += node.op == op;
  return n;
}

// Runs the imported signature on `x` through a bundle and the runtime.
std::vector<float> Run(const ImportResult& imported, const ConstTensor& x) {
  absl::StatusOr<std::string> bytes = exporter::SerializeBundle({imported.signature}, {});
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  auto owned = std::make_shared<std::string>(*bytes);
  auto bundle = runtime::Bundle::FromMemory(owned->data(), owned->size(), owned);
  EXPECT_TRUE(bundle.ok());
  runtime::Session session(*bundle);
  auto out = session.Run("serving_default", {x});
  EXPECT_TRUE(out.ok()) << out.status().message();
  if (!out.ok()) return {};
  const ConstTensor& y = (*out)[0];
  return std::vector<float>(y.as<float>(), y.as<float>() + y.num_elements());
}

void ExpectSameResults(const std::string& bytes, const Shape& input_shape) {
  std::vector<float> x(static_cast<size_t>(NumElements(input_shape)));
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (float& v : x) v = dist(rng);
  ConstTensor input = ConstTensor::Copy(DType::kFloat32, input_shape, x.data());
  std::vector<float> fast = Run(Import(bytes, true), input);
  std::vector<float> plain = Run(Import(bytes, false), input);
  ASSERT_EQ(fast.size(), plain.size());
  ASSERT_FALSE(fast.empty());
  for (size_t i = 0; i < fast.size(); ++i) {
    EXPECT_NEAR(fast[i], plain[i], 1e-5 + 1e-5 * std::fabs(plain[i])) << "element " << i;
  }
}

TEST(OnnxLayout, ConvBatchNormReluConvIsTwoConvsAndARelu) {
  ModelBuilder m;
  m.Input("x", {-1, 3, 6, 6});
  m.Weight("w1", {4, 3, 3, 3});
  m.Weight("b1", {4});
  m.Weight("w2", {2, 4, 3, 3});
  m.Weight("b2", {2});
  m.Conv("x", "w1", "b1", "c1");
  m.BatchNorm("c1", "bn", 4, "n1");
  m.Node("Relu", {"n1"}, "r1");
  m.Conv("r1", "w2", "b2", "y");
  m.Output("y");
  ImportResult r = Import(m.Bytes(), true);
  const ir::Graph& g = r.signature.graph;
  // The golden text: transpose in, conv2d (batchnorm folded), relu, conv2d, transpose out.
  std::string dir = __FILE__;
  dir = dir.substr(0, dir.rfind('/'));
  std::ifstream golden(dir + "/testdata/conv_bn_relu_conv.txt");
  std::stringstream want;
  want << golden.rdbuf();
  std::string got = ir::PrintGraph(g);
  if (std::getenv("TFN_UPDATE_GOLDEN") && g.num_nodes() > 0) {
    std::ofstream(dir + "/testdata/conv_bn_relu_conv.txt") << got;
  } else {
    EXPECT_EQ(got, want.str());
  }
  EXPECT_EQ(CountOps(g, OpId::kConv2D), 2);
  EXPECT_EQ(CountOps(g, OpId::kRelu), 1);
  EXPECT_EQ(CountOps(g, OpId::kTranspose), 2);  // NCHW in and out only
  EXPECT_EQ(CountOps(g, OpId::kMul) + CountOps(g, OpId::kAdd), 0);
  ExpectSameResults(m.Bytes(), {2, 3, 6, 6});
}

TEST(OnnxLayout, ResidualBlockKeepsOnlyTheOuterTransposes) {
  // x -> conv -> bn -> relu -> conv -> bn -> add(x) -> relu -> conv -> y:
  // the residual add takes two transposed operands, both sink.
  ModelBuilder m;
  m.Input("x", {-1, 4, 5, 5});
  for (const char* w : {"w1", "w2", "w3"}) m.Weight(w, {4, 4, 3, 3});
  for (const char* b : {"b1", "b2", "b3"}) m.Weight(b, {4});
  m.Conv("x", "w1", "b1", "c1");
  m.BatchNorm("c1", "bn1", 4, "n1");
  m.Node("Relu", {"n1"}, "r1");
  m.Conv("r1", "w2", "b2", "c2");
  m.BatchNorm("c2", "bn2", 4, "n2");
  m.Node("Add", {"n2", "x"}, "s");
  m.Node("Relu", {"s"}, "r2");
  m.Conv("r2", "w3", "b3", "y");
  m.Output("y");
  ImportResult r = Import(m.Bytes(), true);
  const ir::Graph& g = r.signature.graph;
  EXPECT_EQ(CountOps(g, OpId::kConv2D), 3);
  EXPECT_EQ(CountOps(g, OpId::kTranspose), 2) << ir::PrintGraph(g);
  EXPECT_EQ(CountOps(g, OpId::kMul), 0) << ir::PrintGraph(g);
  ExpectSameResults(m.Bytes(), {1, 4, 5, 5});
}

TEST(OnnxLayout, ResizeByConstantScalesKeepsTheShapeSymbolic) {
  // A dynamic batch with integer scales: no shape computed at run time, the
  // output type is known when the graph is built.
  ModelBuilder m;
  m.Input("x", {-1, 2, 3, 3});
  m.Values("scales", {1, 1, 2, 2});
  m.Node("Resize", {"x", "", "scales"}, "y")->add_attribute()->CopyFrom([] {
    onnx::AttributeProto a;
    a.set_name("mode");
    a.set_type(onnx::AttributeProto::STRING);
    a.set_s("linear");
    return a;
  }());
  m.Output("y");
  ImportResult r = Import(m.Bytes(), true);
  const ir::Graph& g = r.signature.graph;
  ASSERT_EQ(g.results().size(), 1u);
  EXPECT_EQ(g.type(g.results()[0]).ToString(), "f32[?N,2,6,6]");
  EXPECT_EQ(CountOps(g, OpId::kShape), 0) << ir::PrintGraph(g);
  ExpectSameResults(m.Bytes(), {3, 2, 3, 3});
}

TEST(OnnxLayout, UpsampleBetweenConvsNeedsNoTransposes) {
  ModelBuilder m;
  m.Input("x", {-1, 2, 4, 4});
  m.Weight("w1", {3, 2, 3, 3});
  m.Weight("b1", {3});
  m.Weight("w2", {2, 3, 3, 3});
  m.Weight("b2", {2});
  m.Values("scales", {1, 1, 2, 2});
  m.Conv("x", "w1", "b1", "c1");
  m.Node("Resize", {"c1", "", "scales"}, "up");
  m.Conv("up", "w2", "b2", "y");
  m.Output("y");
  ImportResult r = Import(m.Bytes(), true);
  const ir::Graph& g = r.signature.graph;
  EXPECT_EQ(CountOps(g, OpId::kResize), 1);
  EXPECT_EQ(CountOps(g, OpId::kTranspose), 2) << ir::PrintGraph(g);
  ExpectSameResults(m.Bytes(), {2, 2, 4, 4});
}

}  // namespace
}  // namespace tfn::onnx_import
