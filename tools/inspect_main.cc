// tfn-inspect: what is in a bundle, like `saved_model_cli show --all`: format
// version and producer, each signature's inputs and outputs, the variables,
// weight bytes and an op histogram; or one signature's graph as text
// (--graph) or Graphviz dot (--dot); --verify loads it with the runtime's
// full checks, every checksum included.
//
// The bundle is read with the exporter's reader (verified structure, graphs
// rebuilt through the checked builder, weight checksums checked), so a bad
// file gives one error line naming what is wrong, never a crash.
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "exporter/bundle_reader.h"
#include "ir/text.h"
#include "runtime/runtime.h"
#include "tools/args.h"
#include "tools/inspect_graph.h"

namespace tfn::tools {
namespace {

constexpr char kTool[] = "tfn-inspect";

using exporter::ImportedBundle;

const exporter::SignatureToExport& FindSignature(const ImportedBundle& b, const std::string& name,
                                                 const char* flag) {
  std::string known;
  for (const exporter::SignatureToExport& s : b.signatures) {
    if (s.name == name) return s;
    known += (known.empty() ? "" : ", ") + s.name;
  }
  Fail(kTool, std::string(flag) + ": the bundle has no signature '" + name + "'; it has: " + known);
}

struct Stats {
  std::map<std::string, int64_t> ops;
  int64_t variable_bytes = 0, constant_bytes = 0;
};

Stats Measure(const ImportedBundle& b) {
  Stats st;
  std::set<const void*> seen;
  for (const exporter::VariableToExport& v : b.variables) {
    st.variable_bytes += v.value.byte_size();
    seen.insert(v.value.data);
  }
  for (const exporter::SignatureToExport& s : b.signatures) {
    CountOps(s.graph, &st.ops);
    st.constant_bytes += ConstantBytes(s.graph, &seen);
  }
  return st;
}

void PrintSummary(const std::string& path, const ImportedBundle& b, const Stats& st) {
  std::printf("bundle: %s (%llu bytes)\n", path.c_str(),
              static_cast<unsigned long long>(b.file_size));
  std::printf("format version: %u\n", b.format_version);
  std::printf("producer: %s %s\n", b.producer.c_str(), b.producer_version.c_str());
  if (!b.metadata.empty()) std::printf("metadata:\n");
  for (const auto& [k, v] : b.metadata) std::printf("  %s: %s\n", k.c_str(), v.c_str());
  for (const exporter::SignatureToExport& s : b.signatures) {
    const ir::Graph& g = s.graph;
    std::printf("\nsignature '%s':\n  inputs:\n", s.name.c_str());
    for (size_t i = 0; i < g.params().size(); ++i) {
      std::printf("    %s: %s\n", g.param_names()[i].c_str(),
                  StaticTypeString(g.type(g.param(static_cast<int>(i)))).c_str());
    }
    std::printf("  outputs:\n");
    for (size_t i = 0; i < g.results().size(); ++i) {
      std::printf("    %s: %s\n", g.result_names()[i].c_str(),
                  StaticTypeString(g.type(g.results()[i])).c_str());
    }
  }
  std::printf("\nvariables (%zu, %lld bytes):\n", b.variables.size(),
              static_cast<long long>(st.variable_bytes));
  for (const exporter::VariableToExport& v : b.variables) {
    std::printf("  %s: %s (%lld bytes)\n", v.name.c_str(),
                TypeToString(static_cast<int>(v.value.dtype), v.value.shape).c_str(),
                static_cast<long long>(v.value.byte_size()));
  }
  std::printf("\nweights: %lld bytes (variables %lld, constants %lld)\n",
              static_cast<long long>(st.variable_bytes + st.constant_bytes),
              static_cast<long long>(st.variable_bytes), static_cast<long long>(st.constant_bytes));
  int64_t total = 0;
  for (const auto& [op, n] : st.ops) total += n;
  std::printf("\nops (all signatures, subgraphs included; %lld nodes):\n",
              static_cast<long long>(total));
  std::multimap<int64_t, std::string, std::greater<int64_t>> by_count;
  for (const auto& [op, n] : st.ops) by_count.emplace(n, op);
  for (const auto& [n, op] : by_count) {
    std::printf("  %-20s %lld\n", op.c_str(), static_cast<long long>(n));
  }
}

std::string JsonType(const std::string& name, DType dtype, const std::vector<int64_t>& dims) {
  std::string s = "{\"name\": " + JsonString(name) +
                  ", \"dtype\": " + JsonString(DTypeName(dtype)) + ", \"shape\": [";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]}";
}

std::vector<int64_t> Dims(const ir::TensorType& t) {
  std::vector<int64_t> d;
  for (const SymDim& s : t.shape) d.push_back(s.StaticOrDynamic());
  return d;
}

