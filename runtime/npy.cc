// Implementation of .npy reading and writing.
#include "runtime/npy.h"

#include <cctype>
#include <cstring>

#include "core/atomic_file.h"
#include "runtime/mapped_file.h"

namespace tfn::runtime {
namespace {

Status Bad(const std::string& what) { return InvalidArgument("bad .npy file: " + what); }

struct Descr {
  const char* text;
  DType dtype;
};
// NumPy has no bfloat16: a bfloat16 tensor is written as its bit patterns,
// '<u2' (ml_dtypes' bfloat16 arrays view as uint16 the same way), and read
// back as uint16; tfn-run takes a uint16 array for a bfloat16 input.
constexpr Descr kDescrs[] = {
    {"<f4", DType::kFloat32}, {"<f8", DType::kFloat64}, {"<i4", DType::kInt32},
    {"<i8", DType::kInt64},   {"|b1", DType::kBool},    {"<b1", DType::kBool},
    {"<f2", DType::kFloat16}, {"|i1", DType::kInt8},    {"|u1", DType::kUInt8},
    {"<i2", DType::kInt16},   {"<u2", DType::kUInt16},  {"<u4", DType::kUInt32},
    {"<u8", DType::kUInt64},  {"<u2", DType::kBFloat16}};

// A cursor over the header's Python dict literal.
class HeaderParser {
 public:
  explicit HeaderParser(const std::string& h) : h_(h) {}
  void Skip() {
    while (i_ < h_.size() && std::isspace(static_cast<unsigned char>(h_[i_]))) ++i_;
  }
  bool Eat(char c) {
    Skip();
    if (i_ < h_.size() && h_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool String(std::string* out) {
    Skip();
    if (i_ >= h_.size() || (h_[i_] != '\'' && h_[i_] != '"')) return false;
    char q = h_[i_++];
    size_t start = i_;
    while (i_ < h_.size() && h_[i_] != q) ++i_;
    if (i_ >= h_.size()) return false;
    *out = h_.substr(start, i_ - start);
    ++i_;
    return true;
  }
  bool Word(std::string* out) {
    Skip();
    size_t start = i_;
    while (i_ < h_.size() && std::isalpha(static_cast<unsigned char>(h_[i_]))) ++i_;
    *out = h_.substr(start, i_ - start);
    return !out->empty();
  }
  bool Int(int64_t* out) {
    Skip();
    size_t start = i_;
    int64_t v = 0;
    while (i_ < h_.size() && std::isdigit(static_cast<unsigned char>(h_[i_]))) {
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, h_[i_] - '0', &v)) return false;
      ++i_;
    }
    // NumPy on some platforms writes "3L".
    if (i_ < h_.size() && h_[i_] == 'L') ++i_;
    *out = v;
    return i_ > start;
  }

