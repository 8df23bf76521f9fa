// Writing files atomically: the bytes go to a temporary file beside the
// destination, are flushed to disk, and replace the destination by rename.
// On any failure (a full disk included) the destination is untouched and the
// temporary file is removed.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace tfn {

Status WriteFileAtomically(const std::string& path, std::string_view bytes);

}  // namespace tfn
