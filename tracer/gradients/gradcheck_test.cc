// Every gradient rule against central finite differences in float64
// (PyTorch gradcheck's tolerances: eps 1e-6, atol 1e-5, rtol 1e-3), eagerly
// and from a traced function (the same rules recorded into a graph, then
// optimized and run by the runtime's executor), with static and dynamic
// dims; second-order checks where the rules are themselves differentiable.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <set>

#include "core/op_def.h"
#include "tfn/tfn.h"
#include "tracer/gradients/registry.h"

namespace tfn {
namespace {

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

struct Case {
  std::string name;
  std::vector<Shape> shapes;
  Fn f;
  double lo = -1, hi = 1;  // the inputs' range
  int dynamic_dim0 = 0;    // also trace with dim 0 of the first this many inputs dynamic
  bool second_order = false;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

Tensor Random(const Shape& s, std::mt19937& rng, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(static_cast<size_t>(NumElements(s)));
  for (double& x : v) x = u(rng);
  return constant(v, s);
}

// The scalar the checks differentiate: sum(f(xs) * w), so that every output
// element has its own weight.
Tensor Loss(const Case& c, const std::vector<Tensor>& xs, const Tensor& w) {
  return reduce_sum(c.f(xs) * w);
}

std::vector<Tensor> TapeGrads(const Case& c, const std::vector<Tensor>& xs, const Tensor& w) {
  GradientTape tape;
  tape.watch(xs);
  Tensor loss = Loss(c, xs, w);
  return tape.gradient(loss, xs, Tensor(), UnconnectedGradients::kZero);
}

void ExpectClose(const std::vector<double>& got, const std::vector<double>& want, double atol,
                 double rtol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_LE(std::abs(got[i] - want[i]), atol + rtol * std::abs(want[i]))
        << what << " element " << i << ": got " << got[i] << ", want " << want[i];
  }
}

// Central differences of `scalar` over each element of xs[i].
std::vector<double> Numeric(const std::function<double(const std::vector<Tensor>&)>& scalar,
                            const std::vector<Tensor>& xs, size_t i) {
  const double eps = 1e-6;
  std::vector<double> base = xs[i].to_vector<double>(), out(base.size());
  for (size_t j = 0; j < base.size(); ++j) {
    std::vector<Tensor> moved = xs;
    std::vector<double> v = base;
    v[j] = base[j] + eps;
    moved[i] = constant(v, xs[i].shape());
    const double up = scalar(moved);
    v[j] = base[j] - eps;
    moved[i] = constant(v, xs[i].shape());
    out[j] = (up - scalar(moved)) / (2 * eps);
  }
  return out;
}

void Check(const Case& c, uint32_t seed) {
  SCOPED_TRACE(c.name);
  std::mt19937 rng(seed);
  std::vector<Tensor> xs;
  for (const Shape& s : c.shapes) xs.push_back(Random(s, rng, c.lo, c.hi));
  const Tensor w = Random(c.f(xs).shape(), rng, -1, 1);

  // 1. Eager rules against finite differences.
  const std::vector<Tensor> grads = TapeGrads(c, xs, w);
  auto loss = [&](const std::vector<Tensor>& in) { return Loss(c, in, w).item<double>(); };
  for (size_t i = 0; i < xs.size(); ++i) {
    ASSERT_TRUE(grads[i].defined());
    ASSERT_EQ(grads[i].shape(), xs[i].shape()) << "input " << i;
    ExpectClose(grads[i].to_vector<double>(), Numeric(loss, xs, i), 1e-5, 1e-3,
                "d/d input " + std::to_string(i));
  }

  // 2. The same step traced (gradient ops recorded, optimized, run by the
  // runtime), with static dims and, where asked, a dynamic first dim.
  for (bool dynamic : {false, true}) {
    if (dynamic && !c.dynamic_dim0) continue;
    FunctionOptions o;
    o.name = c.name + "_grad";
    for (size_t i = 0; i < xs.size(); ++i) {
      Shape s = xs[i].shape();
      if (dynamic && static_cast<int>(i) < c.dynamic_dim0) s[0] = kDynamic;
      o.input_signature.push_back(TensorSpec(s, DType::kFloat64));
    }
    Shape ws = w.shape();
    if (dynamic) ws[0] = kDynamic;
    o.input_signature.push_back(TensorSpec(ws, DType::kFloat64));
    auto traced = function(
        [&c](std::vector<Tensor> in) {
          Tensor weight = in.back();
          in.pop_back();
          return TapeGrads(c, in, weight);
        },
        o);
    std::vector<Tensor> args = xs;
    args.push_back(w);
    const std::vector<Tensor> got = traced(args);
    ASSERT_EQ(got.size(), grads.size());
    for (size_t i = 0; i < got.size(); ++i) {
      ExpectClose(
          got[i].to_vector<double>(), grads[i].to_vector<double>(), 1e-10, 1e-9,
          std::string(dynamic ? "dynamic" : "static") + " trace, input " + std::to_string(i));
    }
  }

  // 3. Second order: the gradient of sum(grad * v), against differences of
  // the first gradient.
  if (c.second_order) {
    const Tensor v = Random(xs[0].shape(), rng, -1, 1);
    auto first = [&](const std::vector<Tensor>& in) { return TapeGrads(c, in, w)[0]; };
    GradientTape outer;
    outer.watch(xs);
    Tensor s = reduce_sum(first(xs) * v);
    const Tensor hv = outer.gradient(s, {xs[0]}, Tensor(), UnconnectedGradients::kZero)[0];
    ASSERT_TRUE(hv.defined());
    auto scalar = [&](const std::vector<Tensor>& in) {
      return reduce_sum(first(in) * v).item<double>();
    };
    ExpectClose(hv.to_vector<double>(), Numeric(scalar, xs, 0), 1e-5, 1e-3, "second order");
  }
}

Tensor C(double v) { return constant(v); }

std::vector<Case> UnaryCases() {
  auto u = [](std::string name, Tensor (*op)(const Tensor&), double lo = -1, double hi = 1) {
    Case c{name, {Shape{2, 3}}, [op](const std::vector<Tensor>& x) { return op(x[0]); }, lo, hi};
    c.dynamic_dim0 = 1;
    c.second_order = true;
    return c;
  };
  return {u("identity", identity),
          u("neg", neg),
          u("abs", abs),
          u("relu", relu),
          u("exp", exp),
          u("log", log, 0.5, 2),
          u("sqrt", sqrt, 0.5, 2),
          u("rsqrt", rsqrt, 0.5, 2),
          u("tanh", tanh),
          u("sigmoid", sigmoid),
          u("erf", erf),
          u("sin", sin),
          u("cos", cos),
          u("tan", tan),
          u("asin", asin, -0.9, 0.9),
          u("acos", acos, -0.9, 0.9),
          u("atan", atan),
          u("sinh", sinh),
          u("cosh", cosh),
          u("asinh", asinh),
          u("acosh", acosh, 1.5, 3),
          u("atanh", atanh, -0.9, 0.9),
          Case{"gelu",
               {Shape{2, 3}},
               [](const std::vector<Tensor>& x) { return gelu(x[0]); },
               -2,
               2,
               1,
               true},
          Case{"gelu_tanh",
               {Shape{2, 3}},
               [](const std::vector<Tensor>& x) { return gelu(x[0], true); },
               -2,
               2,
               1,
               true},
          Case{"cast",
               {Shape{4}},
               [](const std::vector<Tensor>& x) { return cast(x[0], DType::kFloat64) * x[0]; }},
          Case{"floor_has_zero_gradient", {Shape{4}}, [](const std::vector<Tensor>& x) {
                 return floor(x[0] * C(3.0)) + x[0];
               }}};
}

std::vector<Case> BinaryCases() {
  std::vector<Case> cases;
  const std::vector<std::pair<Shape, Shape>> shapes = {{Shape{2, 3}, Shape{2, 3}},
                                                       {Shape{2, 3}, Shape{3}},
                                                       {Shape{2, 1}, Shape{1, 3}},
                                                       {Shape{}, Shape{2, 2}}};
  struct Op {
    const char* name;
    Tensor (*f)(const Tensor&, const Tensor&);
    double lo, hi;
  };
  for (Op op :
       {Op{"add", add, -1, 1}, Op{"sub", sub, -1, 1}, Op{"mul", mul, -1, 1}, Op{"div", div, 0.5, 2},
        Op{"pow", pow, 0.5, 2}, Op{"maximum", maximum, -1, 1}, Op{"minimum", minimum, -1, 1}}) {
    for (const auto& [a, b] : shapes) {
      auto f = op.f;
      Case c{std::string(op.name) + ShapeToString(a) + ShapeToString(b),
             {a, b},
             [f](const std::vector<Tensor>& x) { return f(x[0], x[1]); },
             op.lo,
             op.hi};
      c.second_order = true;
      c.dynamic_dim0 = a.rank() == 2 && b.rank() == 2 && a[0] == b[0] ? 2 : 0;
      cases.push_back(c);
    }
  }
  cases.push_back(
      Case{"fmod",
           {Shape{5}, Shape{5}},
           [](const std::vector<Tensor>& x) { return fmod(x[0] * C(3.0), x[1] + C(1.0)); },
           0.1,
           0.4});
  cases.push_back(
      Case{"mod",
           {Shape{5}, Shape{5}},
           [](const std::vector<Tensor>& x) { return mod(x[0] * C(3.0), x[1] + C(1.0)); },
           0.1,
           0.4});
  // A traced cond is differentiated as a cond of its branches' gradients:
  // the eager run takes the branch directly, the traced one records both.
  for (double bias : {100.0, -100.0}) {
    cases.push_back(Case{std::string("cond_") + (bias > 0 ? "then" : "else"),
                         {Shape{2, 3}, Shape{3}},
                         [bias](const std::vector<Tensor>& x) {
                           Tensor pred = reduce_sum(x[0]) + C(bias) > C(0.0);
                           return cond(
                               pred, [&] { return x[0] * x[0] * sin(x[1]) + x[1]; },
                               [&] { return exp(x[0]) * x[1]; });
                         },
                         -1,
                         1,
                         1});
  }
  // A bounded while_loop: traced, the loop keeps each iteration's loop
  // variables and the backward loop replays the body from them. Stopped by
  // its condition (with an integer loop variable beside the float one), by
  // its bound, and after a number of iterations that depends on the data.
  cases.push_back(
      Case{"while_counted",
           {Shape{2, 3}, Shape{3}},
           [](const std::vector<Tensor>& x) {
             WhileOptions bound;
             bound.maximum_iterations = 10;
             return while_loop(
                 [](const std::vector<Tensor>& v) { return v[1] < constant(4); },
                 [&](const std::vector<Tensor>& v) {
                   return std::vector<Tensor>{tanh(v[0] * x[1] + x[0]), v[1] + constant(1)};
                 },
                 {x[0], constant(0)}, bound)[0];
           },
           -1,
           1,
           1});
  cases.push_back(Case{"while_bound_stops", {Shape{4}, Shape{4}}, [](const std::vector<Tensor>& x) {
                         WhileOptions bound;
                         bound.maximum_iterations = 3;
                         return while_loop(
                             [](const std::vector<Tensor>& v) { return reduce_sum(v[0]) < C(1e9); },
                             [&](const std::vector<Tensor>& v) {
                               return std::vector<Tensor>{v[0] * x[1] + sin(v[0]), v[1] * v[0]};
                             },
                             {x[0], x[1]}, bound)[1];
                       }});
  cases.push_back(
      Case{"while_data_dependent",
           {Shape{3}, Shape{3}},
           [](const std::vector<Tensor>& x) {
             WhileOptions bound;
             bound.maximum_iterations = 20;
             return while_loop(
                 [](const std::vector<Tensor>& v) { return reduce_max(abs(v[0])) < C(5.0); },
                 [&](const std::vector<Tensor>& v) {
                   return std::vector<Tensor>{v[0] * C(1.7) + sin(x[1])};
                 },
                 {x[0]}, bound)[0];
           },
           0.5,
           1});
  cases.push_back(Case{
      "where", {Shape{2, 3}, Shape{3}}, [](const std::vector<Tensor>& x) {
        Tensor c = constant(std::vector<bool>{true, false, true, false, false, true}, Shape{2, 3});
        return where(c, x[0], x[1]);
      }});
  return cases;
}

std::vector<Case> MathCases() {
  auto mm = [](bool ta, bool tb) {
    return [ta, tb](const std::vector<Tensor>& x) { return matmul(x[0], x[1], ta, tb); };
  };
  std::vector<Case> cases = {
      Case{"matmul", {Shape{3, 4}, Shape{4, 2}}, mm(false, false), -1, 1, 1, true},
      Case{"matmul_ta", {Shape{4, 3}, Shape{4, 2}}, mm(true, false)},
      Case{"matmul_tb", {Shape{3, 4}, Shape{2, 4}}, mm(false, true), -1, 1, 1},
      Case{"matmul_ta_tb", {Shape{4, 3}, Shape{2, 4}}, mm(true, true)},
      Case{"matmul_batched_broadcast", {Shape{2, 3, 4}, Shape{4, 5}}, mm(false, false), -1, 1, 1},
      Case{"matmul_batch_1_vs_2", {Shape{1, 3, 4}, Shape{2, 4, 2}}, mm(false, false)},
  };
  auto red = [](const char* name, Tensor (*op)(const Tensor&, std::vector<int64_t>, bool),
                std::vector<int64_t> axes, bool keep) {
    return Case{name + std::string(keep ? "_keep" : "") + std::to_string(axes.size()),
                {Shape{3, 4, 2}},
                [op, axes, keep](const std::vector<Tensor>& x) { return op(x[0], axes, keep); },
                -1,
                1,
                axes.empty() || axes[0] != 0,
                true};
  };
  for (auto op :
       {std::make_pair("reduce_sum", reduce_sum), std::make_pair("reduce_mean", reduce_mean),
        std::make_pair("reduce_max", reduce_max), std::make_pair("reduce_min", reduce_min)}) {
    cases.push_back(red(op.first, op.second, {1}, false));
    cases.push_back(red(op.first, op.second, {-1, 0}, true));
    cases.push_back(red(op.first, op.second, {}, false));
  }
  cases.push_back(Case{"reduce_max_ties", {Shape{2, 3}}, [](const std::vector<Tensor>& x) {
                         // Each row's maximum is there twice: the gradient is shared.
                         return reduce_max(concat({x[0], x[0]}, 1), {1});
                       }});
  for (bool keep : {false, true}) {
    cases.push_back(
        Case{std::string("reduce_prod") + (keep ? "_keep" : ""),
             {Shape{3, 4}},
             [keep](const std::vector<Tensor>& x) { return reduce_prod(x[0], {1}, keep); },
             0.5,
             1.5,
             1,
             true});
  }
  cases.push_back(Case{"reduce_prod_with_zeros",
                       {Shape{3, 4}},
                       [](const std::vector<Tensor>& x) {
                         // Row 0 has one zero, row 1 two, row 2 none.
                         Tensor mask = constant(
                             std::vector<double>{1, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1}, Shape{3, 4});
                         return reduce_prod(x[0] * mask, {1});
                       },
                       0.5,
                       1.5});
  cases.push_back(Case{"cumsum",
                       {Shape{3, 4}},
                       [](const std::vector<Tensor>& x) { return cumsum(x[0], 1); },
                       -1,
                       1,
                       1});
  cases.push_back(Case{"cumsum_exclusive_reverse", {Shape{3, 4}}, [](const std::vector<Tensor>& x) {
                         return cumsum(x[0], 0, true, true);
                       }});
  cases.push_back(Case{"softmax",
                       {Shape{3, 5}},
                       [](const std::vector<Tensor>& x) { return softmax(x[0]); },
                       -2,
                       2,
                       1,
                       true});
  cases.push_back(Case{"softmax_axis0",
                       {Shape{3, 5}},
                       [](const std::vector<Tensor>& x) { return softmax(x[0], 0); },
                       -2,
                       2});
  cases.push_back(Case{"log_softmax",
                       {Shape{3, 5}},
                       [](const std::vector<Tensor>& x) { return log_softmax(x[0]); },
                       -2,
                       2,
                       1,
                       true});
  cases.push_back(Case{"layer_norm",
                       {Shape{3, 6}, Shape{6}, Shape{6}},
                       [](const std::vector<Tensor>& x) { return layer_norm(x[0], x[1], x[2]); },
                       -2,
                       2,
                       0,
                       true});
  cases.push_back(
      Case{"layer_norm_axis1",
           {Shape{2, 3, 4}, Shape{3, 4}, Shape{3, 4}},
           [](const std::vector<Tensor>& x) { return layer_norm(x[0], x[1], x[2], 1, 1e-3); },
           -2,
           2});
  return cases;
}

std::vector<Case> ShapeCases() {
  using V = std::vector<Tensor>;
  const Tensor idx = constant(std::vector<int64_t>{2, 0, 2, -1}, Shape{2, 2});
  return {
      Case{"reshape",
           {Shape{2, 6}},
           [](const V& x) {
             return reshape(x[0], {3, 4}) * reshape(x[0], {4, 3})[0][0];
           }},
      Case{"transpose",
           {Shape{2, 3, 4}},
           [](const V& x) {
             return transpose(x[0], {2, 0, 1});
           },
           -1,
           1,
           1},
      Case{"transpose_reverse", {Shape{2, 3}}, [](const V& x) { return transpose(x[0]); }},
      Case{"expand_squeeze",
           {Shape{3, 1}},
           [](const V& x) { return expand_dims(squeeze(x[0]), 0) * x[0]; }},
      Case{"concat",
           {Shape{2, 3}, Shape{2, 1}, Shape{2, 2}},
           [](const V& x) {
             return concat({x[0], x[1], x[2]}, 1);
           },
           -1,
           1,
           3},
      Case{"concat_dynamic_axis",
           {Shape{2, 3}, Shape{1, 3}},
           [](const V& x) {
             return concat({x[0], x[1]}, 0);
           },
           -1,
           1,
           2},
      Case{"split",
           {Shape{6, 2}},
           [](const V& x) {
             std::vector<Tensor> p = split(x[0], {1, 2, 3}, 0);
             return concat({p[2], p[0] * C(3.0)}, 0);
           }},
      Case{"slice",
           {Shape{5, 4}},
           [](const V& x) {
             return slice(x[0], {1, 0}, {4, kSliceEnd});
           }},
      Case{"slice_strided",
           {Shape{7, 5}},
           [](const V& x) {
             return slice(x[0], {1, 4}, {kSliceEnd, 0}, {2, -2});
           }},
      Case{"slice_clamped_negative",
           {Shape{6}},
           [](const V& x) { return slice(x[0], {-4}, {100}, {3}); }},
      Case{"slice_reverse_all",
           {Shape{5}},
           [](const V& x) { return slice(x[0], {kSliceEnd}, {-kSliceEnd}, {-1}); }},
      Case{"pad",
           {Shape{2, 3}},
           [](const V& x) {
             return pad(x[0], {{1, 0}, {2, 1}}, "constant", 0.5);
           },
           -1,
           1,
           1},
      Case{"broadcast_to",
           {Shape{3, 1}},
           [](const V& x) {
             return broadcast_to(x[0], Shape{2, 3, 4});
           }},
      Case{"tile",
           {Shape{2, 3}},
           [](const V& x) {
             return tile(x[0], {2, 3});
           }},
      Case{"gather_axis0", {Shape{4, 3}}, [idx](const V& x) { return gather(x[0], idx, 0); }},
      Case{"gather_axis1", {Shape{2, 3, 2}}, [idx](const V& x) { return gather(x[0], idx, 1); }},
      Case{"gather_scalar_index",
           {Shape{2, 3}},
           [](const V& x) { return gather(x[0], constant(int64_t{1}), 1); }},
      Case{"gather_elements",
           {Shape{3, 3}},
           [](const V& x) {
             return gather_elements(
                 x[0], constant(std::vector<int64_t>{0, 0, 2, 1, 1, 1}, Shape{2, 3}), 0);
           }},
      Case{"gather_nd",
           {Shape{3, 2, 2}},
           [](const V& x) {
             return gather_nd(x[0], constant(std::vector<int64_t>{0, 1, 2, 0, 0, 1}, Shape{3, 2}));
           }},
      Case{"top_k", {Shape{2, 5}}, [](const V& x) { return top_k(x[0], 3).first; }},
      // unique's values (sorted, so moved) and its slices along an axis;
      // a repeated row is taken twice, so x's rows and duplicates both
      // carry the gradient.
      Case{"unique_flat", {Shape{2, 3}}, [](const V& x) { return unique(x[0]).values; }},
      Case{"unique_axis",
           {Shape{2, 3}},
           [](const V& x) {
             return unique(concat({x[0], x[0]}, 0), 0, false).values * C(2.0);
           }},
      Case{"scatter_elements",
           {Shape{3, 3}, Shape{2, 3}},
           [](const V& x) {
             return scatter_elements(
                 x[0], constant(std::vector<int64_t>{0, 2, 1, 2, 0, 0}, Shape{2, 3}), x[1], 0);
           }},
      Case{"scatter_elements_add",
           {Shape{3, 3}, Shape{2, 3}},
           [](const V& x) {
             return scatter_elements(x[0],
                                     constant(std::vector<int64_t>{0, 2, 1, 0, 2, 1}, Shape{2, 3}),
                                     x[1], 0, "add");
           }},
      Case{"scatter_nd",
           {Shape{4, 2}, Shape{2, 2}},
           [](const V& x) {
             return scatter_nd(x[0], constant(std::vector<int64_t>{3, 1}, Shape{2, 1}), x[1]);
           }},
      Case{"scatter_nd_add",
           {Shape{4, 2}, Shape{3, 2}},
           [](const V& x) {
             return scatter_nd(x[0], constant(std::vector<int64_t>{3, 1, 3}, Shape{3, 1}), x[1],
                               "add");
           }},
  };
}

std::vector<Case> NnCases() {
  using V = std::vector<Tensor>;
  auto conv = [](Conv2DOptions o, bool bias) {
    return [o, bias](const V& x) {
      return bias ? conv2d(x[0], x[1], x[2], o) : conv2d(x[0], x[1], o);
    };
  };
  Conv2DOptions same_s2;
  same_s2.padding = "SAME";
  same_s2.strides = {2, 2};
  Conv2DOptions dilated;
  dilated.dilations = {2, 1};
  dilated.padding = "EXPLICIT";
  dilated.pads = {1, 0, 0, 2};
  Conv2DOptions grouped;
  grouped.groups = 2;
  grouped.strides = {2, 1};
  Conv2DOptions depthwise;
  depthwise.groups = 4;
  depthwise.padding = "SAME";
  Pool2DOptions max2;
  Pool2DOptions max3_same;
  max3_same.ksize = {3, 3};
  max3_same.padding = "SAME";
  Pool2DOptions avg_pad;
  avg_pad.ksize = {3, 3};
  avg_pad.strides = {2, 2};
  avg_pad.padding = "EXPLICIT";
  avg_pad.pads = {1, 1, 1, 0};
  Pool2DOptions avg_pad_counted = avg_pad;
  avg_pad_counted.count_include_pad = true;
  Pool2DOptions ceil = avg_pad;
  ceil.pads = {0, 0, 0, 0};
  ceil.ceil_mode = true;
  return {
      Case{"conv2d_valid", {Shape{2, 5, 5, 3}, Shape{3, 3, 3, 4}}, conv({}, false), -1, 1, 1},
      Case{"conv2d_same_stride2_bias",
           {Shape{1, 6, 5, 2}, Shape{3, 3, 2, 3}, Shape{3}},
           conv(same_s2, true),
           -1,
           1,
           1},
      Case{"conv2d_dilated_explicit", {Shape{1, 6, 5, 2}, Shape{2, 3, 2, 2}}, conv(dilated, false)},
      Case{"conv2d_grouped", {Shape{1, 5, 4, 4}, Shape{3, 2, 2, 6}}, conv(grouped, false)},
      Case{"conv2d_depthwise", {Shape{1, 4, 4, 4}, Shape{3, 3, 1, 4}}, conv(depthwise, false)},
      Case{"max_pool2d",
           {Shape{2, 4, 6, 3}},
           [max2](const V& x) { return max_pool2d(x[0], max2); },
           -1,
           1,
           1},
      Case{"max_pool2d_3x3_same",
           {Shape{1, 5, 5, 2}},
           [max3_same](const V& x) { return max_pool2d(x[0], max3_same); }},
      Case{"avg_pool2d_padded",
           {Shape{1, 5, 6, 2}},
           [avg_pad](const V& x) { return avg_pool2d(x[0], avg_pad); },
           -1,
           1,
           1},
      Case{"avg_pool2d_count_include_pad",
           {Shape{1, 5, 6, 2}},
           [avg_pad_counted](const V& x) { return avg_pool2d(x[0], avg_pad_counted); }},
      Case{"avg_pool2d_ceil_mode",
           {Shape{1, 6, 6, 1}},
           [ceil](const V& x) { return avg_pool2d(x[0], ceil); }},
      Case{"max_pool2d_ceil_mode",
           {Shape{1, 6, 6, 1}},
           [ceil](const V& x) { return max_pool2d(x[0], ceil); }},
      Case{"conv2d_transpose",
           {Shape{2, 3, 3, 4}, Shape{3, 3, 2, 4}},
           [](const V& x) {
             Conv2DTransposeOptions t;
             t.strides = {2, 2};
             return conv2d_transpose(x[0], x[1], t);
           },
           -1,
           1,
           1},
      Case{"conv2d_transpose_padded_grouped_bias",
           {Shape{1, 3, 4, 4}, Shape{2, 3, 3, 4}, Shape{6}},
           [](const V& x) {
             Conv2DTransposeOptions t;
             t.strides = {2, 1};
             t.pads = {1, 0, 0, 1};
             t.output_padding = {1, 0};
             t.dilations = {1, 2};
             t.groups = 2;
             return conv2d_transpose(x[0], x[1], x[2], t);
           }},
      Case{"resize_linear",
           {Shape{1, 3, 4, 2}},
           [](const V& x) {
             ResizeOptions r;
             r.mode = "linear";
             return resize(x[0], Shape{1, 5, 7, 2}, r);
           },
           -1,
           1},
      Case{"resize_nearest_nchw_down",
           {Shape{2, 2, 6, 5}},
           [](const V& x) {
             return resize(x[0], Shape{2, 2, 3, 9});
           }},
      Case{"resize_cubic_align_corners",
           {Shape{1, 4, 4, 1}},
           [](const V& x) {
             ResizeOptions r;
             r.mode = "cubic";
             r.coordinate_transformation_mode = "align_corners";
             return resize(x[0], Shape{1, 6, 3, 1}, r);
           }},
  };
}

class GradCheck : public ::testing::TestWithParam<Case> {};
TEST_P(GradCheck, MatchesFiniteDifferences) { Check(GetParam(), 7); }

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string n;
  for (char ch : info.param.name) n += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Unary, GradCheck, ::testing::ValuesIn(UnaryCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(Binary, GradCheck, ::testing::ValuesIn(BinaryCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(Math, GradCheck, ::testing::ValuesIn(MathCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(Shape, GradCheck, ::testing::ValuesIn(ShapeCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(Nn, GradCheck, ::testing::ValuesIn(NnCases()), CaseName);

// Every op whose output can be a float has a rule or is declared not
// differentiable, except these, whose gradients are missing (and say so):
// the fused ops, which passes make after differentiation (the front end has
// no call for them), and the quantized compute ops (integer arithmetic that
// quantization makes after training).
TEST(GradRegistry, EveryFloatOpIsClassified) {
  const std::set<std::string> missing_expected = {
      "fused_matmul",   "fused_conv2d",   "qlinear_conv2d", "qlinear_matmul",
      "conv2d_integer", "matmul_integer", "qlinear_add"};
  std::set<std::string> missing;
  for (int i = 0; i < static_cast<int>(OpId::kNumOps); ++i) {
    const OpId op = static_cast<OpId>(i);
    if (detail::GetGradEntry(op).kind == detail::GradKind::kMissing) missing.insert(OpName(op));
  }
  EXPECT_EQ(missing, missing_expected);
}

}  // namespace
}  // namespace tfn
