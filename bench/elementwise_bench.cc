// Elementwise benchmark: the chain tanh(x*1.5+0.5)*sigmoid(x) - x/3 on 16M
// floats run as separate optimized kernels through the kernel ABI, as the
// runtime's interpreter runs it (mul, add, tanh, sigmoid, mul, div, sub: 7
// kernels, each writing a 64 MiB intermediate), against a memcpy of the same
// 64 MiB in the same process; the same chain fused into one loop (what a
// fusing compiler could emit with vec_math.h); the reference kernels; and
// single ops (exp, tanh, sigmoid, add) on 16M floats (DRAM) and 64K floats
// (L2), on 1 and 2 threads, and their reference kernels; casts between
// float32 and float16/bfloat16; softmax rows (attention shapes, with and
// without a causal mask). GB/s counts bytes read plus bytes written
// (memcpy: 2 x 64 MiB per copy). See bench/RESULTS.md.
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/spin_pool.h"
#include "core/op_def.h"
#include "kernels/kernels.h"
#include "kernels/opt/simd.h"
#include "kernels/opt/vec_math.h"

namespace {

using tfn::DType;
using tfn::OpId;
using namespace tfn::kernels;

constexpr int64_t kBig = int64_t{1} << 24;  // 16M floats = 64 MiB
constexpr int64_t kSmall = int64_t{1} << 16;

struct Buffer {  // 64-byte aligned floats, touched once so no page faults are timed
  float* p = nullptr;
  explicit Buffer(int64_t n, uint32_t seed = 0) {
    p = static_cast<float*>(std::aligned_alloc(64, static_cast<size_t>(n) * 4 + 64));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
    for (int64_t i = 0; i < n; ++i) p[i] = dist(rng);
  }
  ~Buffer() { std::free(p); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

using tfn::bench::SpinPool;

TfnKernelContext Context(int threads) {
  static SpinPool pool;
  TfnKernelContext ctx{};
  ctx.num_threads = threads;
  if (threads > 1) {
    ctx.parallel_for = SpinPool::ParallelFor;
    ctx.pool = &pool;
  }
  return ctx;
}

// One planned f32 kernel: unary (b == nullptr), binary with a tensor, or binary with a scalar.
struct Kernel {
  KernelPlan plan;
  bool scalar_b = false;
  Kernel(OpId op, int num_inputs, bool scalar, Variant variant) : scalar_b(scalar) {
    tfn::Attrs attrs;
    if (op == OpId::kGelu) attrs.Set("approximate", tfn::AttrValue::String("none"));
    DType in[2] = {DType::kFloat32, DType::kFloat32}, out = DType::kFloat32;
    int ranks[2] = {1, scalar ? 0 : 1}, out_rank = 1;
    NodeSignature node{op, &attrs, num_inputs, in, ranks, 1, &out, &out_rank};
    if (!PrepareKernel(node, variant, &plan).ok()) std::abort();
  }
  void Run(const float* a, const float* b, float* y, int64_t n, const TfnKernelContext& ctx) const {
    TfnTensor in[2] = {MakeTensor(const_cast<float*>(a), DType::kFloat32, {n}),
                       MakeTensor(const_cast<float*>(b), DType::kFloat32,
                                  scalar_b ? tfn::Shape{} : tfn::Shape{n})};
    TfnTensor out = MakeTensor(y, DType::kFloat32, {n});
    if (plan.fn(plan.params, in, b ? 2 : 1, &out, 1, &ctx) != TFN_KERNEL_OK) std::abort();
  }
};

struct Chain {
  Kernel mul_s, add_s, tanh, sigmoid, mul, div_s, sub;
  explicit Chain(Variant v)
      : mul_s(OpId::kMul, 2, true, v),
        add_s(OpId::kAdd, 2, true, v),
        tanh(OpId::kTanh, 1, false, v),
        sigmoid(OpId::kSigmoid, 1, false, v),
        mul(OpId::kMul, 2, false, v),
        div_s(OpId::kDiv, 2, true, v),
        sub(OpId::kSub, 2, false, v) {}
};

// tanh(x*1.5+0.5)*sigmoid(x) - x/3 as 7 kernels with intermediates t[0..5] and out.
void RunChain(const Chain& c, const float* x, float* const* t, float* out, int64_t n,
              const TfnKernelContext& ctx) {
  static const float k15 = 1.5f, k05 = 0.5f, k3 = 3.0f;
  c.mul_s.Run(x, &k15, t[0], n, ctx);
  c.add_s.Run(t[0], &k05, t[1], n, ctx);
  c.tanh.Run(t[1], nullptr, t[2], n, ctx);
  c.sigmoid.Run(x, nullptr, t[3], n, ctx);
  c.mul.Run(t[2], t[3], t[4], n, ctx);
  c.div_s.Run(x, &k3, t[5], n, ctx);
  c.sub.Run(t[4], t[5], out, n, ctx);
}
constexpr double kChainBytes = 4.0 * (2 + 2 + 2 + 2 + 3 + 2 + 3);  // per element, read + write

struct Buffers {
  Buffer x{kBig, 1}, y{kBig, 2}, out{kBig, 3};
  std::vector<Buffer*> t;
  Buffers() {
    for (int i = 0; i < 6; ++i) t.push_back(new Buffer(kBig, 10 + i));
  }
  ~Buffers() {
    for (Buffer* b : t) delete b;
  }
  std::vector<float*> tp() const {
    std::vector<float*> p;
    for (Buffer* b : t) p.push_back(b->p);
    return p;
  }
};
Buffers& Bufs() {
  static Buffers b;
  return b;
}

// memcpy of 64 MiB; on 2 threads each copies half through the same pool.
void BM_Memcpy64MiB(benchmark::State& state) {
  Buffers& b = Bufs();
  const TfnKernelContext ctx = Context(static_cast<int>(state.range(0)));
  auto copy = [&](int64_t begin, int64_t end) {
    std::memcpy(b.out.p + begin, b.x.p + begin, static_cast<size_t>(end - begin) * 4);
  };
  for (auto _ : state) {
    ParallelFor(&ctx, kBig, opt::kMinParallelChunk, copy);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kBig * 8);
}
BENCHMARK(BM_Memcpy64MiB)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Chain(benchmark::State& state) {
  Buffers& b = Bufs();
  const Variant v = state.range(1) ? Variant::kReference : Variant::kOptimized;
  const Chain chain(v);
  const TfnKernelContext ctx = Context(static_cast<int>(state.range(0)));
  const std::vector<float*> t = b.tp();
  for (auto _ : state) {
    RunChain(chain, b.x.p, t.data(), b.out.p, kBig, ctx);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBig * kChainBytes));
  state.SetLabel(v == Variant::kReference ? "reference kernels" : "optimized kernels");
}
BENCHMARK(BM_Chain)
    ->Args({1, 0})
    ->Args({2, 0})
    ->Args({1, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The chain as one loop (read x, write out: 8 bytes per element).
#if defined(TFN_OPT_X86)
TFN_OPT_TARGET_AVX512
#endif
void FusedChain(const float* x, float* y, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i) {
    const float v = x[i];
    y[i] = tfn::vm::Tanh(v * 1.5f + 0.5f) * tfn::vm::Sigmoid(v) - v / 3.0f;
  }
}

void BM_ChainFused(benchmark::State& state) {
  Buffers& b = Bufs();
  const TfnKernelContext ctx = Context(static_cast<int>(state.range(0)));
  auto fn = [&](int64_t begin, int64_t end) { FusedChain(b.x.p, b.out.p, begin, end); };
  for (auto _ : state) {
    ParallelFor(&ctx, kBig, opt::kMinParallelChunk, fn);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kBig * 8);
  state.SetLabel("one loop, avx512 vec_math");
}
BENCHMARK(BM_ChainFused)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Single ops: range(0) = op (0 exp, 1 tanh, 2 sigmoid, 3 add), range(1) = elements,
// range(2) = threads, range(3) = 1 for the reference kernel.
void BM_Op(benchmark::State& state) {
  static const OpId kOps[] = {OpId::kExp, OpId::kTanh, OpId::kSigmoid, OpId::kAdd};
  static const char* kNames[] = {"exp", "tanh", "sigmoid", "add"};
  const int which = static_cast<int>(state.range(0));
  const int64_t n = state.range(1);
  const bool binary = kOps[which] == OpId::kAdd;
  const Variant v = state.range(3) ? Variant::kReference : Variant::kOptimized;
  const Kernel k(kOps[which], binary ? 2 : 1, false, v);
  Buffers& b = Bufs();
  const TfnKernelContext ctx = Context(static_cast<int>(state.range(2)));
  for (auto _ : state) {
    k.Run(b.x.p, binary ? b.y.p : nullptr, b.out.p, n, ctx);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * n * (binary ? 12 : 8));
  state.SetLabel(std::string(kNames[which]) + (v == Variant::kReference ? " (reference)" : ""));
}
BENCHMARK(BM_Op)
    ->ArgsProduct({{0, 1, 2, 3}, {kBig, kSmall}, {1, 2}, {0}})
    ->ArgsProduct({{0, 1, 2, 3}, {kBig}, {1}, {1}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// Casts between float32 and the 16-bit floats (what an imported float16
// model runs around each float32 op): range(0) = 0 f32->f16, 1 f16->f32,
// 2 f32->bf16, 3 bf16->f32; range(1) = elements; range(2) = threads;
// range(3) = 1 for the reference kernel. Bytes: 4 + 2 per element.
void BM_CastHalf(benchmark::State& state) {
  static const char* kNames[] = {"f32->f16", "f16->f32", "f32->bf16", "bf16->f32"};
  const int which = static_cast<int>(state.range(0));
  const int64_t n = state.range(1);
  const DType half = which < 2 ? DType::kFloat16 : DType::kBFloat16;
  const bool to_half = which % 2 == 0;
  DType in = to_half ? DType::kFloat32 : half, out = to_half ? half : DType::kFloat32;
  const Variant v = state.range(3) ? Variant::kReference : Variant::kOptimized;
  tfn::Attrs attrs;
  attrs.Set("dtype", tfn::AttrValue::Type(out));
  int rank = 1;
  NodeSignature node{OpId::kCast, &attrs, 1, &in, &rank, 1, &out, &rank};
  KernelPlan plan;
  if (!PrepareKernel(node, v, &plan).ok()) std::abort();
  Buffers& b = Bufs();  // 16-bit data lives in the first half of a float buffer
  TfnTensor x = MakeTensor(b.x.p, in, {n});
  TfnTensor y = MakeTensor(b.out.p, out, {n});
  const TfnKernelContext ctx = Context(static_cast<int>(state.range(2)));
  for (auto _ : state) {
    if (plan.fn(plan.params, &x, 1, &y, 1, &ctx) != TFN_KERNEL_OK) std::abort();
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * n * 6);
  state.SetLabel(std::string(kNames[which]) + (v == Variant::kReference ? " (reference)" : ""));
}
BENCHMARK(BM_CastHalf)
    ->ArgsProduct({{0, 1, 2, 3}, {kBig, kSmall}, {1, 2}, {0}})
    ->ArgsProduct({{0, 1, 2, 3}, {kBig}, {1}, {1}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// Softmax over the last axis of [rows, cols] (attention rows): range(0) =
// rows, range(1) = cols, range(2) = 1 for a causal mask (row r keeps r % cols
// + 1 values, the rest -inf, as a masked attention score row), range(3) =
// 0 the kernel on the best ISA, 1 capped at AVX2 (the generic rows that
// AVX-512 CPUs ran before normalize_avx512.cc), 2 the reference.
// time/element: the time of one call / (rows * cols).
void BM_Softmax(benchmark::State& state) {
  const int64_t rows = state.range(0), cols = state.range(1);
  const int mode = static_cast<int>(state.range(3));
  Buffer x(rows * cols, 3), y(rows * cols);
  for (int64_t r = 0; r < rows && state.range(2); ++r) {
    for (int64_t c = r % cols + 1; c < cols; ++c) x.p[r * cols + c] = -__builtin_inff();
  }
  tfn::Attrs attrs;
  attrs.Set("axis", tfn::AttrValue::Int(-1));
  const DType f32 = DType::kFloat32;
  int rank = 2;
  NodeSignature node{OpId::kSoftmax, &attrs, 1, &f32, &rank, 1, &f32, &rank};
  KernelPlan plan;
  if (!PrepareKernel(node, mode == 2 ? Variant::kReference : Variant::kOptimized, &plan).ok()) {
    std::abort();
  }
  TfnTensor in = MakeTensor(x.p, f32, {rows, cols}), out = MakeTensor(y.p, f32, {rows, cols});
  const TfnKernelContext ctx = Context(1);
  const tfn::kernels::opt::Isa cap = tfn::kernels::opt::SetIsaCapForTesting(
      mode == 1 ? tfn::kernels::opt::Isa::kAvx2 : tfn::kernels::opt::Isa::kAvx512);
  for (auto _ : state) {
    if (plan.fn(plan.params, &in, 1, &out, 1, &ctx) != TFN_KERNEL_OK) std::abort();
    benchmark::ClobberMemory();
  }
  tfn::kernels::opt::SetIsaCapForTesting(cap);
  state.counters["time/element"] = benchmark::Counter(
      static_cast<double>(rows * cols) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetLabel(std::string(state.range(2) ? "causal mask" : "dense") +
                 (mode == 1 ? ", capped at AVX2" : mode == 2 ? ", reference" : ""));
}
BENCHMARK(BM_Softmax)
    ->ArgsProduct({{256}, {64}, {0, 1}, {0, 1, 2}})
    ->ArgsProduct({{64}, {1024}, {0, 1}, {0, 1}})
    ->ArgsProduct({{197}, {197}, {0}, {0, 1}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
