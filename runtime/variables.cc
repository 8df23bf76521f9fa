// Copy-on-write variable storage.
#include "runtime/variables.h"

#include <cstring>
#include <string>
#include <type_traits>

namespace tfn::runtime {

VariableSlot::VariableSlot(const ConstTensor& initial) : VariableSlot(initial, false) {}

std::unique_ptr<VariableSlot> VariableSlot::Borrow(const ConstTensor& initial) {
  return std::unique_ptr<VariableSlot>(new VariableSlot(initial, true));
}

VariableSlot::VariableSlot(const ConstTensor& initial, bool borrow)
    : dtype_(initial.dtype), shape_(initial.shape), bytes_(initial.byte_size()) {
  if (borrow && initial.data) {
    // Aliasing: shares the owner's lifetime, points at the tensor's bytes.
    data_ = std::shared_ptr<const void>(initial.owner, initial.data);
    return;
  }
  std::shared_ptr<void> block = AllocateAligned(static_cast<size_t>(bytes_));
  if (block && bytes_ > 0) std::memcpy(block.get(), initial.data, static_cast<size_t>(bytes_));
  writable_ = block != nullptr;
  data_ = std::move(block);
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

Status VariableSlot::MakeWritable(bool keep_value, const char* op) {
  // A snapshot someone holds must not change under them. use_count() alone
  // is a relaxed load: seeing 1 would not order this thread's writes after
  // the last reader's reads of the bytes (a data race ThreadSanitizer
  // reported, real on weakly ordered CPUs). Copying the pointer is an
  // acquire-release increment of the same count, which synchronizes with
  // every reader's release of its snapshot; with the lock held no new
  // snapshot can appear, so a count of 2 (the slot and the probe) is final.
  if (writable_) {
    std::shared_ptr<const void> probe = data_;
    if (probe.use_count() == 2) return Status::Ok();
  }
  std::shared_ptr<void> fresh = AllocateAligned(static_cast<size_t>(bytes_));
  if (!fresh) return ResourceExhausted(std::string(op) + ": out of memory");
  if (keep_value && bytes_ > 0) std::memcpy(fresh.get(), data_.get(), static_cast<size_t>(bytes_));
  data_ = std::move(fresh);
  writable_ = true;
  return Status::Ok();
}

Status VariableSlot::Assign(const ConstTensor& value) {
  std::lock_guard<std::mutex> lock(mu_);
  TFN_RETURN_IF_ERROR(Check(value, "assign"));
  TFN_RETURN_IF_ERROR(MakeWritable(false, "assign"));
  // The block is ours (MakeWritable), so writing through it is allowed;
  // memmove because `value` may be a view of the old bytes.
  if (bytes_ > 0)
    std::memmove(const_cast<void*>(data_.get()), value.data, static_cast<size_t>(bytes_));
  return Status::Ok();
}

namespace {

// dst[i] += src[i]; integers wrap (never undefined behaviour).
template <class T>
void AddInto(void* dst_bytes, const void* src_bytes, int64_t n) {
  T* dst = static_cast<T*>(dst_bytes);
  const T* src = static_cast<const T*>(src_bytes);
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      dst[i] = static_cast<T>(static_cast<U>(dst[i]) + static_cast<U>(src[i]));
    } else {
      dst[i] = dst[i] + src[i];
    }
  }
}

}  // namespace

Status VariableSlot::AssignAdd(const ConstTensor& value) {
  std::lock_guard<std::mutex> lock(mu_);
  TFN_RETURN_IF_ERROR(Check(value, "assign_add"));
  // var_assign_add takes the dtypes arithmetic runs on (the op table's
  // kAnyType); bool and the storage-only dtypes have no addition.
  if (dtype_ != DType::kInt32 && dtype_ != DType::kInt64 && dtype_ != DType::kFloat32 &&
      dtype_ != DType::kFloat64) {
    return InvalidArgument(std::string("assign_add: ") + DTypeName(dtype_) +
                           " variables cannot be added to (int32, int64, f32 and f64 can)");
  }
  TFN_RETURN_IF_ERROR(MakeWritable(true, "assign_add"));
  const int64_t n = NumElements(shape_);
  void* dst = const_cast<void*>(data_.get());
  switch (dtype_) {
    case DType::kInt32:
      AddInto<int32_t>(dst, value.data, n);
      break;
    case DType::kInt64:
      AddInto<int64_t>(dst, value.data, n);
      break;
    case DType::kFloat32:
      AddInto<float>(dst, value.data, n);
      break;
    default:
      AddInto<double>(dst, value.data, n);
      break;
  }
  return Status::Ok();
}

}  // namespace tfn::runtime
