// Shared by the fuzz targets that end in a loaded bundle (fuzz_bundle,
// fuzz_onnx): run every signature once through the C API on inputs of the
// signature's dtypes and shapes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/tfn_runtime.h"

namespace tfn::fuzz {

// Runs each signature of `bundle` once in a fresh single-threaded session
// (threads would make runs nondeterministic and cost a pool per input).
// Dynamic dims get small sizes and inputs small values, both drawn from a
// generator seeded with `seed`, so a saved input replays exactly. Signatures
// whose inputs would exceed a small element budget are skipped. Errors from
// the runtime are fine (hostile bundles should get them); crashes, leaks and
// sanitizer reports are what the fuzzer looks for.
void RunEverySignature(const TfnRtBundle* bundle, uint64_t seed);

// FNV-1a of the fuzz input: the seed of RunEverySignature.
uint64_t HashBytes(const uint8_t* data, size_t size);

}  // namespace tfn::fuzz
