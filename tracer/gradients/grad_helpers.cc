// Shape helpers the gradient rules share: undoing broadcasts and reshaping
// back to an input's shape, with dims known at trace time or only at run time.
#include <string>
#include <vector>

#include "ir/fresh_dim.h"
#include "tracer/gradients/registry.h"
#include "tracer/ops.h"
#include "tracer/trace_context.h"

namespace tfn::detail {
namespace {

bool FullyStatic(const Shape& s) {
  for (int64_t d : s) {
    if (d == kDynamic) return false;
  }
  return true;
}

// "dims" for an op whose output takes like's dims, so the trace keeps their
// names ("" when like is eager or has dims no expression can name).
std::string DimsOf(const Tensor& like) {
  if (!like.is_symbolic()) return "";
  const SymShape& s = like.impl()->sym_shape;
  return ir::DimsAttribute(std::vector<SymDim>(s.begin(), s.end()));
}

std::vector<int64_t> Dims(const Shape& s) { return std::vector<int64_t>(s.begin(), s.end()); }

}  // namespace

Tensor SumToShapeOf(const Tensor& grad, const Tensor& like) {
  const Shape g = grad.shape();
  const Shape l = like.shape();
  const int lead = g.rank() - l.rank();
  std::vector<int64_t> ones;  // dims `like` broadcast from 1
  for (int i = 0; i < l.rank(); ++i) {
    if (l[i] == 1 && g[lead + i] != 1) ones.push_back(lead + i);
  }
  Tensor out = grad;
  if (!ones.empty()) out = reduce_sum(out, ones, /*keepdims=*/true);
  if (lead > 0) {
    std::vector<int64_t> leading;
    for (int i = 0; i < lead; ++i) leading.push_back(i);
    out = reduce_sum(out, leading, /*keepdims=*/false);
  }
  return out;
}

Tensor ReshapeLike(const Tensor& x, const Tensor& like) {
  const Shape target = like.shape();
  if (x.shape() == target) return x;
  int dynamic = 0;
  for (int64_t d : target) dynamic += d == kDynamic;
  // One unknown dim: -1, which reshape infers as an expression of x's dims
  // (so the trace keeps its name, e.g. the batch).
  if (dynamic <= 1) {
    std::vector<int64_t> dims = Dims(target);
    for (int64_t& d : dims) d = d == kDynamic ? -1 : d;
    return reshape(x, dims);
  }
  return Apply1(OpId::kReshape, {x, shape(like)},
                {{"shape", AttrValue::Ints({})}, {"dims", AttrValue::String(DimsOf(like))}});
}

Tensor BroadcastLike(const Tensor& x, const Tensor& like) {
  const Shape target = like.shape();
  if (x.shape() == target) return x;
  if (FullyStatic(target)) return broadcast_to(x, target);
  // Adding zeros of like's shape broadcasts to exactly its dims, named as
  // the trace names them.
  return x + zeros_like(like);
}

Tensor ScalarLikeOf(const Tensor& x, double value) { return ScalarOf(x.dtype(), value); }

std::vector<int64_t> InversePermutation(const std::vector<int64_t>& perm) {
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  }
  return inverse;
}

void NoRuleFor(OpId op, const std::string& what) {
  throw Error(StatusCode::kUnimplemented,
              std::string(OpName(op)) + ": no gradient rule for " + what);
}

}  // namespace tfn::detail
