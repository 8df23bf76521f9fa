// Shape rules of matmul, reductions and normalizations.
#pragma once

#include <string>
#include <vector>

#include "core/rules/rules_basic.h"

namespace tfn::rules {

template <class D>
Status InferMatMul(InferContext<D>& c) {
  const ShapeT<D>& a = c.in(0);
  const ShapeT<D>& b = c.in(1);
  if (a.rank() < 2 || b.rank() < 2) {
    return c.Error("inputs must have rank >= 2: a is " + c.TypeStr(0) + ", b is " + c.TypeStr(1) +
                   " (use reshape or expand_dims for vectors)");
  }
  bool ta = c.attrs->GetInt("transpose_a") != 0, tb = c.attrs->GetInt("transpose_b") != 0;
  D m = ta ? a[a.rank() - 1] : a[a.rank() - 2];
  D ka = ta ? a[a.rank() - 2] : a[a.rank() - 1];
  D kb = tb ? b[b.rank() - 1] : b[b.rank() - 2];
  D n = tb ? b[b.rank() - 2] : b[b.rank() - 1];
  if (KnownNotEqual(ka, kb)) {
    return c.Error("inner dimensions differ: a is " + c.TypeStr(0) + ", b is " + c.TypeStr(1) +
                   (ta || tb ? std::string(" (with transpose_a=") + (ta ? "1" : "0") +
                                   ", transpose_b=" + (tb ? "1" : "0") + ")"
                             : std::string()));
  }
  ShapeT<D> batch_a(a.begin(), a.end() - 2), batch_b(b.begin(), b.end() - 2), batch;
  if (!BroadcastShapes(batch_a, batch_b, &batch)) {
    return c.Error("batch dimensions cannot be broadcast: a is " + c.TypeStr(0) + ", b is " +
                   c.TypeStr(1));
  }
  batch.push_back(m);
  batch.push_back(n);
  c.out(0) = batch;
  return Status::Ok();
}

// Normalized, sorted, duplicate-free axes of an "axes" attribute; empty means all.
template <class D>
Status ReduceAxes(const InferContext<D>& c, int rank, std::vector<int>* axes) {
  std::vector<int64_t> given = c.attrs->GetInts("axes");
  std::vector<bool> seen(rank, false);
  axes->clear();
  if (given.empty()) {
    for (int i = 0; i < rank; ++i) axes->push_back(i);
    return Status::Ok();
  }
  for (int64_t a : given) {
    int n;
    if (!NormalizeAxis(a, rank, &n)) {
      return c.Error("axis " + std::to_string(a) + " is out of range for " + c.TypeStr(0) +
                     " (expected -" + std::to_string(rank) + " <= axis < " + std::to_string(rank) +
                     ")");
    }
    if (seen[n]) return c.Error("axis " + std::to_string(a) + " is listed twice");
    seen[n] = true;
  }
  for (int i = 0; i < rank; ++i) {
    if (seen[i]) axes->push_back(i);
  }
  return Status::Ok();
}

template <class D>
Status InferReduce(InferContext<D>& c) {
  const ShapeT<D>& x = c.in(0);
  std::vector<int> axes;
  TFN_RETURN_IF_ERROR(ReduceAxes(c, x.rank(), &axes));
  bool keep = c.attrs->GetInt("keepdims") != 0;
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
    return c.Error("axis " + std::to_string(c.attrs->GetInt("axis")) + " is out of range for " +
                   c.TypeStr(0));
  }
  if (IsKnown(x[axis]) && KnownValue(x[axis]) == 0) {
    return c.Error("cannot take the arg of an empty axis: x is " + c.TypeStr(0));
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

template <class D>
Status InferSoftmax(InferContext<D>& c) {
  int axis;
  if (!NormalizeAxis(c.attrs->GetInt("axis"), c.in(0).rank(), &axis)) {
    return c.Error("axis " + std::to_string(c.attrs->GetInt("axis")) + " is out of range for " +
                   c.TypeStr(0));
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
    return c.Error("axis " + std::to_string(c.attrs->GetInt("axis")) + " is out of range for " +
                   c.TypeStr(0));
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
