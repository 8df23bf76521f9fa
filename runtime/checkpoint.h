// Checkpoint files: the variables of a session, written and read back.
//
// Format (little-endian, version 1): "TFNCKPT1", uint32 variable count, then
// per variable: uint32 name length, the name, int32 dtype, uint32 rank,
// int64 dims, uint64 byte count, the bytes; then the XXH3-64 of everything
// before it. Written atomically (core/atomic_file.h): a crash or a full
// disk leaves the old file. Every offset and size is checked on read, and
// a checkpoint must name exactly the session's variables with their dtypes
// and shapes, so one of another model is refused before anything changes.
//
// Session::SaveCheckpoint / RestoreCheckpoint (runtime.h) are the API; this
// header is the format, shared with tools and tests.
#pragma once

#include <string>
#include <vector>

#include "core/attrs.h"
#include "core/status.h"

namespace tfn::runtime {

struct NamedTensor {
  std::string name;
  ConstTensor value;
};

// The checkpoint's bytes.
std::string SerializeCheckpoint(const std::vector<NamedTensor>& variables);
// Parses a checkpoint (the tensors point into `bytes`, which must outlive
// them); an error names what is wrong (truncated, corrupt, bad sizes).
Result<std::vector<NamedTensor>> ParseCheckpoint(const void* bytes, uint64_t size);

}  // namespace tfn::runtime
