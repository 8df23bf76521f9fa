// Op attributes and constant tensor payloads, shared by the IR, the runtime and kernels.
//
// Attrs are a small name-sorted list; ops declare theirs in the op table
// (op_def.h), and the graph builder and the loader fill in defaults, so every
// node carries every attribute of its op. Values are immutable once built;
// ConstTensor shares ownership of its bytes, which may live in a mapped
// bundle (zero copy) or in an aligned heap block.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/dtype.h"
#include "core/shape.h"

namespace tfn {

// A constant tensor. `data` points at DTypeSize(dtype) * NumElements(shape)
// bytes, kept alive by `owner`. Copies share the bytes.
struct ConstTensor {
  DType dtype = DType::kInvalid;
  Shape shape;
  const void* data = nullptr;
  std::shared_ptr<const void> owner;

  int64_t num_elements() const { return NumElements(shape); }
  int64_t byte_size() const { return num_elements() * DTypeSize(dtype); }
  template <class T>
  const T* as() const {
    return static_cast<const T*>(data);
  }
  // Copies `bytes` into a new 64-byte aligned block.
  static ConstTensor Copy(DType dtype, const Shape& shape, const void* bytes);
  // A zero-filled block to write into before sharing (returns the writable pointer).
  static ConstTensor Allocate(DType dtype, const Shape& shape, void** writable);
  template <class T>
  static ConstTensor Scalar(T v) {
    return Copy(DTypeOf<T>::value, Shape{}, &v);
  }
  // Element i converted to double / int64 (any dtype).
  double ElementAsDouble(int64_t i) const;
  int64_t ElementAsInt(int64_t i) const;
  bool BytesEqual(const ConstTensor& o) const;
};

// 64-byte aligned allocation shared by tensors; nullptr when out of memory.
std::shared_ptr<void> AllocateAligned(size_t bytes);

enum class AttrType : uint8_t { kInt, kFloat, kString, kInts, kFloats, kDType, kTensor };
const char* AttrTypeName(AttrType t);

class AttrValue {
 public:
  AttrValue() = default;
  static AttrValue Int(int64_t v);
  static AttrValue Float(double v);
  static AttrValue String(std::string v);
  static AttrValue Ints(std::vector<int64_t> v);
  static AttrValue Floats(std::vector<double> v);
  static AttrValue Type(DType v);
  static AttrValue Tensor(ConstTensor v);

  AttrType type() const { return type_; }
  int64_t i() const { return i_; }
  double f() const { return f_; }
  const std::string& s() const { return s_; }
  const std::vector<int64_t>& ints() const { return ints_; }
  const std::vector<double>& floats() const { return floats_; }
  DType dtype() const { return static_cast<DType>(i_); }
  const ConstTensor& tensor() const { return tensor_; }

  // Deep equality (tensor bytes compared) and a matching hash, for CSE.
  bool operator==(const AttrValue& o) const;
  bool operator!=(const AttrValue& o) const { return !(*this == o); }
  size_t Hash() const;

 private:
  AttrType type_ = AttrType::kInt;
  int64_t i_ = 0;
  double f_ = 0;
  std::string s_;
  std::vector<int64_t> ints_;
  std::vector<double> floats_;
  ConstTensor tensor_;
};

// Name-sorted attributes of one node.
class Attrs {
 public:
  Attrs() = default;
  Attrs(std::initializer_list<std::pair<std::string, AttrValue>> items);

  void Set(std::string_view name, AttrValue value);
  const AttrValue* Find(std::string_view name) const;
  bool Has(std::string_view name) const { return Find(name) != nullptr; }
  // Typed getters: the fallback is returned when the attribute is missing.
  int64_t GetInt(std::string_view name, int64_t fallback = 0) const;
  double GetFloat(std::string_view name, double fallback = 0) const;
  std::string GetString(std::string_view name, std::string fallback = "") const;
  std::vector<int64_t> GetInts(std::string_view name) const;
  std::vector<double> GetFloats(std::string_view name) const;
  DType GetType(std::string_view name, DType fallback = DType::kInvalid) const;
  const ConstTensor* GetTensor(std::string_view name) const;

  size_t size() const { return items_.size(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }
  bool operator==(const Attrs& o) const { return items_ == o.items_; }
  size_t Hash() const;

 private:
  std::vector<std::pair<std::string, AttrValue>> items_;
};

}  // namespace tfn
