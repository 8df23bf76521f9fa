// Tests of the optimized pad (opt/pad.cc): random constant pads of ranks
// 1-5 (some dims unpadded, some empty inputs), every dtype width, fill
// values from the attribute (and from input 2 with paddings from input 1,
// which run the reference), 1 and 2 threads, against an oracle written out here (each output
// element from its coordinates) and against the reference kernel; reflect and edge fall back to the
// reference. Tolerance: none (pad moves values).
#include <random>
#include <vector>

#include "kernels/opt/opt_test_util.h"

namespace tfn::kernels::testing {
namespace {

// y[i] = x[i - before] inside x, else the fill value's bytes.
HostTensor Expected(const HostTensor& x, const std::vector<int64_t>& pads, const HostTensor& fill) {
  const int rank = x.shape.rank();
  std::vector<int64_t> dims(rank);
  int64_t count = 1;
  for (int d = 0; d < rank; ++d) {
    dims[d] = x.shape[d] + pads[2 * d] + pads[2 * d + 1];
    count *= dims[d];
  }
  HostTensor y;
  y.dtype = x.dtype;
  y.shape = Shape(dims);
  const size_t bytes = static_cast<size_t>(DTypeSize(x.dtype));
  y.bytes.resize(static_cast<size_t>(count) * bytes);
  for (int64_t i = 0; i < count; ++i) {
    int64_t rest = i, src = 0, stride = 1;
    bool inside = true;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t c = rest % dims[d] - pads[2 * d];
      rest /= dims[d];
      inside &= c >= 0 && c < x.shape[d];
      src += c * stride;
      stride *= x.shape[d];
    }
    std::memcpy(y.bytes.data() + i * bytes,
                inside ? x.bytes.data() + src * bytes : fill.bytes.data(), bytes);
  }
  return y;
}

TEST(PadOpt, RandomConstantPads) {
  std::mt19937 rng(11);
  const DType dtypes[] = {DType::kFloat32, DType::kFloat64, DType::kInt32,
                          DType::kBool,    DType::kFloat16, DType::kInt8};
  for (int i = 0; i < 200; ++i) {
    const int rank = 1 + static_cast<int>(rng() % 5);
    std::vector<int64_t> dims(rank), pads(2 * rank);
    for (int d = 0; d < rank; ++d) {
      dims[d] = static_cast<int64_t>(rng() % 7);  // 0 makes an empty input
      pads[2 * d] = rng() % 3 == 0 ? 0 : static_cast<int64_t>(rng() % 4);
      pads[2 * d + 1] = rng() % 3 == 0 ? 0 : static_cast<int64_t>(rng() % 4);
    }
    const DType dtype = dtypes[rng() % 6];
    const HostTensor x = HostTensor::Random(dtype, Shape(dims), 50 + i, -100, 100);
    const double value = rng() % 2 ? 0 : -7;
    const HostTensor fill = RunRef(OpId::kCast, {HostTensor::Of<double>(Shape({}), {value})},
                                   {{"dtype", AttrValue::Type(dtype)}});
    SCOPED_TRACE(ShapeToString(x.shape) + " pads " + ::testing::PrintToString(pads) + " " +
                 DTypeName(dtype) + " value " + std::to_string(value));
    const HostTensor want = Expected(x, pads, fill);
    const Attrs attrs = {{"paddings", AttrValue::Ints(pads)},
                         {"constant_value", AttrValue::Float(value)}};
    ASSERT_TRUE(BitEqual(RunRef(OpId::kPad, {x}, attrs), want)) << "reference";
    for (int threads : {1, 2}) {
      ASSERT_TRUE(BitEqual(RunOpt(OpId::kPad, {x}, attrs, threads), want)) << threads << " threads";
    }
  }
}

TEST(PadOpt, LargeSpatialPadOverThreadsAndValuesFromInputs) {
  // An NHWC spatial pad large enough to split over threads, with -inf as a
  // max pool's border.
  const HostTensor x = HostTensor::Random(DType::kFloat32, Shape({2, 56, 56, 64}), 3);
  const std::vector<int64_t> pads = {0, 0, 1, 1, 1, 1, 0, 0};
  const HostTensor fill = HostTensor::Of<float>(Shape({}), {-INFINITY});
  const HostTensor want = Expected(x, pads, fill);
  for (int threads : {1, 2}) {
    EXPECT_TRUE(BitEqual(RunOpt(OpId::kPad, {x},
                                {{"paddings", AttrValue::Ints(pads)},
                                 {"constant_value", AttrValue::Float(-INFINITY)}},
                                threads),
                         want));
    // The paddings as input 1 and the value as input 2 (the reference runs).
    const HostTensor p = HostTensor::Of<int64_t>(Shape({8}), pads);
    EXPECT_TRUE(BitEqual(RunOpt(OpId::kPad, {x, p, fill}, {}, threads), want));
  }
}

TEST(PadOpt, ReflectAndEdgeRunTheReference) {
  const Attrs constant = {{"paddings", AttrValue::Ints({1, 2})}};
  EXPECT_EQ(OptimizedSymbol(OpId::kPad, constant, {DType::kFloat32}, {1}), "tfn_opt_pad");
  const HostTensor x = HostTensor::Random(DType::kFloat32, Shape({3, 4, 5}), 4);
  for (const char* mode : {"reflect", "edge"}) {
    const Attrs attrs = {{"paddings", AttrValue::Ints({1, 2, 0, 3, 2, 0})},
                         {"mode", AttrValue::String(mode)}};
    EXPECT_TRUE(BitEqual(RunOpt(OpId::kPad, {x}, attrs, 2), RunRef(OpId::kPad, {x}, attrs)))
        << mode;
  }
}

}  // namespace
}  // namespace tfn::kernels::testing