// The summary as JSON (dynamic dims are -1), for scripts.
void PrintJson(const ImportedBundle& b, const Stats& st, bool verified) {
  std::string j = "{\n  \"format_version\": " + std::to_string(b.format_version) +
                  ",\n  \"producer\": " + JsonString(b.producer) +
                  ",\n  \"producer_version\": " + JsonString(b.producer_version) +
                  ",\n  \"file_size\": " + std::to_string(b.file_size) + ",\n  \"metadata\": {";
  for (size_t i = 0; i < b.metadata.size(); ++i) {
    j +=
        (i ? ", " : "") + JsonString(b.metadata[i].first) + ": " + JsonString(b.metadata[i].second);
  }
  j += "},\n  \"signatures\": [";
  for (size_t k = 0; k < b.signatures.size(); ++k) {
    const ir::Graph& g = b.signatures[k].graph;
    j += std::string(k ? "," : "") + "\n    {\"name\": " + JsonString(b.signatures[k].name) +
         ", \"inputs\": [";
    for (size_t i = 0; i < g.params().size(); ++i) {
      const ir::TensorType& t = g.type(g.param(static_cast<int>(i)));
      j += (i ? ", " : "") + JsonType(g.param_names()[i], t.dtype, Dims(t));
    }
    j += "], \"outputs\": [";
    for (size_t i = 0; i < g.results().size(); ++i) {
      const ir::TensorType& t = g.type(g.results()[i]);
      j += (i ? ", " : "") + JsonType(g.result_names()[i], t.dtype, Dims(t));
    }
    j += "]}";
  }
  j += "\n  ],\n  \"variables\": [";
  for (size_t i = 0; i < b.variables.size(); ++i) {
    const ConstTensor& v = b.variables[i].value;
    std::string t = JsonType(b.variables[i].name, v.dtype, v.shape.ToVector());
    t.pop_back();  // add "bytes" inside the object
    j += std::string(i ? "," : "") + "\n    " + t +
         ", \"bytes\": " + std::to_string(v.byte_size()) + "}";
  }
  j += "\n  ],\n  \"weight_bytes\": " + std::to_string(st.variable_bytes + st.constant_bytes) +
       ",\n  \"ops\": {";
  size_t i = 0;
  for (const auto& [op, n] : st.ops) {
    j += (i++ ? ", " : "") + JsonString(op) + ": " + std::to_string(n);
  }
  j += "}";
  if (verified) j += ",\n  \"verified\": true";
  std::printf("%s\n}\n", j.c_str());
}

int Main(int argc, char** argv) {
  ArgParser args(kTool, "FILE [options]",
                 "Shows what a .tfn bundle holds: format version, producer, signatures with their\n"
                 "inputs and outputs, variables, weight bytes and an op histogram.");
  std::string file, graph_sig, dot_sig;
  bool verify = false, json = false;
  args.Positional("FILE", "the bundle (.tfn)", &file);
  args.String("--graph", "SIG", "print the signature's graph in tfn's text form", &graph_sig);
  args.String("--dot", "SIG", "print the signature's graph as Graphviz dot", &dot_sig);
  args.Flag("--verify", "load with the runtime's full checks, every checksum included", &verify);
  args.Flag("--json", "print the summary as JSON", &json);
  args.Examples({"tfn-inspect mlp.tfn", "tfn-inspect mlp.tfn --verify",
                 "tfn-inspect mlp.tfn --graph serving_default",
                 "tfn-inspect mlp.tfn --dot serving_default | dot -Tsvg > mlp.svg",
                 "tfn-inspect mlp.tfn --json"});
  ExitOnError(args, args.Parse(argc, argv));
  int views = (graph_sig.empty() ? 0 : 1) + (dot_sig.empty() ? 0 : 1) + (json ? 1 : 0);
  if (views > 1) {
    Fail(kTool, "--graph, --dot and --json are alternatives; give one", 2);
  }

  if (verify) {
    runtime::LoadOptions options;
    options.verify_checksums = true;
    auto loaded = runtime::Bundle::Load(file, options);
    Status s = loaded.ok() ? (*loaded)->VerifyChecksums() : loaded.status();
    if (!s.ok()) Fail(kTool, "verification failed: " + s.ToString());
  }
  absl::StatusOr<ImportedBundle> bundle = exporter::ReadBundleFile(file);
  if (!bundle.ok()) Fail(kTool, std::string(bundle.status().message()));

  if (!graph_sig.empty()) {
    std::fputs(ir::PrintGraph(FindSignature(*bundle, graph_sig, "--graph").graph).c_str(), stdout);
    return 0;
  }
  if (!dot_sig.empty()) {
    std::fputs(GraphToDot(FindSignature(*bundle, dot_sig, "--dot").graph, dot_sig).c_str(), stdout);
    return 0;
  }
  Stats st = Measure(*bundle);
  if (json) {
    PrintJson(*bundle, st, verify);
    return 0;
  }
  PrintSummary(file, *bundle, st);
  if (verify) std::printf("\nverify: OK (structure, every weight checksum, content hash)\n");
  return 0;
}

}  // namespace
}  // namespace tfn::tools

int main(int argc, char** argv) { return tfn::tools::Main(argc, argv); }
