// Shape rules of the shape-manipulation ops.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "core/rules/rules_basic.h"

namespace tfn::rules {

template <class D>
D ProductOf(const ShapeT<D>& s) {
  D p(1);
  for (const D& d : s) p = p * d;
  return p;
}

inline std::string IntsToString(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

template <class D>
Status InferReshape(InferContext<D>& c) {
  const ShapeT<D>& x = c.in(0);
  std::vector<int64_t> target = c.attrs->GetInts("shape");
  bool copy_zero = c.attrs->GetInt("copy_zero") != 0;
  if (c.num_inputs > 1) {  // the target is input 1 (data-dependent)
    if (!target.empty()) return c.Error("the shape is given both as the attribute and as input 1");
    bool known;
    int64_t count;
    TFN_RETURN_IF_ERROR(IntsFromInput(c, 1, &target, &known, &count));
    if (count < 0 || count > kMaxRank) {
      return c.Errorf("shape %s needs a static length <= %lld", c.TypeStr(1).c_str(),
                      static_cast<long long>(kMaxRank));
    }
    if (!known) {  // symbolic: a 1-D result keeps the element count, others get new dims
      ShapeT<D> out;
      if constexpr (std::is_same_v<D, SymDim>) {
        const std::string dims = c.attrs->GetString("dims");
        if (!dims.empty()) {
          TFN_RETURN_IF_ERROR(ParseTargetDims(c, dims, count, "the shape input", &out));
          c.out(0) = out;
          return Status::Ok();
        }
      }
      for (int64_t i = 0; i < count; ++i) out.push_back(count == 1 ? ProductOf(x) : c.fresh_dim());
      c.out(0) = out;
      return Status::Ok();
    }
  }
  // Run-time values and the attributes of a loaded bundle are untrusted: no
  // overflow below (fuzz_bundle found an attribute whose product overflowed).
  int64_t product = 1;
  for (size_t i = 0; i < target.size(); ++i) {
    int64_t t = target[i];
    if (t == 0 && copy_zero && static_cast<int>(i) < x.rank() && IsKnown(x[static_cast<int>(i)])) {
      t = KnownValue(x[static_cast<int>(i)]);  // a copied dim
    }
    if (t > 0 && product > INT64_MAX / t) {
      return c.Error("shape " + IntsToString(target) + " has too many elements");
    }
    if (t > 0) product *= t;
  }
  if (static_cast<int>(target.size()) > kMaxRank) return c.Error("target rank above the maximum");
  ShapeT<D> out;
  int infer_at = -1;
  D known(1);
  for (size_t i = 0; i < target.size(); ++i) {
    int64_t t = target[i];
    if (t == -1) {
      if (infer_at >= 0) return c.Error("shape " + IntsToString(target) + " has more than one -1");
      infer_at = static_cast<int>(i);
      out.push_back(D(1));
      continue;
    }
    if (t < -1) return c.Error("shape " + IntsToString(target) + " has a negative dim");
    D d(t);
    if (t == 0 && copy_zero) {
      if (static_cast<int>(i) >= x.rank()) {
        return c.Error("shape " + IntsToString(target) + " copies dim " + std::to_string(i) +
                       " but x is " + c.TypeStr(0));
      }
      d = x[static_cast<int>(i)];
    }
    out.push_back(d);
    known = known * d;
  }
  D total = ProductOf(x);
  if (infer_at >= 0) {
    if (IsKnown(known) && KnownValue(known) == 0) {
      return c.Error("cannot infer the -1 in " + IntsToString(target) +
                     " because the other dims have 0 elements");
    }
    if (IsKnown(total) && IsKnown(known) && KnownValue(total) % KnownValue(known) != 0) {
      return c.Error("cannot reshape " + c.TypeStr(0) + " into " + IntsToString(target) + ": " +
                     DimToString(total) + " elements are not a multiple of " + DimToString(known));
    }
    out[infer_at] = FloorDiv(total, known);
  } else if (KnownNotEqual(total, known)) {
    return c.Error("cannot reshape " + c.TypeStr(0) + " (" + DimToString(total) +
                   " elements) into " + IntsToString(target) + " (" + DimToString(known) +
                   " elements)");
  }
  c.out(0) = out;
  return Status::Ok();
}

template <class D>
Status InferTranspose(InferContext<D>& c) {
  const ShapeT<D>& x = c.in(0);
  std::vector<int64_t> perm = c.attrs->GetInts("perm");
  if (perm.empty()) {
    for (int i = x.rank() - 1; i >= 0; --i) perm.push_back(i);
  }
  if (static_cast<int>(perm.size()) != x.rank()) {
    return c.Error("perm " + IntsToString(perm) + " has " + std::to_string(perm.size()) +
                   " entries but x is " + c.TypeStr(0));
  }
  std::vector<bool> seen(x.rank(), false);
  ShapeT<D> out;
  for (int64_t p : perm) {
    int a;
    if (!NormalizeAxis(p, x.rank(), &a) || seen[a]) {
      return c.Error("perm " + IntsToString(perm) + " is not a permutation of 0.." +
                     std::to_string(x.rank() - 1));
    }
    seen[a] = true;
    out.push_back(x[a]);
  }
  c.out(0) = out;
  return Status::Ok();
}

template <class D>
Status InferExpandDims(InferContext<D>& c) {
  ShapeT<D> out = c.in(0);
  int axis;
  if (out.rank() >= kMaxRank) return c.Error("x already has the maximum rank");
  if (!NormalizeAxis(c.attrs->GetInt("axis"), out.rank() + 1, &axis)) {
    return c.Errorf("axis %lld is out of range for %s (expected -%lld <= axis <= %lld)",
                    static_cast<long long>(c.attrs->GetInt("axis")), c.TypeStr(0).c_str(),
                    static_cast<long long>(out.rank() + 1), static_cast<long long>(out.rank()));
  }
  out.insert(axis, D(1));
  c.out(0) = out;
  return Status::Ok();
}

template <class D>
Status InferSqueeze(InferContext<D>& c) {
  const ShapeT<D>& x = c.in(0);
  std::vector<int64_t> axes = c.attrs->GetInts("axes");
  std::vector<bool> drop(x.rank(), false);
  if (axes.empty()) {
    for (int i = 0; i < x.rank(); ++i) drop[i] = IsKnown(x[i]) && KnownValue(x[i]) == 1;
  }
  for (int64_t a : axes) {
    int n;
    if (!NormalizeAxis(a, x.rank(), &n)) {
      return c.Errorf("axis %lld is out of range for %s", static_cast<long long>(a),
                      c.TypeStr(0).c_str());
    }
    if (KnownNotEqual(x[n], D(1))) {
      return c.Errorf("cannot squeeze axis %lld of %s: its size is not 1",
                      static_cast<long long>(a), c.TypeStr(0).c_str());
    }
    drop[n] = true;
  }
  ShapeT<D> out;
  for (int i = 0; i < x.rank(); ++i) {
    if (!drop[i]) out.push_back(x[i]);
  }
  c.out(0) = out;
  return Status::Ok();
}

template <class D>
Status InferConcat(InferContext<D>& c) {
  const ShapeT<D>& first = c.in(0);
  if (first.rank() == 0) return c.Error("cannot concatenate scalars; expand_dims them first");
  int axis;
  if (!NormalizeAxis(c.attrs->GetInt("axis"), first.rank(), &axis)) {
    return c.Errorf("axis %lld is out of range for %s",
                    static_cast<long long>(c.attrs->GetInt("axis")), c.TypeStr(0).c_str());
  }
  ShapeT<D> out = first;
  for (int i = 1; i < c.num_inputs; ++i) {
    const ShapeT<D>& s = c.in(i);
    bool ok = s.rank() == first.rank();
    for (int d = 0; ok && d < s.rank(); ++d) {
      if (d == axis) continue;
      if (KnownNotEqual(s[d], out[d])) ok = false;
      if (ok && !IsKnown(out[d]) && IsKnown(s[d])) out[d] = s[d];
    }
    if (!ok) {
      return c.Errorf("input %lld is %s but input 0 is %s; all dims except axis %lld must match",
                      static_cast<long long>(i), c.TypeStr(i).c_str(), c.TypeStr(0).c_str(),
                      static_cast<long long>(axis));
    }
    out[axis] = out[axis] + s[axis];
  }
  c.out(0) = out;
  return Status::Ok();
}

template <class D>
Status InferSplit(InferContext<D>& c) {
  const ShapeT<D>& x = c.in(0);
  int axis;
  if (!NormalizeAxis(c.attrs->GetInt("axis"), x.rank(), &axis)) {
    return c.Errorf("axis %lld is out of range for %s",
                    static_cast<long long>(c.attrs->GetInt("axis")), c.TypeStr(0).c_str());
  }
  std::vector<int64_t> sizes = c.attrs->GetInts("sizes");
  D dim = x[axis];
  if (c.num_inputs > 1) {  // the sizes are input 1 (data-dependent)
    if (!sizes.empty()) return c.Error("the sizes are given both as the attribute and as input 1");
    bool known;
    int64_t count;
    TFN_RETURN_IF_ERROR(IntsFromInput(c, 1, &sizes, &known, &count));
    if (count != c.num_outputs) {
      return c.Errorf("sizes %s need one entry per output (num_splits = %lld)",
                      c.TypeStr(1).c_str(), static_cast<long long>(c.num_outputs));
    }
    if (!known) {  // symbolic: each output's axis is a new dim
      for (int i = 0; i < c.num_outputs; ++i) {
        c.out(i) = x;
        c.out(i)[axis] = c.fresh_dim();
      }
      return Status::Ok();
    }
    if (sizes.empty()) return c.Error("sizes must not be empty");
    int64_t total = 0;  // run-time values are untrusted: no overflow in the sum below
    for (int64_t v : sizes) {
      if (v < 0 || v > (int64_t{1} << 62) - total) {
        return c.Error("sizes " + IntsToString(sizes) + " must be >= 0 and add up to axis " +
                       std::to_string(axis) + " of " + c.TypeStr(0));
      }
      total += v;
    }
  }
  if (sizes.empty()) {
    int64_t n = c.attrs->GetInt("num_splits");
    if (n <= 0) return c.Error("give either 'sizes' or a positive 'num_splits'");
    if (IsKnown(dim) && KnownValue(dim) % n != 0) {
      return c.Errorf("axis %lld of %s does not split into %lld equal parts",
                      static_cast<long long>(axis), c.TypeStr(0).c_str(),
                      static_cast<long long>(n));
    }
    for (int i = 0; i < c.num_outputs; ++i) {
      c.out(i) = x;
      c.out(i)[axis] = FloorDiv(dim, D(n));
    }
    return Status::Ok();
  }
  int infer_at = -1;
  D known(0);
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1 && infer_at < 0) {
      infer_at = static_cast<int>(i);
    } else if (sizes[i] < 0) {
      return c.Error("sizes " + IntsToString(sizes) + " may hold one -1 and otherwise dims >= 0");
    } else {
      known = known + D(sizes[i]);
    }
  }
  D rest = dim - known;
  if (infer_at < 0 ? KnownNotEqual(rest, D(0)) : (IsKnown(rest) && KnownValue(rest) < 0)) {
    return c.Error("sizes " + IntsToString(sizes) + " do not add up to axis " +
                   std::to_string(axis) + " of " + c.TypeStr(0));
  }
  for (int i = 0; i < c.num_outputs; ++i) {
    c.out(i) = x;
    c.out(i)[axis] = i == infer_at ? rest : D(sizes[i]);
  }
  return Status::Ok();
}

