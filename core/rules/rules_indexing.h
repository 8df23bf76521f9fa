// Shape rules of the indexing ops: gather_elements, scatter_elements,
// gather_nd, scatter_nd, top_k, and the ops whose output shape depends on
// x's values (non_zero, unique). The value-shaped rules count at run time and
// use fresh dims in the IR, where x is not a constant.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/rules/rules_shape.h"

namespace tfn::rules {

// Checks the "reduction" attribute of the scatter ops.
template <class D>
Status CheckReduction(const InferContext<D>& c) {
  const std::string r = c.attrs->GetString("reduction");
  if (r != "none" && r != "add" && r != "mul" && r != "max" && r != "min") {
    return c.Error("reduction '" + r + "' is not one of none, add, mul, max, min");
  }
  return Status::Ok();
}

// gather_elements / scatter_elements: indices of data's rank, no larger than
// data in the dims other than the axis (each index element addresses one
// element of data).
template <class D>
Status CheckElementIndices(const InferContext<D>& c, int* axis) {
  const ShapeT<D>& data = c.in(0);
  const ShapeT<D>& idx = c.in(1);
  if (data.rank() == 0) return c.Error(std::string(c.InputName(0)) + " must have rank >= 1");
  if (!NormalizeAxis(c.attrs->GetInt("axis"), data.rank(), axis)) {
    return c.Errorf("axis %lld is out of range for %s",
                    static_cast<long long>(c.attrs->GetInt("axis")), c.TypeStr(0).c_str());
  }
  if (idx.rank() != data.rank()) {
    return c.Errorf("indices %s must have the rank of %s", c.TypeStr(1).c_str(),
                    c.TypeStr(0).c_str());
  }
  for (int d = 0; d < data.rank(); ++d) {
    if (d != *axis && IsKnown(idx[d]) && IsKnown(data[d]) &&
        KnownValue(idx[d]) > KnownValue(data[d])) {
      return c.Errorf(
          "indices %s are larger than %s in dim %lld (only the axis %lld may differ freely)",
          c.TypeStr(1).c_str(), c.TypeStr(0).c_str(), static_cast<long long>(d),
          static_cast<long long>(*axis));
    }
  }
  return Status::Ok();
}

template <class D>
Status InferGatherElements(InferContext<D>& c) {
  int axis;
  TFN_RETURN_IF_ERROR(CheckElementIndices(c, &axis));
  c.out(0) = c.in(1);
  return Status::Ok();
}

template <class D>
Status InferScatterElements(InferContext<D>& c) {
  int axis;
  TFN_RETURN_IF_ERROR(CheckReduction(c));
  TFN_RETURN_IF_ERROR(CheckElementIndices(c, &axis));
  const ShapeT<D>& idx = c.in(1);
  const ShapeT<D>& upd = c.in(2);
  bool same = upd.rank() == idx.rank();
  for (int d = 0; same && d < idx.rank(); ++d) same = !KnownNotEqual(idx[d], upd[d]);
  if (!same) {
    return c.Errorf("updates %s must have the shape of indices %s", c.TypeStr(2).c_str(),
                    c.TypeStr(1).c_str());
  }
  c.out(0) = c.in(0);
  return Status::Ok();
}

// The static last dim of gather_nd/scatter_nd's indices: how many leading
// dims of data (after the batch dims) one index tuple addresses.
template <class D>
Status TupleLength(const InferContext<D>& c, int batch_dims, int* m) {
  const ShapeT<D>& data = c.in(0);
  const ShapeT<D>& idx = c.in(1);
  if (idx.rank() < 1) return c.Errorf("indices must have rank >= 1, got %s", c.TypeStr(1).c_str());
  const D& last = idx[idx.rank() - 1];
  if (!IsKnown(last)) {
    return c.Errorf("the last dim of indices %s must be static", c.TypeStr(1).c_str());
  }
  if (KnownValue(last) < 0 || KnownValue(last) > data.rank() - batch_dims) {
    return c.Error("the last dim of indices " + c.TypeStr(1) + " must be at most the rank of " +
                   c.TypeStr(0) + (batch_dims ? " minus batch_dims" : ""));
  }
  *m = static_cast<int>(KnownValue(last));
  return Status::Ok();
}

template <class D>
Status InferGatherND(InferContext<D>& c) {
  const ShapeT<D>& data = c.in(0);
  const ShapeT<D>& idx = c.in(1);
  const int64_t b = c.attrs->GetInt("batch_dims");
  if (b < 0 || b >= idx.rank() || b >= data.rank()) {
    return c.Errorf("batch_dims %lld must be in [0, min(rank of %s, rank of %s))",
                    static_cast<long long>(b), c.TypeStr(0).c_str(), c.TypeStr(1).c_str());
  }
  const int batch = static_cast<int>(b);
  for (int d = 0; d < batch; ++d) {
    if (KnownNotEqual(data[d], idx[d])) {
      return c.Errorf("the first %lld (batch) dims of %s and %s must be equal",
                      static_cast<long long>(batch), c.TypeStr(0).c_str(), c.TypeStr(1).c_str());
    }
  }
  int m;
  TFN_RETURN_IF_ERROR(TupleLength(c, batch, &m));
  ShapeT<D> out;
  if (idx.rank() - 1 + data.rank() - batch - m > kMaxRank) {
    return c.Error("result rank above the maximum");
  }
  for (int d = 0; d + 1 < idx.rank(); ++d)
    out.push_back(d < batch && IsKnown(data[d]) ? data[d] : idx[d]);
  for (int d = batch + m; d < data.rank(); ++d) out.push_back(data[d]);
  c.out(0) = out;
  return Status::Ok();
}

template <class D>
Status InferScatterND(InferContext<D>& c) {
  TFN_RETURN_IF_ERROR(CheckReduction(c));
  const ShapeT<D>& data = c.in(0);
  const ShapeT<D>& idx = c.in(1);
  const ShapeT<D>& upd = c.in(2);
  int m;
  TFN_RETURN_IF_ERROR(TupleLength(c, 0, &m));
  // updates: indices' dims but the last, then data's dims after the m indexed ones.
  ShapeT<D> want;
  if (idx.rank() - 1 + data.rank() - m > kMaxRank) return c.Error("updates rank above the maximum");
  for (int d = 0; d + 1 < idx.rank(); ++d) want.push_back(idx[d]);
  for (int d = m; d < data.rank(); ++d) want.push_back(data[d]);
  bool same = want.rank() == upd.rank();
  for (int d = 0; same && d < want.rank(); ++d) same = !KnownNotEqual(want[d], upd[d]);
  if (!same) {
    return c.Errorf(
        "updates %s must be %s (indices' dims but the last, then data's dims after the indexed "
        "ones)",
        c.TypeStr(2).c_str(), ShapeStr(want).c_str());
  }
  c.out(0) = data;
  return Status::Ok();
}

template <class D>
Status InferTopK(InferContext<D>& c) {
  const ShapeT<D>& x = c.in(0);
  int axis;
  if (x.rank() == 0) return c.Error("x must have rank >= 1");
  if (!NormalizeAxis(c.attrs->GetInt("axis"), x.rank(), &axis)) {
    return c.Errorf("axis %lld is out of range for %s",
                    static_cast<long long>(c.attrs->GetInt("axis")), c.TypeStr(0).c_str());
  }
  std::vector<int64_t> k;
  bool known;
  int64_t count;
  TFN_RETURN_IF_ERROR(IntsFromInput(c, 1, &k, &known, &count));
  if (count == 0 || count > 1)
    return c.Errorf("k must hold one value, got %s", c.TypeStr(1).c_str());
  c.out_types[0] = c.type(0);
  c.out_types[1] = DType::kInt64;
  ShapeT<D> out = x;
  if (!known) {
    out[axis] = c.fresh_dim();
  } else {
    if (k[0] < 0 || (IsKnown(x[axis]) && k[0] > KnownValue(x[axis]))) {
      return c.Errorf("k = %lld must be in [0, %s] (the size of axis %lld of %s)",
                      static_cast<long long>(k[0]), DimToString(x[axis]).c_str(),
                      static_cast<long long>(axis), c.TypeStr(0).c_str());
    }
    out[axis] = D(k[0]);
  }
  c.out(0) = out;
  c.out(1) = out;
  return Status::Ok();
}

template <class D>
Status InferNonZero(InferContext<D>& c) {
  const ConstTensor* x = c.value(0);
  if (!x) {
    c.out(0) = ShapeT<D>{D(c.in(0).rank()), c.fresh_dim()};
    return Status::Ok();
  }
  int64_t count = 0;
  for (int64_t i = 0; i < x->num_elements(); ++i) count += x->ElementAsDouble(i) != 0;
  c.out(0) = ShapeT<D>{D(c.in(0).rank()), D(count)};
  return Status::Ok();
}

// Three-way comparison of two elements as unique orders them: by value, NaN
// after every number and equal to NaN (so all NaNs form one item).
inline int CompareForUnique(double a, double b) {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) return na == nb ? 0 : na ? 1 : -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

// How unique splits x into items: `items` of `outer` x `inner` elements each,
// item j made of x[o, j, i] (the flattened x: one item per element).
struct UniqueLayout {
  int64_t items = 0, outer = 1, inner = 1;
};

// Counts the distinct items of x (values known: at run time or a constant).
inline int64_t CountUniqueItems(const ConstTensor& x, const UniqueLayout& l) {
  const bool ints = IsInteger(x.dtype);  // int64 values beyond 2^53 do not fit a double
  auto compare = [&](int64_t a, int64_t b) {
    for (int64_t o = 0; o < l.outer; ++o) {
      for (int64_t i = 0; i < l.inner; ++i) {
        const int64_t ea = (o * l.items + a) * l.inner + i, eb = (o * l.items + b) * l.inner + i;
        int r;
        if (ints) {
          const int64_t va = x.ElementAsInt(ea), vb = x.ElementAsInt(eb);
          r = va < vb ? -1 : va > vb ? 1 : 0;
        } else {
          r = CompareForUnique(x.ElementAsDouble(ea), x.ElementAsDouble(eb));
        }
        if (r != 0) return r;
      }
    }
    return 0;
  };
  std::vector<int64_t> order(static_cast<size_t>(l.items));
  for (int64_t j = 0; j < l.items; ++j) order[static_cast<size_t>(j)] = j;
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return compare(a, b) < 0; });
  int64_t count = 0;
  for (size_t k = 0; k < order.size(); ++k) count += k == 0 || compare(order[k - 1], order[k]) != 0;
  return count;
}

