// Bad ONNX input gives one clear error, never a crash or a bundle that fails
// later: truncated and corrupted files, an opset above 17, an external-data
// model whose data file is missing, unsupported ops (each listed with its
// node name), initializers whose typed data does not fit their dtype or
// shape, QuantizeLinear/DequantizeLinear with a zero point of the wrong dtype
// or shape; and tfn-export --onnx reports them as one error line.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "importers/onnx/onnx_importer.h"
#include "onnx/onnx_pb.h"

namespace tfn::onnx_import {
namespace {

// y = x + w, x: f32[2], w an initializer {1, 2}.
onnx::ModelProto TinyModel(int opset, const std::string& op = "Add") {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("onnx_bad_input_test");
  onnx::OperatorSetIdProto* set = m.add_opset_import();
  set->set_domain("");
  set->set_version(opset);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("tiny");
  for (const char* name : {"x", "y"}) {
    onnx::ValueInfoProto* v = name[0] == 'x' ? g->add_input() : g->add_output();
    v->set_name(name);
    onnx::TypeProto::Tensor* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_value(2);
  }
  onnx::TensorProto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(2);
  w->add_float_data(1);
  w->add_float_data(2);
  onnx::NodeProto* n = g->add_node();
  n->set_name("node0");
  n->set_op_type(op);
  n->add_input("x");
  n->add_input("w");
  n->add_output("y");
  return m;
}

std::string Message(const absl::StatusOr<ImportResult>& r) {
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : std::string(r.status().message());
}

TEST(OnnxBadInput, TheTinyModelImports) {  // so that the failures below are about the damage
  std::string bytes = TinyModel(17).SerializeAsString();
  auto r = ImportOnnxBytes(bytes, ".");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->signature.graph.params().size(), 1u);
}

TEST(OnnxBadInput, TruncatedAndCorruptFiles) {
  std::string bytes = TinyModel(17).SerializeAsString();
  int refused = 0;
  for (size_t n = 1; n < bytes.size(); ++n) {
    auto r = ImportOnnxBytes(std::string_view(bytes.data(), n), ".");
    if (!r.ok()) {
      ++refused;
      EXPECT_FALSE(r.status().message().empty());
    }
  }
  // Protobuf has no length header: a prefix may parse as a smaller, valid
  // message; every one that does not must be refused cleanly (above).
  EXPECT_GT(refused, static_cast<int>(bytes.size()) / 2);
  EXPECT_FALSE(Message(ImportOnnxBytes(bytes.substr(0, bytes.size() / 2), ".")).empty());
  std::string junk(300, '\xff');
  EXPECT_NE(Message(ImportOnnxBytes(junk, ".")).find("not a valid ONNX model"), std::string::npos);
  for (size_t i = 0; i < bytes.size(); ++i) {  // every single-byte corruption: an error or a model, no crash
    std::string b = bytes;
    b[i] ^= 0x5a;
    auto r = ImportOnnxBytes(b, ".");
    if (!r.ok()) {
      EXPECT_FALSE(r.status().message().empty());
    }
  }
}

TEST(OnnxBadInput, OpsetAbove17) {
  std::string m = Message(ImportOnnxBytes(TinyModel(18).SerializeAsString(), "."));
  EXPECT_NE(m.find("opset 18; tfn imports opsets 7 to 17"), std::string::npos) << m;
}

TEST(OnnxBadInput, MissingExternalData) {
  onnx::ModelProto model = TinyModel(17);
  onnx::TensorProto* w = model.mutable_graph()->mutable_initializer(0);
  w->clear_float_data();
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  onnx::StringStringEntryProto* kv = w->add_external_data();
  kv->set_key("location");
  kv->set_value("weights.bin");
  std::string m = Message(ImportOnnxBytes(model.SerializeAsString(), ::testing::TempDir()));
  EXPECT_NE(m.find("external data file 'weights.bin'"), std::string::npos) << m;
  EXPECT_NE(m.find("'w'"), std::string::npos) << m;
}

TEST(OnnxBadInput, UnsupportedOpsAreListedWithTheirNodes) {
  std::string m = Message(ImportOnnxBytes(TinyModel(17, "GridSample").SerializeAsString(), "."));
  EXPECT_NE(m.find("GridSample"), std::string::npos) << m;
  EXPECT_NE(m.find("node0"), std::string::npos) << m;
}

// Initializers in int32_data (as ONNX stores INT8 ... UINT16, FLOAT16 and
// BFLOAT16) with a value count that is not the shape's, or a value outside
// the dtype.
TEST(OnnxBadInput, TypedDataThatDoesNotFitItsDType) {
  auto with_weight = [](int elem_type, std::vector<int32_t> values) {
    onnx::ModelProto model = TinyModel(17, "Identity");
    onnx::GraphProto* g = model.mutable_graph();
    g->mutable_node(0)->mutable_input()->RemoveLast();  // Identity(x)
    onnx::TensorProto* w = g->mutable_initializer(0);
    w->clear_float_data();
    w->set_data_type(elem_type);
    for (int32_t v : values) w->add_int32_data(v);
    return Message(ImportOnnxBytes(model.SerializeAsString(), "."));
  };
  std::string m = with_weight(onnx::TensorProto::INT8, {1, 2, 3});
  EXPECT_NE(m.find("tensor 'w' (INT8, shape [2]) holds 3 values, expected 2"), std::string::npos)
      << m;
  m = with_weight(onnx::TensorProto::INT8, {1, 300});
  EXPECT_NE(
      m.find("tensor 'w' (INT8, shape [2]) holds 300 at element 1, outside the range of its type"),
      std::string::npos)
      << m;
  m = with_weight(onnx::TensorProto::UINT8, {-1, 2});
  EXPECT_NE(m.find("holds -1 at element 0"), std::string::npos) << m;
  m = with_weight(onnx::TensorProto::FLOAT16, {0x3C00});
  EXPECT_NE(m.find("tensor 'w' (FLOAT16, shape [2]) holds 1 values, expected 2"), std::string::npos)
      << m;
}

// QuantizeLinear(x: f32[2, 3], scale, zero_point) or DequantizeLinear(x: x_type[2, 3], ...),
// with scale (float: `scales`, or every value 1) and zero_point (zero_type, zeros)
// initializers of the given shapes.
std::string QuantizeError(const std::string& op, int x_type, const std::vector<int64_t>& scale_dims,
                          int zero_type, const std::vector<int64_t>& zero_dims,
                          const std::vector<float>& scales = {}) {
  onnx::ModelProto m = TinyModel(13, op);
  onnx::GraphProto* g = m.mutable_graph();
  onnx::TypeProto::Tensor* x = g->mutable_input(0)->mutable_type()->mutable_tensor_type();
  x->set_elem_type(x_type);
  x->mutable_shape()->add_dim()->set_dim_value(3);
  g->clear_initializer();
  auto add = [&](const std::string& name, int type, const std::vector<int64_t>& dims) {
    onnx::TensorProto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    int64_t n = 1;
    for (int64_t d : dims) {
      t->add_dims(d);
      n *= d;
    }
    for (int64_t i = 0; i < n; ++i) {
      if (type == onnx::TensorProto::FLOAT) {
        t->add_float_data(scales.empty() ? 1 : scales[static_cast<size_t>(i)]);
      } else {
        t->add_int32_data(0);
      }
    }
  };
  add("scale", onnx::TensorProto::FLOAT, scale_dims);
  add("zero", zero_type, zero_dims);
  onnx::NodeProto* n = g->mutable_node(0);
  n->clear_input();
  for (const char* name : {"x", "scale", "zero"}) n->add_input(name);
  return Message(ImportOnnxBytes(m.SerializeAsString(), "."));
}

TEST(OnnxBadInput, QuantizeParamsOfTheWrongDTypeOrShape) {
  constexpr int kFloat = onnx::TensorProto::FLOAT, kInt8 = onnx::TensorProto::INT8,
                kUInt8 = onnx::TensorProto::UINT8;
  // QuantizeLinear's zero point gives y's dtype: a float one is refused.
  std::string m = QuantizeError("QuantizeLinear", kFloat, {}, kFloat, {});
  EXPECT_NE(
      m.find(
          "node 'node0' (QuantizeLinear): the zero point gives y's dtype and must be int8, uint8"),
      std::string::npos)
      << m;
  // DequantizeLinear's zero point must have x's dtype.
  m = QuantizeError("DequantizeLinear", kInt8, {}, kUInt8, {});
  EXPECT_NE(m.find("node 'node0' (DequantizeLinear): the zero point uint8[] must have x's dtype (x "
                   "is int8[2,3])"),
            std::string::npos)
      << m;
  // Per-axis scale and zero point of different lengths.
  m = QuantizeError("QuantizeLinear", kFloat, {3}, kUInt8, {1});
  EXPECT_NE(m.find("the scale f32[3] and the zero point uint8[1] must have the same shape"),
            std::string::npos)
      << m;
  // A per-axis scale whose length is not x's dim on the axis (1: 3 long):
  // tfn's shape rule says so, named by the node.
  m = QuantizeError("DequantizeLinear", kUInt8, {2}, kUInt8, {2});
  EXPECT_EQ(m.rfind("node 'node0' (DequantizeLinear): ", 0), 0u) << m;
  for (const char* part : {"scale f32[2]", "axis 1", "x uint8[2,3]"}) {
    EXPECT_NE(m.find(part), std::string::npos) << m;
  }
}

// A scale of 0, NaN or below 0 would quantize silently to saturated or
// undefined values: refused, naming the tensor.
TEST(OnnxBadInput, QuantizeScalesThatAreNotPositive) {
  constexpr int kFloat = onnx::TensorProto::FLOAT, kUInt8 = onnx::TensorProto::UINT8;
  std::string m = QuantizeError("QuantizeLinear", kFloat, {}, kUInt8, {}, {0.0f});
  EXPECT_EQ(m,
            "node 'node0' (QuantizeLinear): y_scale 'scale' holds 0: a quantization scale must "
            "be a positive, finite number");
  m = QuantizeError("DequantizeLinear", kUInt8, {}, kUInt8, {}, {NAN});
  EXPECT_NE(m.find("(DequantizeLinear): x_scale 'scale' holds nan"), std::string::npos) << m;
  m = QuantizeError("DequantizeLinear", kUInt8, {3}, kUInt8, {3}, {0.5f, -1.0f, 0.5f});
  EXPECT_NE(m.find("x_scale 'scale' holds -1 at index 1"), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
}

TEST(OnnxBadInput, TheToolSaysWhatIsWrong) {
  std::string dir = ::testing::TempDir();
  std::string bytes = TinyModel(17).SerializeAsString();
  std::ofstream(dir + "/truncated.onnx", std::ios::binary) << bytes.substr(0, bytes.size() - 9);
  std::string out = dir + "/tool_out.tfn", log = dir + "/tool.log";
  std::remove(out.c_str());
  std::string cmd = std::string(TFN_EXPORT_BIN) + " --onnx " + dir + "/truncated.onnx -o " + out + " 2>" + log;
  int rc = std::system(cmd.c_str());
  EXPECT_NE(rc, 0);
  std::ifstream in(log);
  std::string line, text;
  int lines = 0;
  while (std::getline(in, line)) {
    text += line;
    ++lines;
  }
  EXPECT_EQ(lines, 1) << text;
  EXPECT_EQ(text.rfind("tfn-export: error: importing '", 0), 0u) << text;
  EXPECT_FALSE(std::ifstream(out).good()) << "no bundle may be written";
}

}  // namespace
}  // namespace tfn::onnx_import
