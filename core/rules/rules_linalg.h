// Shape rules of matmul, reductions and normalizations.
#pragma once

#include <string>
#include <vector>

#include "core/rules/rules_basic.h"

namespace tfn::rules {

// matmul's shape rule on inputs a_i and b_i, so the quantized matmuls share
// it; `b_shape`, when given, is the [K, N] shape of a prepacked input b_i.
template <class D>
Status MatMulShape(InferContext<D>& c, int a_i, int b_i, const ShapeT<D>* b_shape = nullptr) {
  const ShapeT<D>& a = c.in(a_i);
  const ShapeT<D>& b = b_shape ? *b_shape : c.in(b_i);
  if (a.rank() < 2 || b.rank() < 2) {
    return c.Errorf(
        "inputs must have rank >= 2: a is %s, b is %s (use reshape or expand_dims for "
        "vectors)",
        c.TypeStr(a_i).c_str(), c.TypeStr(b_i).c_str());
  }
  bool ta = c.attrs->GetInt("transpose_a") != 0, tb = c.attrs->GetInt("transpose_b") != 0;
  D m = ta ? a[a.rank() - 1] : a[a.rank() - 2];
  D ka = ta ? a[a.rank() - 2] : a[a.rank() - 1];
  D kb = tb ? b[b.rank() - 1] : b[b.rank() - 2];
  D n = tb ? b[b.rank() - 2] : b[b.rank() - 1];
  if (KnownNotEqual(ka, kb)) {
    return c.Errorf("inner dimensions differ: a is %s, b is %s%s", c.TypeStr(a_i).c_str(),
                    c.TypeStr(b_i).c_str(),
                    !ta && !tb ? ""
                    : ta && tb ? " (with transpose_a=1, transpose_b=1)"
                    : ta       ? " (with transpose_a=1, transpose_b=0)"
                               : " (with transpose_a=0, transpose_b=1)");
  }
  ShapeT<D> batch_a(a.begin(), a.end() - 2), batch_b(b.begin(), b.end() - 2), batch;
  if (!BroadcastShapes(batch_a, batch_b, &batch)) {
    return c.Errorf("batch dimensions cannot be broadcast: a is %s, b is %s",
                    c.TypeStr(a_i).c_str(), c.TypeStr(b_i).c_str());
  }
  batch.push_back(m);
  batch.push_back(n);
  c.out(0) = batch;
  return Status::Ok();
}

template <class D>
Status InferMatMul(InferContext<D>& c) {
  return MatMulShape(c, 0, 1);
}

// Normalized, sorted, duplicate-free axes of the given list; empty means all.
template <class D>
Status ReduceAxes(const InferContext<D>& c, const std::vector<int64_t>& given, int rank,
                  std::vector<int>* axes) {
  std::vector<bool> seen(rank, false);
  axes->clear();
  if (given.empty()) {
    for (int i = 0; i < rank; ++i) axes->push_back(i);
    return Status::Ok();
  }
  for (int64_t a : given) {
    int n;
    if (!NormalizeAxis(a, rank, &n)) {
      return c.Errorf("axis %lld is out of range for %s (expected -%lld <= axis < %lld)",
                      static_cast<long long>(a), c.TypeStr(0).c_str(), static_cast<long long>(rank),
                      static_cast<long long>(rank));
    }
    if (seen[n]) return c.Errorf("axis %lld is listed twice", static_cast<long long>(a));
    seen[n] = true;
  }
  for (int i = 0; i < rank; ++i) {
    if (seen[i]) axes->push_back(i);
  }
  return Status::Ok();
}

// The axes are the "axes" attribute or input 1. Input 1's values are known at
// run time; while only its length is (symbolic inference), the reduced dims
// are unknown: every dim not statically 1 becomes a fresh one.
template <class D>
Status InferReduce(InferContext<D>& c) {
  const ShapeT<D>& x = c.in(0);
  std::vector<int64_t> given = c.attrs->GetInts("axes");
  bool keep = c.attrs->GetInt("keepdims") != 0;
  if (c.num_inputs > 1) {
    if (!given.empty()) return c.Error("axes are given both as the attribute and as input 1");
    bool known;
    int64_t count;
    TFN_RETURN_IF_ERROR(IntsFromInput(c, 1, &given, &known, &count));
    if (!known) {
      if (!keep && (count < 0 || count > x.rank())) {
        return c.Errorf("without keepdims, axes %s needs a static length <= %lld",
                        c.TypeStr(1).c_str(), static_cast<long long>(x.rank()));
      }
      ShapeT<D> out;
      for (int i = 0; i < x.rank() - (keep ? 0 : count); ++i) {
        bool one = keep && IsKnown(x[i]) && KnownValue(x[i]) == 1;
        out.push_back(one ? D(1) : c.fresh_dim());
      }
      c.out(0) = out;
      return Status::Ok();
    }
  }
  std::vector<int> axes;
  TFN_RETURN_IF_ERROR(ReduceAxes(c, given, x.rank(), &axes));
  ShapeT<D> out;
  size_t k = 0;
  for (int i = 0; i < x.rank(); ++i) {
    bool reduced = k < axes.size() && axes[k] == i;
    if (reduced) ++k;
    if (!reduced) {
      out.push_back(x[i]);
    } else if (keep) {
      out.push_back(D(1));
    }
  }
  c.out(0) = out;
  return Status::Ok();
}

template <class D>
Status InferArgReduce(InferContext<D>& c) {
  const ShapeT<D>& x = c.in(0);
  int axis;
  if (!NormalizeAxis(c.attrs->GetInt("axis"), x.rank(), &axis)) {
    return c.Errorf("axis %lld is out of range for %s",
                    static_cast<long long>(c.attrs->GetInt("axis")), c.TypeStr(0).c_str());
  }
  if (IsKnown(x[axis]) && KnownValue(x[axis]) == 0) {
    return c.Errorf("cannot take the arg of an empty axis: x is %s", c.TypeStr(0).c_str());
  }
  ShapeT<D> out = x;
  if (c.attrs->GetInt("keepdims") != 0) {
    out[axis] = D(1);
  } else {
    out.erase(axis);
  }
  c.out(0) = out;
  return Status::Ok();
}

// cumsum keeps x's shape; its axis is an int scalar input, checked when known.
template <class D>
Status InferCumSum(InferContext<D>& c) {
  const ShapeT<D>& x = c.in(0);
  const ShapeT<D>& axis = c.in(1);
  bool scalar =
      axis.rank() == 0 || (axis.rank() == 1 && IsKnown(axis[0]) && KnownValue(axis[0]) == 1);
  if (!scalar) return c.Errorf("axis must be a scalar, got %s", c.TypeStr(1).c_str());
  if (x.rank() == 0) return c.Errorf("x must have rank >= 1, got %s", c.TypeStr(0).c_str());
  if (const ConstTensor* v = c.value(1)) {
    int n;
    if (!NormalizeAxis(v->ElementAsInt(0), x.rank(), &n)) {
      return c.Errorf("axis %lld is out of range for %s",
                      static_cast<long long>(v->ElementAsInt(0)), c.TypeStr(0).c_str());
    }
  }
  c.out(0) = x;
  return Status::Ok();
}

template <class D>
Status InferSoftmax(InferContext<D>& c) {
  int axis;
  if (!NormalizeAxis(c.attrs->GetInt("axis"), c.in(0).rank(), &axis)) {
    return c.Errorf("axis %lld is out of range for %s",
                    static_cast<long long>(c.attrs->GetInt("axis")), c.TypeStr(0).c_str());
  }
  c.out(0) = c.in(0);
  return Status::Ok();
}

// layer_norm normalizes over dims [axis, rank); scale and bias have exactly those dims.
template <class D>
Status InferLayerNorm(InferContext<D>& c) {
  const ShapeT<D>& x = c.in(0);
  int axis;
  if (!NormalizeAxis(c.attrs->GetInt("axis"), x.rank(), &axis)) {
    return c.Errorf("axis %lld is out of range for %s",
                    static_cast<long long>(c.attrs->GetInt("axis")), c.TypeStr(0).c_str());
  }
  ShapeT<D> norm(x.begin() + axis, x.end());
  for (int i = 1; i < 3; ++i) {
    const ShapeT<D>& p = c.in(i);
    bool ok = p.rank() == norm.rank();
    for (int d = 0; ok && d < p.rank(); ++d) ok = !KnownNotEqual(p[d], norm[d]);
    if (!ok) {
      return c.Error(std::string(c.InputName(i)) + " must have the normalized shape " +
                     ShapeStr(norm) + " of x " + c.TypeStr(0) + ", got " + c.TypeStr(i));
    }
  }
  c.out(0) = x;
  return Status::Ok();
}

}  // namespace tfn::rules