template <class D>
Status InferUnique(InferContext<D>& c) {
  const ShapeT<D>& x = c.in(0);
  std::vector<int64_t> axes = c.attrs->GetInts("axis");
  if (axes.size() > 1) return c.Error("axis holds at most one axis, got " + IntsToString(axes));
  int axis = -1;
  if (!axes.empty() && !NormalizeAxis(axes[0], x.rank(), &axis)) {
    return c.Errorf("axis %lld is out of range for %s", static_cast<long long>(axes[0]),
                    c.TypeStr(0).c_str());
  }
  c.out_types[0] = c.type(0);
  for (int o = 1; o < 4; ++o) c.out_types[o] = DType::kInt64;
  D items = axis < 0 ? ProductOf(x) : x[axis];
  D count;
  if (const ConstTensor* t = c.value(0)) {
    UniqueLayout l;
    l.items = t->num_elements();
    if (axis >= 0) {
      l.items = t->shape[axis];
      for (int d = 0; d < axis; ++d) l.outer *= t->shape[d];
      for (int d = axis + 1; d < t->shape.rank(); ++d) l.inner *= t->shape[d];
    }
    // A dim of 0 elsewhere leaves items with no elements: all equal.
    count = D(l.outer * l.inner == 0 ? (l.items > 0 ? 1 : 0) : CountUniqueItems(*t, l));
  } else {
    count = c.fresh_dim();  // one symbol for the outputs that share it
  }
  ShapeT<D> y = axis < 0 ? ShapeT<D>{count} : x;
  if (axis >= 0) y[axis] = count;
  c.out(0) = y;
  c.out(1) = ShapeT<D>{count};
  c.out(2) = ShapeT<D>{items};
  c.out(3) = ShapeT<D>{count};
  return Status::Ok();
}

}  // namespace tfn::rules
