// tfn-run's inputs and outputs: --input NAME=PATH.npy flags checked against
// a signature (with errors that list what the signature expects), the
// deterministic random inputs of --random-inputs, output file names, and
// latency statistics. Runtime-only (no tracer), like tfn-run itself.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "runtime/runtime.h"

namespace tfn::tools {

// "x: f32[?,784], y: int64[]": what a signature takes, for messages.
std::string DescribeInputs(const runtime::SignatureInfo& sig);

// Builds the signature's inputs, in its order, from "NAME=PATH" flags (read
// with ReadNpy) and, for inputs without a flag when `random_batch` >= 0,
// deterministic random values with every dynamic dim set to random_batch.
// Unknown, repeated or missing names, and tensors whose dtype or shape do not
// fit the spec (or disagree on a shared dynamic dim), are errors that say
// what the signature expects.
Result<std::vector<runtime::Tensor>> CollectInputs(const runtime::SignatureInfo& sig,
                                                   const std::vector<std::string>& flags,
                                                   int64_t random_batch);

// For runs over several steps (tfn-run --steps): as CollectInputs, and an
// input may also be a stack of batches, an array with one more leading dim
// whose entries each fit the input's spec (x.npy of [100, 32, 784] for x:
// f32[?,784]). Returns one input set per batch (stacked inputs must stack
// the same count; the others repeat), or one set when nothing is stacked.
Result<std::vector<std::vector<runtime::Tensor>>> CollectInputSets(
    const runtime::SignatureInfo& sig, const std::vector<std::string>& flags, int64_t random_batch,
    bool allow_stacks);

// Random values for one input: floats uniform in [-1, 1), integers in
// [0, 10), bools; the same for the same (dtype, shape, seed) everywhere.
runtime::Tensor RandomTensor(DType dtype, const Shape& shape, uint64_t seed);

// An output name as a file name: characters other than letters, digits, '_',
// '-' and '.' become '_' ("a/b" -> "a_b.npy").
std::string OutputFileName(const std::string& output_name);
// The file names of a signature's outputs, made unique: a name that another
// output already took gets its index appended ("a_b_1.npy").
std::vector<std::string> OutputFileNames(const std::vector<runtime::TensorInfo>& outputs);

struct LatencyStats {
  double min_us = 0, median_us = 0, p90_us = 0, mean_us = 0, max_us = 0;
};
// Nearest-rank percentiles of per-run latencies in microseconds (not empty).
LatencyStats ComputeStats(std::vector<double> latencies_us);

}  // namespace tfn::tools
