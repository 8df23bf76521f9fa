// Converter of ONNX's Einsum onto transpose, reshape, matmul, mul and
// reduce_sum. Each operand first takes its diagonals (a label repeated in one
// term) and sums out the labels no other term needs; the operands are then
// contracted left to right, two at a time: shared labels that stay are batch
// dims, shared labels that go are contracted by one matmul over the merged
// dims (a broadcast mul when none go), and a final transpose orders the
// result as the output term. Ellipses ("...") stand for the leading dims
// not named by letters, broadcast across the operands. The dims merged for a
// matmul and the dims of diagonals must be static.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "importers/onnx/context.h"

namespace tfn::onnx_import {
namespace {

using Ref = ir::ValueRef;

AttrValue Int(int64_t v) { return AttrValue::Int(v); }
AttrValue Ints(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }

constexpr int kEllipsisLabel = 1000;  // ellipsis dim j has label 1000 + j (letters are chars)

// A value with one label per dim.
struct Term {
  Ref v;
  std::vector<int> labels;
};

// One term of the equation: its letters and where its ellipsis is (-1: none).
struct Spec {
  std::vector<int> letters;
  int ellipsis_at = -1;
};

absl::StatusOr<Spec> ParseTerm(Context& ctx, const std::string& s) {
  Spec spec;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '.') {
      if (spec.ellipsis_at >= 0 || s.compare(i, 3, "...") != 0) {
        return ctx.Error("malformed ellipsis in term '" + s + "'");
      }
      spec.ellipsis_at = static_cast<int>(spec.letters.size());
      i += 2;
    } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      spec.letters.push_back(c);
    } else {
      return ctx.Error(std::string("unexpected character '") + c + "' in term '" + s + "'");
    }
  }
  return spec;
}

// The labels of a term for an operand of `rank` dims; the ellipsis covers
// the dims the letters leave, aligned on the right among `ellipsis_rank`.
std::vector<int> Labels(const Spec& spec, int ellipsis_dims, int ellipsis_rank) {
  std::vector<int> out;
  for (size_t i = 0; i <= spec.letters.size(); ++i) {
    if (static_cast<int>(i) == spec.ellipsis_at) {
      for (int j = 0; j < ellipsis_dims; ++j)
        out.push_back(kEllipsisLabel + ellipsis_rank - ellipsis_dims + j);
    }
    if (i < spec.letters.size()) out.push_back(spec.letters[i]);
  }
  return out;
}

absl::StatusOr<Ref> Transposed(Context& ctx, Term* t, const std::vector<int>& order) {
  std::vector<int64_t> perm;
  bool identity = true;
  for (size_t i = 0; i < order.size(); ++i) {
    auto it = std::find(t->labels.begin(), t->labels.end(), order[i]);
    perm.push_back(it - t->labels.begin());
    identity &= perm.back() == static_cast<int64_t>(i);
  }
  if (!identity) {
    TFN_ASSIGN_OR_RETURN(t->v, ctx.Add(OpId::kTranspose, {t->v}, {{"perm", Ints(perm)}}));
  }
  t->labels = order;
  return t->v;
}

absl::Status SumOut(Context& ctx, Term* t, const std::set<int>& drop) {
  std::vector<int64_t> axes;
  std::vector<int> rest;
  for (size_t i = 0; i < t->labels.size(); ++i) {
    if (drop.count(t->labels[i])) {
      axes.push_back(static_cast<int64_t>(i));
    } else {
      rest.push_back(t->labels[i]);
    }
  }
  if (axes.empty()) return absl::OkStatus();
  absl::StatusOr<Ref> y =
      ctx.Add(OpId::kReduceSum, {t->v}, {{"axes", Ints(axes)}, {"keepdims", Int(0)}});
  if (!y.ok()) return y.status();
  t->v = *y;
  t->labels = rest;
  return absl::OkStatus();
}

