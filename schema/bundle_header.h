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

// The content hash `header`'s format version defines over the `bundle`
// bytes it describes (bundle_format.h): the FlatBuffer from version 2 on,
// every byte after the header in version 1. The one place that says what
// the hash covers: the writer, the verifier and the loader all call it.
// `header` must have passed CheckHeader (its sizes are then in range).
uint64_t ContentHash(const void* bundle, const TfnBundleHeader& header);

// The header of today's format version for the `file_size` bytes at
// `bundle`, whose FlatBuffer (at offset 64) and segments are in place:
// magic, version, sizes, the content hash and the header checksum.
TfnBundleHeader MakeHeader(const void* bundle, uint64_t flatbuffer_size, uint64_t segments_offset,
                           uint64_t file_size);

// Gives the header of the `size` bytes at `bundle` the content hash of
// their current bytes (as its format version defines it) and a matching
// header checksum, keeping every other field, as a writer that changed the
// FlatBuffer in place would; false if the header's sizes do not fit
// `size`. Tests and fuzzers use it so that mutated graphs reach the checks
// behind the hash: a hostile writer can always make a matching hash, so
// those checks are the defence against it.
bool ResealHeader(void* bundle, uint64_t size);

inline uint64_t AlignUp64(uint64_t n) {
  return (n + TFN_BUNDLE_ALIGNMENT - 1) / TFN_BUNDLE_ALIGNMENT * TFN_BUNDLE_ALIGNMENT;
}

}  // namespace tfn::schema
