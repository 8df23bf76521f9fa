// Implementation of StrFormatV (str_format.h).
#include "core/str_format.h"

#include <cstdio>

namespace tfn {

std::string StrFormatV(const char* format, va_list args) {
  char buffer[512];
  std::vsnprintf(buffer, sizeof buffer, format, args);
  return buffer;
}

}  // namespace tfn
