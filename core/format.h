// Formats tensor values as text the way NumPy does ([[1, 2], [3, 4]], long
// dims summarized with "..."), for Tensor printing, tfn::print and tools.
#pragma once

#include <string>
#include <vector>

#include "core/attrs.h"

namespace tfn {

// `summarize`: elements shown at each end of a dim before "..." (-1: all).
// `indent`: columns to indent continuation lines by.
std::string FormatValues(const ConstTensor& value, int summarize = 3, int indent = 0);

// The text of a print op: `message` with each "{}" replaced by the next
// value ("{{" and "}}" are literal braces); values left over are appended,
// separated by spaces.
std::string FormatPrintMessage(const std::string& message, const std::vector<ConstTensor>& values,
                               int summarize);

}  // namespace tfn
