// libFuzzer target: .npy bytes through the reader tfn-run uses for its
// inputs (runtime/npy.h). A file that parses must also survive the round
// trip: written back and parsed again, it gives the same dtype, shape and
// bytes.
#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto tensor = tfn::runtime::ParseNpy(data, size);
  if (!tensor.ok()) return 0;
  std::string again = tfn::runtime::SerializeNpy(*tensor);
  auto reparsed = tfn::runtime::ParseNpy(again.data(), again.size());
  if (!reparsed.ok() || reparsed->dtype != tensor->dtype || reparsed->shape != tensor->shape ||
      !reparsed->BytesEqual(*tensor)) {
    __builtin_trap();  // the writer and the reader disagree
  }
  return 0;
}
