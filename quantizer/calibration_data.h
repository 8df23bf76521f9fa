// The calibration data tfn-quantize observes: batches of a signature's
// inputs, read from a folder of .npy files and checked against the
// signature before anything runs.
//
//   DIR/*.npy               a signature with one input: each file is one batch
//   DIR/*/<input name>.npy  any signature: each subdirectory is one batch,
//                           with one file per input
//
// Files and subdirectories are taken in name order. A file whose dtype,
// rank or static dims do not fit its input, a missing input or an empty
// folder is an InvalidArgument error of one line that names the file and
// the tensor.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/attrs.h"
#include "ir/graph.h"

namespace tfn::quantizer {

// One value for each parameter of the signature's graph, in its order.
using CalibrationBatch = std::vector<ConstTensor>;

absl::StatusOr<std::vector<CalibrationBatch>> ReadCalibrationFolder(const std::string& dir,
                                                                    const ir::Graph& signature);

// Checks one batch against the signature (what the folder reader checks of
// every file); `source` names where it came from in the error.
absl::Status CheckCalibrationBatch(const CalibrationBatch& batch, const ir::Graph& signature,
                                   const std::string& source);

}  // namespace tfn::quantizer
