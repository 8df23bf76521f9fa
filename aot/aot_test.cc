// Tests of the code generator through the JIT: compiled signatures give the
// interpreter's results (within the tolerances of the optimized math), for
// static and dynamic dims.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <map>

#include "aot/aot.h"
#include "aot/fusion.h"
#include "runtime/compiled.h"
#include "runtime/thread_pool.h"
#include "tfn/aot_thread_pool.h"
#include "tfn/tfn.h"

namespace tfn {
namespace {

::testing::AssertionResult Close(const ConstTensor& got, const ConstTensor& want, double rtol = 2e-5,
                                 double atol = 1e-6) {
  if (got.dtype != want.dtype || got.shape != want.shape) {
    return ::testing::AssertionFailure() << "type " << TypeToString(static_cast<int>(got.dtype), got.shape)
                                         << " vs " << TypeToString(static_cast<int>(want.dtype), want.shape);
  }
  for (int64_t i = 0; i < got.num_elements(); ++i) {
    double g = got.ElementAsDouble(i), w = want.ElementAsDouble(i);
    if (std::isnan(g) && std::isnan(w)) continue;
    if (std::isinf(w) && g == w) continue;
    if (!(std::fabs(g - w) <= atol + rtol * std::fabs(w))) {
      return ::testing::AssertionFailure() << "element " << i << ": " << g << " vs " << w;
    }
  }
  return ::testing::AssertionSuccess();
}

// JIT-compiles a concrete function and checks it against the interpreter.
void CheckJit(const ConcreteFunction& cf, const std::vector<std::vector<Tensor>>& input_sets,
              bool fast_math = false, double rtol = 2e-5) {
  aot::CompileOptions options;
  options.name = "test";
  options.fast_math = fast_math;
  auto lib = aot::JitCompile({aot::SignatureToCompile{"f", cf.graph()}}, options);
  ASSERT_TRUE(lib.ok()) << lib.status();
  const TfnAotSignature* sig = (*lib)->signature("f");
  ASSERT_NE(sig, nullptr);
  for (const std::vector<Tensor>& inputs : input_sets) {
    std::vector<Tensor> want = cf(inputs);
    std::vector<ConstTensor> in;
    for (const Tensor& t : inputs) in.push_back(t.value());
    auto got = runtime::RunCompiled(*sig, in);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_TRUE(Close((*got)[i], want[i].value(), rtol)) << "output " << i;
    }
  }
}

// float16 in, int8 and bfloat16-rounded values out: storage dtypes run as
// kernel calls (never in generated loops), and the object's results equal
// the interpreter's exactly (the same reference conversions).
TEST(Jit, ReducedPrecisionDtypes) {
  auto f = function([](Tensor x16) {
    Tensor x = cast(x16, DType::kFloat32);
    Tensor h = x * 3.0 + 0.5;
    Tensor scale = constant(std::vector<float>{0.05f, 0.1f, 0.2f});
    Tensor zp = constant(std::vector<int8_t>{-3, 0, 7});
    Tensor q = quantize_linear(h, scale, zp, 1);
    Tensor back = dequantize_linear(q, scale, zp, 1);
    Tensor bf = cast(transpose(h, {1, 0}), DType::kBFloat16);
    return std::make_tuple(q, cast(back, DType::kFloat16), bf, concat({q, q}, 0));
  });
  ConcreteFunction cf = f.get_concrete_function(TensorSpec({kDynamic, 3}, DType::kFloat16));
  aot::CompileOptions options;
  options.name = "test";
  auto lib = aot::JitCompile({aot::SignatureToCompile{"f", cf.graph()}}, options);
  ASSERT_TRUE(lib.ok()) << lib.status();
  const TfnAotSignature* sig = (*lib)->signature("f");
  ASSERT_NE(sig, nullptr);
  for (int64_t rows : {1, 5, 64}) {
    Tensor x = cast(random_uniform({rows, 3}, 9, -4, 4), DType::kFloat16);
    std::vector<Tensor> want = cf({x});
    auto got = runtime::RunCompiled(*sig, {x.value()});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      const ConstTensor& w = want[i].value();
      ASSERT_EQ((*got)[i].dtype, w.dtype) << "output " << i;
      ASSERT_EQ((*got)[i].shape, w.shape) << "output " << i;
      EXPECT_EQ(std::memcmp((*got)[i].data, w.data, w.byte_size()), 0) << "output " << i;
    }
    EXPECT_EQ(want[0].value().dtype, DType::kInt8);
    EXPECT_EQ(want[2].value().dtype, DType::kBFloat16);
  }
}

