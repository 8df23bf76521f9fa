// Tests of the optimized pooling (opt/pool.cc) against the reference kernel:
// max and average, window sizes 1-7, strides, dilations, VALID/SAME/explicit
// padding, ceil_mode, count_include_pad, channel counts around the 16-wide
// vectors, NaN/inf/denormal inputs, every instruction set, 1 and 2 threads.
// Tolerance: none (bit-identical; any NaN matches any NaN).
#include <random>
#include <string>

#include "kernels/opt/opt_test_util.h"

namespace tfn::kernels::testing {
namespace {

TEST(PoolOpt, RandomCasesBitIdentical) {
  std::mt19937 rng(5);
  auto pick = [&](std::initializer_list<int64_t> v) { return *(v.begin() + rng() % v.size()); };
  int run = 0;
  for (int i = 0; i < 300; ++i) {
    const int64_t n = pick({1, 2}), h = pick({1, 4, 7, 12, 15}), w = pick({1, 3, 8, 13});
    const int64_t c = pick({1, 3, 6, 16, 17, 33, 64});
    const int64_t kh = pick({1, 2, 3, 5}), kw = pick({1, 2, 3, 7});
    Attrs attrs = {{"ksize", AttrValue::Ints({kh, kw})},
                   {"strides", AttrValue::Ints({pick({1, 2, 3}), pick({1, 2})})},
                   {"dilations", AttrValue::Ints({pick({1, 1, 2}), pick({1, 2})})},
                   {"ceil_mode", AttrValue::Int(pick({0, 1}))},
                   {"count_include_pad", AttrValue::Int(pick({0, 1}))}};
    const int pad = static_cast<int>(rng() % 3);
    if (pad == 1) attrs.Set("padding", AttrValue::String("SAME"));
    if (pad == 2) {
      attrs.Set("padding", AttrValue::String("EXPLICIT"));
      attrs.Set("pads",
                AttrValue::Ints({pick({0, 1}), pick({0, 1, 2}), pick({0, 1}), pick({0, 2})}));
    }
    const HostTensor x = Mixed(DType::kFloat32, Shape({n, h, w, c}), 10 + i, -5, 5, 0.03);
    for (OpId op : {OpId::kMaxPool2D, OpId::kAvgPool2D}) {
      std::string error;
      auto want = RunOp(op, {x}, attrs, Variant::kReference, &error);
      if (want.empty()) continue;  // the window does not fit: an error for both
      ++run;
      ForEachConfig([&](const std::string& label) {
        const int threads = label.find(", 2 threads") != std::string::npos ? 2 : 1;
        const HostTensor got = RunOpt(op, {x}, attrs, threads);
        ASSERT_TRUE(BitEqual(got, want[0])) << label << " case " << i << " " << OpName(op);
      });
    }
  }
  EXPECT_GT(run, 200);
}

TEST(PoolOpt, ResNetAndLeNetShapes) {
  const HostTensor x = HostTensor::Random(DType::kFloat32, Shape({1, 112, 112, 64}), 3);
  Attrs attrs = {{"ksize", AttrValue::Ints({3, 3})},
                 {"strides", AttrValue::Ints({2, 2})},
                 {"padding", AttrValue::String("EXPLICIT")},
                 {"pads", AttrValue::Ints({1, 1, 1, 1})}};
  for (OpId op : {OpId::kMaxPool2D, OpId::kAvgPool2D}) {
    const HostTensor want = RunRef(op, {x}, attrs);
    for (int threads : {1, 2}) EXPECT_TRUE(BitEqual(RunOpt(op, {x}, attrs, threads), want));
  }
  // LeNet's pools: 6 and 16 channels, 2x2 stride 2 (fewer channels than a
  // vector: whole-vector loads and stores that overlap the next pixel).
  Attrs lenet = {{"ksize", AttrValue::Ints({2, 2})}, {"strides", AttrValue::Ints({2, 2})}};
  for (int64_t c : {6, 16}) {
    const int64_t hw = c == 6 ? 28 : 10;
    const HostTensor xl =
        Mixed(DType::kFloat32, Shape({1, hw, hw, c}), static_cast<uint32_t>(7 + c), -5, 5, 0.03);
    const HostTensor want = RunRef(OpId::kMaxPool2D, {xl}, lenet);
    for (int threads : {1, 2}) {
      EXPECT_TRUE(BitEqual(RunOpt(OpId::kMaxPool2D, {xl}, lenet, threads), want)) << c;
    }
  }
}

}  // namespace
}  // namespace tfn::kernels::testing
