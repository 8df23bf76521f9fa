// tfn-aot: compiles signatures of a bundle into NAME.o + NAME.h with LLVM.
//
//   tfn-aot mlp.tfn --signature serving_default --name mlp -o out/
//   tfn-aot mlp.tfn --spec x=f32[1,784] --target aarch64-linux-gnu --cpu generic --name mlp -o out/
//
// Dynamic dims stay run-time arguments unless --spec fixes them; weights are
// embedded in the object as read-only data, or with --weights external read
// in place from the mapped bundle at run time (NAME_bind_weights).
#include <sys/stat.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "aot/aot.h"
#include "core/atomic_file.h"
#include "core/tensor_spec.h"
#include "exporter/bundle_reader.h"
#include "ir/functionalize_variables.h"
#include "ir/inline.h"
#include "optimizer/optimize.h"
#include "tools/args.h"

namespace tfn::tools {
namespace {

constexpr char kTool[] = "tfn-aot";

// Applies --spec NAME=TYPE to a signature: the input's type becomes the
// spec's (dtype and rank must agree; static dims must not contradict), and the
// graph is re-inferred and re-optimized with the now static dims.
ir::Graph Specialize(const exporter::SignatureToExport& sig,
                     const std::map<std::string, TensorSpec>& specs) {
  const ir::Graph& g = sig.graph;
  std::vector<ir::TensorType> types;
  bool changed = false;
  for (size_t i = 0; i < g.params().size(); ++i) {
    ir::TensorType t = g.type(g.param(static_cast<int>(i)));
    auto it = specs.find(g.param_names()[i]);
    if (it != specs.end()) {
      const TensorSpec& s = it->second;
      bool fits = s.dtype == t.dtype && s.shape.rank() == t.shape.rank();
      for (int d = 0; fits && d < t.shape.rank(); ++d) {
        fits =
            !t.shape[d].is_static() || s.shape[d] == kDynamic || s.shape[d] == t.shape[d].value();
      }
      if (!fits) {
        Fail(kTool, "--spec " + it->first + "=" + s.ToString() + " contradicts signature '" +
                        sig.name + "', whose input '" + it->first + "' is " + t.ToString());
      }
      for (int d = 0; d < t.shape.rank(); ++d) {
        if (s.shape[d] != kDynamic) t.shape[d] = SymDim(s.shape[d]);
      }
      changed = true;
    }
    types.push_back(t);
  }
  if (!changed) return g;
  absl::StatusOr<ir::Graph> retyped = ir::RetypeGraph(g, types, g);
  if (!retyped.ok())
    Fail(kTool, "specializing '" + sig.name + "': " + std::string(retyped.status().message()));
  // With kernel lowering (the default): fused ops and prepacked weights for tfn's kernels.
  absl::Status st = optimizer::OptimizeGraph(*retyped);
  if (!st.ok()) Fail(kTool, "optimizing '" + sig.name + "': " + std::string(st.message()));
  return *retyped;
}

// Weights smaller than this stay embedded with --weights external: scalars
// and short vectors cost the object little, and embedded the code generator
// folds them into the instructions of fused loops (a load from the mapped
// bundle would not be a constant to LLVM).
constexpr int64_t kMinExternalBytes = 1024;

// The weights the chosen graphs read (variables and constants, subgraphs
// included) that are stored in the bundle, with their file offsets. The
// object reads them in place, so a zstd-compressed one is refused: the object
// stays libc-only and cannot decompress.
void CollectWeights(const ir::Graph& g, const exporter::ImportedBundle& bundle,
                    const std::string& bundle_path, aot::ExternalWeights* out) {
  for (const ir::Node& n : g.nodes()) {
    for (const ir::Graph& sub : n.subgraphs) CollectWeights(sub, bundle, bundle_path, out);
    const ConstTensor* t = nullptr;
    std::string what;
    if (n.op == OpId::kConstant) {
      t = n.attrs.GetTensor("value");
      what = "a constant";
    } else if (n.op == OpId::kVarRead) {
      for (const exporter::VariableToExport& v : bundle.variables) {
        if (v.name == n.attrs.GetString("name")) t = &v.value;
      }
      what = "variable '" + n.attrs.GetString("name") + "'";
    }
    if (!t || !t->data || t->byte_size() < kMinExternalBytes) continue;
    auto it = bundle.weight_locations.find(t->data);
    if (it == bundle.weight_locations.end()) continue;  // made by optimization: embedded
    if (it->second.compressed) {
      Fail(kTool, "--weights external reads weights in place from the bundle, but " + what +
                      " of '" + bundle_path +
                      "' is zstd-compressed: export the bundle without --compress "
                      "(the object stays libc-only and cannot decompress), or embed the weights");
    }
    out->offsets[t->data] = it->second.file_offset;
  }
}

aot::ExternalWeights ExternalWeightsOf(const exporter::ImportedBundle& bundle,
                                       const std::vector<aot::SignatureToCompile>& chosen,
                                       const std::string& bundle_path) {
  aot::ExternalWeights w;
  w.file_size = bundle.file_size;
  w.content_hash = bundle.content_hash;
  for (const aot::SignatureToCompile& s : chosen) CollectWeights(s.graph, bundle, bundle_path, &w);
  return w;
}

void Write(const std::string& path, const std::string& bytes) {
  Status s = WriteFileAtomically(path, bytes);
  if (!s.ok()) Fail(kTool, s.message());
}

int Main(int argc, char** argv) {
  ArgParser args(
      kTool, "BUNDLE --name NAME -o DIR [options]",
      "Compiles signatures of a tfn bundle into a self-contained object file NAME.o (only libc\n"
      "and libm undefined) and a C/C++ header NAME.h, with LLVM.");
  std::string bundle_path, name = "model", out_dir = ".", target, cpu = "native", features,
                           emit = "obj", weights = "embedded";
  std::vector<std::string> signatures, spec_texts;
  bool reference = false, fast_math = false;
  args.Positional("BUNDLE", "the .tfn bundle", &bundle_path);
  args.String("--name", "NAME",
              "C identifier for the files and every exported symbol (default: model)", &name);
  args.String("--output-dir|-o", "DIR", "where NAME.o and NAME.h go (default: .)", &out_dir);
  args.List("--signature", "SIG", "a signature to compile (repeatable; default: all)", &signatures);
  args.List("--spec", "INPUT=TYPE", "fix an input's dynamic dims, e.g. x=f32[1,784] (repeatable)",
            &spec_texts);
  args.String("--target", "TRIPLE", "target triple (default: the host), e.g. aarch64-linux-gnu",
              &target);
  args.String("--cpu", "CPU", "native (default), generic, x86-64-v2, x86-64-v3, x86-64-v4, ...",
              &cpu);
  args.String("--features", "LIST", "extra target features, e.g. +avx2,-avx512f", &features);
  args.String("--emit", "KIND", "obj (default), asm or llvm", &emit);
  args.String("--weights", "MODE",
              "embedded (default: read-only data in the object) or external (read from the mapped "
              "bundle at run time: NAME_bind_weights; needs an uncompressed bundle)",
              &weights);
  args.Flag("--reference-kernels", "link the reference kernels instead of the optimized ones",
            &reference);
  args.Flag("--fast-math",
            "fused loops may contract ops into FMAs, multiply by a constant divisor's reciprocal "
            "and use faster tanh and sigmoid (8 and 5 ulp instead of 2.5); NaN and inf kept",
            &fast_math);
  args.Examples(
      {"tfn-aot mlp.tfn --name mlp -o build/",
       "tfn-aot mlp.tfn --name mlp1 --spec x=f32[1,784] -o build/",
       "tfn-aot big.tfn --name big --weights external -o build/",
       "tfn-aot mlp.tfn --name mlp --target aarch64-linux-gnu --cpu generic -o build/arm64/"});
  ExitOnError(args, args.Parse(argc, argv));

  aot::Emit kind = emit == "obj"   ? aot::Emit::kObject
                   : emit == "asm" ? aot::Emit::kAssembly
                                   : aot::Emit::kLlvmIr;
  if (emit != "obj" && emit != "asm" && emit != "llvm")
    Fail(kTool, "--emit must be obj, asm or llvm, got '" + emit + "'");
  if (weights != "embedded" && weights != "external") {
    Fail(kTool, "--weights must be embedded or external, got '" + weights + "'");
  }
  if (aot::CIdentifier(name) != name)
    Fail(kTool,
         "--name '" + name + "' is not a C identifier (try '" + aot::CIdentifier(name) + "')");
  std::map<std::string, TensorSpec> specs;
  for (const std::string& t : spec_texts) {
    size_t eq = t.find('=');
    if (eq == std::string::npos || eq == 0)
      Fail(kTool, "--spec '" + t + "' is not INPUT=TYPE (e.g. x=f32[1,784])");
    Result<TensorSpec> spec = ParseTensorSpecText(t.substr(eq + 1));
    if (!spec.ok()) Fail(kTool, spec.status().message());
    specs[t.substr(0, eq)] = *spec;
  }
  absl::StatusOr<exporter::ImportedBundle> bundle = exporter::ReadBundleFile(bundle_path);
  if (!bundle.ok()) Fail(kTool, std::string(bundle.status().message()));

  std::vector<aot::SignatureToCompile> chosen;
  for (const exporter::SignatureToExport& s : bundle->signatures) {
    bool wanted = signatures.empty();
    for (const std::string& w : signatures) wanted |= w == s.name;
    if (wanted) chosen.push_back(aot::SignatureToCompile{s.name, Specialize(s, specs)});
  }
  // A signature that assigns variables (a training step) has no state of
  // its own once compiled: its variables become inputs and their new values
  // outputs, both named var_NAME, so the app owns the state and passes it
  // in and out (a bundle's "save" signature, compiled, gives its start).
  for (aot::SignatureToCompile& s : chosen) {
    bool assigns = false;
    for (const ir::Node& n : s.graph.nodes()) {
      assigns |= n.op == OpId::kVarAssign || n.op == OpId::kVarAssignAdd;
    }
    if (!assigns) continue;
    absl::StatusOr<ir::FunctionalizedGraph> pure = ir::FunctionalizeVariables(s.graph);
    if (!pure.ok()) {
      Fail(kTool,
           "signature '" + s.name + "' assigns variables: " + std::string(pure.status().message()));
    }
    std::printf(
        "signature '%s' assigns variables: compiled with %zu var_* inputs and %zu var_* "
        "outputs (the state is the caller's)\n",
        s.name.c_str(), pure->variables.size(), pure->assigned.size());
    s.graph = std::move(pure->graph);
  }
  for (const std::string& w : signatures) {
    bool found = false;
    for (const exporter::SignatureToExport& s : bundle->signatures) found |= s.name == w;
    if (!found) {
      std::string known;
      for (const exporter::SignatureToExport& s : bundle->signatures)
        known += (known.empty() ? "" : ", ") + s.name;
      Fail(kTool, "the bundle has no signature '" + w + "'; it has: " + known);
    }
  }
  for (const auto& [input, spec] : specs) {
    bool used = false;
    for (const aot::SignatureToCompile& s : chosen) {
      for (const std::string& p : s.graph.param_names()) used |= p == input;
    }
    if (!used) Fail(kTool, "--spec names input '" + input + "', which no chosen signature has");
  }
  aot::CompileOptions options;
  options.name = name;
  options.target = aot::TargetSpec{target, cpu, features};
  options.reference_kernels = reference;
  options.fast_math = fast_math;
  for (const exporter::VariableToExport& v : bundle->variables) options.variables[v.name] = v.value;
  if (weights == "external")
    options.external_weights = ExternalWeightsOf(*bundle, chosen, bundle_path);

  absl::StatusOr<std::string> code = aot::Compile(chosen, options, kind);
  if (!code.ok()) Fail(kTool, std::string(code.status().message()));
  absl::StatusOr<std::string> header = aot::GenerateHeader(chosen, options);
  if (!header.ok()) Fail(kTool, std::string(header.status().message()));
  mkdir(out_dir.c_str(), 0755);
  std::string ext = kind == aot::Emit::kObject ? ".o" : kind == aot::Emit::kAssembly ? ".s" : ".ll";
  Write(out_dir + "/" + name + ext, *code);
  Write(out_dir + "/" + name + ".h", *header);
  absl::StatusOr<std::string> described = aot::DescribeTarget(options.target);
  std::printf("wrote %s/%s%s and %s/%s.h (%zu signatures, %s)\n", out_dir.c_str(), name.c_str(),
              ext.c_str(), out_dir.c_str(), name.c_str(), chosen.size(),
              described.ok() ? described->c_str() : "");
  return 0;
}

}  // namespace
}  // namespace tfn::tools

int main(int argc, char** argv) { return tfn::tools::Main(argc, argv); }
