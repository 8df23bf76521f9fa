// Instruction-set dispatch for the vectorized kernels (elementwise, reduce,
// normalize). Loops are written once as plain C++ in always-inline
// templates; TFN_OPT_MULTIVERSION compiles a body three times, for generic
// x86-64 (SSE2, or the target's baseline elsewhere), AVX2+FMA and AVX-512,
// through per-function target attributes (the library itself builds for
// generic x86-64), and picks one at run time with __builtin_cpu_supports.
// Float32 bodies are multiversioned; float64, integer and bool bodies are
// compiled once, for the baseline and for size (TFN_OPT_BASELINE), to keep
// the runtime small (bench/RESULTS.md, "Runtime size").
//
// Results may differ between instruction sets in the last bits (FMA
// contraction); for one machine they never depend on the thread count.
// SetIsaCapForTesting lets tests run every path the CPU has; it is not
// thread-safe against running kernels and is meant for tests and benchmarks.
#pragma once

#include <atomic>
#include <cstdint>
#include <type_traits>

#include "kernels/kernel_abi.h"
#include "kernels/ref/tensor_util.h"

#if defined(__GNUC__) || defined(__clang__)
#define TFN_OPT_INLINE inline __attribute__((always_inline))
// After a lambda's parameter list: a lambda does not inherit the target
// attributes of the function it is written in, so one holding loops must be
// inlined to get them.
#define TFN_OPT_INLINE_LAMBDA __attribute__((always_inline))
#else
#define TFN_OPT_INLINE inline
#define TFN_OPT_INLINE_LAMBDA
#endif

// AOT bitcode (aot/CMakeLists.txt) is compiled once per instruction-set
// level: there the baseline body already has the target's ISA, and no
// run-time CPU probe is wanted.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(TFN_AOT_BITCODE)
#define TFN_OPT_X86 1
#define TFN_OPT_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define TFN_OPT_TARGET_AVX512 __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")))
#endif

namespace tfn::kernels::opt {

// Vectors for comparisons inside multiversioned always-inline bodies. GCC
// lowers a body's vector operations before it is inlined into the AVX2 and
// AVX-512 clones, for the baseline (SSE2): there a comparison of vectors
// wider than 16 bytes becomes scalar code (arithmetic does not). clang (AOT
// bitcode) keeps them whole. So such comparisons work on kCmpLanes floats.
#if defined(__clang__)
inline constexpr int kCmpLanes = 16;
#else
inline constexpr int kCmpLanes = 4;
#endif
typedef float CmpF32 __attribute__((vector_size(kCmpLanes * 4)));
typedef int32_t CmpI32 __attribute__((vector_size(kCmpLanes * 4)));

enum class Isa : int32_t { kPortable = 0, kAvx2 = 1, kAvx512 = 2 };

inline std::atomic<int32_t> g_isa_cap{static_cast<int32_t>(Isa::kAvx512)};

inline Isa DetectedIsa() {
  static const Isa detected = [] {
#if defined(TFN_OPT_X86)
    __builtin_cpu_init();  // in case a kernel runs before libgcc's constructors
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq")) {
      return Isa::kAvx512;
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::kAvx2;
#endif
    return Isa::kPortable;
  }();
  return detected;
}

// The instruction set the kernels use now: the best the CPU has, at most the cap.
inline Isa ActiveIsa() {
  const int32_t cap = g_isa_cap.load(std::memory_order_relaxed);
  const int32_t have = static_cast<int32_t>(DetectedIsa());
  return static_cast<Isa>(have < cap ? have : cap);
}

// Whether the AVX-512 intrinsics kernels (conv_depthwise*_avx512.cc,
// conv_grouped_avx512.cc, strided_copy_avx512.cc) may run: the CPU has
// AVX-512 and the cap allows it. AOT bitcode has no CPU probe: there its
// variant's baseline decides (x86-64-v4 has AVX-512).
inline bool Avx512KernelsActive() {
#if defined(TFN_AOT_BITCODE)
#if defined(__AVX512F__) && defined(__x86_64__)
  return true;
#else
  return false;
#endif
#else
  return ActiveIsa() == Isa::kAvx512;
#endif
}

// Whether the int8 GEMM (qgemm.h) may use AVX-512 VNNI (vpdpbusd): the CPU
// has it and the cap allows AVX-512. VNNI is a feature within the AVX-512
// level, not a level of its own, so `ActiveIsa() == Isa::kAvx512` keeps its
// meaning on CPUs that have it.
inline bool VnniKernelsActive() {
#if defined(TFN_AOT_BITCODE)
#if defined(__AVX512VNNI__) && defined(__AVX512BW__) && defined(__x86_64__)
  return true;
#else
  return false;
#endif
#else
  static const bool has_vnni = [] {
#if defined(TFN_OPT_X86)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw");
#else
    return false;
#endif
  }();
  return has_vnni && ActiveIsa() == Isa::kAvx512;
#endif
}

// Whether the bf16 GEMM (bf16_gemm.h) may use AVX512-BF16 (vdpbf16ps): the
// CPU has it and the cap allows AVX-512 (a feature within that level, as
// VNNI is). AOT bitcode asks its target instead (bf16_gemm_internal.h).
inline bool Bf16KernelsActive() {
#if defined(TFN_AOT_BITCODE)
  return false;
#else
  static const bool has_bf16 = [] {
#if defined(TFN_OPT_X86)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512bw");
#else
    return false;
#endif
  }();
  return has_bf16 && ActiveIsa() == Isa::kAvx512;
#endif
}

// Caps the instruction set (tests run each path); returns the previous cap.
inline Isa SetIsaCapForTesting(Isa cap) {
  return static_cast<Isa>(g_isa_cap.exchange(static_cast<int32_t>(cap)));
}

// c ? a : b on the bits of any trivially copyable T of 1, 2, 4 or 8 bytes.
// Unlike `?:`, this never becomes a branch the vectorizer cannot undo.
template <class T>
TFN_OPT_INLINE T SelectBits(bool c, T a, T b) {
  using U = std::conditional_t<
      sizeof(T) == 1, uint8_t,
      std::conditional_t<sizeof(T) == 2, uint16_t,
                         std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
  static_assert(sizeof(U) == sizeof(T), "SelectBits: unsupported size");
  const U m = static_cast<U>(U(0) - static_cast<U>(c));
  return __builtin_bit_cast(
      T, static_cast<U>((__builtin_bit_cast(U, a) & m) | (__builtin_bit_cast(U, b) & U(~m))));
}

// Elements per parallel chunk: below this a thread hand-off costs more than it saves.
inline constexpr int64_t kMinParallelChunk = 32768;

}  // namespace tfn::kernels::opt