TEST(Jit, ElementwiseChain) {
  auto f = function([](Tensor x) { return tanh(x * 1.5 + 0.5) * sigmoid(x) - x / 3.0; });
  CheckJit(f.get_concrete_function(TensorSpec({kDynamic}, DType::kFloat32)),
           {{random_normal({1}, 1)}, {random_normal({1000}, 2)}, {random_normal({17}, 3)}});
}

// tanh(a) * sigmoid(b), in either order, is one gate product (one division)
// when both factors have no other use; a factor used again, or float64,
// keeps the separate form.
// The loops are the IR's fusion groups (ir/passes/fuse_elementwise.h), in
// core/fusion_schedule.h's order: a graph without groups gets none.
TEST(Fusion, LoopsAreTheGraphsFusionGroups) {
  const TensorSpec spec({kDynamic, 8}, DType::kFloat32);
  auto f = function([](Tensor x) {
    Tensor y = relu(x * 2.0) + 1.0;
    return exp(reduce_sum(y, {1})) + 1.0;
  });
  ir::Graph g = f.get_concrete_function(spec).graph();
  aot::FusionResult r = aot::ScheduleFusion(g);
  std::map<int, std::vector<int>> groups;
  for (int i = 0; i < g.num_nodes(); ++i) {
    if (g.node(i).fusion_group >= 0) groups[g.node(i).fusion_group].push_back(i);
  }
  ASSERT_EQ(groups.size(), 2u);  // mul, relu, add; then exp, add
  std::vector<std::vector<int>> loops;
  for (const aot::ScheduleItem& item : r.schedule) {
    if (item.fused) loops.push_back(item.nodes);
  }
  EXPECT_EQ(loops, (std::vector<std::vector<int>>{groups[0], groups[1]}));
  for (ir::Node& n : g.mutable_nodes()) n.fusion_group = -1;
  r = aot::ScheduleFusion(g);
  EXPECT_TRUE(std::none_of(r.schedule.begin(), r.schedule.end(),
                           [](const aot::ScheduleItem& item) { return item.fused; }));
}

// Without groups (a graph the pass did not see) every elementwise node is
// its own kernel call, with the same results.
TEST(Jit, ElementwiseNodesOutsideGroupsRunAsKernels) {
  auto f = function([](Tensor x, Tensor b) {
    Tensor y = relu(x * 2.0 + b);
    return where(y > 0.5, exp(-y), cast(cast(y * 10.0, DType::kInt32), DType::kFloat32));
  });
  ConcreteFunction cf = f.get_concrete_function(TensorSpec({kDynamic, 5}, DType::kFloat32),
                                                TensorSpec({5}, DType::kFloat32));
  ir::Graph g = cf.graph();
  for (ir::Node& n : g.mutable_nodes()) n.fusion_group = -1;
  aot::CompileOptions options;
  options.name = "test";
  auto lib = aot::JitCompile({aot::SignatureToCompile{"f", g}}, options);
  ASSERT_TRUE(lib.ok()) << lib.status();
  const TfnAotSignature* sig = (*lib)->signature("f");
  ASSERT_NE(sig, nullptr);
  std::vector<Tensor> inputs = {random_uniform({7, 5}, 1, -1, 1), random_uniform({5}, 2, -1, 1)};
  std::vector<Tensor> want = cf(inputs);
  auto got = runtime::RunCompiled(*sig, {inputs[0].value(), inputs[1].value()});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), 1u);
  EXPECT_TRUE(Close((*got)[0], want[0].value()));
}

