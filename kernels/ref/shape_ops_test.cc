// Tests of the shape-manipulation reference kernels: hand-computed results
// for every op, slice against Python's slice algorithm written out here,
// transpose against a naive coordinate loop, every dtype including bool,
// empty tensors, negative axes, and errors from the shape rules and from the
// gather kernel.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/testing/kernel_test_util.h"

namespace tfn::kernels::testing {
namespace {

using HT = HostTensor;

std::vector<float> Iota(int64_t n, float start = 0) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = start + static_cast<float>(i);
  return v;
}

HT Run1(OpId op, std::vector<HT> inputs, Attrs attrs) {
  auto out = RunOp(op, std::move(inputs), std::move(attrs));
  return out.empty() ? HT{} : out[0];
}

std::string ErrorOf(OpId op, std::vector<HT> inputs, Attrs attrs) {
  std::string error;
  RunOp(op, std::move(inputs), std::move(attrs), Variant::kReference, &error);
  return error;
}

AttrValue Ints(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }

TEST(RefReshape, CopiesInOrder) {
  HT x = HT::Of<float>({2, 3}, Iota(6));
  HT r = Run1(OpId::kReshape, {x}, {{"shape", Ints({3, -1})}});
  EXPECT_EQ(r.shape, (Shape{3, 2}));
  EXPECT_EQ(r.values<float>(), Iota(6));
  r = Run1(OpId::kReshape, {x}, {{"shape", Ints({0, 3})}, {"copy_zero", AttrValue::Int(1)}});
  EXPECT_EQ(r.shape, (Shape{2, 3}));
  r = Run1(OpId::kReshape, {HT::Of<bool>({2, 2}, {true, false, false, true})},
           {{"shape", Ints({4})}});
  EXPECT_EQ(r.values<bool>(), (std::vector<bool>{true, false, false, true}));
  r = Run1(OpId::kReshape, {HT::Of<int64_t>({1}, {42})}, {{"shape", Ints({})}});
  EXPECT_EQ(r.shape, Shape{});
  EXPECT_EQ(r.values<int64_t>(), (std::vector<int64_t>{42}));
  r = Run1(OpId::kReshape, {HT::Of<float>({0, 3}, {})}, {{"shape", Ints({3, 0})}});
  EXPECT_EQ(r.shape, (Shape{3, 0}));
  EXPECT_EQ(ErrorOf(OpId::kReshape, {x}, {{"shape", Ints({4, 2})}}),
            "reshape: cannot reshape f32[2,3] (6 elements) into [4,2] (8 elements)");
}

TEST(RefExpandSqueeze, CopiesInOrder) {
  HT x = HT::Of<int32_t>({2, 2}, {1, 2, 3, 4});
  HT e = Run1(OpId::kExpandDims, {x}, {{"axis", AttrValue::Int(-1)}});
  EXPECT_EQ(e.shape, (Shape{2, 2, 1}));
  EXPECT_EQ(e.values<int32_t>(), (std::vector<int32_t>{1, 2, 3, 4}));
  e = Run1(OpId::kExpandDims, {x}, {{"axis", AttrValue::Int(0)}});
  EXPECT_EQ(e.shape, (Shape{1, 2, 2}));
  HT s = Run1(OpId::kSqueeze, {HT::Of<double>({1, 3, 1}, {1, 2, 3})}, {});
  EXPECT_EQ(s.shape, (Shape{3}));
  EXPECT_EQ(s.values<double>(), (std::vector<double>{1, 2, 3}));
  s = Run1(OpId::kSqueeze, {HT::Of<double>({1, 3, 1}, {1, 2, 3})}, {{"axes", Ints({-1})}});
  EXPECT_EQ(s.shape, (Shape{1, 3}));
  EXPECT_EQ(ErrorOf(OpId::kSqueeze, {x}, {{"axes", Ints({0})}}),
            "squeeze: cannot squeeze axis 0 of int32[2,2]: its size is not 1");
  EXPECT_NE(ErrorOf(OpId::kExpandDims, {x}, {{"axis", AttrValue::Int(3)}}).find("out of range"),
            std::string::npos);
}

TEST(RefTranspose, HandComputed) {
  // [[0,1,2],[3,4,5]] -> [[0,3],[1,4],[2,5]]
  HT x = HT::Of<float>({2, 3}, Iota(6));
  HT t = Run1(OpId::kTranspose, {x}, {});
  EXPECT_EQ(t.shape, (Shape{3, 2}));
  EXPECT_EQ(t.values<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  // [2,2,2] with perm (1,0,2): y[i][j][k] = x[j][i][k].
  HT y = HT::Of<int32_t>({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(Run1(OpId::kTranspose, {y}, {{"perm", Ints({1, 0, 2})}}).values<int32_t>(),
            (std::vector<int32_t>{0, 1, 4, 5, 2, 3, 6, 7}));
  EXPECT_EQ(Run1(OpId::kTranspose, {y}, {{"perm", Ints({-2, -3, -1})}}).values<int32_t>(),
            (std::vector<int32_t>{0, 1, 4, 5, 2, 3, 6, 7}));
  HT b = HT::Of<bool>({1, 2}, {true, false});
  HT bt = Run1(OpId::kTranspose, {b}, {});
  EXPECT_EQ(bt.shape, (Shape{2, 1}));
  EXPECT_EQ(bt.values<bool>(), (std::vector<bool>{true, false}));
  EXPECT_EQ(Run1(OpId::kTranspose, {HT::Of<float>({}, {3})}, {}).values<float>(),
            (std::vector<float>{3}));
  EXPECT_EQ(Run1(OpId::kTranspose, {HT::Of<float>({0, 2}, {})}, {}).shape, (Shape{2, 0}));
  EXPECT_EQ(ErrorOf(OpId::kTranspose, {x}, {{"perm", Ints({0, 0})}}),
            "transpose: perm [0,0] is not a permutation of 0..1");
}

TEST(RefTranspose, RandomPermutationsAgainstNaiveLoop) {
  const Shape shape{2, 3, 4, 5};
  HT x = HT::Random(DType::kInt64, shape, 5, -100, 100);
  std::vector<int64_t> perm = {0, 1, 2, 3};
  do {
    HT t = Run1(OpId::kTranspose, {x}, {{"perm", Ints(perm)}});
    ASSERT_EQ(t.shape.rank(), 4);
    std::vector<int64_t> got = t.values<int64_t>(), src = x.values<int64_t>();
    int64_t o = 0;
    int64_t c[4];
    for (c[0] = 0; c[0] < shape[perm[0]]; ++c[0]) {
      for (c[1] = 0; c[1] < shape[perm[1]]; ++c[1]) {
        for (c[2] = 0; c[2] < shape[perm[2]]; ++c[2]) {
          for (c[3] = 0; c[3] < shape[perm[3]]; ++c[3]) {
            int64_t in[4];
            for (int d = 0; d < 4; ++d) in[perm[d]] = c[d];
            int64_t off = ((in[0] * shape[1] + in[1]) * shape[2] + in[2]) * shape[3] + in[3];
            ASSERT_EQ(got[o++], src[off]) << ::testing::PrintToString(perm);
          }
        }
      }
    }
  } while (std::next_permutation(perm.begin(), perm.end()));
}

TEST(RefConcat, HandComputed) {
  HT a = HT::Of<float>({2, 2}, {1, 2, 3, 4});
  HT b = HT::Of<float>({1, 2}, {5, 6});
  HT c = Run1(OpId::kConcat, {a, b}, {{"axis", AttrValue::Int(0)}});
  EXPECT_EQ(c.shape, (Shape{3, 2}));
  EXPECT_EQ(c.values<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  HT d = HT::Of<float>({2, 1}, {7, 8});
  c = Run1(OpId::kConcat, {a, d, a}, {{"axis", AttrValue::Int(-1)}});
  EXPECT_EQ(c.shape, (Shape{2, 5}));
  EXPECT_EQ(c.values<float>(), (std::vector<float>{1, 2, 7, 1, 2, 3, 4, 8, 3, 4}));
  // An empty piece contributes nothing.
  c = Run1(OpId::kConcat, {HT::Of<float>({2, 0}, {}), d}, {{"axis", AttrValue::Int(1)}});
  EXPECT_EQ(c.values<float>(), (std::vector<float>{7, 8}));
  HT t = HT::Of<bool>({2}, {true, false});
  HT u = HT::Of<bool>({1}, {true});
  EXPECT_EQ(Run1(OpId::kConcat, {t, u, t}, {{"axis", AttrValue::Int(0)}}).values<bool>(),
            (std::vector<bool>{true, false, true, true, false}));
  EXPECT_EQ(Run1(OpId::kConcat, {t}, {{"axis", AttrValue::Int(0)}}).values<bool>(),
            (std::vector<bool>{true, false}));
  EXPECT_EQ(
      ErrorOf(OpId::kConcat, {a, HT::Of<float>({1, 3}, {1, 2, 3})}, {{"axis", AttrValue::Int(0)}}),
      "concat: input 1 is f32[1,3] but input 0 is f32[2,2]; all dims except axis 0 must "
      "match");
}

TEST(RefSplit, NumSplitsAndSizes) {
  HT x = HT::Of<int32_t>({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto out =
      RunOp(OpId::kSplit, {x}, {{"axis", AttrValue::Int(1)}, {"num_splits", AttrValue::Int(2)}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].shape, (Shape{2, 2}));
  EXPECT_EQ(out[0].values<int32_t>(), (std::vector<int32_t>{0, 1, 4, 5}));
  EXPECT_EQ(out[1].values<int32_t>(), (std::vector<int32_t>{2, 3, 6, 7}));
  out = RunOp(OpId::kSplit, {x}, {{"axis", AttrValue::Int(-1)}, {"sizes", Ints({1, -1, 0})}});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].values<int32_t>(), (std::vector<int32_t>{0, 4}));
  EXPECT_EQ(out[1].shape, (Shape{2, 3}));
  EXPECT_EQ(out[1].values<int32_t>(), (std::vector<int32_t>{1, 2, 3, 5, 6, 7}));
  EXPECT_EQ(out[2].shape, (Shape{2, 0}));
  out = RunOp(OpId::kSplit, {x}, {{"num_splits", AttrValue::Int(2)}});
  EXPECT_EQ(out[0].values<int32_t>(), (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(out[1].values<int32_t>(), (std::vector<int32_t>{4, 5, 6, 7}));
  out = RunOp(OpId::kSplit, {HT::Of<bool>({3}, {true, false, true})},
              {{"num_splits", AttrValue::Int(3)}});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1].values<bool>(), (std::vector<bool>{false}));
  EXPECT_EQ(
      ErrorOf(OpId::kSplit, {x}, {{"axis", AttrValue::Int(1)}, {"num_splits", AttrValue::Int(3)}}),
      "split: axis 1 of int32[2,4] does not split into 3 equal parts");
  EXPECT_EQ(ErrorOf(OpId::kSplit, {x}, {{"axis", AttrValue::Int(1)}, {"sizes", Ints({1, 2})}}),
            "split: sizes [1,2] do not add up to axis 1 of int32[2,4]");
}

// Python's slice.indices() followed by range(): the indices a slice selects,
// written from CPython's algorithm. A huge bound clamps to the same place as
// an omitted one, which is what |v| >= 2^62 stands for.
std::vector<int64_t> PythonSlice(int64_t n, int64_t begin, int64_t end, int64_t step) {
  const int64_t lower = step < 0 ? -1 : 0, upper = step < 0 ? n - 1 : n;
  auto adjust = [&](int64_t v) {
    if (v < 0) {
      v += n;
      if (v < lower) v = lower;
    } else if (v > upper) {
      v = upper;
    }
    return v;
  };
  const int64_t start = adjust(begin), stop = adjust(end);
  std::vector<int64_t> idx;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    idx.push_back(i);
    if (step > 0 ? stop - i <= step : i - stop <= -step) break;  // i += step would pass stop
  }
  return idx;
}

TEST(RefSlice, MatchesPythonOnEveryBoundCombination) {
  constexpr int64_t kOpen = int64_t{1} << 62;
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const std::vector<int64_t> bounds = {kMin, -kOpen, -kOpen + 1, -9, -4, -3,        -1,    0,
                                       1,    2,      3,          4,  9,  kOpen - 1, kOpen, kMax};
  const std::vector<int64_t> steps = {-kMax, -3, -2, -1, 1, 2, 5, kMax};
  for (int64_t n : {0, 1, 4}) {
    HT x = HT::Of<float>({n}, Iota(n, 10));
    for (int64_t b : bounds) {
      for (int64_t e : bounds) {
        for (int64_t s : steps) {
          HT y = Run1(OpId::kSlice, {x},
                      {{"begin", Ints({b})}, {"end", Ints({e})}, {"strides", Ints({s})}});
          std::vector<float> want;
          for (int64_t i : PythonSlice(n, b, e, s)) want.push_back(10 + static_cast<float>(i));
          ASSERT_EQ(y.values<float>(), want)
              << "n=" << n << " [" << b << ":" << e << ":" << s << "]";
        }
      }
    }
  }
}

TEST(RefSlice, MultiDimAndDTypes) {
  // x[i][j] = 10 i + j, [3,4]; x[::-1, 1:3] = [[21,22],[11,12],[1,2]]
  std::vector<int64_t> v;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) v.push_back(10 * i + j);
  }
  constexpr int64_t kOpen = int64_t{1} << 62;
  HT x = HT::Of<int64_t>({3, 4}, v);
  HT y =
      Run1(OpId::kSlice, {x},
           {{"begin", Ints({kOpen, 1})}, {"end", Ints({-kOpen, 3})}, {"strides", Ints({-1, 1})}});
  EXPECT_EQ(y.shape, (Shape{3, 2}));
  EXPECT_EQ(y.values<int64_t>(), (std::vector<int64_t>{21, 22, 11, 12, 1, 2}));
  // x[1:, ::2] without strides attribute would be stride 1: x[1:, 0:4] here.
  y = Run1(OpId::kSlice, {x}, {{"begin", Ints({1, 0})}, {"end", Ints({kOpen, 4})}});
  EXPECT_EQ(y.values<int64_t>(), (std::vector<int64_t>{10, 11, 12, 13, 20, 21, 22, 23}));
  y = Run1(OpId::kSlice, {x},
           {{"begin", Ints({-1, -1})}, {"end", Ints({-3, -5})}, {"strides", Ints({-1, -2})}});
  EXPECT_EQ(y.values<int64_t>(), (std::vector<int64_t>{23, 21, 13, 11}));
  HT b = HT::Of<bool>({4}, {true, false, false, true});
  EXPECT_EQ(Run1(OpId::kSlice, {b}, {{"begin", Ints({1})}, {"end", Ints({4})}}).values<bool>(),
            (std::vector<bool>{false, false, true}));
  HT s = Run1(OpId::kSlice, {HT::Of<float>({}, {7})}, {{"begin", Ints({})}, {"end", Ints({})}});
  EXPECT_EQ(s.values<float>(), (std::vector<float>{7}));
  EXPECT_EQ(ErrorOf(OpId::kSlice, {x},
                    {{"begin", Ints({0, 0})}, {"end", Ints({1, 1})}, {"strides", Ints({1, 0})}}),
            "slice: strides must not be 0");
  EXPECT_NE(ErrorOf(OpId::kSlice, {x}, {{"begin", Ints({0})}, {"end", Ints({1})}})
                .find("need one entry per dim"),
            std::string::npos);
}

TEST(RefGather, HandComputed) {
  // params [[1,2],[3,4],[5,6]]
  HT p = HT::Of<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  HT g = Run1(OpId::kGather, {p, HT::Of<int32_t>({2}, {2, 0})}, {});
  EXPECT_EQ(g.shape, (Shape{2, 2}));
  EXPECT_EQ(g.values<float>(), (std::vector<float>{5, 6, 1, 2}));
  // Negative indices wrap once; 2D indices along axis 1.
  g = Run1(OpId::kGather, {p, HT::Of<int64_t>({2, 2}, {-1, 0, 1, -2})},
           {{"axis", AttrValue::Int(1)}});
  EXPECT_EQ(g.shape, (Shape{3, 2, 2}));
  EXPECT_EQ(g.values<float>(), (std::vector<float>{2, 1, 2, 1, 4, 3, 4, 3, 6, 5, 6, 5}));
  // A scalar index drops the axis.
  g = Run1(OpId::kGather, {p, HT::Of<int64_t>({}, {-3})}, {});
  EXPECT_EQ(g.shape, (Shape{2}));
  EXPECT_EQ(g.values<float>(), (std::vector<float>{1, 2}));
  // Empty indices.
  g = Run1(OpId::kGather, {p, HT::Of<int32_t>({0}, {})}, {});
  EXPECT_EQ(g.shape, (Shape{0, 2}));
  // Bool params, middle axis of a 3D tensor.
  HT b = HT::Of<bool>({1, 3, 1}, {true, false, true});
  g = Run1(OpId::kGather, {b, HT::Of<int32_t>({4}, {1, 1, 2, 0})}, {{"axis", AttrValue::Int(-2)}});
  EXPECT_EQ(g.shape, (Shape{1, 4, 1}));
  EXPECT_EQ(g.values<bool>(), (std::vector<bool>{false, false, true, true}));
}

TEST(RefGather, OutOfRangeIsAKernelError) {
  HT p = HT::Of<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  const std::string want =
      "gather: an index is outside the valid range of the indexed axis (params f32[3,2], "
      "indices int32[2]); indices must be in [-n, n) for an axis of size n";
  EXPECT_EQ(ErrorOf(OpId::kGather, {p, HT::Of<int32_t>({2}, {0, 3})}, {}), want);
  EXPECT_NE(ErrorOf(OpId::kGather, {p, HT::Of<int64_t>({1}, {-4})}, {}).find("outside the valid"),
            std::string::npos);
  EXPECT_NE(ErrorOf(OpId::kGather, {p, HT::Of<int64_t>({1}, {2})}, {{"axis", AttrValue::Int(1)}})
                .find("outside the valid"),
            std::string::npos);
  // Checked even when the output is empty, as NumPy does.
  EXPECT_NE(ErrorOf(OpId::kGather, {HT::Of<float>({0, 2}, {}), HT::Of<int32_t>({1}, {2})},
                    {{"axis", AttrValue::Int(1)}})
                .find("outside the valid"),
            std::string::npos);
  EXPECT_NE(ErrorOf(OpId::kGather, {p, HT::Of<float>({1}, {0})}, {}).find("must be"),
            std::string::npos);
}

Attrs PadAttrs(std::vector<int64_t> pads, const std::string& mode, double value = 0) {
  return {{"paddings", Ints(std::move(pads))},
          {"mode", AttrValue::String(mode)},
          {"constant_value", AttrValue::Float(value)}};
}

TEST(RefPad, ModesIn1D) {
  HT x = HT::Of<float>({3}, {1, 2, 3});
  // np.pad([1,2,3], (2,2), mode) for each mode.
  EXPECT_EQ(Run1(OpId::kPad, {x}, PadAttrs({2, 2}, "constant", 9)).values<float>(),
            (std::vector<float>{9, 9, 1, 2, 3, 9, 9}));
  EXPECT_EQ(Run1(OpId::kPad, {x}, PadAttrs({2, 2}, "reflect")).values<float>(),
            (std::vector<float>{3, 2, 1, 2, 3, 2, 1}));
  EXPECT_EQ(Run1(OpId::kPad, {x}, PadAttrs({2, 2}, "edge")).values<float>(),
            (std::vector<float>{1, 1, 1, 2, 3, 3, 3}));
  EXPECT_EQ(Run1(OpId::kPad, {x}, PadAttrs({0, 1}, "reflect")).values<float>(),
            (std::vector<float>{1, 2, 3, 2}));
  EXPECT_EQ(Run1(OpId::kPad, {x}, PadAttrs({0, 0}, "edge")).values<float>(),
            (std::vector<float>{1, 2, 3}));
}

TEST(RefPad, ModesIn2DAndDTypes) {
  // [[1,2,3],[4,5,6]] padded by 1 row before and 2 cols after.
  HT x = HT::Of<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  HT y = Run1(OpId::kPad, {x}, PadAttrs({1, 0, 0, 2}, "constant", -1.9));
  EXPECT_EQ(y.shape, (Shape{3, 5}));
  EXPECT_EQ(y.values<int32_t>(),  // -1.9 casts to -1
            (std::vector<int32_t>{-1, -1, -1, -1, -1, 1, 2, 3, -1, -1, 4, 5, 6, -1, -1}));
  y = Run1(OpId::kPad, {x}, PadAttrs({1, 0, 0, 2}, "reflect"));
  EXPECT_EQ(y.values<int32_t>(),
            (std::vector<int32_t>{4, 5, 6, 5, 4, 1, 2, 3, 2, 1, 4, 5, 6, 5, 4}));
  y = Run1(OpId::kPad, {x}, PadAttrs({1, 0, 0, 2}, "edge"));
  EXPECT_EQ(y.values<int32_t>(),
            (std::vector<int32_t>{1, 2, 3, 3, 3, 1, 2, 3, 3, 3, 4, 5, 6, 6, 6}));
  HT b = HT::Of<bool>({1}, {false});
  EXPECT_EQ(Run1(OpId::kPad, {b}, PadAttrs({1, 1}, "constant", 1)).values<bool>(),
            (std::vector<bool>{true, false, true}));
  // Constant padding of an empty dim gives only padding.
  EXPECT_EQ(Run1(OpId::kPad, {HT::Of<double>({0}, {})}, PadAttrs({1, 1}, "constant", 2.5))
                .values<double>(),
            (std::vector<double>{2.5, 2.5}));
  // A size-1 dim can be edge padded but not reflect padded.
  EXPECT_EQ(Run1(OpId::kPad, {HT::Of<double>({1}, {4})}, PadAttrs({2, 1}, "edge")).values<double>(),
            (std::vector<double>{4, 4, 4, 4}));
}

TEST(RefPad, Errors) {
  HT x = HT::Of<float>({3}, {1, 2, 3});
  EXPECT_EQ(ErrorOf(OpId::kPad, {x}, PadAttrs({3, 0}, "reflect")),
            "pad: reflect padding of dim 0 needs pads < its size 3");
  EXPECT_EQ(ErrorOf(OpId::kPad, {x}, PadAttrs({1, 1}, "wrap")),
            "pad: mode 'wrap' is not one of constant, reflect, edge");
  EXPECT_EQ(ErrorOf(OpId::kPad, {x}, PadAttrs({1}, "constant")),
            "pad: paddings [1] need 2 entries (before, after) per dim of f32[3]");
  EXPECT_EQ(ErrorOf(OpId::kPad, {x}, PadAttrs({-1, 0}, "constant")),
            "pad: paddings must be >= 0, got [-1,0]");
  EXPECT_EQ(ErrorOf(OpId::kPad, {HT::Of<float>({0}, {})}, PadAttrs({1, 0}, "edge")),
            "pad: edge padding of an empty dim");
}

TEST(RefBroadcastTo, HandComputed) {
  HT r = Run1(OpId::kBroadcastTo, {HT::Of<float>({3}, {1, 2, 3})}, {{"shape", Ints({2, 3})}});
  EXPECT_EQ(r.shape, (Shape{2, 3}));
  EXPECT_EQ(r.values<float>(), (std::vector<float>{1, 2, 3, 1, 2, 3}));
  r = Run1(OpId::kBroadcastTo, {HT::Of<float>({2, 1}, {1, 2})}, {{"shape", Ints({2, 3})}});
  EXPECT_EQ(r.values<float>(), (std::vector<float>{1, 1, 1, 2, 2, 2}));
  r = Run1(OpId::kBroadcastTo, {HT::Of<bool>({}, {true})}, {{"shape", Ints({2, 2})}});
  EXPECT_EQ(r.values<bool>(), (std::vector<bool>{true, true, true, true}));
  r = Run1(OpId::kBroadcastTo, {HT::Of<int64_t>({1, 2}, {5, 6})}, {{"shape", Ints({2, 1, 2})}});
  EXPECT_EQ(r.shape, (Shape{2, 1, 2}));
  EXPECT_EQ(r.values<int64_t>(), (std::vector<int64_t>{5, 6, 5, 6}));
  r = Run1(OpId::kBroadcastTo, {HT::Of<float>({1}, {1})}, {{"shape", Ints({0, 3})}});
  EXPECT_EQ(r.shape, (Shape{0, 3}));
  EXPECT_EQ(ErrorOf(OpId::kBroadcastTo, {HT::Of<float>({3}, {1, 2, 3})}, {{"shape", Ints({4})}}),
            "broadcast_to: cannot broadcast f32[3] to [4]");
}

TEST(RefTile, HandComputed) {
  HT r = Run1(OpId::kTile, {HT::Of<float>({1, 2}, {1, 2})}, {{"multiples", Ints({2, 3})}});
  EXPECT_EQ(r.shape, (Shape{2, 6}));
  EXPECT_EQ(r.values<float>(), (std::vector<float>{1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2}));
  r = Run1(OpId::kTile, {HT::Of<int32_t>({2, 2}, {1, 2, 3, 4})}, {{"multiples", Ints({2, 1})}});
  EXPECT_EQ(r.values<int32_t>(), (std::vector<int32_t>{1, 2, 3, 4, 1, 2, 3, 4}));
  r = Run1(OpId::kTile, {HT::Of<bool>({2}, {true, false})}, {{"multiples", Ints({0})}});
  EXPECT_EQ(r.shape, (Shape{0}));
  r = Run1(OpId::kTile, {HT::Of<bool>({2}, {true, false})}, {{"multiples", Ints({2})}});
  EXPECT_EQ(r.values<bool>(), (std::vector<bool>{true, false, true, false}));
  EXPECT_EQ(ErrorOf(OpId::kTile, {HT::Of<float>({2}, {1, 2})}, {{"multiples", Ints({1, 1})}}),
            "tile: multiples [1,1] need one entry per dim of f32[2]");
}

TEST(RefShapeAndSize, Int64Results) {
  HT s = Run1(OpId::kShape, {HT::Of<bool>({2, 0, 3}, {})}, {});
  EXPECT_EQ(s.dtype, DType::kInt64);
  EXPECT_EQ(s.shape, (Shape{3}));
  EXPECT_EQ(s.values<int64_t>(), (std::vector<int64_t>{2, 0, 3}));
  s = Run1(OpId::kShape, {HT::Of<float>({}, {1})}, {});
  EXPECT_EQ(s.shape, (Shape{0}));
  HT n = Run1(OpId::kSize, {HT::Of<int32_t>({2, 3}, std::vector<int32_t>(6))}, {});
  EXPECT_EQ(n.dtype, DType::kInt64);
  EXPECT_EQ(n.shape, Shape{});
  EXPECT_EQ(n.values<int64_t>(), (std::vector<int64_t>{6}));
  EXPECT_EQ(Run1(OpId::kSize, {HT::Of<float>({4, 0}, {})}, {}).values<int64_t>(),
            (std::vector<int64_t>{0}));
  EXPECT_EQ(Run1(OpId::kSize, {HT::Of<float>({}, {1})}, {}).values<int64_t>(),
            (std::vector<int64_t>{1}));
}

}  // namespace
}  // namespace tfn::kernels::testing
