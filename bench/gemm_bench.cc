// GEMM benchmark: tfn's float32 GEMM (kernels/opt/gemm.h) on 1 and 2 threads,
// with B packed per call and prepacked, against OpenBLAS's cblas_sgemm on one
// thread, at 256^3, 512^3, 1024^3 and the MLP shapes M x K x N: the three
// layers at batch 64 (64x784x512, 64x512x512, 64x512x10) and 1x784x512,
// and one GEMV whose 151 MB of weights come from memory (1x9216x4096,
// AlexNet's first FC: compare tfn_prepackedB's GB/s, 4 K N / time, with
// elementwise_bench's memcpy).
// C = A * B, all row-major, no transposes. Then the bfloat16 GEMM (BM_Bf16Gemm:
// A float32 rounded to bf16 as it is packed, B prepacked bf16, float32 sums)
// and the int8 GEMM (BM_QGemm). The GFLOPS counter is
// 2*M*N*K / time / 1e9. See bench/RESULTS.md for results and the command.
//
// OpenBLAS is forced to one thread both through the environment (set here
// before its first use; pass OPENBLAS_NUM_THREADS=1 too, since OpenBLAS may
// read it when the library loads) and with openblas_set_num_threads(1).
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

#include "bench/spin_pool.h"
#include "kernels/opt/bf16_gemm.h"
#include "kernels/opt/gemm.h"
#include "kernels/opt/qgemm.h"
#include "kernels/opt/simd.h"

#if defined(TFN_HAVE_OPENBLAS)
#include <cblas.h>
#endif

