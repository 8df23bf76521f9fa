// Internal interface between the GEMM driver (gemm.cc, gemm_layout.cc) and
// its per-ISA kernels and packing routines (gemm_avx512.cc,
// gemm_avx512_pack.cc, gemm_avx2.cc, gemm_portable.cc). Not public.
#pragma once

#include <cstdint>

#include "kernels/opt/gemm.h"

namespace tfn::kernels::gemm_internal {

inline constexpr int kMaxMr = 16;
inline constexpr int64_t kPanel = kGemmPanelWidth;  // columns of a packed B panel
// Floats of padding between the packed panels of a B block (see gemm.cc).
inline constexpr int64_t kPanelPad = 16;
// The threads split the columns of C when there are at least this many
// panels per thread, else the rows (when there are more row tiles).
inline constexpr int64_t kMinPanelsPerThread = 4;

// A tile's epilogue done in registers by the microkernels of ISAs with
// IsaKernels::tile_epilogue (epilogue.h's terms, in its order: + bias,
// + residual, then relu or clip or nothing): bias[j] and residual[i * ldr + j]
// for the tile's row i and column j.
struct TileEpilogue {
  const float* bias;
  const float* residual;
  int64_t ldr;
  int32_t act;  // kActNone, kActRelu or kActClip
  float lo, hi;
};

// Computes one tile C[0:m, 0:n_valid] (+)= Apanel * Bpanel, m being fixed by
// the instance (IsaKernels::kernel[m]):
//   a, lda: with IsaKernels::a_rows, rows of A, a(i,k) = a[i*lda + k] (A read
//      in place, or packed by pack_a with lda = ARowStride(kc)); otherwise a
//      packed micro-panel, a(i,k) = a[k*m + i], 64-byte aligned (lda unused);
//   b: `nr` columns (IsaKernels::nr) of B, b(k,j) = b[k*ldb + j]; all nr
//      columns are readable for every k (zero padding past n_valid);
//   c: c(i,j) = c[i*ldc + j]; only the columns j < n_valid are read/written;
//   accumulate: add to C (else overwrite it);
//   te: null, or (IsaKernels::tile_epilogue ISAs only; called for a tile's
//       last K block instead of ApplyEpilogue) the epilogue to apply before
//       the tile is stored.
// 1 <= n_valid <= nr, kc >= 1. (The AVX-512 kernels do half the work for
// n_valid <= 16: a narrow last panel.)
// The packing kernel (IsaKernels::kernel_pack, m == mr) also copies the
// nr x kc panel of B it reads into b_pack (row k at b_pack + k*nr, 64-byte
// aligned), so the first micro-panel of a block packs B while computing; it is
// called with n_valid == nr only. The others ignore b_pack.
using MicroKernelFn = void (*)(int64_t kc, const float* a, int64_t lda, const float* b, int64_t ldb,
                               float* c, int64_t ldc, int64_t n_valid, bool accumulate,
                               float* b_pack, const TileEpilogue* te);

// The row stride of an A micro-panel packed by rows (IsaKernels::a_rows): kc
// rounded up to 16 floats, plus 16, so that rows are one 64-byte line off a
// multiple of 4 KiB apart and do not all land in the same L1 sets.
inline constexpr int64_t ARowStride(int64_t kc) { return (kc + 15) / 16 * 16 + 16; }

// Copies rows [0,m) x columns [0,kc) of op(A) into a packed micro-panel:
// a[k*m + i], or with IsaKernels::a_rows a[i*ARowStride(kc) + k].
// a(i,k) = A[i*rs + k*cs] with rs == 1 or cs == 1.
using PackAFn = void (*)(int m, int64_t kc, const float* A, int64_t rs, int64_t cs, float* out);

// Packs rows [0,kc) x columns [0,nc) of op(B), b(k,j) = B[k*rs + j*cs] with
// rs == 1 or cs == 1, into ceil(nc/32) panels of 32 columns: panel q at
// out + q*panel_stride, row k of it at + k*32, zeros past column nc.
using PackBFn = void (*)(int64_t kc, int64_t nc, const float* B, int64_t rs, int64_t cs, float* out,
                         int64_t panel_stride);

// The skinny path: C[0:m, 0:n] (+)= op(A)[0:m, 0:K] * B[0:K, 0:n] for a few
// rows m, streaming the rows of B front to back without packing; C itself is
// the accumulator (it stays in L1). a(i,k) = A[i*a_rs + k*a_cs] and
// b(k,j) = B[k*b_rs + (j/32)*b_ps + j%32]: b_ps = 32 for a row-major B,
// (b_rs, b_ps) = (32, K*32) for a prepacked one. K >= 1.
using SkinnyFn = void (*)(int64_t m, int64_t n, int64_t K, const float* A, int64_t a_rs,
                          int64_t a_cs, const float* B, int64_t b_rs, int64_t b_ps, float* C,
                          int64_t ldc, bool accumulate);

struct IsaKernels {
  const char* name;
  int mr;      // rows of the full tile
  int nr;      // columns per microkernel call; divides the panel width (32)
  int64_t kc;  // depth of a packed block (A micro-panel in L1)
  int64_t nc;  // columns of a packed B block (kc x nc stays in L2); multiple of 32
  MicroKernelFn kernel[kMaxMr + 1];  // kernel[m] for 1 <= m <= mr
  MicroKernelFn kernel_pack;         // the packing kernel (m == mr, nr == 32), or null
  bool tile_epilogue;                // the kernels apply a TileEpilogue
  bool a_rows;                       // the kernels read A by rows (see MicroKernelFn)
  PackAFn pack_a;                    // null: PackAGeneric
  PackBFn pack_b;                    // null: PackBGeneric
  SkinnyFn skinny;                   // null: none (small M takes the packed path)
  int skinny_max_m;                  // the skinny path serves M <= this
};

// Scratch layout (gemm_layout.cc): the bytes of one thread's packed A
// micro-panel, and of its whole slot (A micro-panel + packed B block unless
// with_b is false) when `threads` threads share the work of an M x N x K
// GEMM: a B block holds only the columns one thread gets. The largest any
// ISA needs, so forcing an ISA never changes sizes.
int64_t ABytes(int64_t K);
int64_t SlotBytes(int64_t M, int64_t N, int64_t K, int64_t threads, bool with_b);

// How gemm.cc's Run splits the work between `threads` threads: true for
// ranges of rows (each thread all columns), false for ranges of columns.
bool SplitsRows(int64_t M, int64_t N, int64_t threads, const IsaKernels& isa);

// The kernels of `isa` (kAuto: portable); null when the ISA is not compiled
// in (non-x86 targets). GemmActiveIsa() names the one to use.
const IsaKernels* IsaTable(GemmIsa isa);

// Null when the ISA is not compiled in (non-x86 targets).
const IsaKernels* Avx512Kernels();
const IsaKernels* Avx2Kernels();
const IsaKernels* PortableKernels();

// The generic packers (portable C++, gemm_portable.cc; used where an ISA has no
// faster one) and the AVX-512 ones (gemm_avx512_pack.cc, x86-64 only).
void PackAGeneric(int m, int64_t kc, const float* A, int64_t rs, int64_t cs, float* out);
void PackBGeneric(int64_t kc, int64_t nc, const float* B, int64_t rs, int64_t cs, float* out,
                  int64_t panel_stride);
void PackAAvx512(int m, int64_t kc, const float* A, int64_t rs, int64_t cs, float* out);
void PackBAvx512(int64_t kc, int64_t nc, const float* B, int64_t rs, int64_t cs, float* out,
                 int64_t panel_stride);

}  // namespace tfn::kernels::gemm_internal