// Defines `void Name(const Job& job)` that runs `Body(job)` compiled for the
// best instruction set available. Each use costs three copies of the body's
// code, so it is kept for the dtypes models spend their time in (float32);
// colder dtypes (float64, integers) use TFN_OPT_BASELINE. Body is an always-inline function (or
// template-id) taking `const Job&`.
//
// On x86 the generic (SSE2) copy is compiled for size, like the cold dtypes:
// it only runs on x86-64 CPUs without AVX2 and FMA (rare: pre-2013 cores,
// some low-end Atom-class parts), and its -O3 form, vectorized and
// versioned for aliasing, was ~100 KB of the runtime. There it runs scalar
// loops: memory-bound ops keep their speed, exp/tanh-like ops are a few
// times slower than SSE2 code would be.
#if defined(TFN_OPT_X86)
#define TFN_OPT_MULTIVERSION(Name, Job, ...)                                    \
  TFN_OPT_TARGET_AVX512 void Name##Avx512(const Job& job) { __VA_ARGS__(job); } \
  TFN_OPT_TARGET_AVX2 void Name##Avx2(const Job& job) { __VA_ARGS__(job); }     \
  TFN_OPT_SIZE void Name##Portable(const Job& job) { __VA_ARGS__(job); }        \
  void Name(const Job& job) {                                                   \
    switch (::tfn::kernels::opt::ActiveIsa()) {                                 \
      case ::tfn::kernels::opt::Isa::kAvx512:                                   \
        return Name##Avx512(job);                                               \
      case ::tfn::kernels::opt::Isa::kAvx2:                                     \
        return Name##Avx2(job);                                                 \
      default:                                                                  \
        return Name##Portable(job);                                             \
    }                                                                           \
  }
#else
#define TFN_OPT_MULTIVERSION(Name, Job, ...) \
  void Name(const Job& job) { __VA_ARGS__(job); }
#endif

// Optimizes one function for size (GCC's -Os for it alone; the always-inline
// loop bodies it calls are compiled the same way). For code of cold dtypes,
// where unrolled and vectorized copies of every loop made up most of the
// runtime's size; clang (AOT bitcode) ignores it.
#if defined(__GNUC__) && !defined(__clang__)
#define TFN_OPT_SIZE __attribute__((optimize("Os")))
#else
#define TFN_OPT_SIZE
#endif

// Like TFN_OPT_MULTIVERSION without the AVX-512 copy: AVX-512 machines run
// the AVX2 one. For float32 kernels that are not where models spend their
// time (argmax/argmin), where a third copy of the code buys little.
#if defined(TFN_OPT_X86)
#define TFN_OPT_MULTIVERSION_AVX2(Name, Job, ...)                            \
  TFN_OPT_TARGET_AVX2 void Name##Avx2(const Job& job) { __VA_ARGS__(job); }  \
  TFN_OPT_SIZE void Name##Portable(const Job& job) { __VA_ARGS__(job); }     \
  void Name(const Job& job) {                                                \
    if (::tfn::kernels::opt::ActiveIsa() >= ::tfn::kernels::opt::Isa::kAvx2) \
      return Name##Avx2(job);                                                \
    return Name##Portable(job);                                              \
  }
#else
#define TFN_OPT_MULTIVERSION_AVX2(Name, Job, ...) \
  void Name(const Job& job) { __VA_ARGS__(job); }
#endif

// Defines `void Name(const Job& job)` that runs `Body(job)` compiled once,
// for the library's baseline instruction set and optimized for size: for
// the cold dtypes (float64, integers, bool), where code size matters more
// than speed.
#define TFN_OPT_BASELINE(Name, Job, ...) \
  TFN_OPT_SIZE void Name(const Job& job) { __VA_ARGS__(job); }