// Python slicing of one dim: begin/end clamp, negative values count from the
// end, |v| >= 2^62 means "open". Returns the length.
template <class D>
D SliceLength(const D& n, int64_t begin, int64_t end, int64_t stride) {
  constexpr int64_t kOpen = int64_t{1} << 62;
  if (stride > 0) {
    D b = begin >= kOpen    ? n
          : begin <= -kOpen ? D(0)
          : begin < 0       ? Max(n + D(begin), D(0))
                            : Min(D(begin), n);
    D e = end >= kOpen    ? n
          : end <= -kOpen ? D(0)
          : end < 0       ? Max(n + D(end), D(0))
                          : Min(D(end), n);
    return Max(CeilDiv(e - b, D(stride)), D(0));
  }
  // Negative stride: begin clamps to [-1, n-1], end to [-1, n-1].
  D b = begin >= kOpen    ? n - D(1)
        : begin <= -kOpen ? D(-1)
        : begin < 0       ? Max(n + D(begin), D(-1))
                          : Min(D(begin), n - D(1));
  D e = end >= kOpen    ? n - D(1)
        : end <= -kOpen ? D(-1)
        : end < 0       ? Max(n + D(end), D(-1))
                        : Min(D(end), n - D(1));
  return Max(CeilDiv(b - e, D(-stride)), D(0));
}

