// Runs an IR graph on tfn's runtime, as a bundle would run: for calibration
// (the float graph with every observed value as an extra result) and for
// the quantization report (the quantized graph with the values it compares).
// The graph is serialized into an in-memory bundle of one signature and
// loaded once; Run may then be called for every batch.
//
// Ownership: GraphRunner owns the bundle bytes and the session. Not
// thread-safe (tfn-quantize calls it from one thread); the session itself
// runs each call on `num_threads` threads.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/attrs.h"
#include "ir/graph.h"

namespace tfn::runtime {
class Session;
}

namespace tfn::quantizer {

class GraphRunner {
 public:
  // The graph must read no variables (tfn-quantize freezes them first).
  static absl::StatusOr<std::unique_ptr<GraphRunner>> Create(const ir::Graph& graph,
                                                             int num_threads);
  ~GraphRunner();

  absl::StatusOr<std::vector<ConstTensor>> Run(const std::vector<ConstTensor>& inputs) const;

 private:
  GraphRunner() = default;
  std::shared_ptr<const std::string> bytes_;
  std::unique_ptr<runtime::Session> session_;
};

}  // namespace tfn::quantizer
