// Bad ONNX input gives one clear error, never a crash or a bundle that fails
// later: truncated and corrupted files, an opset above 17, an external-data
// model whose data file is missing, unsupported ops (each listed with its
// node name); and tfn-export --onnx reports them as one error line.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

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
