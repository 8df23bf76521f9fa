// Attribute values, attribute lists and constant tensors.
#include "core/attrs.h"

#include "core/element_convert.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace tfn {

std::shared_ptr<void> AllocateAligned(size_t bytes) {
  size_t rounded = (bytes + 63) / 64 * 64;
  if (rounded < bytes) return nullptr;  // overflow
  void* p = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
  if (!p) return nullptr;
  return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

ConstTensor ConstTensor::Allocate(DType dtype, const Shape& shape, void** writable) {
  ConstTensor t;
  t.dtype = dtype;
  t.shape = shape;
  size_t bytes = static_cast<size_t>(NumElements(shape)) * static_cast<size_t>(DTypeSize(dtype));
  std::shared_ptr<void> block = AllocateAligned(bytes);
  if (block) std::memset(block.get(), 0, bytes);
  *writable = block.get();
  t.data = block.get();
  t.owner = std::move(block);
  return t;
}

ConstTensor ConstTensor::Copy(DType dtype, const Shape& shape, const void* bytes) {
  void* dst = nullptr;
  ConstTensor t = Allocate(dtype, shape, &dst);
  if (dst && bytes) std::memcpy(dst, bytes, static_cast<size_t>(t.byte_size()));
  return t;
}

double ConstTensor::ElementAsDouble(int64_t i) const {
  return WideToDouble(LoadWide(dtype, data, i));
}

int64_t ConstTensor::ElementAsInt(int64_t i) const {
  return WideToInt<int64_t>(LoadWide(dtype, data, i));  // floats truncate and saturate
}

bool ConstTensor::BytesEqual(const ConstTensor& o) const {
  if (dtype != o.dtype || shape != o.shape) return false;
  if (data == o.data) return true;
  return std::memcmp(data, o.data, static_cast<size_t>(byte_size())) == 0;
}

const char* AttrTypeName(AttrType t) {
  switch (t) {
    case AttrType::kInt: return "int";
    case AttrType::kFloat: return "float";
    case AttrType::kString: return "string";
    case AttrType::kInts: return "int list";
    case AttrType::kFloats: return "float list";
    case AttrType::kDType: return "dtype";
    case AttrType::kTensor: return "tensor";
  }
  return "unknown";
}

AttrValue AttrValue::Int(int64_t v) {
  AttrValue a;
  a.type_ = AttrType::kInt;
  a.i_ = v;
  return a;
}
AttrValue AttrValue::Float(double v) {
  AttrValue a;
  a.type_ = AttrType::kFloat;
  a.f_ = v;
  return a;
}
AttrValue AttrValue::String(std::string v) {
  AttrValue a;
  a.type_ = AttrType::kString;
  a.s_ = std::move(v);
  return a;
}
AttrValue AttrValue::Ints(std::vector<int64_t> v) {
  AttrValue a;
  a.type_ = AttrType::kInts;
  a.ints_ = std::move(v);
  return a;
}
AttrValue AttrValue::Floats(std::vector<double> v) {
  AttrValue a;
  a.type_ = AttrType::kFloats;
  a.floats_ = std::move(v);
  return a;
}
AttrValue AttrValue::Type(DType v) {
  AttrValue a;
  a.type_ = AttrType::kDType;
  a.i_ = static_cast<int64_t>(v);
  return a;
}
AttrValue AttrValue::Tensor(ConstTensor v) {
  AttrValue a;
  a.type_ = AttrType::kTensor;
  a.tensor_ = std::move(v);
  return a;
}

bool AttrValue::operator==(const AttrValue& o) const {
  if (type_ != o.type_) return false;
  switch (type_) {
    case AttrType::kInt:
    case AttrType::kDType: return i_ == o.i_;
    case AttrType::kFloat: return std::memcmp(&f_, &o.f_, sizeof f_) == 0;  // NaN-safe, -0 != 0
    case AttrType::kString: return s_ == o.s_;
    case AttrType::kInts: return ints_ == o.ints_;
    case AttrType::kFloats:
      return floats_.size() == o.floats_.size() &&
             (floats_.empty() ||
              std::memcmp(floats_.data(), o.floats_.data(), floats_.size() * sizeof(double)) == 0);
    case AttrType::kTensor: return tensor_.BytesEqual(o.tensor_);
  }
  return false;
}

namespace {
size_t HashBytes(const void* p, size_t n, size_t h = 1469598103934665603ull) {
  const unsigned char* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}
}  // namespace

size_t AttrValue::Hash() const {
  size_t h = HashBytes(&type_, sizeof type_);
  switch (type_) {
    case AttrType::kInt:
    case AttrType::kDType: return HashBytes(&i_, sizeof i_, h);
    case AttrType::kFloat: return HashBytes(&f_, sizeof f_, h);
    case AttrType::kString: return HashBytes(s_.data(), s_.size(), h);
    case AttrType::kInts: return HashBytes(ints_.data(), ints_.size() * sizeof(int64_t), h);
    case AttrType::kFloats: return HashBytes(floats_.data(), floats_.size() * sizeof(double), h);
    case AttrType::kTensor: {
      h = HashBytes(&tensor_.dtype, 1, h);
      h = HashBytes(tensor_.shape.data(), sizeof(int64_t) * tensor_.shape.rank(), h);
      // Large constants are rarely CSE candidates: hash a prefix only.
      size_t n = static_cast<size_t>(tensor_.byte_size());
      return HashBytes(tensor_.data, n < 256 ? n : 256, h);
    }
  }
  return h;
}

Attrs::Attrs(std::initializer_list<std::pair<std::string, AttrValue>> items) {
  for (const auto& [name, value] : items) Set(name, value);
}

void Attrs::Set(std::string_view name, AttrValue value) {
  auto it = std::lower_bound(items_.begin(), items_.end(), name,
                             [](const auto& item, std::string_view n) { return item.first < n; });
  if (it != items_.end() && it->first == name) {
    it->second = std::move(value);
  } else {
    items_.insert(it, {std::string(name), std::move(value)});
  }
}

const AttrValue* Attrs::Find(std::string_view name) const {
  for (const auto& item : items_) {
    if (item.first == name) return &item.second;
  }
  return nullptr;
}

int64_t Attrs::GetInt(std::string_view name, int64_t fallback) const {
  const AttrValue* v = Find(name);
  return v && v->type() == AttrType::kInt ? v->i() : fallback;
}
double Attrs::GetFloat(std::string_view name, double fallback) const {
  const AttrValue* v = Find(name);
  if (v && v->type() == AttrType::kFloat) return v->f();
  if (v && v->type() == AttrType::kInt) return static_cast<double>(v->i());
  return fallback;
}
std::string Attrs::GetString(std::string_view name, std::string fallback) const {
  const AttrValue* v = Find(name);
  return v && v->type() == AttrType::kString ? v->s() : fallback;
}
std::vector<int64_t> Attrs::GetInts(std::string_view name) const {
  const AttrValue* v = Find(name);
  return v && v->type() == AttrType::kInts ? v->ints() : std::vector<int64_t>{};
}
std::vector<double> Attrs::GetFloats(std::string_view name) const {
  const AttrValue* v = Find(name);
  return v && v->type() == AttrType::kFloats ? v->floats() : std::vector<double>{};
}
DType Attrs::GetType(std::string_view name, DType fallback) const {
  const AttrValue* v = Find(name);
  return v && v->type() == AttrType::kDType ? v->dtype() : fallback;
}
const ConstTensor* Attrs::GetTensor(std::string_view name) const {
  const AttrValue* v = Find(name);
  return v && v->type() == AttrType::kTensor ? &v->tensor() : nullptr;
}

size_t Attrs::Hash() const {
  size_t h = 0;
  for (const auto& [name, value] : items_) {
    h = h * 31 + HashBytes(name.data(), name.size());
    h = h * 31 + value.Hash();
  }
  return h;
}

}  // namespace tfn
