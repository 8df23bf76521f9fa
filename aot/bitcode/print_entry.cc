// tfn::print for compiled code: formats like core/format.h (NumPy style,
// "{}" placeholders, 3 elements at each end of long dims) with libc alone,
// since AOT objects may depend on nothing but libc and libm (open_memstream
// is POSIX 2008). Compiled only to LLVM bitcode.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "kernels/kernel_abi.h"

namespace {

constexpr int kSummarize = 3;

void PutElement(const TfnTensor& t, int64_t i, FILE* out) {
  switch (t.dtype) {
    case 1: std::fputs(static_cast<const uint8_t*>(t.data)[i] ? "true" : "false", out); break;
    case 2: std::fprintf(out, "%d", static_cast<const int32_t*>(t.data)[i]); break;
    case 3: std::fprintf(out, "%lld", static_cast<long long>(static_cast<const int64_t*>(t.data)[i])); break;
    default: {
      double v = t.dtype == 4 ? static_cast<const float*>(t.data)[i] : static_cast<const double*>(t.data)[i];
      if (std::isnan(v)) {
        std::fputs("nan", out);
      } else if (std::isinf(v)) {
        std::fputs(v > 0 ? "inf" : "-inf", out);
      } else {
        std::fprintf(out, "%.6g", v);
      }
    }
  }
}

void PutValues(const TfnTensor& t, int dim, int64_t offset, FILE* out) {
  if (dim == t.rank) {
    PutElement(t, offset, out);
    return;
  }
  int64_t stride = 1;
  for (int d = dim + 1; d < t.rank; ++d) stride *= t.dims[d];
  int64_t n = t.dims[dim];
  bool last = dim + 1 == t.rank;
  std::fputc('[', out);
  for (int64_t i = 0; i < n; ++i) {
    if (n > 2 * kSummarize && i == kSummarize) {
      std::fputs("...", out);
      std::fputs(last ? ", " : ",\n", out);
      if (!last) {
        for (int s = 0; s <= dim; ++s) std::fputc(' ', out);
      }
      i = n - kSummarize;
    }
    PutValues(t, dim + 1, offset + i * stride, out);
    if (i + 1 < n) {
      std::fputs(last ? ", " : ",\n", out);
      if (!last) {
        for (int s = 0; s <= dim; ++s) std::fputc(' ', out);
      }
    }
  }
  std::fputc(']', out);
}

// The message with its values, as core/format.h writes it, to `out`.
void PutMessage(const char* message, const TfnTensor* tensors, int32_t n, FILE* out) {
  int32_t next = 0;
  for (const char* p = message; *p; ++p) {
    if ((p[0] == '{' || p[0] == '}') && p[1] == p[0]) {
      std::fputc(*p, out);
      ++p;
    } else if (p[0] == '{' && p[1] == '}') {
      if (next < n) PutValues(tensors[next], 0, 0, out);
      ++next;
      ++p;
    } else {
      std::fputc(*p, out);
    }
  }
  for (; next < n; ++next) {
    std::fputc(' ', out);
    PutValues(tensors[next], 0, 0, out);
  }
  std::fputc('\n', out);
}

}  // namespace

// `print` (TfnAotRunOptions::print, may be null) gets the whole text in one
// call, as the runtime's RunOptions::print does; without it, or when the
// text cannot be buffered, it goes to standard output.
extern "C" void tfn_aot_print(const char* message, const TfnTensor* tensors, int32_t n,
                              void (*print)(void*, const char*, size_t), void* print_context) {
  if (print) {
    char* text = nullptr;
    size_t size = 0;
    if (FILE* buffer = open_memstream(&text, &size)) {
      PutMessage(message, tensors, n, buffer);
      bool ok = std::fclose(buffer) == 0;
      if (ok) print(print_context, text, size);
      std::free(text);
      if (ok) return;
    }
  }
  PutMessage(message, tensors, n, stdout);
  std::fflush(stdout);
}