// Replaces each label repeated within the term by its diagonal.
absl::Status TakeDiagonals(Context& ctx, Term* t) {
  for (;;) {
    int p = -1, q = -1;
    for (size_t i = 0; i < t->labels.size() && p < 0; ++i) {
      for (size_t j = i + 1; j < t->labels.size(); ++j) {
        if (t->labels[i] == t->labels[j]) {
          p = static_cast<int>(i);
          q = static_cast<int>(j);
          break;
        }
      }
    }
    if (p < 0) return absl::OkStatus();
    const SymShape& s = ctx.Type(t->v).shape;
    if (!s[p].is_static() || s[p] != s[q]) {
      return ctx.Unsupported("a diagonal over dims that are not static and equal");
    }
    if (s[p].value() > 4096) return ctx.Unsupported("a diagonal over dims above 4096");
    const int label = t->labels[static_cast<size_t>(p)];
    std::vector<int> order;
    for (size_t i = 0; i < t->labels.size(); ++i) {
      if (static_cast<int>(i) != p && static_cast<int>(i) != q) order.push_back(t->labels[i]);
    }
    // Distinct stand-ins for the pair while it is moved to the end.
    t->labels[static_cast<size_t>(p)] = -1;
    t->labels[static_cast<size_t>(q)] = -2;
    order.push_back(-1);
    order.push_back(-2);
    absl::StatusOr<Ref> moved = Transposed(ctx, t, order);
    if (!moved.ok()) return moved.status();
    // where(eye, x, 0) keeps the diagonal exactly; the sum then picks it.
    const int64_t n = s[p].value();
    std::vector<unsigned char> eye(static_cast<size_t>(n * n), 0);
    for (int64_t i = 0; i < n; ++i) eye[static_cast<size_t>(i * n + i)] = 1;
    Ref mask = ctx.Constant(ConstTensor::Copy(DType::kBool, Shape{n, n}, eye.data()));
    absl::StatusOr<Ref> y =
        ctx.Add(OpId::kWhere, {mask, t->v, ctx.Scalar(ctx.Type(t->v).dtype, 0)});
    if (y.ok()) y = ctx.Add(OpId::kReduceSum, {*y}, {{"axes", Ints({-1})}, {"keepdims", Int(0)}});
    if (!y.ok()) return y.status();
    t->v = *y;
    t->labels.pop_back();
    t->labels.back() = label;
  }
}

// The dim of `label` in t.
SymDim DimOf(Context& ctx, const Term& t, int label) {
  auto it = std::find(t.labels.begin(), t.labels.end(), label);
  return ctx.Type(t.v).shape[static_cast<int>(it - t.labels.begin())];
}

// Reshapes x (dims: `lead` kept one by one, then groups merged into one dim
// each). Kept dims may be dynamic (copied); merged groups must be static.
absl::StatusOr<Ref> MergeReshape(Context& ctx, Ref x, const std::vector<SymDim>& lead,
                                 const std::vector<std::vector<SymDim>>& groups) {
  std::vector<int64_t> shape;
  bool copy = false;
  for (const SymDim& d : lead) {
    shape.push_back(d.is_static() ? d.value() : 0);
    copy |= !d.is_static();
  }
  for (const auto& g : groups) {
    int64_t p = 1;
    for (const SymDim& d : g) {
      if (!d.is_static()) return ctx.Unsupported("Einsum merging dynamic dims for a matmul");
      p *= d.value();
    }
    if (copy && p == 0) return ctx.Unsupported("Einsum with empty dims next to dynamic ones");
    shape.push_back(p);
  }
  Attrs attrs{{"shape", Ints(shape)}};
  if (copy) attrs.Set("copy_zero", Int(1));
  return ctx.Add(OpId::kReshape, {x}, attrs);
}

