// What the AVX-512 kernel files (gemm_avx512.cc, conv_avx512.cc,
// conv_depthwise_avx512.cc, conv_grouped_avx512.cc) share: the per-function
// target attribute, so the library itself still builds (and runs, through
// the other kernels) for generic x86-64 and the callers pick these only on a
// CPU with AVX-512; and the warning GCC 12 gives inside its own header.
// Include it after <immintrin.h>, in x86-64 code only.
#pragma once

#define TFN_AVX512 __attribute__((target("avx512f,avx512vl,fma")))
#define TFN_AVX512_INLINE TFN_AVX512 __attribute__((always_inline)) inline

// GCC 12 warns that _mm512_max_ps's internal _mm512_undefined_ps() "may be
// used uninitialized" (a false positive in its own header).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
