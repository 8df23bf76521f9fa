// Reading and writing the fixed bundle header (bundle_format.h) and the
// checksums used throughout the file. Depends on nothing but xxHash (header
// only), so both the exporter and the runtime use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "schema/bundle_format.h"

namespace tfn::schema {

// XXH3-64 of a byte range: segment checksums and the content hash.
uint64_t Hash64(const void* data, size_t size);

enum class HeaderProblem {
  kOk,
  kTooSmall,      // fewer bytes than a header, or than the header says
  kBadMagic,      // not a tfn bundle
  kBadChecksum,   // the header's own checksum does not match
  kIncompatible,  // a format version this reader does not accept
  kBadLayout,     // offsets or sizes out of range or misaligned
};

struct HeaderCheck {
  HeaderProblem problem = HeaderProblem::kOk;
  std::string message;  // what was expected, what was found, what to do
  bool ok() const { return problem == HeaderProblem::kOk; }
};

// Validates the header of `size` untrusted bytes (overflow-safe) and copies it out.
HeaderCheck CheckHeader(const void* bytes, uint64_t size, TfnBundleHeader* out);

// Fills magic, version, sizes and the header checksum.
TfnBundleHeader MakeHeader(uint64_t flatbuffer_size, uint64_t segments_offset, uint64_t file_size,
                           uint64_t content_hash);

inline uint64_t AlignUp64(uint64_t n) {
  return (n + TFN_BUNDLE_ALIGNMENT - 1) / TFN_BUNDLE_ALIGNMENT * TFN_BUNDLE_ALIGNMENT;
}

}  // namespace tfn::schema
