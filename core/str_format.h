// printf-style message formatting for error sites in the runtime's code:
// one call per message instead of a chain of std::string appends, which the
// minimal runtime (every check linked, size-bound) cannot afford. GCC checks
// the arguments against the format (-Wformat, an error in this build).
// Thread-safe; messages longer than 511 bytes are cut.
#pragma once

#include <cstdarg>
#include <string>

namespace tfn {

std::string StrFormatV(const char* format, va_list args);

}  // namespace tfn
