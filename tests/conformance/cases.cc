// The conformance cases (see cases.h).
#include "tests/conformance/cases.h"

#include <string>
#include <utility>

#include "exporter/model_registry.h"

namespace tfn::conformance {
namespace {

TensorSpec F32(Shape s) { return TensorSpec(s, DType::kFloat32); }

// Random values in [lo, hi) for every input, seeded by position.
std::function<std::vector<Tensor>(const std::vector<TensorSpec>&)> Uniform(double lo, double hi) {
  return [lo, hi](const std::vector<TensorSpec>& specs) {
    std::vector<Tensor> out;
    for (size_t i = 0; i < specs.size(); ++i) {
      Tensor t = random_uniform(specs[i].shape, 100 + i, lo, hi, DType::kFloat32);
      out.push_back(specs[i].dtype == DType::kFloat32 ? t : cast(t, specs[i].dtype));
    }
    return out;
  };
}

// The number of parameters of a lambda's call operator.
template <class M>
struct Arity;
template <class C, class R, class... A>
struct Arity<R (C::*)(A...) const> : std::integral_constant<size_t, sizeof...(A)> {};

template <class F, size_t... I>
ConcreteFunction TraceOn(F f, const std::vector<TensorSpec>& s, bool optimize,
                         std::index_sequence<I...>) {
  FunctionOptions options;
  options.optimize = optimize;
  return function(f, options).get_concrete_function(s.at(I)...);
}

template <class F>
std::function<ConcreteFunction(const std::vector<TensorSpec>&, bool)> Traced(F f) {
  return [f](const std::vector<TensorSpec>& s, bool optimize) {
    return TraceOn(f, s, optimize,
                   std::make_index_sequence<Arity<decltype(&F::operator())>::value>());
  };
}

// The built-in example models, through their registered factories.
Case Model(const std::string& name, std::vector<TensorSpec> specs, double rtol) {
  Case c;
  c.name = "model_" + name;
  c.specs = specs;
  c.rtol = rtol;
  c.atol = 1e-5;
  c.trace = [name](const std::vector<TensorSpec>& s, bool optimize) {
    ExportRequest request;
    request.signature_specs["serving_default"] = s;
    request.optimize = optimize;
    return FindModel(name)->factory(request).at("serving_default");
  };
  c.inputs = Uniform(-1, 1);
  return c;
}

}  // namespace

std::vector<TensorSpec> SpecsFor(const Case& c, bool dynamic) {
  std::vector<TensorSpec> out = c.specs;
  for (int i : c.batched_inputs) {
    if (dynamic && out.at(i).shape.rank() > 0) out[i].shape[0] = kDynamic;
  }
  return out;
}

std::vector<TensorSpec> ShapesFor(const Case& c, int64_t batch) {
  std::vector<TensorSpec> out = c.specs;
  for (int i : c.batched_inputs) {
    if (batch > 0 && out.at(i).shape.rank() > 0) out[i].shape[0] = batch;
  }
  return out;
}

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  auto add = [&](std::string name, auto fn, std::vector<TensorSpec> specs, bool dynamic = true,
                 double lo = -2, double hi = 2) {
    Case c;
    c.name = std::move(name);
    c.trace = Traced(fn);
    c.specs = std::move(specs);
    c.dynamic = dynamic;
    c.inputs = Uniform(lo, hi);
    cases.push_back(c);
    return &cases.back();
  };
  add("unary_math",
      [](Tensor x) {
        return tanh(x) + sigmoid(x) * erf(x) + gelu(x) + gelu(x, true) + sin(x) * cos(x);
      },
      {F32({4, 37})});
  add(
      "unary_positive", [](Tensor x) { return log(x) + sqrt(x) + rsqrt(x) + exp(-x); },
      {F32({3, 50})}, true, 0.1, 4);
  add("unary_round",
      [](Tensor x) {
        return floor(x) + ceil(x) * 2.0 + round(x) * 3.0 + sign(x) + abs(x) - relu(-x);
      },
      {F32({5, 16})});
  add("chain_16",
      [](Tensor x) {
        Tensor y = x;
        for (int i = 0; i < 16; ++i) y = i % 2 ? y * 0.9 + 0.1 : tanh(y);
        return y;
      },
      {F32({2, 1000})});
  add("broadcast_row",
      [](Tensor x, Tensor b) { return maximum(x + b, x * b) - minimum(x, b) / (abs(b) + 1.0); },
      {F32({6, 33}), F32({33})});
  add("broadcast_col", [](Tensor x, Tensor c) { return (x - c) * (x + c); },
      {F32({6, 33}), F32({6, 1})});
  cases.back().batched_inputs = {0, 1};
  add("broadcast_3d",
      [](Tensor x, Tensor y) { return pow(abs(x) + 0.5, y) + mod(x, abs(y) + 1.0); },
      {F32({3, 4, 5}), F32({4, 1})});
  add("compare_where",
      [](Tensor x, Tensor y) {
        Tensor c = ((x > y) & (x >= 0.0)) | (x == y) | !(y < 1.0);
        return where(c, x * 2.0, y - 1.0);
      },
      {F32({7, 9}), F32({9})});
  add("int_math",
      [](Tensor x) {
        Tensor i = cast(x * 20.0, DType::kInt32);
        Tensor j =
            i / 3 + mod(i, ScalarLike(i, 4)) * (i - 7) + abs(i) + maximum(i, ScalarLike(i, -5));
        return std::make_tuple(cast(j, DType::kFloat32), cast(j > 0, DType::kInt64),
                               cast(i, DType::kFloat64));
      },
      {F32({4, 8})});
  add("matmul_bias_relu", [](Tensor x, Tensor w, Tensor b) { return relu(matmul(x, w) + b); },
      {F32({5, 64}), F32({64, 48}), F32({48})});
  add("matmul_transposed_batched", [](Tensor a, Tensor b) { return matmul(a, b, true, true); },
      {F32({3, 16, 5}), F32({3, 7, 16})});
  cases.back().batched_inputs = {0, 1};
  add("softmax_logsoftmax", [](Tensor x) { return softmax(x) + log_softmax(x, 0); },
      {F32({6, 31})});
  add("layer_norm", [](Tensor x, Tensor g, Tensor b) { return layer_norm(x, g, b); },
      {F32({5, 32}), F32({32}), F32({32})});
  add("reductions",
      [](Tensor x) {
        return concat(
            {reduce_sum(x, {1}), reduce_mean(x, {1}), reduce_max(x, {-1}), reduce_min(x, {1}),
             cast(argmax(x, 1), DType::kFloat32), cast(argmin(x, 1), DType::kFloat32)},
            0);
      },
      {F32({4, 23})});
  add("reduce_all_keep",
      [](Tensor x) { return reduce_sum(x, {}, true) + reduce_prod(x * 0.1 + 1.0, {0}, true); },
      {F32({3, 5})});
  add("shape_ops",
      [](Tensor x) {
        Tensor t = transpose(reshape(x, {-1, 4, 2}), {2, 0, 1});
        std::vector<Tensor> parts = split(x, 2, 1);
        Tensor s = slice(x, {0, 1}, {kSliceEnd, -1}, {1, 2});
        return std::make_tuple(t, parts[1] * 2.0, s, tile(parts[0], {1, 2}));
      },
      {F32({3, 8})});
  add("gather_pad_concat",
      [](Tensor x) {
        Tensor g = gather(x, constant(std::vector<int32_t>{1, 0, -1, 1}), 1);
        Tensor p = pad(x, {{0, 0}, {2, 1}}, "edge");
        Tensor q = pad(x, {{0, 0}, {1, 1}}, "constant", 7.5);
        return concat({g, p, q}, 1);
      },
      {F32({3, 5})});
  add("indexing",
      [](Tensor x) {
        Tensor g =
            gather_elements(x, constant(std::vector<int64_t>{2, 0, -1, 1, 4, 0}, Shape{1, 6}), 1);
        Tensor s = scatter_elements(x, constant(std::vector<int32_t>{4, -5, 4}, Shape{1, 3}),
                                    constant(std::vector<float>{1, 2, 3}, Shape{1, 3}), 1, "add");
        auto [values, indices] = top_k(x, 2);
        Tensor nd = gather_nd(x, constant(std::vector<int64_t>{0, 1, 0, -1}, Shape{2, 2}));
        return std::make_tuple(g, s, values + cast(indices, DType::kFloat32), nd);
      },
      {F32({3, 5})});
  // The reduced-precision dtypes: int8 quantization per axis, float16 and
  // bfloat16 round trips, and a data-movement op on int8.
  add("quantize_half",
      [](Tensor x) {
        Tensor scale = constant(std::vector<float>{0.05f, 0.1f, 0.2f, 0.4f});
        Tensor zero_point = constant(std::vector<int8_t>{-3, 0, 7, 1});
        Tensor q = quantize_linear(x * 2.0, scale, zero_point, 1);
        Tensor back = dequantize_linear(q, scale, zero_point, 1);
        Tensor h = cast(cast(x, DType::kFloat16), DType::kFloat32);
        Tensor b = cast(cast(transpose(x, {1, 0}), DType::kBFloat16), DType::kFloat32);
        return std::make_tuple(q, back + h, b, concat({q, q}, 0));
      },
      {F32({3, 4})});
  // The int8 linear ops: a quantized conv (weights constant, so prepacked
  // in the optimized graph; another grouped one with a runtime filter), a
  // quantized matmul, the int32 ops and quantized adds.
  add("quantized_linear",
      [](Tensor x) {
        auto u8 = [](uint8_t v) { return constant(std::vector<uint8_t>{v}, Shape{}); };
        auto i8 = [](int8_t v) { return constant(std::vector<int8_t>{v}, Shape{}); };
        auto f = [](float v) { return constant(std::vector<float>{v}, Shape{}); };
        std::vector<int8_t> w(3 * 3 * 4 * 6);
        for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int8_t>((i * 37) % 255 - 127);
        const Tensor filter = constant(w, Shape{3, 3, 4, 6});
        const QuantParams xq{f(0.05f), u8(128)};
        const Tensor q = quantize_linear(x, xq.scale, xq.zero_point);
        Conv2DOptions same;
        same.padding = "SAME";
        const Tensor y = qlinear_conv2d(q, xq, filter, {f(0.02f), i8(0)}, {f(0.5f), u8(100)},
                                        constant(std::vector<int32_t>{5, -5, 50, 0, 9, -90}),
                                        same);
        const Tensor b = constant(std::vector<int8_t>{1, -2, 3, 4, -5, 6, 7, -8, 9, 10, 11, -12},
                                  Shape{6, 2});
        const Tensor m = qlinear_matmul(y, {f(0.5f), u8(100)}, b, {f(0.25f), i8(1)},
                                        {f(0.75f), u8(120)});
        Conv2DOptions grouped;
        grouped.groups = 2;
        const Tensor ci = conv2d_integer(q, slice(q, {0, 0, 0, 0}, {1, 2, 2, 2}), u8(128), u8(127),
                                         grouped);
        const Tensor mi = matmul_integer(q, slice(q, {0, 0, 0, 0}, {1, 1, 4, 3}), u8(128), u8(3));
        // A residual add: x and -1.5 x quantized apart, summed with and without relu.
        const QuantParams nq{f(0.03f), u8(120)};
        const Tensor n = quantize_linear(x * -1.5f, nq.scale, nq.zero_point);
        const Tensor sum = qlinear_add(q, xq, n, nq, {f(0.04f), u8(60)}, true);
        const Tensor sum_i8 = qlinear_add(n, nq, q, xq, {f(0.02f), i8(-5)});
        return std::make_tuple(m, cast(ci, DType::kFloat32), cast(mi, DType::kFloat32),
                               cast(sum, DType::kFloat32) + cast(sum_i8, DType::kFloat32));
      },
      {F32({1, 5, 4, 4})}, false);  // a filter sliced from x needs static dims
  add(
      "broadcast_to_expand",
      [](Tensor x) {
        return broadcast_to(expand_dims(x, 1), {x.shape()[0] < 0 ? 1 : x.shape()[0], 3, 4}) +
               expand_dims(squeeze(expand_dims(x, 0), {0}), 1);
      },
      {F32({2, 4})}, false);
  add(
      "factories",
      [](Tensor x) {
        return x + random_uniform({2, 6}, 9) + random_normal({6}, 10) +
               range(0, 6, 1, DType::kFloat32) + fill({2, 1}, 0.5) + ones_like(x);
      },
      {F32({2, 6})}, false);
  add("dynamic_shape_values",
      [](Tensor x) {
        return std::make_tuple(cast(shape(x), DType::kFloat32),
                               cast(size(x), DType::kFloat32) + reduce_sum(x));
      },
      {F32({3, 4})});
  add("conv_same_stride",
      [](Tensor x, Tensor f, Tensor b) {
        Conv2DOptions o;
        o.padding = "SAME";
        o.strides = {2, 2};
        return relu(conv2d(x, f, b, o));
      },
      {F32({2, 9, 9, 3}), F32({3, 3, 3, 8}), F32({8})});
  add("conv_depthwise_dilated",
      [](Tensor x, Tensor f) {
        Conv2DOptions o;
        o.groups = 4;
        o.dilations = {2, 2};
        o.padding = "EXPLICIT";
        o.pads = {2, 1, 1, 2};
        return conv2d(x, f, o);
      },
      {F32({1, 10, 10, 4}), F32({3, 3, 1, 4})});
  add("pooling",
      [](Tensor x) {
        Pool2DOptions p;
        p.padding = "SAME";
        Pool2DOptions q;
        q.ksize = {3, 3};
        q.strides = {1, 1};
        return std::make_tuple(max_pool2d(x, p), avg_pool2d(x, q));
      },
      {F32({2, 7, 7, 3})});
  add(
      "cond",
      [](Tensor x, Tensor p) {
        return cond(
            reduce_sum(p) > 0.0, [&] { return softmax(x * 2.0); }, [&] { return x - 1.0; });
      },
      {F32({3, 5}), F32({2})}, false);
  add("while",
      [](Tensor x) {
        auto out = while_loop([](const std::vector<Tensor>& v) { return v[1] < 6; },
                              [](const std::vector<Tensor>& v) {
                                return std::vector<Tensor>{tanh(v[0] * 1.1 + 0.1), v[1] + 1};
                              },
                              {x, constant(0)});
        return out[0];
      },
      {F32({3, 4})});
  add("unary_trig",
      [](Tensor x) {
        return std::make_tuple(tan(x * 0.7) + asin(x * 0.45) + acos(x * 0.45),
                               atan(x * 3.0) + sinh(x) + cosh(x),
                               asinh(x * 3.0) + acosh(abs(x) + 1.0) + atanh(x * 0.45));
      },
      {F32({4, 37})});
  // Values that overflow (exp) and logs of negatives and of zero, so that
  // every predicate meets inf, -inf and nan.
  add("float_predicates",
      [](Tensor x) {
        Tensor big = exp(x * 60.0), lg = log(round(x));
        return std::make_tuple(is_inf(big), is_nan(lg), is_inf(lg) | is_nan(big),
                               where(is_nan(lg), x, lg));
      },
      {F32({4, 37})});
  add("compare_fmod",
      [](Tensor x, Tensor y) {
        Tensor a = round(x * 2.0), b = round(y * 2.0);
        Tensor c = logical_xor(a <= b, a != b);
        Tensor i = cast(x * 20.0, DType::kInt32);
        return std::make_tuple(where(c, fmod(x * 3.0, y), identity(x)), c,
                               fmod(i, ScalarLike(i, 7)) + fmod(i, ScalarLike(i, -3)));
      },
      {F32({6, 17}), F32({17})});
  add("cumsum",
      [](Tensor x) {
        return std::make_tuple(
            cumsum(x, 1) + cumsum(x, 1, true) * 2.0 + cumsum(x, -1, false, true) * 3.0,
            cumsum(x, 0, true, true), cumsum(cast(x * 10.0, DType::kInt32), 0));
      },
      {F32({4, 7})});
  // Outputs above constant folding's size limit (ir/passes/constant_folding.h),
  // so that the factories stay ops instead of constants.
  add("factories_large",
      [](Tensor x) {
        Shape s{128, 160};
        return x * random_uniform(s, 9, -1, 1) + random_normal(s, 10, 0.5, 2) + fill(s, 0.25) +
               reshape(range(0, 128 * 160, 1, DType::kFloat32), {128, 160}) * 1e-4;
      },
      {F32({2, 128, 160})});
  // Rows by negative index too, so that batch 1 of the dynamic variant stays in range.
  add("scatter_nd",
      [](Tensor x) {
        Tensor row_sums = slice(reduce_sum(x, {1}, true), {0, 0}, {1, 1});  // [1, 1]
        Tensor updates = reshape(concat({row_sums, row_sums * 2.0, row_sums - 1.0}, 1), {3});
        Tensor points = constant(std::vector<int64_t>{0, 1, -1, 3, 0, 1}, Shape{3, 2});
        Tensor rows = constant(std::vector<int64_t>{-1, 0}, Shape{2, 1});
        Tensor first = slice(x, {0, 0}, {1, kSliceEnd});
        return std::make_tuple(scatter_nd(x, points, updates, "add"),
                               scatter_nd(x, rows, concat({first * 3.0, first + 1.0}, 0)),
                               scatter_nd(x, constant(std::vector<int64_t>{0, 2}, Shape{1, 2}),
                                          reshape(row_sums, {1}), "max"));
      },
      {F32({3, 5})});
  add("conv2d_transpose",
      [](Tensor x, Tensor f, Tensor b) {
        Conv2DTransposeOptions o;
        o.strides = {2, 2};
        o.pads = {1, 0, 0, 1};
        o.output_padding = {1, 1};
        return conv2d_transpose(x, f, b, o);
      },
      {F32({2, 5, 5, 3}), F32({3, 3, 4, 3}), F32({4})});
  add("conv2d_transpose_grouped",
      [](Tensor x, Tensor f) {
        Conv2DTransposeOptions o;
        o.strides = {1, 2};
        o.dilations = {2, 1};
        o.groups = 2;
        return relu(conv2d_transpose(x, f, o));
      },
      {F32({1, 6, 6, 4}), F32({2, 3, 3, 4})});
  // Static only: sizes name every dim, the batch's too.
  add(
      "resize",
      [](Tensor x) {
        ResizeOptions linear;
        linear.mode = "linear";
        linear.coordinate_transformation_mode = "pytorch_half_pixel";
        ResizeOptions nearest;
        nearest.coordinate_transformation_mode = "asymmetric";
        nearest.nearest_mode = "floor";
        ResizeOptions cubic;
        cubic.mode = "cubic";
        cubic.exclude_outside = true;
        cubic.cubic_coeff_a = -0.5;
        return std::make_tuple(resize(x, {2, 7, 4, 3}, linear), resize(x, {2, 3, 11, 3}, nearest),
                               resize(x, {2, 9, 5, 3}, cubic));
      },
      {F32({2, 5, 6, 3})}, false);
  // Sizes from scales (empty sizes: trunc(x.shape * scales)), so that the
  // batch dim may be dynamic; the scales, not out / in, drive the transform.
  add("resize_scales",
      [](Tensor x) {
        ResizeOptions linear;
        linear.mode = "linear";
        linear.scales = {1, 2, 1.5, 1};
        ResizeOptions nearest;
        nearest.nearest_mode = "round_prefer_ceil";
        nearest.scales = {1, 0.6, 1.7, 1};
        ResizeOptions cubic;
        cubic.mode = "cubic";
        cubic.coordinate_transformation_mode = "asymmetric";
        cubic.scales = {1, 1.4, 0.5, 1};
        return std::make_tuple(resize(x, Shape{}, linear), resize(x, Shape{}, nearest),
                               resize(x, Shape{}, cubic));
      },
      {F32({2, 5, 6, 3})});
  // print has no outputs; its text is compared (the runtime's through
  // RunOptions::print, compiled code's on standard output). Values every
  // backend computes exactly; 8 columns, so that the long dim is summarized.
  add("print",
      [](Tensor x) {
        Tensor r = round(x * 4.0);
        print("x", x, "rounded {", r, "} as int", cast(r, DType::kInt32), "positive", r > 0.0);
        return r * 0.5;
      },
      {F32({3, 8})});
  // Large enough that the kernels, the compiled fused loops and the
  // interpreter's tiled chains split their work across threads (every case
  // also runs on 2 threads; see conformance_test.cc).
  add(
      "threads_large",
      [](Tensor x, Tensor w, Tensor b) {
        Tensor h = matmul(x, w);
        Tensor y = tanh(h * 1.5 + b) * sigmoid(h) - h / 3.0;
        return std::make_tuple(y, reduce_sum(y, {1}), softmax(y));
      },
      {F32({96, 256}), F32({256, 512}), F32({512})}, true, -1, 1);
  cases.back().rtol = 1e-4;  // a K=256 GEMM summed in another order, then cancellation
  cases.back().atol = 1e-5;
  // The rest only the oracle and the interpreter run (Case::compiled).
  // Data-dependent output shapes: compiled code needs every shape to follow
  // from the input dims (aot/codegen.cc refuses them).
  add("non_zero",
      [](Tensor x) {
        Tensor nz = non_zero(round(x));
        return std::make_tuple(nz, gather_nd(x, transpose(nz)), non_zero(x > 0.5),
                               non_zero(reduce_sum(x, {1}) > 0.0));
      },
      {F32({4, 6})});
  cases.back().compiled = false;
  // Few distinct values and rows (x * 0.5 rounds to -1, 0 or 1).
  add("unique",
      [](Tensor x) {
        UniqueResult flat = unique(round(x * 2.0));
        UniqueResult rows = unique(round(x * 0.5), 0, false);
        return std::make_tuple(flat.values, flat.indices, flat.inverse_indices, flat.counts,
                               rows.values, rows.indices, rows.inverse_indices, rows.counts);
      },
      {F32({6, 2})});
  cases.back().compiled = false;
  // Variable updates: compiled objects are stateless (aot/codegen_graph.cc
  // refuses a signature that updates a variable). What a call reads back
  // depends on the calls before it; a case's static and dynamic signatures
  // share its variable.
  Variable total(zeros({5}), "conformance_var_assign_add");
  add("var_assign_add",
      [total](Tensor x) {
        total.assign_add(reduce_sum(x, {0}));
        return total.value() * 2.0;
      },
      {F32({3, 5})});
  cases.back().compiled = false;
  Variable state(ones({2, 5}), "conformance_var_assign");
  add("var_assign",
      [state](Tensor x) {
        Tensor before = state.value();
        state.assign(before * 0.5 + reduce_max(x, {0}, true));
        return std::make_tuple(before, state.value());
      },
      {F32({3, 5})});
  cases.back().compiled = false;
  cases.push_back(Model("mlp", {F32({2, 784})}, 1e-4));
  cases.push_back(Model("cnn", {F32({2, 28, 28, 1})}, 1e-4));
  Case transformer = Model("transformer", {F32({9, 256})}, 1e-4);
  cases.push_back(transformer);
  return cases;
}

}  // namespace tfn::conformance
