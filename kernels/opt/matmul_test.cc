// Tests of the optimized float32 matmul kernel (opt/matmul.cc) run through
// PrepareKernel (Variant::kOptimized) and RunOp, against an independent naive
// batched matmul with double accumulation written here: batch dims with NumPy
// broadcasting, all four transpose combinations, 1 and 2 threads (bitwise
// identical results), empty dims, and the choice of kernel by dtype.
//
// Tolerance: entries are uniform in [-1, 1), so sum_k |a_ik b_kj| <= K and
// the float32 dot-product bound of gemm_test.cc, 2 (K + 8) u sum_k |a_ik b_kj|
// with u = 2^-24, becomes 2 (K + 8) u K: rigorous for any summation order.
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/testing/kernel_test_util.h"

namespace tfn::kernels::testing {
namespace {

constexpr double kU = 1.0 / (1 << 24);

// Naive batched matmul with NumPy broadcasting of the batch dims.
HostTensor NaiveMatMul(const HostTensor& a, const HostTensor& b, bool ta, bool tb) {
  const Shape& sa = a.shape;
  const Shape& sb = b.shape;
  const int ra = sa.rank(), rb = sb.rank(), r = std::max(ra, rb);
  const int64_t M = ta ? sa[ra - 1] : sa[ra - 2], K = ta ? sa[ra - 2] : sa[ra - 1];
  const int64_t N = tb ? sb[rb - 2] : sb[rb - 1];
  std::vector<int64_t> dims(r);
  for (int i = 0; i < r - 2; ++i) {
    int ia = i - (r - ra), ib = i - (r - rb);
    int64_t da = ia >= 0 ? sa[ia] : 1, db = ib >= 0 ? sb[ib] : 1;
    dims[i] = da == 1 ? db : da;
  }
  dims[r - 2] = M;
  dims[r - 1] = N;
  Shape out_shape(dims);
  std::vector<float> av = a.values<float>(), bv = b.values<float>(), out;
  const int64_t batch = NumElements(out_shape) / std::max<int64_t>(1, M * N);
  for (int64_t n = 0; n < (M * N == 0 ? 0 : batch); ++n) {
    // Offsets of batch element n in a and b (broadcast dims contribute 0).
    int64_t rem = n, oa = 0, ob = 0, stride_a = sa[ra - 2] * sa[ra - 1],
            stride_b = sb[rb - 2] * sb[rb - 1];
    for (int i = r - 3; i >= 0; --i) {
      int64_t x = rem % dims[i];
      rem /= dims[i];
      int ia = i - (r - ra), ib = i - (r - rb);
      if (ia >= 0) {
        if (sa[ia] != 1) oa += x * stride_a;
        stride_a *= sa[ia];
      }
      if (ib >= 0) {
        if (sb[ib] != 1) ob += x * stride_b;
        stride_b *= sb[ib];
      }
    }
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t j = 0; j < N; ++j) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k) {
          double x = ta ? av[oa + k * M + i] : av[oa + i * K + k];
          double y = tb ? bv[ob + j * K + k] : bv[ob + k * N + j];
          s += x * y;
        }
        out.push_back(static_cast<float>(s));
      }
    }
  }
  return HostTensor::Of<float>(out_shape, out);
}

Attrs MatMulAttrs(bool ta, bool tb) {
  return {{"transpose_a", AttrValue::Int(ta)}, {"transpose_b", AttrValue::Int(tb)}};
}

Shape MatShape(std::vector<int64_t> batch, int64_t rows, int64_t cols, bool transposed) {
  batch.push_back(transposed ? cols : rows);
  batch.push_back(transposed ? rows : cols);
  return Shape(batch);
}

// Runs the optimized matmul (always registered in a build with kernels/opt:
// a missing kernel fails the test).
#define RUN_OPT_MATMUL(out, a, b, ta, tb, threads)                                             \
  std::string error;                                                                           \
  auto out =                                                                                   \
      RunOp(OpId::kMatMul, {a, b}, MatMulAttrs(ta, tb), Variant::kOptimized, &error, threads); \
  ASSERT_EQ(out.size(), 1u) << error

TEST(MatMulOpt, BatchedBroadcastAllTransposesThreads) {
  struct Shapes {
    std::vector<int64_t> batch_a, batch_b;
    int64_t M, N, K;
  };
  const Shapes shapes[] = {
      {{}, {}, 64, 512, 784},       {{}, {}, 1, 512, 784},         {{3}, {3}, 17, 33, 65},
      {{2, 1}, {3}, 5, 7, 13},      {{}, {4}, 31, 3, 129},         {{4}, {}, 65, 33, 2},
      {{1, 2}, {3, 1}, 13, 127, 3}, {{2, 3}, {2, 3}, 129, 31, 63}, {{6}, {6}, 40, 300, 257}};
  uint32_t seed = 1;
  for (const Shapes& s : shapes) {
    for (int t = 0; t < 4; ++t) {
      const bool ta = t & 1, tb = t & 2;
      HostTensor a = HostTensor::Random(DType::kFloat32, MatShape(s.batch_a, s.M, s.K, ta), seed++);
      HostTensor b = HostTensor::Random(DType::kFloat32, MatShape(s.batch_b, s.K, s.N, tb), seed++);
      HostTensor want = NaiveMatMul(a, b, ta, tb);
      std::vector<float> one_thread;
      for (int threads : {1, 2}) {
        SCOPED_TRACE("shape #" + std::to_string(&s - shapes) + " ta=" + std::to_string(ta) +
                     " tb=" + std::to_string(tb) + " threads=" + std::to_string(threads));
        RUN_OPT_MATMUL(got, a, b, ta, tb, threads);
        EXPECT_TRUE(AllClose(got[0], want, 0, 2.0 * (s.K + 8) * kU * s.K));
        if (threads == 1)
          one_thread = got[0].values<float>();
        else
          EXPECT_EQ(got[0].values<float>(), one_thread) << "results depend on the thread count";
      }
    }
  }
}

TEST(MatMulOpt, EmptyDims) {
  const int64_t dims[][4] = {
      {0, 4, 3, 2}, {3, 0, 4, 2}, {3, 4, 0, 2}, {3, 4, 5, 0}};  // M N K batch
  for (const auto& d : dims) {
    HostTensor a = HostTensor::Random(DType::kFloat32, Shape({d[3], d[0], d[2]}), 1);
    HostTensor b = HostTensor::Random(DType::kFloat32, Shape({d[2], d[1]}), 2);
    RUN_OPT_MATMUL(got, a, b, false, false, 2);
    EXPECT_EQ(got[0].shape, Shape({d[3], d[0], d[1]}));
    for (float v : got[0].values<float>()) EXPECT_EQ(v, 0.0f);  // K = 0 gives zeros
  }
}

TEST(MatMulOpt, SelectedOnlyForFloat32) {
  for (DType t : {DType::kFloat32, DType::kFloat64}) {
    Attrs attrs = MatMulAttrs(false, false);
    ASSERT_TRUE(NormalizeAttrs(GetOpDef(OpId::kMatMul), &attrs).ok());
    const DType types[2] = {t, t};
    const int ranks[2] = {2, 2};
    NodeSignature node{OpId::kMatMul, &attrs, 2, types, ranks, 1, types, ranks};
    KernelPlan plan;
    Status s = PrepareKernel(node, Variant::kOptimized, &plan);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_STREQ(plan.symbol, t == DType::kFloat32 ? "tfn_opt_matmul" : "tfn_ref_matmul");
  }
}

}  // namespace
}  // namespace tfn::kernels::testing