// Contracts a and b, keeping the labels in `keep`.
absl::StatusOr<Term> Contract(Context& ctx, Term a, Term b, const std::set<int>& keep) {
  std::set<int> la(a.labels.begin(), a.labels.end()), lb(b.labels.begin(), b.labels.end());
  std::set<int> drop_a, drop_b;
  for (int l : la) {
    if (!lb.count(l) && !keep.count(l)) drop_a.insert(l);
  }
  for (int l : lb) {
    if (!la.count(l) && !keep.count(l)) drop_b.insert(l);
  }
  absl::Status s = SumOut(ctx, &a, drop_a);
  if (s.ok()) s = SumOut(ctx, &b, drop_b);
  if (!s.ok()) return s;
  std::vector<int> batch, contracted, a_only, b_only;
  for (int l : a.labels) {
    if (!lb.count(l)) {
      a_only.push_back(l);
    } else if (keep.count(l)) {
      batch.push_back(l);
    } else {
      contracted.push_back(l);
    }
  }
  for (int l : b.labels) {
    if (!la.count(l)) b_only.push_back(l);
  }
  std::vector<int> result = batch;
  result.insert(result.end(), a_only.begin(), a_only.end());
  result.insert(result.end(), b_only.begin(), b_only.end());
  if (contracted.empty()) {
    // An outer product over the free labels: a as [batch, a_only, 1...], b as [batch, 1...,
    // b_only].
    std::vector<int> oa = batch, ob = batch;
    oa.insert(oa.end(), a_only.begin(), a_only.end());
    ob.insert(ob.end(), b_only.begin(), b_only.end());
    TFN_ASSIGN_OR_RETURN(Ref va, Transposed(ctx, &a, oa));
    TFN_ASSIGN_OR_RETURN(Ref vb, Transposed(ctx, &b, ob));
    for (size_t i = 0; i < b_only.size(); ++i) {
      TFN_ASSIGN_OR_RETURN(va, ctx.Add(OpId::kExpandDims, {va}, {{"axis", Int(-1)}}));
    }
    for (size_t i = 0; i < a_only.size(); ++i) {
      TFN_ASSIGN_OR_RETURN(vb, ctx.Add(OpId::kExpandDims, {vb},
                                       {{"axis", Int(static_cast<int64_t>(batch.size()))}}));
    }
    TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kMul, {va, vb}));
    return Term{y, result};
  }
  std::vector<SymDim> lead_a, lead_b, dims_a, dims_k, dims_b;
  for (int l : batch) {
    lead_a.push_back(DimOf(ctx, a, l));
    lead_b.push_back(DimOf(ctx, b, l));
  }
  for (int l : a_only) dims_a.push_back(DimOf(ctx, a, l));
  for (int l : contracted) dims_k.push_back(DimOf(ctx, a, l));
  for (int l : b_only) dims_b.push_back(DimOf(ctx, b, l));
  std::vector<int> oa = batch, ob = batch;
  oa.insert(oa.end(), a_only.begin(), a_only.end());
  oa.insert(oa.end(), contracted.begin(), contracted.end());
  ob.insert(ob.end(), contracted.begin(), contracted.end());
  ob.insert(ob.end(), b_only.begin(), b_only.end());
  TFN_ASSIGN_OR_RETURN(Ref va, Transposed(ctx, &a, oa));
  TFN_ASSIGN_OR_RETURN(Ref vb, Transposed(ctx, &b, ob));
  TFN_ASSIGN_OR_RETURN(va, MergeReshape(ctx, va, lead_a, {dims_a, dims_k}));
  TFN_ASSIGN_OR_RETURN(vb, MergeReshape(ctx, vb, lead_b, {dims_k, dims_b}));
  TFN_ASSIGN_OR_RETURN(Ref y, ctx.Add(OpId::kMatMul, {va, vb}));
  // [batch, merged a_only, merged b_only] -> [batch, a_only..., b_only...].
  std::vector<SymDim> lead(ctx.Type(y).shape.begin(), ctx.Type(y).shape.begin() + batch.size());
  std::vector<std::vector<SymDim>> split;
  for (const SymDim& d : dims_a) split.push_back({d});
  for (const SymDim& d : dims_b) split.push_back({d});
  TFN_ASSIGN_OR_RETURN(y, MergeReshape(ctx, y, lead, split));
  return Term{y, result};
}

