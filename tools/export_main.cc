// tfn-export: traces a registered model (built in, or from a user's shared
// library loaded with --library) on the signatures' input specs and writes
// the bundle atomically with tfn::save.
//
//   tfn-export mlp -o mlp.tfn --signature serving_default:x=f32[?,784] --compress zstd:5
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

int Main(int argc, char** argv) {
  ArgParser args(
      kTool, "MODEL -o FILE [options]",
      "Traces a registered model on its signatures' input specs and writes a .tfn "
      "bundle\n(signatures, optimized graphs, weights). Models are the built-in ones "
      "and those\nregistered with TFN_REGISTER_MODEL by libraries given with --library.");
  std::string model, output, compress;
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
  args.Examples({"tfn-export --list", "tfn-export mlp -o mlp.tfn",
                 "tfn-export mlp -o mlp8.tfn --signature serving_default:x=f32[8,784]",
                 "tfn-export cnn -o cnn.tfn --compress zstd:9",
                 "tfn-export user_regressor --library ./libuser_model.so -o regressor.tfn"});
  ExitOnError(args, args.Parse(argc, argv));

  for (const std::string& lib : libraries) LoadLibrary(lib);
  if (list) {
    for (const std::string& name : ModelNames()) {
      std::printf("%-16s %s\n", name.c_str(), FindModel(name)->description.c_str());
    }
    return 0;
  }
  if (model.empty()) Fail(kTool, "missing MODEL (see tfn-export --list)", 2);
  if (output.empty()) Fail(kTool, "missing -o FILE: where to write the bundle", 2);
  const RegisteredModel* registered = FindModel(model);
  if (!registered) {
    std::string known;
    for (const std::string& n : ModelNames()) known += (known.empty() ? "" : ", ") + n;
    Fail(kTool, "unknown model '" + model + "'; known models: " + known +
                    " (a user's model needs --library LIB.so)");
  }
  SaveOptions options;
  options.metadata.emplace_back("model", model);
  if (!compress.empty()) {
    absl::StatusOr<exporter::ExportOptions::Compression> c =
        exporter::ParseCompression(compress, &options.zstd_level);
    if (!c.ok()) Fail(kTool, "--compress: " + std::string(c.status().message()), 2);
    options.compress = *c == exporter::ExportOptions::Compression::kZstd;
  }
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
