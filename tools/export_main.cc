// tfn-export: traces a registered model (built in, or from a user's shared
// library loaded with --library) on the signatures' input specs and writes
// the bundle atomically with tfn::save; or imports an ONNX model (--onnx).
//
//   tfn-export mlp -o mlp.tfn --signature serving_default:x=f32[?,784] --compress zstd:5
//   tfn-export --onnx resnet18.onnx -o resnet18.tfn
//
// The executable is linked with ENABLE_EXPORTS (-rdynamic): a user's library
// is not linked against tfn and takes tfn's symbols from this process.
#include <dlfcn.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "exporter/bundle_writer.h"
#include "exporter/model_registry.h"
#include "tfn/tfn.h"
#include "tools/args.h"
#ifdef TFN_HAVE_ONNX
#include "importers/onnx/onnx_importer.h"
#include "ir/passes/fuse_qdq.h"
#endif

namespace tfn::tools {
namespace {

constexpr char kTool[] = "tfn-export";

// "NAME:x=f32[?,784],y=i64[]" (input names optional: "NAME:f32[?,784]").
void ParseSignatureFlag(const std::string& text, ExportRequest* request) {
  size_t colon = text.find(':');
  if (colon == std::string::npos || colon == 0) {
    throw Error(StatusCode::kInvalidArgument,
                "--signature '" + text + "' is not NAME:SPECS (e.g. serving_default:x=f32[?,784])");
  }
  std::string name = text.substr(0, colon);
  if (request->signature_specs.count(name)) {
    throw Error(StatusCode::kInvalidArgument, "--signature '" + name + "' is given twice");
  }
  std::vector<TensorSpec>& specs = request->signature_specs[name];
  for (const std::string& part : SplitTopLevel(text.substr(colon + 1), ',')) {
    size_t eq = part.find('=');
    TensorSpec spec = ParseTensorSpec(eq == std::string::npos ? part : part.substr(eq + 1));
    if (eq != std::string::npos) spec.name = part.substr(0, eq);
    if (eq != std::string::npos && spec.name.empty()) {
      throw Error(StatusCode::kInvalidArgument,
                  "--signature '" + text + "': an input name is empty");
    }
    specs.push_back(spec);
  }
}

void LoadLibrary(const std::string& path) {
  // A bare name would be searched in the system's library path; users mean a file.
  std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  // RTLD_GLOBAL: a library may depend on another one given before it.
  if (!dlopen(file.c_str(), RTLD_NOW | RTLD_GLOBAL)) {
    const char* why = dlerror();
    Fail(kTool, "cannot load the model library '" + path + "': " + (why ? why : "unknown error"));
  }
}

std::string Describe(const std::string& name, const ConcreteFunction& f) {
  std::string s = "  " + name + "(";
  const std::vector<std::string>& in = f.graph().param_names();
  for (size_t i = 0; i < f.input_specs().size(); ++i) {
    s += (i ? ", " : "") + (i < in.size() ? in[i] : "") + ": " + f.input_specs()[i].ToString();
  }
  s += ") -> ";
  const std::vector<std::string>& out = f.graph().result_names();
  for (size_t i = 0; i < f.output_specs().size(); ++i) {
    s += (i ? ", " : "") + (i < out.size() ? out[i] : "") + ": " + f.output_specs()[i].ToString();
  }
  return s;
}

std::string Describe(const exporter::SignatureToExport& s) {
  std::string out = "  " + s.name + "(";
  const ir::Graph& g = s.graph;
  for (size_t i = 0; i < g.params().size(); ++i) {
    out += (i ? ", " : "") + g.param_names()[i] + ": " + g.type(g.param(static_cast<int>(i))).ToString();
  }
  out += ") -> ";
  for (size_t i = 0; i < g.results().size(); ++i) {
    out += (i ? ", " : "") + g.result_names()[i] + ": " + g.type(g.results()[i]).ToString();
  }
  return out;
}

#ifdef TFN_HAVE_ONNX
// For a quantized (QDQ) model: how many ops run in int8, and which float
// ops stay between dequantize and quantize (ir/passes/fuse_qdq.h), as
// ONNX Runtime's QDQ transformer leaves them.
void DescribeQuantization(const ir::Graph& g) {
  int int8_ops = 0, int8_adds = 0;
  for (const ir::Node& n : g.nodes()) {
    int8_ops += n.op == OpId::kQLinearConv2D || n.op == OpId::kQLinearMatMul ||
                n.op == OpId::kConv2DInteger || n.op == OpId::kMatMulInteger;
    int8_adds += n.op == OpId::kQLinearAdd;
  }
  const std::vector<std::string> dequantized = ir::UnfusedQdqOps(g);
  if (int8_ops == 0 && int8_adds == 0 && dequantized.empty()) return;
  std::printf("  int8: %d convolution/matmul ops, %d adds", int8_ops, int8_adds);
  if (dequantized.empty()) {
    std::printf("; no op runs dequantized\n");
    return;
  }
  std::map<std::string, int> counts;
  for (const std::string& op : dequantized) ++counts[op];
  std::printf("; %zu ops run dequantized in float32 (no int8 kernel for them):", dequantized.size());
  const char* sep = " ";
  for (const auto& [op, count] : counts) {
    std::printf("%s%s x%d", sep, op.c_str(), count);
    sep = ", ";
  }
  std::printf("\n");
}
#endif

// --onnx: ONNX graph -> signature serving_default, initializers -> weights.
int ExportOnnx(const std::string& onnx, const std::string& output, const exporter::ExportOptions& options) {
#ifdef TFN_HAVE_ONNX
  onnx_import::ImportOptions import_options;
  import_options.kernel_lowering = true;  // bundles run on tfn's kernels: fused ops, prepacked weights
  absl::StatusOr<onnx_import::ImportResult> imported = onnx_import::ImportOnnxFile(onnx, import_options);
  if (!imported.ok()) Fail(kTool, "importing '" + onnx + "': " + std::string(imported.status().message()));
  exporter::ExportOptions o = options;
  std::string base = onnx.substr(onnx.find_last_of('/') + 1);
  o.metadata.emplace_back("model", base);
  o.metadata.emplace_back("source", "onnx opset " + std::to_string(imported->opset) +
                                        (imported->producer.empty() ? "" : " from " + imported->producer));
  absl::Status st = exporter::WriteBundle(output, {imported->signature}, {}, o);
  if (!st.ok()) Fail(kTool, "writing '" + output + "': " + std::string(st.message()));
  std::printf("wrote %s: ONNX model %s (opset %d%s), 1 signature\n%s\n", output.c_str(), base.c_str(),
              imported->opset, imported->producer.empty() ? "" : (", " + imported->producer).c_str(),
              Describe(imported->signature).c_str());
  DescribeQuantization(imported->signature.graph);
  return 0;
#else
  (void)output;
  (void)options;
  Fail(kTool, "--onnx " + onnx + ": this tfn-export was built without ONNX import (install libonnx-dev "
                                 "libprotobuf-dev with scripts/setup.sh and rebuild)");
#endif
}

int Main(int argc, char** argv) {
  ArgParser args(
      kTool, "MODEL -o FILE [options]",
      "Traces a registered model on its signatures' input specs and writes a .tfn "
      "bundle\n(signatures, optimized graphs, weights). Models are the built-in ones "
      "and those\nregistered with TFN_REGISTER_MODEL by libraries given with --library.");
  std::string model, output, compress, onnx;
  std::vector<std::string> signatures, libraries;
  bool list = false;
  args.Positional("MODEL", "the registered model's name (see --list)", &model, /*required=*/false);
  args.String("--output|-o", "FILE", "the bundle to write (atomically)", &output);
  args.List("--signature", "NAME:SPECS",
            "input specs of one signature, e.g. serving_default:x=f32[?,784] "
            "(dtypes f32 f64 int32 int64 bool; ? for a dynamic dim)",
            &signatures);
  args.String("--compress", "zstd[:LEVEL]", "zstd-compress the weight segments (or 'none')",
              &compress);
  args.List("--library", "LIB.so", "load a shared library that registers models", &libraries);
  args.Flag("--list", "list the known models with their descriptions", &list);
  args.String("--onnx", "FILE.onnx",
              "import an ONNX model (opsets 7-17) instead of tracing MODEL: signature "
              "serving_default takes the graph's inputs",
              &onnx);
  args.Examples({"tfn-export --list", "tfn-export mlp -o mlp.tfn",
                 "tfn-export mlp -o mlp8.tfn --signature serving_default:x=f32[8,784]",
                 "tfn-export cnn -o cnn.tfn --compress zstd:9",
                 "tfn-export user_regressor --library ./libuser_model.so -o regressor.tfn",
                 "tfn-export --onnx resnet18.onnx -o resnet18.tfn"});
  ExitOnError(args, args.Parse(argc, argv));

  for (const std::string& lib : libraries) LoadLibrary(lib);
  if (list) {
    for (const std::string& name : ModelNames()) {
      std::printf("%-16s %s\n", name.c_str(), FindModel(name)->description.c_str());
    }
    return 0;
  }
  if (output.empty()) Fail(kTool, "missing -o FILE: where to write the bundle", 2);
  exporter::ExportOptions export_options;
  if (!compress.empty()) {
    absl::StatusOr<exporter::ExportOptions::Compression> c =
        exporter::ParseCompression(compress, &export_options.zstd_level);
    if (!c.ok()) Fail(kTool, "--compress: " + std::string(c.status().message()), 2);
    export_options.compression = *c;
  }
  if (!onnx.empty()) {
    if (!model.empty()) Fail(kTool, "give either MODEL or --onnx FILE, not both", 2);
    if (!signatures.empty() || !libraries.empty()) {
      Fail(kTool, "--signature and --library are for traced models; an ONNX model's signature comes "
                  "from its graph (fix dynamic dims later with tfn-aot --spec)", 2);
    }
    return ExportOnnx(onnx, output, export_options);
  }
  if (model.empty()) Fail(kTool, "missing MODEL (see tfn-export --list) or --onnx FILE", 2);
  const RegisteredModel* registered = FindModel(model);
  if (!registered) {
    std::string known;
    for (const std::string& n : ModelNames()) known += (known.empty() ? "" : ", ") + n;
    Fail(kTool, "unknown model '" + model + "'; known models: " + known +
                    " (a user's model needs --library LIB.so)");
  }
  SaveOptions options;
  options.metadata.emplace_back("model", model);
  options.compress = export_options.compression == exporter::ExportOptions::Compression::kZstd;
  options.zstd_level = export_options.zstd_level;
  try {
    ExportRequest request;
    for (const std::string& s : signatures) ParseSignatureFlag(s, &request);
    std::map<std::string, ConcreteFunction> functions;
    try {
      functions = registered->factory(request);
    } catch (const std::exception& e) {
      Fail(kTool, "tracing model '" + model + "': " + e.what());
    }
    for (const auto& [name, specs] : request.signature_specs) {
      if (functions.count(name)) continue;
      std::string known;
      for (const auto& [n, f] : functions) known += (known.empty() ? "" : ", ") + n;
      Fail(kTool, "model '" + model + "' has no signature '" + name + "'; it has: " + known);
    }
    save(output, functions, options);
    std::printf("wrote %s: model %s, %zu signature%s\n", output.c_str(), model.c_str(),
                functions.size(), functions.size() == 1 ? "" : "s");
    for (const auto& [name, f] : functions) std::printf("%s\n", Describe(name, f).c_str());
  } catch (const std::exception& e) {
    Fail(kTool, e.what());
  }
  return 0;
}

}  // namespace
}  // namespace tfn::tools

int main(int argc, char** argv) { return tfn::tools::Main(argc, argv); }