namespace {

using tfn::kernels::GemmIsa;

// A float buffer aligned to 64 bytes, filled with uniform values in [-1, 1).
struct Buffer {
  float* p = nullptr;
  explicit Buffer(int64_t n, uint32_t seed = 0) {
    size_t bytes = (static_cast<size_t>(n) * sizeof(float) + 63) / 64 * 64 + 64;
    p = static_cast<float*>(std::aligned_alloc(64, bytes));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (int64_t i = 0; i < n; ++i) p[i] = dist(rng);
  }
  ~Buffer() { std::free(p); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

// Spins on `done` a while, then yields the core (the machine may be shared).
using tfn::bench::SpinPool;

void SetCounters(benchmark::State& state, int64_t M, int64_t N, int64_t K) {
  state.counters["GFLOPS"] =
      benchmark::Counter(2.0 * M * N * K * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

// Args: M, K, N, threads, prepacked (0/1), isa (GemmIsa value, 0 = auto).
void BM_Tfn(benchmark::State& state) {
  const int64_t M = state.range(0), K = state.range(1), N = state.range(2);
  const int threads = static_cast<int>(state.range(3));
  const bool prepacked = state.range(4) != 0;
  tfn::kernels::GemmForceIsa(static_cast<GemmIsa>(state.range(5)));
  state.SetLabel(tfn::kernels::GemmIsaName(tfn::kernels::GemmActiveIsa()));
  Buffer a(M * K, 1), b(K * N, 2), c(M * N, 3);
  Buffer packed(tfn::kernels::GemmPackedBBytes(K, N) / 4);
  tfn::kernels::GemmPackB(K, N, b.p, N, false, packed.p);
  const int64_t scratch_bytes = prepacked
                                    ? tfn::kernels::GemmPrepackedScratchBytes(M, N, K, threads)
                                    : tfn::kernels::GemmScratchBytes(M, N, K, threads);
  Buffer scratch(scratch_bytes / 4 + 1);
  SpinPool* pool = threads > 1 ? new SpinPool : nullptr;
  TfnKernelContext ctx{};
  ctx.num_threads = threads;
  ctx.pool = pool;
  ctx.parallel_for = pool ? SpinPool::ParallelFor : nullptr;
  for (auto _ : state) {
    int32_t s = prepacked ? tfn::kernels::GemmPrepacked(M, N, K, a.p, K, false, packed.p, c.p, N,
                                                        false, scratch.p, scratch_bytes, &ctx)
                          : tfn::kernels::Gemm(M, N, K, a.p, K, false, b.p, N, false, c.p, N, false,
                                               scratch.p, scratch_bytes, &ctx);
    if (s != TFN_KERNEL_OK) state.SkipWithError("tfn GEMM failed");
    benchmark::DoNotOptimize(c.p);
    benchmark::ClobberMemory();
  }
  delete pool;
  tfn::kernels::GemmForceIsa(GemmIsa::kAuto);
  SetCounters(state, M, N, K);
}

// The int8 GEMM (kernels/opt/qgemm.h) as the quantized kernels call it:
// uint8 activations (A) times int8 weights (B), per-column scales and bias,
// requantized to uint8. Args: M, K, N, threads, ISA cap (opt::Isa: 0
// portable, 1 AVX2, 2 AVX-512, which uses VNNI when the CPU has it). The
// "GFLOPS" counter counts 2*M*N*K integer operations, comparable with tfn's.
void BM_QGemm(benchmark::State& state) {
  const int64_t M = state.range(0), K = state.range(1), N = state.range(2);
  const int threads = static_cast<int>(state.range(3));
  const auto old_cap = tfn::kernels::opt::SetIsaCapForTesting(
      static_cast<tfn::kernels::opt::Isa>(state.range(4)));
  state.SetLabel(tfn::kernels::QGemmKernelName());
  std::mt19937 rng(5);
  std::vector<uint8_t> a(M * K), b(K * N), c(M * N);
  for (auto& v : a) v = static_cast<uint8_t>(rng());
  for (auto& v : b) v = static_cast<uint8_t>(rng() % 255 + 1);  // int8 in [-127, 127]
  std::vector<int32_t> bias(N, 100), a_zp(1, 128);
  std::vector<float> scale(N, 1.0f / 4096);
  tfn::kernels::QOperand qa{a.data(), K, 1, false, a_zp.data(), 0};
  tfn::kernels::QOperand qb{b.data(), N, 1, true, nullptr, 0};
  tfn::kernels::QGemmOutput out;
  out.kind = tfn::kernels::QOutKind::kUint8;
  out.data = c.data();
  out.ldc = N;
  out.bias = bias.data();
  out.scale = scale.data();
  out.scale_stride = 1;
  out.zero_point = 128;
  const int64_t scratch_bytes = tfn::kernels::QGemmScratchBytes(M, N, K, threads);
  std::vector<unsigned char> scratch(scratch_bytes);
  SpinPool* pool = threads > 1 ? new SpinPool : nullptr;
  TfnKernelContext ctx{};
  ctx.num_threads = threads;
  ctx.pool = pool;
  ctx.parallel_for = pool ? SpinPool::ParallelFor : nullptr;
  for (auto _ : state) {
    if (tfn::kernels::QGemm(M, N, K, qa, qb, out, scratch.data(), scratch_bytes, &ctx) !=
        TFN_KERNEL_OK) {
      state.SkipWithError("QGemm failed");
    }
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  delete pool;
  tfn::kernels::opt::SetIsaCapForTesting(old_cap);
  SetCounters(state, M, N, K);
}

// The bfloat16 GEMM (kernels/opt/bf16_gemm.h) as fused_matmul runs a bf16
// b: float32 A rounded per row tile, B prepacked. Args: M, K, N, threads,
// ISA cap (opt::Isa: 0 portable, 2 AVX-512), vdpbf16ps allowed (1: used
// when the CPU has AVX512-BF16; 0: the AVX-512F kernel).
void BM_Bf16Gemm(benchmark::State& state) {
  const int64_t M = state.range(0), K = state.range(1), N = state.range(2);
  const int threads = static_cast<int>(state.range(3));
  const auto old_cap =
      tfn::kernels::opt::SetIsaCapForTesting(static_cast<tfn::kernels::opt::Isa>(state.range(4)));
  const bool old_allow = tfn::kernels::Bf16GemmAllowVdpbf16psForTesting(state.range(5) != 0);
  state.SetLabel(tfn::kernels::Bf16GemmKernelName());
  Buffer a(M * K, 1), c(M * N, 3);
  std::vector<uint16_t> b(K * N, 0x3f00), packed(tfn::kernels::Bf16PackedBElems(K, N));
  tfn::kernels::Bf16PackB(K, N, b.data(), N, 1, packed.data());
  const int64_t scratch_bytes = tfn::kernels::Bf16GemmScratchBytes(M, N, K, threads);
  std::vector<unsigned char> scratch(scratch_bytes);
  SpinPool* pool = threads > 1 ? new SpinPool : nullptr;
  TfnKernelContext ctx{};
  ctx.num_threads = threads;
  ctx.pool = pool;
  ctx.parallel_for = pool ? SpinPool::ParallelFor : nullptr;
  for (auto _ : state) {
    if (tfn::kernels::Bf16Gemm(M, N, K, a.p, K, packed.data(), c.p, N, nullptr, scratch.data(),
                               scratch_bytes, &ctx) != TFN_KERNEL_OK) {
      state.SkipWithError("Bf16Gemm failed");
    }
    benchmark::DoNotOptimize(c.p);
    benchmark::ClobberMemory();
  }
  delete pool;
  tfn::kernels::Bf16GemmAllowVdpbf16psForTesting(old_allow);
  tfn::kernels::opt::SetIsaCapForTesting(old_cap);
  SetCounters(state, M, N, K);
}

#if defined(TFN_HAVE_OPENBLAS)
// Args: M, K, N.
void BM_OpenBlas(benchmark::State& state) {
  const int64_t M = state.range(0), K = state.range(1), N = state.range(2);
  openblas_set_num_threads(1);
  Buffer a(M * K, 1), b(K * N, 2), c(M * N, 3);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(M), static_cast<int>(N),
                static_cast<int>(K), 1.0f, a.p, static_cast<int>(K), b.p, static_cast<int>(N), 0.0f,
                c.p, static_cast<int>(N));
    benchmark::DoNotOptimize(c.p);
    benchmark::ClobberMemory();
  }
  SetCounters(state, M, N, K);
}
#endif

// M, K, N; {1, 9216, 4096}: AlexNet's FC, from memory; {12544, 32, 64}: a 1x1
// conv at 112x112 (RegNet-X-800MF's first stage).
const int64_t kShapes[][3] = {{256, 256, 256}, {512, 512, 512}, {1024, 1024, 1024},
                              {64, 784, 512},  {64, 512, 512},  {64, 512, 10},
                              {1, 784, 512},   {1, 9216, 4096}, {12544, 32, 64}};

void Register() {
  const int avx2 = static_cast<int>(GemmIsa::kAvx2);
  for (const auto& s : kShapes) {
#if defined(TFN_HAVE_OPENBLAS)
    benchmark::RegisterBenchmark("OpenBLAS/1thread", BM_OpenBlas)
        ->Args({s[0], s[1], s[2]})
        ->ArgNames({"M", "K", "N"})
        ->UseRealTime();
#endif
    for (int threads : {1, 2}) {
      benchmark::RegisterBenchmark(threads == 1 ? "tfn/1thread" : "tfn/2threads", BM_Tfn)
          ->Args({s[0], s[1], s[2], threads, 0, 0})
          ->ArgNames({"M", "K", "N", "t", "prepacked", "isa"})
          ->UseRealTime();
    }
    benchmark::RegisterBenchmark("tfn_prepackedB/1thread", BM_Tfn)
        ->Args({s[0], s[1], s[2], 1, 1, 0})
        ->ArgNames({"M", "K", "N", "t", "prepacked", "isa"})
        ->UseRealTime();
    for (int threads : {1, 2}) {
      benchmark::RegisterBenchmark(threads == 1 ? "bf16/1thread" : "bf16/2threads", BM_Bf16Gemm)
          ->Args({s[0], s[1], s[2], threads, 2, 1})
          ->ArgNames({"M", "K", "N", "t", "cap", "vdpbf16ps"})
          ->UseRealTime();
    }
    benchmark::RegisterBenchmark("bf16_avx512f/1thread", BM_Bf16Gemm)
        ->Args({s[0], s[1], s[2], 1, 2, 0})
        ->ArgNames({"M", "K", "N", "t", "cap", "vdpbf16ps"})
        ->UseRealTime();
    if (tfn::kernels::GemmIsaSupported(GemmIsa::kAvx2)) {
      benchmark::RegisterBenchmark("tfn_avx2/1thread", BM_Tfn)
          ->Args({s[0], s[1], s[2], 1, 0, avx2})
          ->ArgNames({"M", "K", "N", "t", "prepacked", "isa"})
          ->UseRealTime();
    }
  }
  // int8, on the same shapes and on resnet18's convolutions as GEMMs (M =
  // output pixels, K = 3*3*Cin, N = Cout), interleaved with float32 above.
  const int64_t conv_shapes[][3] = {{3136, 576, 64}, {784, 1152, 128}, {196, 2304, 256},
                                    {49, 4608, 512}};
  auto add_int8 = [](const int64_t* s) {
    for (int threads : {1, 2}) {
      benchmark::RegisterBenchmark(threads == 1 ? "int8/1thread" : "int8/2threads", BM_QGemm)
          ->Args({s[0], s[1], s[2], threads, 2})
          ->ArgNames({"M", "K", "N", "t", "cap"})
          ->UseRealTime();
    }
    benchmark::RegisterBenchmark("int8_avx2/1thread", BM_QGemm)
        ->Args({s[0], s[1], s[2], 1, 1})
        ->ArgNames({"M", "K", "N", "t", "cap"})
        ->UseRealTime();
  };
  for (const auto& s : kShapes) add_int8(s);
  for (const auto& s : conv_shapes) {
    benchmark::RegisterBenchmark("tfn/1thread", BM_Tfn)
        ->Args({s[0], s[1], s[2], 1, 0, 0})
        ->ArgNames({"M", "K", "N", "t", "prepacked", "isa"})
        ->UseRealTime();
    add_int8(s);
  }
}

}  // namespace

int main(int argc, char** argv) {
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
#if defined(TFN_HAVE_OPENBLAS)
  openblas_set_num_threads(1);
  benchmark::AddCustomContext("openblas", openblas_get_config());
  benchmark::AddCustomContext("openblas_core", openblas_get_corename());
#else
  std::fprintf(stderr, "gemm_bench: built without OpenBLAS, its cases are skipped\n");
#endif
  benchmark::AddCustomContext("tfn_gemm_isa",
                              tfn::kernels::GemmIsaName(tfn::kernels::GemmActiveIsa()));
  Register();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