TEST(Fusion, GateProducts) {
  const TensorSpec f32({4}, DType::kFloat32), f64({4}, DType::kFloat64);
  auto gate = function([](Tensor a, Tensor b) { return sigmoid(b) * tanh(a) + 1.0; });
  aot::FusionResult r = aot::ScheduleFusion(gate.get_concrete_function(f32, f32).graph());
  ASSERT_EQ(r.gate_products.size(), 1u);
  const aot::FusionResult::GateProduct& p = r.gate_products.begin()->second;
  EXPECT_TRUE(r.folded[p.tanh] && r.folded[p.sigmoid]);
  EXPECT_EQ(std::count(r.folded.begin(), r.folded.end(), true), 2);
  auto shared = function([](Tensor a, Tensor b) {
    Tensor t = tanh(a);
    return t * sigmoid(b) + t;
  });
  EXPECT_TRUE(
      aot::ScheduleFusion(shared.get_concrete_function(f32, f32).graph()).gate_products.empty());
  EXPECT_TRUE(
      aot::ScheduleFusion(gate.get_concrete_function(f64, f64).graph()).gate_products.empty());
}

// The gate product against the interpreter's separate tanh and sigmoid,
// special values included (infinities, NaN, signed zeros, denormals, the
// clamps of both functions).
TEST(Jit, GateProductSpecialValues) {
  auto f = function([](Tensor a, Tensor b) {
    return std::make_tuple(tanh(a) * sigmoid(b), sigmoid(a) * tanh(b));
  });
  const float inf = INFINITY, nan = NAN;
  const std::vector<float> values = {0.0f, -0.0f, 1e-40f, -1e-40f, 0.3f, -2.0f, 9.5f, -11.0f,
                                     30.0f, -90.0f, -105.0f, 200.0f, inf, -inf, nan};
  std::vector<float> a, b;
  for (float x : values) {
    for (float y : values) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  const int64_t n = static_cast<int64_t>(a.size());
  CheckJit(f.get_concrete_function(TensorSpec({kDynamic}, DType::kFloat32),
                                   TensorSpec({kDynamic}, DType::kFloat32)),
           {{constant(a, Shape({n})), constant(b, Shape({n}))}});
}

// --fast-math: within the fast functions' bounds of the interpreter (tanh 8,
// sigmoid 5, the gate product 11 ulp; x / 3 as x * (1/3) within 1 ulp),
// the same special values, and really other code: some results differ
// from the precise object's.
TEST(Jit, FastMath) {
  auto f = function([](Tensor a, Tensor b) {
    return std::vector<Tensor>{tanh(a) * sigmoid(b), tanh(a) + 0.0, sigmoid(b) + 0.0, a / 3.0,
                               a * 1.5 + b};
  });
  const float inf = INFINITY, nan = NAN;
  std::vector<float> a = {0.0f, -0.0f, 1e-40f, -1e-40f, 9.5f, -11.0f, -90.0f, 200.0f, inf, -inf,
                          nan},
                     b = {0.0f, 1e-40f, -0.0f, -1e-40f, -105.0f, 30.0f, inf, -inf, nan, 1.0f, 2.0f};
  for (int i = 0; i < 4000; ++i) {
    a.push_back(-12.0f + 24.0f * static_cast<float>(i) / 4000);
    b.push_back(20.0f - 40.0f * static_cast<float>((i * 7) % 4000) / 4000);
  }
  const int64_t n = static_cast<int64_t>(a.size());
  // Static and equal shapes: the ops fuse into one loop, where mul and add
  // can contract (two dynamic dims are two symbols, and loops of their own).
  const ConcreteFunction cf = f.get_concrete_function(TensorSpec({n}, DType::kFloat32),
                                                      TensorSpec({n}, DType::kFloat32));
  const std::vector<Tensor> in = {constant(a, Shape({n})), constant(b, Shape({n}))};
  CheckJit(cf, {in}, /*fast_math=*/true, /*rtol=*/1e-6);
  std::vector<std::vector<ConstTensor>> results;
  for (bool fast : {false, true}) {
    aot::CompileOptions options;
    options.name = fast ? "fast" : "precise";
    options.fast_math = fast;
    auto lib = aot::JitCompile({aot::SignatureToCompile{"f", cf.graph()}}, options);
    ASSERT_TRUE(lib.ok()) << lib.status();
    auto got = runtime::RunCompiled(*(*lib)->signature("f"), {in[0].value(), in[1].value()});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    results.push_back(*got);
  }
  for (size_t k = 0; k < results[0].size(); ++k) {
    int differ = 0;
    for (int64_t i = 0; i < n; ++i) {
      differ += results[0][k].as<float>()[i] != results[1][k].as<float>()[i] &&
                !std::isnan(results[0][k].as<float>()[i]);
    }
    EXPECT_GT(differ, 0) << "output " << k << ": --fast-math changed nothing";
  }
}

TEST(Jit, BroadcastingAndKernels) {
  auto f = function([](Tensor x, Tensor w, Tensor b) { return softmax(relu(matmul(x, w) + b)); });
  CheckJit(f.get_concrete_function(TensorSpec({kDynamic, 8}, DType::kFloat32), TensorSpec({8, 4}, DType::kFloat32),
                                   TensorSpec({4}, DType::kFloat32)),
           {{random_normal({3, 8}, 1), random_normal({8, 4}, 2), random_normal({4}, 3)},
            {random_normal({1, 8}, 4), random_normal({8, 4}, 5), random_normal({4}, 6)}});
}

// The ops added with the ONNX importer: scalar entry points of the new
// elementwise ops (a bool result from floats included) and the kernels of
// cumsum and argmax with select_last_index.
TEST(Jit, TrigPredicatesXorFModCumSum) {
  auto f = function([](Tensor x, Tensor y) {
    Tensor trig = tan(x) + asin(x) + acos(x) + atan(x) + sinh(x) + cosh(x) + asinh(x) + atanh(x) +
                  acosh(x * x + 1.5);
    Tensor odd = logical_xor(is_inf(x / (y - y)), is_nan(x / (x - x)));
    return std::vector<Tensor>{trig, fmod(x * 10.0, y), cast(odd, DType::kFloat32),
                               cast(argmax(round(x), 1, false, true), DType::kFloat32),
                               cumsum(x, 1, true, true)};
  });
  auto in = [](int64_t n, uint64_t seed) {
    return std::vector<Tensor>{random_uniform({n, 4}, seed, -0.9, 0.9),
                               random_uniform({n, 4}, seed + 1, 0.5, 2)};
  };
  CheckJit(f.get_concrete_function(TensorSpec({kDynamic, 4}, DType::kFloat32),
                                   TensorSpec({kDynamic, 4}, DType::kFloat32)),
           {in(1, 1), in(33, 3)});
}

// ---- Threads: run_with_options (ABI version 2) ----

// A parallel_for that counts its calls and forwards to a pool.
struct CountingPool {
  runtime::ThreadPool* pool;
  std::atomic<int> calls{0};
  static void ParallelFor(void* self, int64_t n, int64_t min_chunk, void (*fn)(void*, int64_t, int64_t),
                          void* arg) {
    auto* p = static_cast<CountingPool*>(self);
    p->calls.fetch_add(1);
    runtime::ThreadPool::ParallelForFn(p->pool, n, min_chunk, fn, arg);
  }
};

std::vector<ConstTensor> Values(const std::vector<Tensor>& in) {
  std::vector<ConstTensor> out;
  for (const Tensor& t : in) out.push_back(t.value());
  return out;
}

void ExpectBytesEqual(const std::vector<ConstTensor>& got, const std::vector<ConstTensor>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(got[i].BytesEqual(want[i])) << "output " << i;
}

TEST(JitThreads, LargeLoopsAndKernelsSplitWithTheSameResults) {
  // A flat chain, a chain with a broadcast bias (rows), a matmul, a reduction.
  auto f = function([](Tensor x, Tensor w, Tensor b) {
    Tensor flat = tanh(x * 1.5 + 0.5) * sigmoid(x) - x / 3.0;
    Tensor h = matmul(x, w);
    Tensor rows = relu(h + b) * 2.0;
    return std::make_tuple(flat, rows, reduce_sum(rows, {1}));
  });
  auto cf = f.get_concrete_function(TensorSpec({kDynamic, 384}, DType::kFloat32),
                                    TensorSpec({384, 256}, DType::kFloat32), TensorSpec({256}, DType::kFloat32));
  aot::CompileOptions options;
  options.name = "threads";
  auto lib = aot::JitCompile({aot::SignatureToCompile{"f", cf.graph()}}, options);
  ASSERT_TRUE(lib.ok()) << lib.status();
  const TfnAotSignature* sig = (*lib)->signature("f");
  ASSERT_NE(sig, nullptr);
  EXPECT_EQ(sig->abi_version, TFN_AOT_ABI_VERSION);
  ASSERT_NE(sig->run_with_options, nullptr);
  for (int64_t batch : {int64_t{3}, int64_t{300}}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    std::vector<Tensor> in = {random_uniform({batch, 384}, 1, -2, 2), random_uniform({384, 256}, 2, -1, 1),
                              random_uniform({256}, 3, -1, 1)};
    auto one = runtime::RunCompiled(*sig, Values(in));
    ASSERT_TRUE(one.ok()) << one.status().ToString();
    std::vector<Tensor> want = cf(in);
    for (size_t i = 0; i < want.size(); ++i) EXPECT_TRUE(Close((*one)[i], want[i].value(), 1e-5, 1e-5)) << i;
    for (int threads : {2, 3}) {
      runtime::ThreadPool pool(threads);
      CountingPool counting{&pool};
      TfnAotRunOptions o{sizeof(TfnAotRunOptions), threads, &CountingPool::ParallelFor, &counting};
      auto many = runtime::RunCompiled(*sig, Values(in), &o);
      ASSERT_TRUE(many.ok()) << many.status().ToString();
      ExpectBytesEqual(*many, *one);
      // 300 x 384 elements: the fused loops and the GEMM go through the pool;
      // 3 x 384: only kernels may ask (and run serially on small work).
      if (batch == 300) {
        EXPECT_GE(counting.calls.load(), 2);
      }
      // Too small a struct (an older caller): single-threaded, same results.
      counting.calls = 0;
      TfnAotRunOptions old = o;
      old.struct_size = 8;
      auto serial = runtime::RunCompiled(*sig, Values(in), &old);
      ASSERT_TRUE(serial.ok());
      ExpectBytesEqual(*serial, *one);
      EXPECT_EQ(counting.calls.load(), 0);
    }
  }
}

// ABI 3: tfn::print text goes to TfnAotRunOptions::print, one call per
// print op with the text the interpreter makes; without it (or with a struct
// too small to hold it) to standard output.
TEST(Jit, PrintGoesToTheRunOptionsPrint) {
  auto f = function([](Tensor x) {
    print("x", x, "doubled {}", x * 2.0);
    return x + 1.0;
  });
  auto cf = f.get_concrete_function(TensorSpec({kDynamic, 3}, DType::kFloat32));
  aot::CompileOptions options;
  options.name = "printer";
  auto lib = aot::JitCompile({aot::SignatureToCompile{"f", cf.graph()}}, options);
  ASSERT_TRUE(lib.ok()) << lib.status();
  const TfnAotSignature* sig = (*lib)->signature("f");
  ASSERT_NE(sig, nullptr);
  std::vector<Tensor> in = {constant(std::vector<float>{1, -2, 3.5, 0, 5, 6}, {2, 3})};
  // The interpreter's text for the same call (on standard output).
  std::string want;
  {
    testing::internal::CaptureStdout();
    cf(in);
    want = testing::internal::GetCapturedStdout();
  }
  ASSERT_EQ(want, "x [[1, -2, 3.5],\n [0, 5, 6]] doubled {} [[2, -4, 7],\n [0, 10, 12]]\n");
  std::vector<std::string> calls;
  TfnAotRunOptions o{};
  o.struct_size = sizeof o;
  o.num_threads = 1;
  o.print = [](void* context, const char* text, size_t size) {
    static_cast<std::vector<std::string>*>(context)->emplace_back(text, size);
  };
  o.print_context = &calls;
  testing::internal::CaptureStdout();
  auto through = runtime::RunCompiled(*sig, Values(in), &o);
  std::string printed = testing::internal::GetCapturedStdout();
  ASSERT_TRUE(through.ok()) << through.status().ToString();
  EXPECT_EQ(printed, "");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0], want);
  // An ABI 2 caller's struct ends before print: standard output.
  TfnAotRunOptions old = o;
  old.struct_size = static_cast<uint32_t>(offsetof(TfnAotRunOptions, print));
  testing::internal::CaptureStdout();
  auto to_stdout = runtime::RunCompiled(*sig, Values(in), &old);
  printed = testing::internal::GetCapturedStdout();
  ASSERT_TRUE(to_stdout.ok());
  EXPECT_EQ(printed, want);
  EXPECT_EQ(calls.size(), 1u);
}

