// Shape rules of structural, elementwise and factory ops.
// Each rule is a template over the dim type: int64_t at run time, SymDim in the IR.
#pragma once

#include <string>

#include "core/op_def.h"
#include "core/range_length.h"

namespace tfn::rules {

// Dims from an int list attribute, each checked >= 0.
template <class D>
Status DimsFromInts(const InferContext<D>& c, const char* attr, ShapeT<D>* out) {
  std::vector<int64_t> v = c.attrs->GetInts(attr);
  if (static_cast<int>(v.size()) > kMaxRank) {
    return c.Error(std::string("'") + attr + "' has rank " + std::to_string(v.size()) +
                   ", above the maximum rank " + std::to_string(kMaxRank));
  }
  *out = ShapeT<D>();
  for (int64_t d : v) {
    if (d < 0) {
      return c.Error(std::string("'") + attr + "' has a negative dim " + std::to_string(d) +
                     "; every dim must be >= 0");
    }
    out->push_back(D(d));
  }
  return Status::Ok();
}

// Input i as a list of ints (an int vector or scalar read by the shape rule):
// its values when known (always at run time, and when it is statically
// empty), else *known = false and *count = its static length (-1 when that is
// dynamic too).
template <class D>
Status IntsFromInput(const InferContext<D>& c, int i, std::vector<int64_t>* values, bool* known,
                     int64_t* count) {
  const ShapeT<D>& s = c.in(i);
  if (s.rank() > 1) {
    return c.Error(std::string(c.InputName(i)) + " must be a vector, got " + c.TypeStr(i));
  }
  *count = s.rank() == 0 ? 1 : IsKnown(s[0]) ? KnownValue(s[0]) : -1;
  const ConstTensor* t = c.value(i);
  *known = t != nullptr || *count == 0;  // an empty vector needs no values
  values->clear();
  for (int64_t k = 0; t && k < t->num_elements(); ++k) values->push_back(t->ElementAsInt(k));
  return Status::Ok();
}

// False when the shape is known to hold other than exactly one element.
template <class D>
bool MaybeOneElement(const ShapeT<D>& s) {
  for (const D& d : s) {
    if (KnownNotEqual(d, D(1))) return false;
  }
  return true;
}

// NumPy broadcasting of two shapes (aligned on the right).
template <class D>
bool BroadcastShapes(const ShapeT<D>& a, const ShapeT<D>& b, ShapeT<D>* out) {
  int rank = a.rank() > b.rank() ? a.rank() : b.rank();
  ShapeT<D> r = ShapeT<D>::Filled(rank, D(1));
  for (int i = 0; i < rank; ++i) {
    int ia = a.rank() - rank + i, ib = b.rank() - rank + i;
    D da = ia >= 0 ? a[ia] : D(1);
    D db = ib >= 0 ? b[ib] : D(1);
    bool a_one = IsKnown(da) && KnownValue(da) == 1;
    bool b_one = IsKnown(db) && KnownValue(db) == 1;
    if (!a_one && !b_one && KnownNotEqual(da, db)) return false;
    r[i] = BroadcastDim(da, db);
  }
  *out = r;
  return true;
}

template <class D>
Status InferExternal(InferContext<D>& c) {
  return Internal(std::string(c.def->name) + ": output types are given by the graph");
}

template <class D>
Status InferNoOutputs(InferContext<D>&) {
  return Status::Ok();
}

template <class D>
Status InferConstant(InferContext<D>& c) {
  const ConstTensor* t = c.attrs->GetTensor("value");
  if (!t) return c.Error("missing tensor attribute 'value'");
  c.out_types[0] = t->dtype;
  c.out(0) = ShapeT<D>(t->shape.begin(), t->shape.end());
  return Status::Ok();
}

template <class D>
Status InferVarRead(InferContext<D>& c) {
  return DimsFromInts(c, "shape", &c.out(0));
}

template <class D>
Status InferUnary(InferContext<D>& c) {
  for (int i = 0; i < c.num_outputs; ++i) c.out(i) = c.in(0);
  return Status::Ok();
}

template <class D>
Status InferBroadcast(InferContext<D>& c) {
  ShapeT<D> r = c.in(0);
  for (int i = 1; i < c.num_inputs; ++i) {
    ShapeT<D> next;
    if (!BroadcastShapes(r, c.in(i), &next)) {
      std::string args;
      for (int j = 0; j <= i; ++j) {
        args += std::string(j ? ", " : "") + c.InputName(j) + " is " + c.TypeStr(j);
      }
      return c.Error("shapes cannot be broadcast together: " + args +
                     " (NumPy rules: aligned on the right, each dim equal or 1)");
    }
    r = next;
  }
  c.out(0) = r;
  return Status::Ok();
}

template <class D>
Status InferShapeOp(InferContext<D>& c) {
  c.out(0) = ShapeT<D>{D(c.in(0).rank())};
  return Status::Ok();
}

template <class D>
Status InferSizeOp(InferContext<D>& c) {
  c.out(0) = ShapeT<D>();
  return Status::Ok();
}

template <class D>
Status InferFill(InferContext<D>& c) {
  return DimsFromInts(c, "shape", &c.out(0));
}

// reshape's, broadcast_to's, slice's and range's "dims": the target's dims as text
// ("?batch*4,?seq,16", dims at top-level commas), for a shape input whose values are expressions of
// the graph's dims that no "shape" attribute can say. Symbolic inference takes them; run-time
// inference reads the input's values (and the runtime checks the static dims against them). `what`
// names `count` in the error ("the shape input", "the input's rank").
inline Status ParseTargetDims(const InferContext<SymDim>& c, const std::string& text, int64_t count,
                              const char* what, ShapeT<SymDim>* out) {
  size_t begin = 0;
  int depth = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] == '(') ++depth;
    if (i < text.size() && text[i] == ')') --depth;
    if (i < text.size() && !(text[i] == ',' && depth == 0)) continue;
    SymDim d;
    std::string error;
    if (!ParseSymDim(std::string_view(text).substr(begin, i - begin), &d, &error)) {
      return c.Error("dims \"" + text + "\": " + error);
    }
    if (d.is_static() && d.value() < 0) return c.Error("dims \"" + text + "\" has a negative dim");
    out->push_back(d);
    begin = i + 1;
  }
  if (out->rank() != count) {
    return c.Error("dims \"" + text + "\" has " + std::to_string(out->rank()) + " dims, " + what +
                   " " + std::to_string(count));
  }
  return Status::Ok();
}