template <class D>
Status InferSlice(InferContext<D>& c) {
  const ShapeT<D>& x = c.in(0);
  std::vector<int64_t> begin = c.attrs->GetInts("begin"), end = c.attrs->GetInts("end");
  std::vector<int64_t> strides = c.attrs->GetInts("strides");
  size_t r = static_cast<size_t>(x.rank());
  if (c.num_inputs > 1) {  // begin, end (and strides) are inputs (data-dependent)
    if (c.num_inputs < 3 || !begin.empty() || !end.empty() || !strides.empty()) {
      return c.Error(
          "give begin, end and strides all as attributes or as inputs 1-3 (strides "
          "optional)");
    }
    std::vector<int64_t>* lists[3] = {&begin, &end, &strides};
    bool all_known = true;
    for (int i = 1; i < c.num_inputs; ++i) {
      bool known;
      int64_t count;
      TFN_RETURN_IF_ERROR(IntsFromInput(c, i, lists[i - 1], &known, &count));
      if (count >= 0 && count != x.rank()) {
        return c.Error(std::string(c.InputName(i)) + " " + c.TypeStr(i) +
                       " needs one entry per dim of " + c.TypeStr(0));
      }
      all_known &= known;
    }
    if (!all_known) {  // symbolic: every dim may change, unless "dims" says them
      ShapeT<D> out;
      if constexpr (std::is_same_v<D, SymDim>) {
        const std::string dims = c.attrs->GetString("dims");
        if (!dims.empty()) {
          TFN_RETURN_IF_ERROR(ParseTargetDims(c, dims, x.rank(), "the input's rank is", &out));
          c.out(0) = out;
          return Status::Ok();
        }
      }
      for (size_t i = 0; i < r; ++i) out.push_back(c.fresh_dim());
      c.out(0) = out;
      return Status::Ok();
    }
  }
  if (begin.size() != r || end.size() != r || (!strides.empty() && strides.size() != r)) {
    return c.Error("begin, end and strides need one entry per dim of " + c.TypeStr(0) +
                   ", got begin " + IntsToString(begin) + ", end " + IntsToString(end) +
                   ", strides " + IntsToString(strides));
  }
  ShapeT<D> out;
  for (size_t i = 0; i < r; ++i) {
    int64_t s = strides.empty() ? 1 : strides[i];
    if (s == 0) return c.Error("strides must not be 0");
    if (s == INT64_MIN) return c.Error("stride -2^63 cannot be negated; use a smaller stride");
    out.push_back(SliceLength(x[static_cast<int>(i)], begin[i], end[i], s));
  }
  c.out(0) = out;
  return Status::Ok();
}