 private:
  const std::string& h_;
  size_t i_ = 0;
};

}  // namespace

Result<ConstTensor> ParseNpy(const void* data, uint64_t size) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  if (size < 10 || std::memcmp(p, "\x93NUMPY", 6) != 0) {
    return Bad("it does not start with the .npy magic \\x93NUMPY (save it with numpy.save)");
  }
  int major = p[6];
  uint64_t header_len = 0, prefix = 0;
  if (major == 1) {
    header_len = p[8] | (p[9] << 8);
    prefix = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) return Bad("the header is truncated");
    header_len = static_cast<uint64_t>(p[8]) | (static_cast<uint64_t>(p[9]) << 8) |
                 (static_cast<uint64_t>(p[10]) << 16) | (static_cast<uint64_t>(p[11]) << 24);
    prefix = 12;
  } else {
    return Bad("format version " + std::to_string(major) + " is not 1, 2 or 3");
  }
  if (header_len > size - prefix) return Bad("the header is longer than the file");
  std::string header(reinterpret_cast<const char*>(p + prefix), header_len);
  HeaderParser hp(header);
  std::string descr;
  bool fortran = false, have_descr = false, have_order = false, have_shape = false;
  Shape shape;
  if (!hp.Eat('{')) return Bad("the header is not a Python dict");
  while (!hp.Eat('}')) {
    std::string key;
    if (!hp.String(&key) || !hp.Eat(':')) return Bad("malformed header entry");
    if (key == "descr") {
      if (!hp.String(&descr)) return Bad("'descr' is not a string");
      have_descr = true;
    } else if (key == "fortran_order") {
      std::string w;
      if (!hp.Word(&w) || (w != "True" && w != "False")) return Bad("'fortran_order' is not True/False");
      fortran = w == "True";
      have_order = true;
    } else if (key == "shape") {
      if (!hp.Eat('(')) return Bad("'shape' is not a tuple");
      while (!hp.Eat(')')) {
        int64_t d;
        if (!hp.Int(&d)) return Bad("'shape' holds a non-integer");
        if (shape.rank() >= kMaxRank) return Bad("rank above tfn's maximum of 8");
        shape.push_back(d);
        hp.Eat(',');
      }
      have_shape = true;
    } else {
      return Bad("unknown header key '" + key + "'");
    }
    hp.Eat(',');
  }
  if (!have_descr || !have_order || !have_shape) return Bad("the header lacks descr, fortran_order or shape");
  if (fortran) return Bad("Fortran-order arrays are not supported; save numpy.ascontiguousarray(a)");
  DType dtype = DType::kInvalid;
  for (const Descr& d : kDescrs) {
    if (descr == d.text && dtype == DType::kInvalid) dtype = d.dtype;
  }
  if (dtype == DType::kInvalid) {
    return Bad("dtype '" + descr +
               "' is not supported (use float16/32/64, int8/16/32/64, uint8/16/32/64 " +
               "or bool, little-endian: a.astype('<f4'))");
  }
  int64_t count = 0;
  uint64_t bytes = 0;
  if (!CheckedNumElements(shape, &count) ||
      __builtin_mul_overflow(static_cast<uint64_t>(count), static_cast<uint64_t>(DTypeSize(dtype)), &bytes)) {
    return Bad("the shape " + ShapeToString(shape) + " is too large");
  }
  uint64_t body = size - prefix - header_len;
  if (body != bytes) {
    return Bad("the data has " + std::to_string(body) + " bytes but " + std::string(DTypeName(dtype)) +
               ShapeToString(shape) + " needs " + std::to_string(bytes) + " (truncated file?)");
  }
  void* out = nullptr;
  ConstTensor t = ConstTensor::Allocate(dtype, shape, &out);
  if (bytes > 0 && !out) return ResourceExhausted("out of memory reading a .npy file");
  if (bytes > 0) std::memcpy(out, p + prefix + header_len, bytes);
  if (dtype == DType::kBool) {
    unsigned char* b = static_cast<unsigned char*>(out);
    for (uint64_t i = 0; i < bytes; ++i) b[i] = b[i] != 0;  // canonical bools
  }
  return t;
}

Result<ConstTensor> ReadNpy(const std::string& path) {
  Result<std::shared_ptr<const runtime::MappedFile>> f = runtime::MapFile(path);
  if (!f.ok()) return f.status();
  Result<ConstTensor> t = ParseNpy((*f)->data, (*f)->size);
  if (!t.ok()) return t.status().WithContext("'" + path + "'");
  return t;
}

std::string SerializeNpy(const ConstTensor& tensor) {
  const char* descr = "<f4";
  for (const Descr& d : kDescrs) {
    if (d.dtype == tensor.dtype) {
      descr = d.text;
      break;
    }
  }
  std::string shape = "(";
  for (int i = 0; i < tensor.shape.rank(); ++i) {
    shape += std::to_string(tensor.shape[i]) + (tensor.shape.rank() == 1 ? "," : i + 1 < tensor.shape.rank() ? ", " : "");
  }
  shape += ")";
  std::string header = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(1);
  out += static_cast<char>(0);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.append(static_cast<const char*>(tensor.data), static_cast<size_t>(tensor.byte_size()));
  return out;
}

Status WriteNpy(const std::string& path, const ConstTensor& tensor) {
  return WriteFileAtomically(path, SerializeNpy(tensor));
}

}  // namespace tfn::runtime