absl::Status ConvertEinsum(Context& ctx) {
  std::string eq;
  for (char c : ctx.AttrString("equation", "")) {
    if (c != ' ') eq += c;
  }
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<Spec> specs;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    TFN_ASSIGN_OR_RETURN(Spec s, ParseTerm(ctx, lhs.substr(start, comma - start)));
    specs.push_back(s);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (static_cast<int>(specs.size()) != ctx.num_inputs()) {
    return ctx.Error("the equation '" + eq + "' has " + std::to_string(specs.size()) +
                     " terms for " + std::to_string(ctx.num_inputs()) + " inputs");
  }
  std::vector<Term> terms;
  std::vector<int> ellipsis_dims;
  int ellipsis_rank = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    TFN_ASSIGN_OR_RETURN(Ref v, ctx.Input(static_cast<int>(i)));
    const int rank = ctx.Type(v).shape.rank(), named = static_cast<int>(specs[i].letters.size());
    const int e = rank - named;
    if (e < 0 || (e > 0 && specs[i].ellipsis_at < 0)) {
      return ctx.Error("term " + std::to_string(i) + " of '" + eq + "' does not match input " +
                       ctx.Type(v).ToString());
    }
    ellipsis_dims.push_back(e);
    ellipsis_rank = std::max(ellipsis_rank, e);
    terms.push_back(Term{v, {}});
  }
  std::map<int, int> count;
  for (size_t i = 0; i < specs.size(); ++i) {
    terms[i].labels = Labels(specs[i], ellipsis_dims[i], ellipsis_rank);
    for (int l : terms[i].labels) ++count[l];
  }
  std::vector<int> out;
  if (arrow != std::string::npos) {
    TFN_ASSIGN_OR_RETURN(Spec o, ParseTerm(ctx, eq.substr(arrow + 2)));
    // Without an ellipsis in the output, the ellipsis dims are summed over.
    out = Labels(o, o.ellipsis_at < 0 ? 0 : ellipsis_rank, ellipsis_rank);
  } else {  // implicit: the ellipsis dims, then the letters used once, sorted
    for (int j = 0; j < ellipsis_rank; ++j) out.push_back(kEllipsisLabel + j);
    for (const auto& [l, n] : count) {
      if (l < kEllipsisLabel && n == 1) out.push_back(l);
    }
  }
  std::set<int> out_set(out.begin(), out.end());
  if (out_set.size() != out.size())
    return ctx.Error("the output term of '" + eq + "' repeats a label");
  for (int l : out) {
    if (!count.count(l)) return ctx.Error("the output of '" + eq + "' names a label no input has");
  }
  // Per operand: diagonals, then the labels nothing else needs.
  for (size_t i = 0; i < terms.size(); ++i) {
    absl::Status s = TakeDiagonals(ctx, &terms[i]);
    if (!s.ok()) return s;
    std::set<int> elsewhere = out_set, drop;
    for (size_t j = 0; j < terms.size(); ++j) {
      if (j != i) elsewhere.insert(terms[j].labels.begin(), terms[j].labels.end());
    }
    for (int l : terms[i].labels) {
      if (!elsewhere.count(l)) drop.insert(l);
    }
    s = SumOut(ctx, &terms[i], drop);
    if (!s.ok()) return s;
  }
  Term acc = terms[0];
  for (size_t i = 1; i < terms.size(); ++i) {
    std::set<int> keep = out_set;
    for (size_t j = i + 1; j < terms.size(); ++j)
      keep.insert(terms[j].labels.begin(), terms[j].labels.end());
    TFN_ASSIGN_OR_RETURN(acc, Contract(ctx, acc, terms[i], keep));
  }
  TFN_ASSIGN_OR_RETURN(Ref y, Transposed(ctx, &acc, out));
  return ctx.Output(0, y);
}
TFN_ONNX_CONVERTER("Einsum", 12, ConvertEinsum);

}  // namespace
}  // namespace tfn::onnx_import
