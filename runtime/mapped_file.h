// Read-only memory mapping of a file, shared by the tensors that point into it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/status.h"

namespace tfn::runtime {

struct MappedFile {
  const void* data = nullptr;
  uint64_t size = 0;
};

// Maps `path` read-only. The mapping lives until the last shared_ptr goes.
// Empty files map to a valid, zero-sized result.
Result<std::shared_ptr<const MappedFile>> MapFile(const std::string& path);

// Reads `path` into 64-byte aligned heap memory (when mapping is not wanted).
Result<std::shared_ptr<const MappedFile>> ReadFile(const std::string& path);

}  // namespace tfn::runtime
