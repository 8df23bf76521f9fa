/* The fixed layout of a .tfn bundle file around its FlatBuffer (C and C++).
 *
 *   offset 0    BundleHeader (64 bytes, little-endian)
 *   offset 64   the FlatBuffer (schema/bundle.fbs, file identifier "TFNB")
 *   ...         padding to 64 bytes
 *   segments    weight bytes, each segment 64-byte aligned (mappable in place)
 *
 * Format versions: a reader accepts [TFN_BUNDLE_MIN_READ_VERSION,
 * TFN_BUNDLE_FORMAT_VERSION]. Compatible additions (new optional fields, new
 * ops) do not change the version; a change old readers would misread does,
 * and raises the minimum. See schema/README.md.
 *
 *   1  content_hash covers every byte after the header.
 *   2  content_hash covers the FlatBuffer only. The FlatBuffer lists every
 *      segment's checksum, so the hash still identifies the whole content,
 *      and it is small enough to check on every load: a reader of version 2
 *      trusts no graph byte it has not hashed.
 *   3  dtypes 6-13 (float16, bfloat16, int8, uint8, int16, uint16, uint32,
 *      uint64) may appear; a version 1 or 2 bundle holding one is rejected
 *      as corrupt, and a version 2 reader refuses version 3 as too new. */
#ifndef TFN_SCHEMA_BUNDLE_FORMAT_H_
#define TFN_SCHEMA_BUNDLE_FORMAT_H_

#include <stdint.h>

#define TFN_BUNDLE_MAGIC "TFNBUNDL"
#define TFN_BUNDLE_FORMAT_VERSION 3u
#define TFN_BUNDLE_MIN_READ_VERSION 1u
#define TFN_BUNDLE_HEADER_SIZE 64u
#define TFN_BUNDLE_ALIGNMENT 64u

typedef struct TfnBundleHeader {
  char magic[8];              /* TFN_BUNDLE_MAGIC, not NUL-terminated */
  uint32_t format_version;
  uint32_t header_size;       /* 64 */
  uint64_t flatbuffer_offset; /* 64 */
  uint64_t flatbuffer_size;
  uint64_t segments_offset;   /* first byte after the FlatBuffer's padding */
  uint64_t file_size;
  uint64_t content_hash;      /* XXH3-64 of the FlatBuffer (version 1: of
                                 every byte after the header) */
  uint32_t flags;             /* 0 */
  uint32_t header_checksum;   /* low 32 bits of XXH3-64 of bytes [0, 56) */
} TfnBundleHeader;

#ifdef __cplusplus
static_assert(sizeof(TfnBundleHeader) == TFN_BUNDLE_HEADER_SIZE, "header layout");
#endif

#endif /* TFN_SCHEMA_BUNDLE_FORMAT_H_ */