TEST(JitThreads, TheHeaderOnlyPoolRunsCompiledCode) {
  auto f = function([](Tensor x) { return exp(-abs(x)) * 0.5 + x; });
  auto cf = f.get_concrete_function(TensorSpec({kDynamic, 1024}, DType::kFloat32));
  aot::CompileOptions options;
  options.name = "hpool";
  auto lib = aot::JitCompile({aot::SignatureToCompile{"f", cf.graph()}}, options);
  ASSERT_TRUE(lib.ok()) << lib.status();
  const TfnAotSignature* sig = (*lib)->signature("f");
  std::vector<Tensor> in = {random_uniform({200, 1024}, 5, -3, 3)};
  auto one = runtime::RunCompiled(*sig, Values(in));
  ASSERT_TRUE(one.ok());
  TfnAotThreadPool* pool = tfn_aot_thread_pool_create(2);
  ASSERT_NE(pool, nullptr);
  TfnAotRunOptions threads = tfn_aot_thread_pool_run_options(pool);
  EXPECT_EQ(threads.num_threads, 2);
  for (int r = 0; r < 5; ++r) {
    auto two = runtime::RunCompiled(*sig, Values(in), &threads);
    ASSERT_TRUE(two.ok());
    ExpectBytesEqual(*two, *one);
  }
  tfn_aot_thread_pool_destroy(pool);
}

