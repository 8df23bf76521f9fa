// Copy-on-write variable storage.
#include "loader/variables.h"

#include <cstring>
#include <string>
#include <type_traits>

namespace tfn::rt {

VariableSlot::VariableSlot(const ConstTensor& initial)
    : dtype_(initial.dtype), shape_(initial.shape), bytes_(initial.byte_size()) {
  data_ = AllocateAligned(static_cast<size_t>(bytes_));
  if (data_ && bytes_ > 0) std::memcpy(data_.get(), initial.data, static_cast<size_t>(bytes_));
}

ConstTensor VariableSlot::Read() const {
  std::lock_guard<std::mutex> lock(mu_);
  ConstTensor t;
  t.dtype = dtype_;
  t.shape = shape_;
  t.data = data_.get();
  t.owner = data_;
  return t;
}

Status VariableSlot::Check(const ConstTensor& value, const char* op) const {
  if (value.dtype != dtype_ || value.shape != shape_) {
    return InvalidArgument(std::string(op) + ": the variable is " +
                           TypeToString(static_cast<int>(dtype_), shape_) + ", the value is " +
                           TypeToString(static_cast<int>(value.dtype), value.shape) +
                           "; a variable keeps its dtype and shape");
  }
  if (!data_) return ResourceExhausted(std::string(op) + ": the variable has no storage");
  return Status::Ok();
}

Status VariableSlot::Assign(const ConstTensor& value) {
  std::lock_guard<std::mutex> lock(mu_);
  TFN_RETURN_IF_ERROR(Check(value, "assign"));
  if (data_.use_count() > 1) {
    std::shared_ptr<void> fresh = AllocateAligned(static_cast<size_t>(bytes_));
    if (!fresh) return ResourceExhausted("assign: out of memory");
    data_ = std::move(fresh);
  }
  if (bytes_ > 0) std::memmove(data_.get(), value.data, static_cast<size_t>(bytes_));
  return Status::Ok();
}

Status VariableSlot::AssignAdd(const ConstTensor& value) {
  std::lock_guard<std::mutex> lock(mu_);
  TFN_RETURN_IF_ERROR(Check(value, "assign_add"));
  if (data_.use_count() > 1) {
    std::shared_ptr<void> fresh = AllocateAligned(static_cast<size_t>(bytes_));
    if (!fresh) return ResourceExhausted("assign_add: out of memory");
    if (bytes_ > 0) std::memcpy(fresh.get(), data_.get(), static_cast<size_t>(bytes_));
    data_ = std::move(fresh);
  }
  int64_t n = NumElements(shape_);
  if (dtype_ == DType::kBool) return InvalidArgument("assign_add: bool variables cannot be added to");
  VisitDType(dtype_, [&](auto tag) {
    using T = decltype(tag);
    T* dst = static_cast<T*>(data_.get());
    const T* src = static_cast<const T*>(value.data);
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {  // wrap, never UB
        using U = std::make_unsigned_t<T>;
        dst[i] = static_cast<T>(static_cast<U>(dst[i]) + static_cast<U>(src[i]));
      } else {
        dst[i] = static_cast<T>(dst[i] + src[i]);
      }
    }
    return 0;
  });
  return Status::Ok();
}

}  // namespace tfn::rt
