// Converters of ONNX's recurrent layers: RNN, GRU and LSTM (forward, reverse
// and bidirectional; any activations ONNX names; clip; layout 0 and 1;
// initial states; peepholes; LSTM's input_forget; GRU's linear_before_reset;
// sequence_lens for forward directions).
//
// The input projection of every time step is one GEMM over the whole
// sequence ([seq*batch, input] x W^T + biases), as cuDNN and ONNX Runtime do;
// what remains per step is h x R^T and the gates' elementwise math, which
// the elementwise fusion pass groups. The steps are unrolled, so the
// sequence length and the input's feature size must be static (the batch
// may be dynamic); a dynamic one is refused with a clear error.
#include <string>
#include <vector>

#include "importers/onnx/context.h"

namespace tfn::onnx_import {
namespace {

using Ref = ir::ValueRef;
AttrValue Ints(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }
AttrValue Int(int64_t v) { return AttrValue::Int(v); }
constexpr int64_t kMaxUnrolledSteps = 4096;

enum class Cell { kRnn, kGru, kLstm };

// One activation as ONNX's recurrent ops name them, with its alpha/beta.
struct Activation {
  std::string name;
  float alpha = 0, beta = 0;
};

absl::StatusOr<Ref> Apply(Context& ctx, const Activation& a, Ref x) {
  const DType t = ctx.Type(x).dtype;
  auto scalar = [&](double v) { return ctx.Scalar(t, v); };
  if (a.name == "Sigmoid") return ctx.Add(OpId::kSigmoid, {x});
  if (a.name == "Tanh") return ctx.Add(OpId::kTanh, {x});
  if (a.name == "Relu") return ctx.Add(OpId::kRelu, {x});
  if (a.name == "Affine") {
    TFN_ASSIGN_OR_RETURN(Ref ax, ctx.Add(OpId::kMul, {x, scalar(a.alpha)}));
    return ctx.Add(OpId::kAdd, {ax, scalar(a.beta)});
  }
  if (a.name == "LeakyRelu") {
    TFN_ASSIGN_OR_RETURN(Ref ax, ctx.Add(OpId::kMul, {x, scalar(a.alpha)}));
    TFN_ASSIGN_OR_RETURN(Ref positive, ctx.Add(OpId::kGreaterEqual, {x, scalar(0)}));
    return ctx.Add(OpId::kWhere, {positive, x, ax});
  }
  if (a.name == "ThresholdedRelu") {
    TFN_ASSIGN_OR_RETURN(Ref above, ctx.Add(OpId::kGreater, {x, scalar(a.alpha)}));
    return ctx.Add(OpId::kWhere, {above, x, scalar(0)});
  }
  if (a.name == "ScaledTanh") {
    TFN_ASSIGN_OR_RETURN(Ref bx, ctx.Add(OpId::kMul, {x, scalar(a.beta)}));
    TFN_ASSIGN_OR_RETURN(Ref th, ctx.Add(OpId::kTanh, {bx}));
    return ctx.Add(OpId::kMul, {th, scalar(a.alpha)});
  }
  if (a.name == "HardSigmoid") {
    TFN_ASSIGN_OR_RETURN(Ref ax, ctx.Add(OpId::kMul, {x, scalar(a.alpha)}));
    TFN_ASSIGN_OR_RETURN(Ref axb, ctx.Add(OpId::kAdd, {ax, scalar(a.beta)}));
    TFN_ASSIGN_OR_RETURN(Ref low, ctx.Add(OpId::kMaximum, {axb, scalar(0)}));
    return ctx.Add(OpId::kMinimum, {low, scalar(1)});
  }
  if (a.name == "Elu") {
    TFN_ASSIGN_OR_RETURN(Ref e, ctx.Add(OpId::kExp, {x}));
    TFN_ASSIGN_OR_RETURN(Ref em1, ctx.Add(OpId::kSub, {e, scalar(1)}));
    TFN_ASSIGN_OR_RETURN(Ref neg, ctx.Add(OpId::kMul, {em1, scalar(a.alpha)}));
    TFN_ASSIGN_OR_RETURN(Ref positive, ctx.Add(OpId::kGreaterEqual, {x, scalar(0)}));
    return ctx.Add(OpId::kWhere, {positive, x, neg});
  }
  if (a.name == "Softsign") {
    TFN_ASSIGN_OR_RETURN(Ref ab, ctx.Add(OpId::kAbs, {x}));
    TFN_ASSIGN_OR_RETURN(Ref d, ctx.Add(OpId::kAdd, {ab, scalar(1)}));
    return ctx.Add(OpId::kDiv, {x, d});
  }
  if (a.name == "Softplus") {
    TFN_ASSIGN_OR_RETURN(Ref e, ctx.Add(OpId::kExp, {x}));
    TFN_ASSIGN_OR_RETURN(Ref e1, ctx.Add(OpId::kAdd, {e, scalar(1)}));
    return ctx.Add(OpId::kLog, {e1});
  }
  return ctx.Unsupported("the activation '" + a.name + "'");
}

// What one direction of the layer works with.
struct Direction {
  Ref w, r;          // [gates*H, input], [gates*H, hidden]
  Ref wb, rb;        // [gates*H] each; absent without B (rb: folded into the projection)
  Ref h0, c0, peep;  // [batch, H]; peep: [3*H] (LSTM with P); invalid when absent
  bool reverse = false;
  std::vector<Activation> f;  // f, g (and h for LSTM)
};

// Row d of a [dirs, ...] tensor, without its leading dim.
absl::StatusOr<Ref> Row(Context& ctx, Ref x, int64_t d) {
  const int rank = ctx.Type(x).shape.rank();
  std::vector<int64_t> begin(rank, 0), end(rank, int64_t{1} << 62);
  begin[0] = d;
  end[0] = d + 1;
  TFN_ASSIGN_OR_RETURN(Ref row,
                       ctx.Add(OpId::kSlice, {x}, {{"begin", Ints(begin)}, {"end", Ints(end)}}));
  return ctx.Add(OpId::kSqueeze, {row}, {{"axes", Ints({0})}});
}

absl::StatusOr<std::vector<Ref>> Split(Context& ctx, Ref x, int axis, int parts) {
  return ctx.AddMulti(OpId::kSplit, {x}, {{"axis", Int(axis)}, {"num_splits", Int(parts)}});
}

// min(max(x, -clip), clip) when clip > 0.
absl::StatusOr<Ref> Clip(Context& ctx, Ref x, float clip) {
  if (!(clip > 0)) return x;
  const DType t = ctx.Type(x).dtype;
  TFN_ASSIGN_OR_RETURN(Ref low, ctx.Add(OpId::kMaximum, {x, ctx.Scalar(t, -clip)}));
  return ctx.Add(OpId::kMinimum, {low, ctx.Scalar(t, clip)});
}

struct Layer {
  Cell cell;
  int64_t hidden = 0;
  int gates = 1;
  float clip = 0;
  bool input_forget = false, linear_before_reset = false;
  Ref lens;  // [batch, 1] int64, invalid when every sequence is full
};

absl::StatusOr<Ref> Add(Context& ctx, Ref a, Ref b) { return ctx.Add(OpId::kAdd, {a, b}); }
// a + b, or a when b is absent (an optional bias).
absl::StatusOr<Ref> AddIf(Context& ctx, Ref a, Ref b) { return b.node >= 0 ? Add(ctx, a, b) : a; }
absl::StatusOr<Ref> Mul(Context& ctx, Ref a, Ref b) { return ctx.Add(OpId::kMul, {a, b}); }

// One step: the new hidden state (and, for LSTM, cell state) from this
// step's input projection `xw` [batch, gates*H].
absl::Status Step(Context& ctx, const Layer& l, const Direction& d, Ref xw, Ref* h, Ref* c) {
  TFN_ASSIGN_OR_RETURN(Ref hr, ctx.Add(OpId::kMatMul, {*h, d.r}, {{"transpose_b", Int(1)}}));
  const DType t = ctx.Type(xw).dtype;
  if (l.cell == Cell::kRnn) {
    TFN_ASSIGN_OR_RETURN(Ref sum, Add(ctx, xw, hr));
    TFN_ASSIGN_OR_RETURN(sum, Clip(ctx, sum, l.clip));
    TFN_ASSIGN_OR_RETURN(*h, Apply(ctx, d.f[0], sum));
    return absl::OkStatus();
  }
  if (l.cell == Cell::kGru) {
    TFN_ASSIGN_OR_RETURN(std::vector<Ref> x3, Split(ctx, xw, 1, 3));  // z, r, h
    std::vector<Ref> rb3(3);
    if (d.rb.node >= 0) {
      TFN_ASSIGN_OR_RETURN(rb3, Split(ctx, d.rb, 0, 3));
    }
    // The recurrent bias rides on h x R^T (a matmul's bias epilogue, free)
    // instead of three adds per step: z and r add it to h's term, and the
    // linear_before_reset candidate multiplies h's term with it by r.
    TFN_ASSIGN_OR_RETURN(hr, AddIf(ctx, hr, d.rb));
    TFN_ASSIGN_OR_RETURN(std::vector<Ref> h3, Split(ctx, hr, 1, 3));
    Ref gate[2];
    for (int k = 0; k < 2; ++k) {
      TFN_ASSIGN_OR_RETURN(Ref s, Add(ctx, x3[k], h3[k]));
      TFN_ASSIGN_OR_RETURN(s, Clip(ctx, s, l.clip));
      TFN_ASSIGN_OR_RETURN(gate[k], Apply(ctx, d.f[0], s));
    }
    Ref recurrent;  // the candidate's recurrent term
    if (l.linear_before_reset) {
      TFN_ASSIGN_OR_RETURN(recurrent, Mul(ctx, gate[1], h3[2]));
    } else {
      TFN_ASSIGN_OR_RETURN(std::vector<Ref> r3, Split(ctx, d.r, 0, 3));
      TFN_ASSIGN_OR_RETURN(Ref rh, Mul(ctx, gate[1], *h));
      TFN_ASSIGN_OR_RETURN(Ref prod,
                           ctx.Add(OpId::kMatMul, {rh, r3[2]}, {{"transpose_b", Int(1)}}));
      TFN_ASSIGN_OR_RETURN(recurrent, AddIf(ctx, prod, rb3[2]));
    }
    TFN_ASSIGN_OR_RETURN(Ref s, Add(ctx, x3[2], recurrent));
    TFN_ASSIGN_OR_RETURN(s, Clip(ctx, s, l.clip));
    TFN_ASSIGN_OR_RETURN(Ref candidate, Apply(ctx, d.f[1], s));
    // (1 - z) * candidate + z * h = candidate + z * (h - candidate)
    TFN_ASSIGN_OR_RETURN(Ref diff, ctx.Add(OpId::kSub, {*h, candidate}));
    TFN_ASSIGN_OR_RETURN(Ref zd, Mul(ctx, gate[0], diff));
    TFN_ASSIGN_OR_RETURN(*h, Add(ctx, candidate, zd));
    return absl::OkStatus();
  }
  // LSTM, gates in ONNX's order i, o, f, c.
  TFN_ASSIGN_OR_RETURN(Ref sum, Add(ctx, xw, hr));
  TFN_ASSIGN_OR_RETURN(std::vector<Ref> g4, Split(ctx, sum, 1, 4));
  std::vector<Ref> p3;
  if (d.peep.node >= 0) {  // i, o, f
    TFN_ASSIGN_OR_RETURN(p3, Split(ctx, d.peep, 0, 3));
  }
  auto gate = [&](int k, int peep, Ref state) -> absl::StatusOr<Ref> {
    Ref s = g4[k];
    if (!p3.empty()) {
      TFN_ASSIGN_OR_RETURN(Ref ps, Mul(ctx, p3[peep], state));
      TFN_ASSIGN_OR_RETURN(s, Add(ctx, s, ps));
    }
    TFN_ASSIGN_OR_RETURN(s, Clip(ctx, s, l.clip));
    return Apply(ctx, d.f[0], s);
  };
  TFN_ASSIGN_OR_RETURN(Ref i, gate(0, 0, *c));
  Ref f;
  if (l.input_forget) {
    TFN_ASSIGN_OR_RETURN(f, ctx.Add(OpId::kSub, {ctx.Scalar(t, 1), i}));
  } else {
    TFN_ASSIGN_OR_RETURN(f, gate(2, 2, *c));
  }
  TFN_ASSIGN_OR_RETURN(Ref gc, Clip(ctx, g4[3], l.clip));
  TFN_ASSIGN_OR_RETURN(Ref candidate, Apply(ctx, d.f[1], gc));
  TFN_ASSIGN_OR_RETURN(Ref fc, Mul(ctx, f, *c));
  TFN_ASSIGN_OR_RETURN(Ref ic, Mul(ctx, i, candidate));
  TFN_ASSIGN_OR_RETURN(Ref c_new, Add(ctx, fc, ic));
  TFN_ASSIGN_OR_RETURN(Ref o, gate(1, 1, c_new));
  TFN_ASSIGN_OR_RETURN(Ref hc, Apply(ctx, d.f[2], c_new));
  TFN_ASSIGN_OR_RETURN(*h, Mul(ctx, o, hc));
  *c = c_new;
  return absl::OkStatus();
}

// Runs one direction over the projected sequence `xw` (one [batch, G*H]
// value per step); returns the hidden state of every step in time order,
// and leaves the final states in *h and *c.
absl::StatusOr<std::vector<Ref>> RunDirection(Context& ctx, const Layer& l, const Direction& d,
                                              const std::vector<Ref>& xw, Ref* h, Ref* c) {
  const int64_t steps = static_cast<int64_t>(xw.size());
  std::vector<Ref> ys(static_cast<size_t>(steps));
  *h = d.h0;
  *c = d.c0;
  for (int64_t k = 0; k < steps; ++k) {
    const int64_t t = d.reverse ? steps - 1 - k : k;
    Ref h_new = *h, c_new = *c;
    TFN_ONNX_RETURN_IF_ERROR(Step(ctx, l, d, xw[static_cast<size_t>(t)], &h_new, &c_new));
    if (l.lens.node >= 0) {
      // Past a sequence's end the states stay and the output is 0.
      TFN_ASSIGN_OR_RETURN(Ref live, ctx.Add(OpId::kLess, {ctx.Int64Scalar(t), l.lens}));
      TFN_ASSIGN_OR_RETURN(
          Ref y, ctx.Add(OpId::kWhere, {live, h_new, ctx.Scalar(ctx.Type(h_new).dtype, 0)}));
      ys[static_cast<size_t>(t)] = y;
      TFN_ASSIGN_OR_RETURN(*h, ctx.Add(OpId::kWhere, {live, h_new, *h}));
      if (l.cell == Cell::kLstm) {
        TFN_ASSIGN_OR_RETURN(*c, ctx.Add(OpId::kWhere, {live, c_new, *c}));
      }
    } else {
      ys[static_cast<size_t>(t)] = h_new;
      *h = h_new;
      *c = c_new;
    }
  }
  return ys;
}

std::vector<Activation> Activations(Context& ctx, Cell cell, int dirs) {
  std::vector<std::string> defaults = cell == Cell::kRnn ? std::vector<std::string>{"Tanh"}
                                      : cell == Cell::kGru
                                          ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                          : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  const size_t per = defaults.size();
  std::vector<Activation> out(per * dirs);
  const onnx::AttributeProto* names = ctx.Attr("activations");
  std::vector<float> alpha = ctx.AttrFloats("activation_alpha"),
                     beta = ctx.AttrFloats("activation_beta");
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].name = names && static_cast<int>(i) < names->strings_size()
                      ? names->strings(static_cast<int>(i))
                      : defaults[i % per];
    // ONNX's documented defaults where the attribute leaves one out.
    const bool hard = out[i].name == "HardSigmoid";
    out[i].alpha = i < alpha.size()             ? alpha[i]
                   : hard                       ? 0.2f
                   : out[i].name == "LeakyRelu" ? 0.01f
                                                : 1.0f;
    out[i].beta = i < beta.size()               ? beta[i]
                  : hard                        ? 0.5f
                  : out[i].name == "ScaledTanh" ? 1.0f
                                                : 0.0f;
  }
  return out;
}

