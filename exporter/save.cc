// Implementation of tfn::save: ConcreteFunctions -> exporter inputs.
#include "exporter/save.h"

#include <set>

#include "exporter/bundle_writer.h"
#include "ir/graph.h"

namespace tfn {
namespace {

void Collect(const std::map<std::string, ConcreteFunction>& signatures, const SaveOptions& options,
             std::vector<exporter::SignatureToExport>* sigs, std::vector<exporter::VariableToExport>* vars,
             exporter::ExportOptions* export_options) {
  std::set<std::string> seen;
  for (const auto& [name, fn] : signatures) {
    if (!fn.defined()) throw Error(StatusCode::kInvalidArgument, "save: signature '" + name + "' is undefined");
    sigs->push_back(exporter::SignatureToExport{name, fn.graph()});
    for (const Variable& v : fn.variables()) {
      if (seen.insert(v.name()).second) vars->push_back(exporter::VariableToExport{v.name(), v.value().value()});
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
