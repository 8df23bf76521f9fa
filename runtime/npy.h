// Reading and writing NumPy .npy files (format versions 1, 2 and 3,
// little-endian, C order; dtypes bool, int32, int64, float32, float64), for
// tfn-run and tests. Untrusted files get clear errors, never crashes.
#pragma once

#include <cstdint>
#include <string>

#include "core/attrs.h"
#include "core/status.h"

namespace tfn::runtime {

// Parses .npy bytes; the tensor gets its own aligned copy of the data.
Result<ConstTensor> ParseNpy(const void* data, uint64_t size);
Result<ConstTensor> ReadNpy(const std::string& path);
// The .npy bytes of a tensor (format version 1.0, header padded to 64).
std::string SerializeNpy(const ConstTensor& tensor);
// Writes atomically.
Status WriteNpy(const std::string& path, const ConstTensor& tensor);

}  // namespace tfn::runtime