template <class D>
Status InferGather(InferContext<D>& c) {
  const ShapeT<D>& p = c.in(0);
  const ShapeT<D>& idx = c.in(1);
  int axis;
  if (!NormalizeAxis(c.attrs->GetInt("axis"), p.rank(), &axis)) {
    return c.Errorf("axis %lld is out of range for %s",
                    static_cast<long long>(c.attrs->GetInt("axis")), c.TypeStr(0).c_str());
  }
  if (p.rank() - 1 + idx.rank() > kMaxRank) return c.Error("result rank above the maximum");
  ShapeT<D> out;
  for (int i = 0; i < axis; ++i) out.push_back(p[i]);
  for (const D& d : idx) out.push_back(d);
  for (int i = axis + 1; i < p.rank(); ++i) out.push_back(p[i]);
  c.out(0) = out;
  return Status::Ok();
}

template <class D>
Status InferPad(InferContext<D>& c) {
  const ShapeT<D>& x = c.in(0);
  std::vector<int64_t> pads = c.attrs->GetInts("paddings");
  std::string mode = c.attrs->GetString("mode");
  if (mode != "constant" && mode != "reflect" && mode != "edge") {
    return c.Error("mode '" + mode + "' is not one of constant, reflect, edge");
  }
  if (c.num_inputs > 2 && c.in(2).rank() != 0) {
    return c.Errorf("constant_value must be a scalar, got %s", c.TypeStr(2).c_str());
  }
  if (c.num_inputs > 1) {  // the paddings are input 1 (data-dependent)
    if (!pads.empty())
      return c.Error("the paddings are given both as the attribute and as input 1");
    bool known;
    int64_t count;
    TFN_RETURN_IF_ERROR(IntsFromInput(c, 1, &pads, &known, &count));
    if (!known) {  // symbolic: every dim may change
      if (count != 2 * x.rank()) {
        return c.Errorf("paddings %s need 2 entries (before, after) per dim of %s",
                        c.TypeStr(1).c_str(), c.TypeStr(0).c_str());
      }
      ShapeT<D> out;
      for (int i = 0; i < x.rank(); ++i) out.push_back(c.fresh_dim());
      c.out(0) = out;
      return Status::Ok();
    }
  }
  if (pads.size() != 2 * static_cast<size_t>(x.rank())) {
    return c.Error("paddings " + IntsToString(pads) +
                   " need 2 entries (before, after) per dim of " + c.TypeStr(0));
  }
  ShapeT<D> out;
  for (int i = 0; i < x.rank(); ++i) {
    int64_t lo = pads[2 * i], hi = pads[2 * i + 1];
    if (lo < 0 || hi < 0) return c.Error("paddings must be >= 0, got " + IntsToString(pads));
    if (mode == "reflect" && IsKnown(x[i]) && (KnownValue(x[i]) <= lo || KnownValue(x[i]) <= hi)) {
      return c.Errorf("reflect padding of dim %lld needs pads < its size %s",
                      static_cast<long long>(i), DimToString(x[i]).c_str());
    }
    if (mode == "edge" && IsKnown(x[i]) && KnownValue(x[i]) == 0 && (lo || hi)) {
      return c.Error("edge padding of an empty dim");
    }
    out.push_back(x[i] + D(lo + hi));
  }
  c.out(0) = out;
  return Status::Ok();
}

