// ImportOnnx: parse, check, bind the graph's inputs and initializers, convert
// the nodes, bind the outputs, optimize.
#include "importers/onnx/onnx_importer.h"

#include <fstream>
#include <set>
#include <sstream>

#include "importers/onnx/context.h"
#include "importers/onnx/tensor_proto.h"
#include "onnx/checker.h"
#include "onnx/version_converter/convert.h"
#include "optimizer/optimize.h"

namespace tfn::onnx_import {
namespace {

absl::StatusOr<ir::TensorType> InputType(const onnx::ValueInfoProto& v, int* fresh) {
  if (!v.type().has_tensor_type()) {
    return absl::UnimplementedError("input '" + v.name() + "' is not a tensor (sequences, maps and optionals are not supported)");
  }
  const onnx::TypeProto::Tensor& t = v.type().tensor_type();
  absl::StatusOr<DType> dtype = DTypeFromOnnx(t.elem_type());
  if (!dtype.ok()) return absl::Status(dtype.status().code(), "input '" + v.name() + "': " + std::string(dtype.status().message()));
  ir::TensorType type{*dtype, SymShape()};
  if (!t.has_shape()) return absl::UnimplementedError("input '" + v.name() + "' has no known rank");
  if (t.shape().dim_size() > kMaxRank) return absl::UnimplementedError("input '" + v.name() + "' has rank above 8");
  for (const onnx::TensorShapeProto::Dimension& d : t.shape().dim()) {
    if (d.has_dim_value() && d.dim_value() >= 0) {
      type.shape.push_back(SymDim(d.dim_value()));
    } else if (d.has_dim_param() && !d.dim_param().empty()) {
      // Inputs that share a dim_param share the symbol: equal at run time.
      std::string name;
      for (char c : d.dim_param()) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      type.shape.push_back(SymDim::Symbol(name));
    } else {
      type.shape.push_back(SymDim::Symbol("u" + std::to_string((*fresh)++)));
    }
  }
  return type;
}

// ONNX's version converter dereferences the producer of every graph output,
// and ONNX 1.12's checker does not check that there is one (fuzz_onnx: a
// SEGV in onnx::graphProtoToGraph).
absl::Status CheckOutputsAreProduced(const onnx::GraphProto& g) {
  std::set<std::string> known;
  for (const onnx::ValueInfoProto& v : g.input()) known.insert(v.name());
  for (const onnx::TensorProto& t : g.initializer()) known.insert(t.name());
  for (const onnx::NodeProto& n : g.node()) known.insert(n.output().begin(), n.output().end());
  for (const onnx::ValueInfoProto& v : g.output()) {
    if (!known.count(v.name())) {
      return absl::InvalidArgumentError("graph output '" + v.name() +
                                        "' is not produced by any node, input or initializer");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ImportResult> ImportOnnxBytes(std::string_view bytes, const std::string& base_dir,
                                             const ImportOptions& options) {
  onnx::ModelProto model;
  if (bytes.size() > static_cast<size_t>(INT32_MAX) ||
      !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError("not a valid ONNX model: the protobuf does not parse (truncated or corrupt file?)");
  }
  int opset = -1;
  for (const onnx::OperatorSetIdProto& o : model.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = static_cast<int>(o.version());
  }
  if (opset < 0) return absl::InvalidArgumentError("the model imports no version of the default ONNX opset");
  if (opset > kMaxOpset) {
    return absl::UnimplementedError("the model uses ONNX opset " + std::to_string(opset) +
                                    "; tfn imports opsets " + std::to_string(kMinOpset) + " to " +
                                    std::to_string(kMaxOpset) + " (re-export it with opset_version=17)");
  }
  // Before ONNX's checker, whose message for this case is less helpful.
  for (const onnx::TensorProto& t : model.graph().initializer()) {
    absl::Status s = CheckExternalData(t, base_dir);
    if (!s.ok()) return s;
  }
  // The checker runs before the version converter too: the converter trusts
  // its input (fuzz_onnx: a corrupt opset-6 model crashed it in
  // onnx::graphProtoToGraph).
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(std::string("the model fails ONNX's checker: ") + e.what());
  }
  if (opset < kMinOpset) {
    // Older models are upgraded with ONNX's own version converter.
    absl::Status produced = CheckOutputsAreProduced(model.graph());
    if (!produced.ok()) return produced;
    try {
      model = onnx::version_conversion::ConvertVersion(model, kMinOpset);
      onnx::checker::check_model(model);
    } catch (const std::exception& e) {
      return absl::UnimplementedError("the model uses ONNX opset " + std::to_string(opset) +
                                      " and ONNX's version converter cannot upgrade it to opset " +
                                      std::to_string(kMinOpset) + ": " + e.what());
    }
    opset = kMinOpset;
  }
  const onnx::GraphProto& g = model.graph();
  std::string unsupported = UnsupportedOps(g, opset);
  if (!unsupported.empty()) {
    return absl::UnimplementedError("the model uses ops tfn does not support: " + unsupported);
  }
  ImportResult result;
  result.opset = opset;
  result.producer = model.producer_name() + " " + model.producer_version();
  result.signature.name = options.signature_name;
  ir::Graph& graph = result.signature.graph;
  Context ctx(&graph, opset, base_dir);
  std::set<std::string> initializers;
  for (const onnx::TensorProto& t : g.initializer()) {
    absl::StatusOr<ConstTensor> c = TensorFromProto(t, base_dir);
    if (!c.ok()) return c.status();
    ctx.Bind(t.name(), graph.AddConstant(*c));
    initializers.insert(t.name());
  }
  int fresh = 0;
  for (const onnx::ValueInfoProto& in : g.input()) {
    if (initializers.count(in.name())) continue;  // an initializer with a default value: a weight
    absl::StatusOr<ir::TensorType> type = InputType(in, &fresh);
    if (!type.ok()) return type.status();
    std::string name;
    for (char c : in.name()) name += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
    ctx.Bind(in.name(), graph.AddParameter(*type, name));
  }
  absl::Status s = ConvertNodes(ctx, g.node());
  if (!s.ok()) return s;
  std::vector<ir::ValueRef> results;
  std::vector<std::string> names;
  for (const onnx::ValueInfoProto& out : g.output()) {
    absl::StatusOr<ir::ValueRef> v = ctx.Lookup(out.name());
    if (!v.ok()) return absl::InvalidArgumentError("graph output '" + out.name() + "' is never computed");
    results.push_back(*v);
    names.push_back(out.name());
  }
  graph.SetResults(results, names);
  if (options.optimize) {
    optimizer::OptimizeOptions oo;
    oo.kernel_lowering = options.kernel_lowering;
    absl::Status st = optimizer::OptimizeGraph(graph, oo);
    if (!st.ok()) return st;
  }
  return result;
}

absl::StatusOr<ImportResult> ImportOnnxFile(const std::string& path, const ImportOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError("cannot open '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string dir = path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/'));
  absl::StatusOr<ImportResult> r = ImportOnnxBytes(ss.str(), dir, options);
  if (!r.ok()) return absl::Status(r.status().code(), "'" + path + "': " + std::string(r.status().message()));
  return r;
}

}  // namespace tfn::onnx_import
