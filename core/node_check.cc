// CheckNode (node_check.h): operand and result counts and dtypes through the
// op table's InferTypes, then the rank-dependent attribute checks each op's
// kernel preparation relies on. The shape rules check the same attributes
// again against concrete dims at run time; these are the ones a rank alone
// decides, so that they hold before any Prepare reads an attribute.
#include "core/node_check.h"

#include "core/str_format.h"

#include <cstdarg>
#include <cstdint>
#include <string>
#include <vector>

namespace tfn {
namespace {

// "<op>: <message>", the message printf-formatted: one call per error site
// instead of a chain of string appends (the minimal runtime links all of them).
__attribute__((format(printf, 2, 3))) Status Bad(const NodeSignature& n, const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::string message = StrFormatV(format, args);
  va_end(args);
  return InvalidArgument(std::string(OpName(n.op)) + ": " + message);
}

long long LL(int64_t v) { return static_cast<long long>(v); }

// `axis` of an input of rank `rank` (attribute `name`); `extra` widens the
// range for ops that insert a dim (expand_dims).
Status CheckAxis(const NodeSignature& n, const char* name, int64_t axis, int rank, int extra = 0) {
  const int r = rank + extra;
  if (axis >= -r && axis < r) return Status::Ok();
  return Bad(n,
             "axis %lld (attribute '%s') is out of range for rank %d; expected an axis in [%d, %d)",
             LL(axis), name, rank, -r, r);
}

Status CheckAxes(const NodeSignature& n, const char* name, int rank) {
  for (int64_t a : n.attrs->GetInts(name)) TFN_RETURN_IF_ERROR(CheckAxis(n, name, a, rank));
  return Status::Ok();
}

// An int list attribute: empty or exactly `count` entries, each in [lo, 2^31).
Status CheckList(const NodeSignature& n, const char* name, size_t count, int64_t lo) {
  std::vector<int64_t> v = n.attrs->GetInts(name);
  if (v.empty()) return Status::Ok();
  if (v.size() != count) {
    return Bad(n, "attribute '%s' needs %zu entries, got %zu", name, count, v.size());
  }
  for (int64_t x : v) {
    if (x < lo || x > INT32_MAX) {
      return Bad(n, "attribute '%s' needs entries in [%lld, 2^31), got %lld", name, LL(lo), LL(x));
    }
  }
  return Status::Ok();
}

Status CheckRank(const NodeSignature& n, int input, int expected) {
  if (n.in_ranks[input] == expected) return Status::Ok();
  return Bad(n, "input '%s' must have rank %d, got rank %d", GetOpDef(n.op).InputAt(input)->name,
             expected, n.in_ranks[input]);
}

Status CheckGroups(const NodeSignature& n) {
  const int64_t g = n.attrs->GetInt("groups", 1);
  if (g >= 1 && g <= INT32_MAX) return Status::Ok();
  return Bad(n, "attribute 'groups' must be in [1, 2^31), got %lld", LL(g));
}

// conv2d, the pools, fused_conv2d, the quantized conv2ds: NHWC input,
// 2-entry windows, padding.
Status CheckConvLike(const NodeSignature& n) {
  TFN_RETURN_IF_ERROR(CheckRank(n, 0, 4));
  if (n.op != OpId::kMaxPool2D && n.op != OpId::kAvgPool2D) {
    // fused_conv2d's filter may be prepacked (another rank; rules_fused.h).
    if (n.op == OpId::kConv2D || n.op == OpId::kConv2DInteger) {
      TFN_RETURN_IF_ERROR(CheckRank(n, 1, 4));
    }
    TFN_RETURN_IF_ERROR(CheckGroups(n));
  } else {
    if (n.attrs->GetInts("ksize").size() != 2) {
      return Bad(n, "attribute 'ksize' needs 2 entries (height, width), got %zu",
                 n.attrs->GetInts("ksize").size());
    }
    TFN_RETURN_IF_ERROR(CheckList(n, "ksize", 2, 1));
  }
  TFN_RETURN_IF_ERROR(CheckList(n, "strides", 2, 1));
  TFN_RETURN_IF_ERROR(CheckList(n, "dilations", 2, 1));
  if (n.attrs->GetString("padding") == "EXPLICIT" && n.attrs->GetInts("pads").size() != 4) {
    return Bad(n, "EXPLICIT padding needs 4 pads {top, bottom, left, right}, got %zu",
               n.attrs->GetInts("pads").size());
  }
  return CheckList(n, "pads", 4, 0);
}

Status CheckTranspose(const NodeSignature& n, int rank) {
  std::vector<int64_t> perm = n.attrs->GetInts("perm");
  if (perm.empty()) return Status::Ok();
  bool seen[kMaxRank] = {};
  bool ok = static_cast<int>(perm.size()) == rank;
  for (size_t i = 0; ok && i < perm.size(); ++i) {
    int64_t a = perm[i] < 0 ? perm[i] + rank : perm[i];
    ok = a >= 0 && a < rank && !seen[a];
    if (ok) seen[a] = true;
  }
  if (ok) return Status::Ok();
  std::string got;
  for (int64_t p : perm) got += (got.empty() ? "" : ",") + std::to_string(p);
  return Bad(n, "attribute 'perm' must be a permutation of the input's %d dims, got [%s]", rank,
             got.c_str());
}

Status CheckSlice(const NodeSignature& n, int rank) {
  if (n.num_inputs > 1) return Status::Ok();  // begin/end/strides are inputs, checked per run
  const size_t r = static_cast<size_t>(rank);
  std::vector<int64_t> strides = n.attrs->GetInts("strides");
  size_t nb = n.attrs->GetInts("begin").size(), ne = n.attrs->GetInts("end").size();
  if (nb != r || ne != r || (!strides.empty() && strides.size() != r)) {
    return Bad(n, "begin, end and strides need one entry per dim (%zu), got %zu, %zu and %zu", r,
               nb, ne, strides.size());
  }
  for (int64_t s : strides) {
    if (s == 0 || s == INT64_MIN) return Bad(n, "stride %lld is not allowed", LL(s));
  }
  return Status::Ok();
}

Status CheckPad(const NodeSignature& n, int rank) {
  if (n.num_inputs > 1) return Status::Ok();  // paddings are input 1, checked per run
  std::vector<int64_t> pads = n.attrs->GetInts("paddings");
  if (pads.size() != 2 * static_cast<size_t>(rank)) {
    return Bad(n, "paddings need 2 entries (before, after) per dim: %d for rank %d, got %zu",
               2 * rank, rank, pads.size());
  }
  for (int64_t p : pads) {
    if (p < 0) return Bad(n, "paddings must be >= 0, got %lld", LL(p));
  }
  return Status::Ok();
}

// The attributes each op's kernel decodes with the input's rank.
Status CheckRankedAttrs(const NodeSignature& n) {
  const int r0 = n.num_inputs > 0 ? n.in_ranks[0] : 0;
  switch (n.op) {
    case OpId::kSoftmax:
    case OpId::kLogSoftmax:
    case OpId::kLayerNorm:
    case OpId::kArgMax:
    case OpId::kArgMin:
    case OpId::kConcat:
    case OpId::kSplit:
    case OpId::kGather:
    case OpId::kGatherElements:
    case OpId::kScatterElements:
    case OpId::kTopK:
      return CheckAxis(n, "axis", n.attrs->GetInt("axis"), r0);
    case OpId::kExpandDims:
      return CheckAxis(n, "axis", n.attrs->GetInt("axis"), r0, 1);
    case OpId::kReduceSum:
    case OpId::kReduceMean:
    case OpId::kReduceMax:
    case OpId::kReduceMin:
    case OpId::kReduceProd:
      return CheckAxes(n, "axes", r0);
    case OpId::kSqueeze:
      return CheckAxes(n, "axes", r0);
    case OpId::kUnique:
      if (n.attrs->GetInts("axis").size() > 1) {
        return Bad(n, "attribute 'axis' must be empty or one axis, got %zu entries",
                   n.attrs->GetInts("axis").size());
      }
      return CheckAxes(n, "axis", r0);
    case OpId::kTranspose:
      return CheckTranspose(n, r0);
    case OpId::kSlice:
      return CheckSlice(n, r0);
    case OpId::kPad:
      return CheckPad(n, r0);
    case OpId::kGatherND: {
      const int64_t b = n.attrs->GetInt("batch_dims");
      const int limit = r0 < n.in_ranks[1] ? r0 : n.in_ranks[1];
      if (b >= 0 && b < limit) return Status::Ok();
      return Bad(n,
                 "batch_dims %lld must be in [0, %d) (below the ranks of params and indices, %d "
                 "and %d)",
                 LL(b), limit, r0, n.in_ranks[1]);
    }
    case OpId::kConv2D:
    case OpId::kFusedConv2D:
    case OpId::kQLinearConv2D:
    case OpId::kConv2DInteger:
    case OpId::kMaxPool2D:
    case OpId::kAvgPool2D:
      return CheckConvLike(n);
    case OpId::kConv2DTranspose:
      TFN_RETURN_IF_ERROR(CheckRank(n, 0, 4));
      TFN_RETURN_IF_ERROR(CheckRank(n, 1, 4));
      TFN_RETURN_IF_ERROR(CheckGroups(n));
      TFN_RETURN_IF_ERROR(CheckList(n, "strides", 2, 1));
      TFN_RETURN_IF_ERROR(CheckList(n, "dilations", 2, 1));
      TFN_RETURN_IF_ERROR(CheckList(n, "output_padding", 2, 0));
      return CheckList(n, "pads", 4, 0);
    case OpId::kCond:
      return CheckRank(n, 0, 0);  // the predicate is one bool
    default:
      return Status::Ok();
  }
}

}  // namespace

Status CheckNode(const NodeSignature& n) {
  const OpDef& def = GetOpDef(n.op);
  if (n.num_inputs < 0 || n.num_outputs < 0 || (n.num_inputs > 0 && (!n.in_types || !n.in_ranks)) ||
      (n.num_outputs > 0 && (!n.out_types || !n.out_ranks))) {
    return Bad(n, "%s", "the node's operand or result list is malformed");
  }
  for (int i = 0; i < n.num_inputs; ++i) {
    if (n.in_ranks[i] < 0 || n.in_ranks[i] > kMaxRank) {
      return Bad(n, "input %d has rank %d; ranks are 0 to 8", i, n.in_ranks[i]);
    }
  }
  for (int o = 0; o < n.num_outputs; ++o) {
    if (n.out_ranks[o] < 0 || n.out_ranks[o] > kMaxRank) {
      return Bad(n, "output %d has rank %d; ranks are 0 to 8", o, n.out_ranks[o]);
    }
  }
  // Operand count and dtypes: the op table's own check (also the shape rules').
  const bool external = def.sig->type_rule == TypeRule::kExternal;
  std::vector<DType> types(external ? 0 : static_cast<size_t>(n.num_outputs));
  TFN_RETURN_IF_ERROR(InferTypes(def, *n.attrs, n.num_inputs, n.in_types,
                                 external ? 0 : n.num_outputs, types.data()));
  if (!external) {
    const int expected = def.NumOutputs(*n.attrs, n.num_inputs);
    if (expected != n.num_outputs) {
      return Bad(n, "expected %d outputs, got %d", expected, n.num_outputs);
    }
    for (int o = 0; o < n.num_outputs; ++o) {
      if (types[o] != DType::kInvalid && types[o] != n.out_types[o]) {
        return Bad(n, "output %d must be %s (the op's dtype rule), got %s", o, DTypeName(types[o]),
                   DTypeName(n.out_types[o]));
      }
    }
  }
  return CheckRankedAttrs(n);
}

}  // namespace tfn
