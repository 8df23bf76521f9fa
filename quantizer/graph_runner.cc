// Implementation of running an IR graph through an in-memory bundle.
#include "quantizer/graph_runner.h"

#include "exporter/bundle_writer.h"
#include "runtime/runtime.h"

namespace tfn::quantizer {
namespace {
constexpr const char* kSignature = "run";
}  // namespace

absl::StatusOr<std::unique_ptr<GraphRunner>> GraphRunner::Create(const ir::Graph& graph,
                                                                 int num_threads) {
  absl::StatusOr<std::string> bytes =
      exporter::SerializeBundle({exporter::SignatureToExport{kSignature, graph}}, {});
  if (!bytes.ok()) return bytes.status();
  std::unique_ptr<GraphRunner> runner(new GraphRunner());
  runner->bytes_ = std::make_shared<const std::string>(*std::move(bytes));
  Result<std::shared_ptr<const runtime::Bundle>> bundle =
      runtime::Bundle::FromMemory(runner->bytes_->data(), runner->bytes_->size(), runner->bytes_);
  if (!bundle.ok()) return ir::ToAbsl(bundle.status());
  runtime::SessionOptions options;
  options.num_threads = num_threads;
  runner->session_ = std::make_unique<runtime::Session>(*bundle, options);
  return runner;
}

GraphRunner::~GraphRunner() = default;

absl::StatusOr<std::vector<ConstTensor>> GraphRunner::Run(
    const std::vector<ConstTensor>& inputs) const {
  Result<std::vector<ConstTensor>> out = session_->Run(kSignature, inputs);
  if (!out.ok()) return ir::ToAbsl(out.status());
  return *std::move(out);
}

}  // namespace tfn::quantizer
