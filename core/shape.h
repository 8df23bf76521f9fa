// Shapes: a fixed-capacity list of dimensions, generic over the dimension type.
//
// ShapeT<int64_t> (= Shape) is a concrete shape at run time, or, at the public
// API, a static shape where kDynamic marks an unknown ("None") dimension.
// ShapeT<SymDim> (= SymShape, see sym_dim.h) is the IR's symbolic shape.
// Shape rules in core/ are templates over the dimension type so that one
// definition serves both. The capacity is fixed (kMaxRank) so that shapes
// never allocate: they are copied freely in the runtime's hot path and in
// the kernels' ABI.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace tfn {

inline constexpr int kMaxRank = 8;
// An unknown dimension at the public API (TensorFlow's None).
inline constexpr int64_t kDynamic = -1;

template <class D>
class ShapeT {
 public:
  ShapeT() = default;
  // Ranks above kMaxRank are truncated; callers that take shapes from users
  // check the rank first (see CheckRank).
  ShapeT(std::initializer_list<D> dims) {
    for (const D& d : dims) push_back(d);
  }
  template <class It>
  ShapeT(It begin, It end) {
    for (; begin != end; ++begin) push_back(static_cast<D>(*begin));
  }
  explicit ShapeT(const std::vector<D>& dims) : ShapeT(dims.begin(), dims.end()) {}
  static ShapeT Filled(int rank, D value) {
    ShapeT s;
    for (int i = 0; i < rank; ++i) s.push_back(value);
    return s;
  }

  int rank() const { return rank_; }
  bool empty() const { return rank_ == 0; }
  D& operator[](int i) { return dims_[i]; }
  const D& operator[](int i) const { return dims_[i]; }
  const D* begin() const { return dims_; }
  const D* end() const { return dims_ + rank_; }
  D* begin() { return dims_; }
  D* end() { return dims_ + rank_; }
  const D* data() const { return dims_; }
  void push_back(const D& d) {
    if (rank_ < kMaxRank) dims_[rank_++] = d;
  }
  void resize(int rank, D fill = D(1)) {
    while (rank_ < rank && rank_ < kMaxRank) dims_[rank_++] = fill;
    if (rank < rank_) rank_ = rank < 0 ? 0 : rank;
  }
  void insert(int pos, const D& d) {
    if (rank_ >= kMaxRank) return;
    for (int i = rank_; i > pos; --i) dims_[i] = dims_[i - 1];
    dims_[pos] = d;
    ++rank_;
  }
  void erase(int pos) {
    for (int i = pos; i + 1 < rank_; ++i) dims_[i] = dims_[i + 1];
    --rank_;
  }
  std::vector<D> ToVector() const { return std::vector<D>(begin(), end()); }

  friend bool operator==(const ShapeT& a, const ShapeT& b) {
    if (a.rank_ != b.rank_) return false;
    for (int i = 0; i < a.rank_; ++i) {
      if (!(a.dims_[i] == b.dims_[i])) return false;
    }
    return true;
  }
  friend bool operator!=(const ShapeT& a, const ShapeT& b) { return !(a == b); }

 private:
  D dims_[kMaxRank] = {};
  int32_t rank_ = 0;
};

using Shape = ShapeT<int64_t>;

// Product of the dims; false when a dim is negative or the product of the
// nonzero dims overflows int64, so that an empty tensor's strides are
// representable too (shapes from files, users and data-dependent results go
// through this before any allocation).
bool CheckedNumElements(const Shape& shape, int64_t* out);
// Product of the dims of a shape already known to be valid.
int64_t NumElements(const Shape& shape);
// "[2,3]" with "?" for kDynamic.
std::string ShapeToString(const Shape& shape);
// "f32[2,3]" style; see dtype.h for the names.
std::string TypeToString(int dtype_value, const Shape& shape);
// True when every dim is >= 0.
bool IsFullyDefined(const Shape& shape);
// True when `concrete` fits `pattern` (same rank, equal where pattern is static).
bool ShapeMatches(const Shape& pattern, const Shape& concrete);
// Normalizes a possibly negative axis for a given rank; false when out of range.
bool NormalizeAxis(int64_t axis, int rank, int* out);

}  // namespace tfn
