// Implementation of tfn::save: ConcreteFunctions -> exporter inputs.
#include "exporter/save.h"

#include <map>
#include <string>

#include "exporter/bundle_writer.h"
#include "ir/graph.h"

namespace tfn {
namespace {

// "f32[3] in signature 'serve' (function 'mlp')", for a name clash.
std::string Describe(const Variable& v, const std::string& signature,
                     const std::map<std::string, ConcreteFunction>& signatures) {
  return TypeToString(static_cast<int>(v.dtype()), v.shape()) + " in signature '" + signature +
         "' (function '" + signatures.at(signature).name() + "')";
}

void Collect(const std::map<std::string, ConcreteFunction>& signatures, const SaveOptions& options,
             std::vector<exporter::SignatureToExport>* sigs, std::vector<exporter::VariableToExport>* vars,
             exporter::ExportOptions* export_options) {
  // A bundle refers to variables by name, and names are kept as the user gave
  // them, so two different Variables of one name would alias: refuse them,
  // naming both. The same Variable in several signatures is stored once.
  struct Use {
    Variable variable;
    std::string signature;
  };
  std::map<std::string, Use> seen;
  for (const auto& [name, fn] : signatures) {
    if (!fn.defined()) throw Error(StatusCode::kInvalidArgument, "save: signature '" + name + "' is undefined");
    sigs->push_back(exporter::SignatureToExport{name, fn.graph()});
    for (const Variable& v : fn.variables()) {
      auto [it, inserted] = seen.emplace(v.name(), Use{v, name});
      if (inserted) {
        vars->push_back(exporter::VariableToExport{v.name(), v.value().value()});
      } else if (it->second.variable.impl() != v.impl()) {
        throw Error(StatusCode::kInvalidArgument,
                    "save: two different variables are named '" + v.name() +
                        "': " + Describe(it->second.variable, it->second.signature, signatures) +
                        " and " + Describe(v, name, signatures) +
                        "; give them distinct names (tfn::Variable keeps names as given)");
      }
    }
  }
  export_options->compression =
      options.compress ? exporter::ExportOptions::Compression::kZstd : exporter::ExportOptions::Compression::kNone;
  export_options->zstd_level = options.zstd_level;
  export_options->min_compress_bytes = options.min_compress_bytes;
  export_options->metadata = options.metadata;
  if (options.compress) {
    export_options->metadata.emplace_back("compression", "zstd:" + std::to_string(options.zstd_level));
  }
}

[[noreturn]] void Throw(const absl::Status& s, const std::string& what) {
  StatusCode code = s.code() == absl::StatusCode::kInvalidArgument ? StatusCode::kInvalidArgument
                    : s.code() == absl::StatusCode::kUnavailable ? StatusCode::kIoError
                                                                  : StatusCode::kInternal;
  throw Error(code, what + ": " + std::string(s.message()));
}

}  // namespace

void save(const std::string& path, const std::map<std::string, ConcreteFunction>& signatures,
          const SaveOptions& options) {
  std::vector<exporter::SignatureToExport> sigs;
  std::vector<exporter::VariableToExport> vars;
  exporter::ExportOptions eo;
  Collect(signatures, options, &sigs, &vars, &eo);
  absl::Status s = exporter::WriteBundle(path, sigs, vars, eo);
  if (!s.ok()) Throw(s, "save");
}

std::string serialize(const std::map<std::string, ConcreteFunction>& signatures,
                      const SaveOptions& options) {
  std::vector<exporter::SignatureToExport> sigs;
  std::vector<exporter::VariableToExport> vars;
  exporter::ExportOptions eo;
  Collect(signatures, options, &sigs, &vars, &eo);
  absl::StatusOr<std::string> bytes = exporter::SerializeBundle(sigs, vars, eo);
  if (!bytes.ok()) Throw(bytes.status(), "serialize");
  return *bytes;
}

}  // namespace tfn
