// libFuzzer target: checkpoint files (runtime/checkpoint.h), the bytes
// Session::RestoreCheckpoint reads. The input is a checkpoint's body: the
// target appends its checksum, so mutations reach the parser's size and
// shape checks instead of stopping at the checksum (the raw input is parsed
// too, for that check). A body that parses must serialize back to the same
// bytes: the format has one encoding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/checkpoint.h"
#include "schema/bundle_header.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)tfn::runtime::ParseCheckpoint(data, size);
  std::string file(reinterpret_cast<const char*>(data), size);
  const uint64_t hash = tfn::schema::Hash64(file.data(), file.size());
  file.append(reinterpret_cast<const char*>(&hash), sizeof(hash));
  auto parsed = tfn::runtime::ParseCheckpoint(file.data(), file.size());
  if (!parsed.ok()) return 0;
  if (tfn::runtime::SerializeCheckpoint(*parsed) != file) {
    __builtin_trap();  // the writer and the reader disagree
  }
  return 0;
}