absl::Status ConvertRecurrent(Context& ctx, Cell cell) {
  Layer l;
  l.cell = cell;
  l.gates = cell == Cell::kRnn ? 1 : cell == Cell::kGru ? 3 : 4;
  l.clip = ctx.AttrFloat("clip", 0);
  l.input_forget = ctx.AttrInt("input_forget", 0) != 0;
  l.linear_before_reset = ctx.AttrInt("linear_before_reset", 0) != 0;
  const std::string direction = ctx.AttrString("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional") {
    return ctx.Error("direction must be forward, reverse or bidirectional, got '" + direction +
                     "'");
  }
  const int dirs = direction == "bidirectional" ? 2 : 1;
  const bool batch_first = ctx.AttrInt("layout", 0) != 0;
  TFN_ASSIGN_OR_RETURN(Ref x, ctx.Input(0));
  TFN_ASSIGN_OR_RETURN(Ref w, ctx.Input(1));
  TFN_ASSIGN_OR_RETURN(Ref r, ctx.Input(2));
  const SymShape& ws = ctx.Type(w).shape;
  if (ctx.Type(x).shape.rank() != 3 || ws.rank() != 3 || ctx.Type(r).shape.rank() != 3) {
    return ctx.Error("X, W and R must have rank 3, got " + ctx.Type(x).ToString() + ", " +
                     ctx.Type(w).ToString() + ", " + ctx.Type(r).ToString());
  }
  // Every weight and state must have ONNX's shape: a wrong one is the
  // model's error, said here (fuzz_onnx found a rank-0 initial_h).
  auto expect = [&](int input, const char* name, std::vector<SymDim> dims) -> absl::Status {
    if (!ctx.HasInput(input)) return absl::OkStatus();
    TFN_ASSIGN_OR_RETURN(Ref v, ctx.Input(input));
    const SymShape& got = ctx.Type(v).shape;
    bool same = got.rank() == static_cast<int>(dims.size());
    for (int i = 0; same && i < got.rank(); ++i) same = !KnownNotEqual(got[i], dims[i]);
    if (same) return absl::OkStatus();
    return ctx.Error(std::string(name) + " must be " +
                     SymShapeToString(SymShape(dims.begin(), dims.end())) + ", got " +
                     ctx.Type(v).ToString());
  };
  if (!ws[1].is_static()) return ctx.Unsupported("a W with a dynamic gate dim");
  l.hidden = ctx.AttrInt("hidden_size", ws[1].value() / l.gates);
  if (l.hidden <= 0 || ws[1].value() != l.gates * l.hidden) {
    return ctx.Error("W is " + ctx.Type(w).ToString() + ", which does not hold " +
                     std::to_string(l.gates) + " gates of hidden_size " + std::to_string(l.hidden));
  }
  if (batch_first) {
    TFN_ASSIGN_OR_RETURN(x, ctx.Add(OpId::kTranspose, {x}, {{"perm", Ints({1, 0, 2})}}));
  }
  const SymShape xs = ctx.Type(x).shape;  // [seq, batch, input]
  if (!xs[0].is_static()) {
    return ctx.Unsupported("a " + ctx.node().op_type() + " over a dynamic sequence length (" +
                           ctx.Type(x).ToString() + "; export it with a fixed sequence length)");
  }
  const int64_t steps = xs[0].value();
  if (steps < 1 || steps > kMaxUnrolledSteps) {
    return ctx.Unsupported("a sequence of " + std::to_string(steps) + " steps (1 to " +
                           std::to_string(kMaxUnrolledSteps) + " are unrolled)");
  }
  if (!xs[2].is_static()) {
    return ctx.Unsupported("an input of dynamic feature size " + ctx.Type(x).ToString());
  }
  const int64_t gh = l.gates * l.hidden;
  const SymDim batch = xs[1], dirs_dim(dirs), h_dim(l.hidden);
  const std::vector<SymDim> state = batch_first ? std::vector<SymDim>{batch, dirs_dim, h_dim}
                                                : std::vector<SymDim>{dirs_dim, batch, h_dim};
  TFN_ONNX_RETURN_IF_ERROR(expect(1, "W", {dirs_dim, SymDim(gh), xs[2]}));
  TFN_ONNX_RETURN_IF_ERROR(expect(2, "R", {dirs_dim, SymDim(gh), h_dim}));
  TFN_ONNX_RETURN_IF_ERROR(expect(3, "B", {dirs_dim, SymDim(2 * gh)}));
  TFN_ONNX_RETURN_IF_ERROR(expect(4, "sequence_lens", {batch}));
  TFN_ONNX_RETURN_IF_ERROR(expect(5, "initial_h", state));
  if (cell == Cell::kLstm) {
    TFN_ONNX_RETURN_IF_ERROR(expect(6, "initial_c", state));
    TFN_ONNX_RETURN_IF_ERROR(expect(7, "P", {dirs_dim, SymDim(3 * l.hidden)}));
  }
  if (ctx.HasInput(4)) {
    TFN_ASSIGN_OR_RETURN(Ref lens, ctx.Input(4));
    bool full = false;
    if (absl::StatusOr<std::vector<int64_t>> known = ctx.ConstInts(4); known.ok()) {
      full = true;
      for (int64_t v : *known) full &= v == steps;
    }
    if (!full) {
      if (direction != "forward")
        return ctx.Unsupported("sequence_lens with direction '" + direction + "'");
      TFN_ASSIGN_OR_RETURN(
          lens, ctx.Add(OpId::kCast, {lens}, {{"dtype", AttrValue::Type(DType::kInt64)}}));
      TFN_ASSIGN_OR_RETURN(l.lens, ctx.Add(OpId::kExpandDims, {lens}, {{"axis", Int(1)}}));
    }
  }
  std::vector<Activation> acts = Activations(ctx, cell, dirs);
  const size_t per = acts.size() / dirs;
  // [seq*batch, input] for the one projection GEMM per direction.
  TFN_ASSIGN_OR_RETURN(Ref flat,
                       ctx.Add(OpId::kReshape, {x}, {{"shape", Ints({-1, xs[2].value()})}}));
  std::vector<Ref> y_dirs, h_dirs, c_dirs;
  for (int k = 0; k < dirs; ++k) {
    Direction d;
    d.reverse = direction == "reverse" || k == 1;
    d.f.assign(acts.begin() + static_cast<long>(k * per),
               acts.begin() + static_cast<long>((k + 1) * per));
    TFN_ASSIGN_OR_RETURN(d.w, Row(ctx, w, k));
    TFN_ASSIGN_OR_RETURN(d.r, Row(ctx, r, k));
    if (ctx.HasInput(3)) {
      TFN_ASSIGN_OR_RETURN(Ref b, ctx.Input(3));
      TFN_ASSIGN_OR_RETURN(Ref bk, Row(ctx, b, k));
      TFN_ASSIGN_OR_RETURN(std::vector<Ref> halves, Split(ctx, bk, 0, 2));
      d.wb = halves[0];
      d.rb = halves[1];
    }
    // The recurrent bias joins the projection where it is not inside the
    // reset gate's product (GRU's candidate keeps its own).
    Ref bias = d.wb;
    if (cell != Cell::kGru && d.rb.node >= 0) {
      TFN_ASSIGN_OR_RETURN(bias, Add(ctx, d.wb, d.rb));
      d.rb = Ref{};
    }
    TFN_ASSIGN_OR_RETURN(Ref proj, ctx.Add(OpId::kMatMul, {flat, d.w}, {{"transpose_b", Int(1)}}));
    if (bias.node >= 0) {
      TFN_ASSIGN_OR_RETURN(proj, Add(ctx, proj, bias));
    }
    TFN_ASSIGN_OR_RETURN(proj, ctx.Add(OpId::kReshape, {proj}, {{"shape", Ints({steps, -1, gh})}}));
    TFN_ASSIGN_OR_RETURN(std::vector<Ref> xw, Split(ctx, proj, 0, static_cast<int>(steps)));
    for (Ref& v : xw) {
      TFN_ASSIGN_OR_RETURN(v, ctx.Add(OpId::kSqueeze, {v}, {{"axes", Ints({0})}}));
    }
    auto state = [&](int input) -> absl::StatusOr<Ref> {
      if (ctx.HasInput(input)) {
        TFN_ASSIGN_OR_RETURN(Ref s, ctx.Input(input));
        if (batch_first) {  // layout 1: [batch, dirs, H]
          TFN_ASSIGN_OR_RETURN(s, ctx.Add(OpId::kTranspose, {s}, {{"perm", Ints({1, 0, 2})}}));
        }
        return Row(ctx, s, k);
      }
      // Zeros [batch, H], shaped like part of a step's projection (fill_like
      // reads no values, so a NaN input does not leak into the state).
      TFN_ASSIGN_OR_RETURN(Ref part, ctx.Add(OpId::kSlice, {xw[0]},
                                             {{"begin", Ints({0, 0})},
                                              {"end", Ints({int64_t{1} << 62, l.hidden})}}));
      return ctx.Add(OpId::kFillLike, {part}, {{"value", AttrValue::Float(0)}});
    };
    TFN_ASSIGN_OR_RETURN(d.h0, state(5));
    if (cell == Cell::kLstm) {
      TFN_ASSIGN_OR_RETURN(d.c0, state(6));
      if (ctx.HasInput(7)) {
        TFN_ASSIGN_OR_RETURN(Ref p, ctx.Input(7));
        TFN_ASSIGN_OR_RETURN(d.peep, Row(ctx, p, k));
      }
    }
    Ref h, c;
    TFN_ASSIGN_OR_RETURN(std::vector<Ref> ys, RunDirection(ctx, l, d, xw, &h, &c));
    for (Ref& y : ys) {
      TFN_ASSIGN_OR_RETURN(y, ctx.Add(OpId::kExpandDims, {y}, {{"axis", Int(0)}}));
    }
    TFN_ASSIGN_OR_RETURN(Ref y, ys.size() == 1 ? absl::StatusOr<Ref>(ys[0])
                                               : ctx.Add(OpId::kConcat, ys, {{"axis", Int(0)}}));
    y_dirs.push_back(y);  // [seq, batch, H]
    h_dirs.push_back(h);
    c_dirs.push_back(c);
  }
  // Y [seq, dirs, batch, H] (layout 1: [batch, seq, dirs, H]); Y_h, Y_c
  // [dirs, batch, H] (layout 1: [batch, dirs, H]).
  auto stack = [&](const std::vector<Ref>& parts, int axis) -> absl::StatusOr<Ref> {
    std::vector<Ref> e;
    for (Ref p : parts) {
      TFN_ASSIGN_OR_RETURN(Ref v, ctx.Add(OpId::kExpandDims, {p}, {{"axis", Int(axis)}}));
      e.push_back(v);
    }
    if (e.size() == 1) return e[0];
    return ctx.Add(OpId::kConcat, e, {{"axis", Int(axis)}});
  };
  TFN_ASSIGN_OR_RETURN(Ref y, stack(y_dirs, 1));
  TFN_ASSIGN_OR_RETURN(Ref yh, stack(h_dirs, 0));
  if (batch_first) {
    TFN_ASSIGN_OR_RETURN(y, ctx.Add(OpId::kTranspose, {y}, {{"perm", Ints({2, 0, 1, 3})}}));
    TFN_ASSIGN_OR_RETURN(yh, ctx.Add(OpId::kTranspose, {yh}, {{"perm", Ints({1, 0, 2})}}));
  }
  TFN_ONNX_RETURN_IF_ERROR(ctx.Output(0, y));
  TFN_ONNX_RETURN_IF_ERROR(ctx.Output(1, yh));
  if (cell == Cell::kLstm) {
    TFN_ASSIGN_OR_RETURN(Ref yc, stack(c_dirs, 0));
    if (batch_first) {
      TFN_ASSIGN_OR_RETURN(yc, ctx.Add(OpId::kTranspose, {yc}, {{"perm", Ints({1, 0, 2})}}));
    }
    TFN_ONNX_RETURN_IF_ERROR(ctx.Output(2, yc));
  }
  return absl::OkStatus();
}

TFN_ONNX_CONVERTER("RNN", 7, [](Context& ctx) { return ConvertRecurrent(ctx, Cell::kRnn); });
TFN_ONNX_CONVERTER("GRU", 7, [](Context& ctx) { return ConvertRecurrent(ctx, Cell::kGru); });
TFN_ONNX_CONVERTER("LSTM", 7, [](Context& ctx) { return ConvertRecurrent(ctx, Cell::kLstm); });

}  // namespace
}  // namespace tfn::onnx_import