TEST(AotHeader, DeclaresTheThreadedEntryPoints) {
  auto f = function([](Tensor x) { return x * 2.0; });
  auto cf = f.get_concrete_function(TensorSpec({kDynamic, 4}, DType::kFloat32));
  aot::CompileOptions options;
  options.name = "hdr";
  auto h = aot::GenerateHeader({aot::SignatureToCompile{"serving_default", cf.graph()}}, options);
  ASSERT_TRUE(h.ok()) << h.status();
  for (const char* want :
       {"TFN_AOT_ABI_VERSION 3u", "typedef struct TfnAotRunOptions",
        "int32_t hdr_serving_default_run_with_options(",
        "static inline int32_t hdr_serving_default_with_options(",
        "const TfnAotRunOptions* run_options)", "void set_thread_pool(TfnAotParallelForFn",
        "void set_run_options(const TfnAotRunOptions& options)"}) {
    EXPECT_NE(h->find(want), std::string::npos) << want;
  }
}

// A functionalized training step has var_NAME as an input and an output:
// the typed wrappers and the C++ class name the output apart, so the header
// stays valid C (examples/train_digits/train_digits_aot.c includes one).
TEST(AotHeader, NamesOutputsApartFromInputs) {
  ir::Graph g;
  const ir::TensorType f32{DType::kFloat32, SymShape{SymDim(4)}};
  const ir::ValueRef w = g.AddParameter(f32, "var_w"), scratch = g.AddParameter(f32, "scratch");
  g.SetResults({w, scratch}, {"var_w", "var_w"});
  aot::CompileOptions options;
  options.name = "state";
  auto h = aot::GenerateHeader({aot::SignatureToCompile{"train", g}}, options);
  ASSERT_TRUE(h.ok()) << h.status();
  for (const char* want :
       {"state_train(const float* var_w, const float* scratch_input, float* var_w_out, float* "
        "var_w_out_out, void* scratch)",
        "float* var_w_data()", "const float* var_w_out_data() const",
        "state_train_var_w_out_shape("}) {
    EXPECT_NE(h->find(want), std::string::npos) << want;
  }
}

}  // namespace
}  // namespace tfn