template <class D>
Status InferBroadcastTo(InferContext<D>& c) {
  ShapeT<D> target;
  TFN_RETURN_IF_ERROR(DimsFromInts(c, "shape", &target));
  if (c.num_inputs > 1) {  // the target is input 1 (data-dependent)
    if (target.rank() > 0)
      return c.Error("the shape is given both as the attribute and as input 1");
    std::vector<int64_t> dims;
    bool known;
    int64_t count;
    TFN_RETURN_IF_ERROR(IntsFromInput(c, 1, &dims, &known, &count));
    if (!known) {  // symbolic: x's dims where the target does not reach, fresh ones elsewhere
      if (count < 0 || count > kMaxRank) {
        return c.Errorf("shape %s needs a static length <= %lld", c.TypeStr(1).c_str(),
                        static_cast<long long>(kMaxRank));
      }
      const ShapeT<D>& x = c.in(0);
      if constexpr (std::is_same_v<D, SymDim>) {
        const std::string text = c.attrs->GetString("dims");
        if (!text.empty()) {  // the target's values as dims (rules_shape.h, reshape)
          TFN_RETURN_IF_ERROR(ParseTargetDims(c, text, count, "the shape input", &target));
          ShapeT<D> out;
          if (!BroadcastShapes(x, target, &out)) {
            return c.Errorf("cannot broadcast %s to %s", c.TypeStr(0).c_str(),
                            ShapeStr(target).c_str());
          }
          c.out(0) = out;
          return Status::Ok();
        }
      }
      ShapeT<D> out;
      int rank = x.rank() > count ? x.rank() : static_cast<int>(count);
      for (int i = 0; i < rank; ++i) out.push_back(i < x.rank() - count ? x[i] : c.fresh_dim());
      c.out(0) = out;
      return Status::Ok();
    }
    if (static_cast<int>(dims.size()) > kMaxRank) return c.Error("shape has rank above 8");
    for (int64_t d : dims) {
      if (d < 0) return c.Error("shape " + IntsToString(dims) + " has a negative dim");
      target.push_back(D(d));
    }
  }
  ShapeT<D> out;
  if (!BroadcastShapes(c.in(0), target, &out)) {
    return c.Errorf("cannot broadcast %s to %s", c.TypeStr(0).c_str(), ShapeStr(target).c_str());
  }
  c.out(0) = out;
  return Status::Ok();
}

template <class D>
Status InferTile(InferContext<D>& c) {
  const ShapeT<D>& x = c.in(0);
  std::vector<int64_t> m = c.attrs->GetInts("multiples");
  if (c.num_inputs > 1) {  // the multiples are input 1 (data-dependent)
    if (!m.empty()) return c.Error("the multiples are given both as the attribute and as input 1");
    bool known;
    int64_t count;
    TFN_RETURN_IF_ERROR(IntsFromInput(c, 1, &m, &known, &count));
    if (count != x.rank()) {
      return c.Errorf("multiples %s need one entry per dim of %s", c.TypeStr(1).c_str(),
                      c.TypeStr(0).c_str());
    }
    if (!known) {  // symbolic: every dim may change
      ShapeT<D> out;
      for (int i = 0; i < x.rank(); ++i) out.push_back(c.fresh_dim());
      c.out(0) = out;
      return Status::Ok();
    }
  }
  if (m.size() != static_cast<size_t>(x.rank())) {
    return c.Error("multiples " + IntsToString(m) + " need one entry per dim of " + c.TypeStr(0));
  }
  ShapeT<D> out;
  for (int i = 0; i < x.rank(); ++i) {
    if (m[i] < 0) return c.Error("multiples must be >= 0, got " + IntsToString(m));
    if (IsKnown(x[i]) && m[i] > 0 && KnownValue(x[i]) > INT64_MAX / m[i]) {
      return c.Error("multiples " + IntsToString(m) + " overflow dim " + std::to_string(i) +
                     " of " + c.TypeStr(0));
    }
    out.push_back(x[i] * D(m[i]));
  }
  c.out(0) = out;
  return Status::Ok();
}

}  // namespace tfn::rules
