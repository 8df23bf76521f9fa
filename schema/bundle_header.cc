// Implementation of the bundle header helpers.
#include "schema/bundle_header.h"

#include <cstring>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace tfn::schema {

uint64_t Hash64(const void* data, size_t size) { return XXH3_64bits(data, size); }

namespace {
uint32_t HeaderChecksum(const TfnBundleHeader& h) {
  return static_cast<uint32_t>(Hash64(&h, offsetof(TfnBundleHeader, flags)));
}
std::string Version(uint32_t v) { return std::to_string(v); }
}  // namespace

uint64_t ContentHash(const void* bundle, const TfnBundleHeader& header) {
  const char* bytes = static_cast<const char*>(bundle);
  if (header.format_version == 1)
    return Hash64(bytes + TFN_BUNDLE_HEADER_SIZE, header.file_size - TFN_BUNDLE_HEADER_SIZE);
  return Hash64(bytes + header.flatbuffer_offset, header.flatbuffer_size);
}

TfnBundleHeader MakeHeader(const void* bundle, uint64_t flatbuffer_size, uint64_t segments_offset,
                           uint64_t file_size) {
  TfnBundleHeader h;
  std::memset(&h, 0, sizeof h);
  std::memcpy(h.magic, TFN_BUNDLE_MAGIC, 8);
  h.format_version = TFN_BUNDLE_FORMAT_VERSION;
  h.header_size = TFN_BUNDLE_HEADER_SIZE;
  h.flatbuffer_offset = TFN_BUNDLE_HEADER_SIZE;
  h.flatbuffer_size = flatbuffer_size;
  h.segments_offset = segments_offset;
  h.file_size = file_size;
  h.content_hash = ContentHash(bundle, h);
  h.flags = 0;
  h.header_checksum = HeaderChecksum(h);
  return h;
}

bool ResealHeader(void* bundle, uint64_t size) {
  TfnBundleHeader h;
  if (size < TFN_BUNDLE_HEADER_SIZE) return false;
  std::memcpy(&h, bundle, sizeof h);
  if (h.file_size != size || h.flatbuffer_offset > size ||
      h.flatbuffer_size > size - h.flatbuffer_offset) {
    return false;
  }
  h.content_hash = ContentHash(bundle, h);  // of the header's own format version
  h.header_checksum = HeaderChecksum(h);
  std::memcpy(bundle, &h, sizeof h);
  return true;
}

HeaderCheck CheckHeader(const void* bytes, uint64_t size, TfnBundleHeader* out) {
  HeaderCheck c;
  auto fail = [&](HeaderProblem p, std::string m) {
    c.problem = p;
    c.message = std::move(m);
    return c;
  };
  if (size < TFN_BUNDLE_HEADER_SIZE) {
    return fail(HeaderProblem::kTooSmall, "the file has " + std::to_string(size) +
                                              " bytes, fewer than the " +
                                              std::to_string(TFN_BUNDLE_HEADER_SIZE) +
                                              "-byte bundle header; it is truncated "
                                              "or not a tfn bundle");
  }
  std::memcpy(out, bytes, sizeof *out);
  if (std::memcmp(out->magic, TFN_BUNDLE_MAGIC, 8) != 0) {
    return fail(HeaderProblem::kBadMagic,
                "the file does not start with \"TFNBUNDL\": it is not a tfn bundle (make one "
                "with tfn-export or tfn::save)");
  }
  // The version is checked before the checksum so that bundles from other
  // versions are reported as such, never as corrupt. Version 0 was never
  // written by any tfn: that is damage, not an old file.
  if (out->format_version == 0) {
    return fail(
        HeaderProblem::kBadChecksum,
        "the bundle header says format version 0, which no tfn writes: the file is corrupt");
  }
  if (out->format_version > TFN_BUNDLE_FORMAT_VERSION ||
      out->format_version < TFN_BUNDLE_MIN_READ_VERSION) {
    bool newer = out->format_version > TFN_BUNDLE_FORMAT_VERSION;
    return fail(HeaderProblem::kIncompatible,
                "the bundle has format version " + Version(out->format_version) +
                    "; this runtime reads format versions " + Version(TFN_BUNDLE_MIN_READ_VERSION) +
                    " to " + Version(TFN_BUNDLE_FORMAT_VERSION) + " — " +
                    (newer ? "use a newer tfn runtime, or re-export the model with this tfn"
                           : "re-export the model with a newer tfn"));
  }
  if (out->header_checksum != HeaderChecksum(*out)) {
    return fail(HeaderProblem::kBadChecksum,
                "the bundle header's checksum does not match: the file is corrupt");
  }
  uint64_t fb_end = 0;
  if (out->header_size != TFN_BUNDLE_HEADER_SIZE ||
      out->flatbuffer_offset != TFN_BUNDLE_HEADER_SIZE ||
      __builtin_add_overflow(out->flatbuffer_offset, out->flatbuffer_size, &fb_end) ||
      fb_end > out->segments_offset || out->segments_offset % TFN_BUNDLE_ALIGNMENT != 0 ||
      out->segments_offset > out->file_size || out->flatbuffer_size < 8) {
    return fail(HeaderProblem::kBadLayout,
                "the bundle header's offsets and sizes are inconsistent: the file is corrupt");
  }
  if (out->file_size != size) {
    return fail(HeaderProblem::kTooSmall, "the bundle header says the file has " +
                                              std::to_string(out->file_size) + " bytes but " +
                                              std::to_string(size) +
                                              " are present: the file is truncated or "
                                              "has trailing bytes");
  }
  return c;
}

}  // namespace tfn::schema