// ceil((limit - start) / delta), at least 0, in unsigned arithmetic (the
// difference of two int64 values fits in a uint64).
template <class D>
Status IntRangeLength(const InferContext<D>& c, int64_t start, int64_t limit, int64_t delta,
                      int64_t* count) {
  if (IntRangeCount(start, limit, delta, count)) return Status::Ok();
  return c.Error(delta == 0 ? "'delta' must not be 0" : "the range has too many elements");
}

template <class D>
Status InferRange(InferContext<D>& c) {
  double start = c.attrs->GetFloat("start"), limit = c.attrs->GetFloat("limit");
  double delta = c.attrs->GetFloat("delta");
  if (c.num_inputs != 0 && c.num_inputs != 3) {
    return c.Errorf(
        "give start, limit and delta all as attributes or all as inputs, got %lld inputs",
        static_cast<long long>(c.num_inputs));
  }
  if (c.num_inputs == 3) {  // run-time scalars: the length is data-dependent
    double* values[3] = {&start, &limit, &delta};
    for (int i = 0; i < 3; ++i) {
      if (!MaybeOneElement(c.in(i))) {
        return c.Error(std::string(c.InputName(i)) + " must be a scalar, got " + c.TypeStr(i));
      }
    }
    bool integral = true;
    for (int i = 0; i < 3; ++i) {
      if (!c.value(i)) {  // a new dim, unless "dims" says the length (rules_shape.h)
        ShapeT<D> out;
        if constexpr (std::is_same_v<D, SymDim>) {
          const std::string dims = c.attrs->GetString("dims");
          if (!dims.empty()) {
            TFN_RETURN_IF_ERROR(ParseTargetDims(c, dims, 1, "a range has", &out));
            c.out(0) = out;
            return Status::Ok();
          }
        }
        c.out(0) = ShapeT<D>{c.fresh_dim()};
        return Status::Ok();
      }
      *values[i] = c.value(i)->ElementAsDouble(0);
      integral &= IsInteger(c.type(i));
    }
    if (integral) {       // exact for int64 values a double cannot hold
      int64_t count = 0;  // set by IntRangeLength on success (GCC -Os cannot tell)
      TFN_RETURN_IF_ERROR(IntRangeLength(c, c.value(0)->ElementAsInt(0),
                                         c.value(1)->ElementAsInt(0), c.value(2)->ElementAsInt(0),
                                         &count));
      c.out(0) = ShapeT<D>{D(count)};
      return Status::Ok();
    }
  }
  if (delta == 0) return c.Error("'delta' must not be 0");
  double n = (limit - start) / delta;
  if (!(n < 9.0e15)) return c.Error("the range has too many elements");  // also catches NaN
  int64_t count = n <= 0 ? 0 : static_cast<int64_t>(n);
  if (static_cast<double>(count) < n) ++count;  // ceil
  c.out(0) = ShapeT<D>{D(count)};
  return Status::Ok();
}

}  // namespace tfn::rules
