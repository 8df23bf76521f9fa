// SmallBuffer: n elements on the stack up to N, on the heap beyond. The
// per-call arrays of the run path (one entry per input, output or dynamic
// dim) use it so that a run of an ordinary signature allocates nothing.
// Not copyable; elements are value-initialized.
#pragma once

#include <cstddef>
#include <vector>

namespace tfn::runtime {

template <class T, size_t N>
class SmallBuffer {
 public:
  explicit SmallBuffer(size_t n) : data_(inline_) {
    if (n > N) {
      heap_.resize(n);
      data_ = heap_.data();
    }
  }
  SmallBuffer(const SmallBuffer&) = delete;
  SmallBuffer& operator=(const SmallBuffer&) = delete;

  T* data() { return data_; }
  T& operator[](size_t i) { return data_[i]; }

 private:
  T inline_[N] = {};
  std::vector<T> heap_;
  T* data_;
};

}  // namespace tfn::runtime
