// Tests of the shape rules through both instantiations (int64 and SymDim).
#include <gtest/gtest.h>

#include <vector>

#include "core/op_def.h"
#include "core/op_def_symbolic.h"

namespace tfn {
namespace {

struct In {
  DType type;
  Shape shape;
};

// Runs concrete inference; returns the output shapes or the error message.
std::string Infer(OpId op, std::vector<In> inputs, Attrs attrs, std::vector<Shape>* out = nullptr,
                  std::vector<DType>* types = nullptr) {
  const OpDef& def = GetOpDef(op);
  Status s = NormalizeAttrs(def, &attrs);
  if (!s.ok()) return s.message();
  std::vector<DType> in_types;
  std::vector<Shape> in_shapes;
  for (const In& i : inputs) {
    in_types.push_back(i.type);
    in_shapes.push_back(i.shape);
  }
  int n = def.NumOutputs(attrs, static_cast<int>(inputs.size()));
  std::vector<DType> ot(n);
  std::vector<Shape> os(n);
  s = InferOp(def, attrs, static_cast<int>(inputs.size()), in_types.data(), in_shapes.data(),
              nullptr, n, ot.data(), os.data());
  if (!s.ok()) return s.message();
  if (out) *out = os;
  if (types) *types = ot;
  std::string r;
  for (const Shape& sh : os) r += (r.empty() ? "" : " ") + ShapeToString(sh);
  return r;
}

std::string InferSym(OpId op, std::vector<std::pair<DType, SymShape>> inputs, Attrs attrs) {
  const OpDef& def = GetOpDef(op);
  Status s = NormalizeAttrs(def, &attrs);
  if (!s.ok()) return s.message();
  std::vector<DType> in_types;
  std::vector<SymShape> in_shapes;
  for (const auto& [t, sh] : inputs) {
    in_types.push_back(t);
    in_shapes.push_back(sh);
  }
  int n = def.NumOutputs(attrs, static_cast<int>(inputs.size()));
  std::vector<DType> ot(n);
  std::vector<SymShape> os(n);
  int fresh = 0;
  s = InferOpSymbolic(def, attrs, static_cast<int>(inputs.size()), in_types.data(),
                      in_shapes.data(), nullptr, n, ot.data(), os.data(),
                      [&] { return SymDim::Symbol("d" + std::to_string(fresh++)); });
  if (!s.ok()) return s.message();
  std::string r;
  for (const SymShape& sh : os) r += (r.empty() ? "" : " ") + SymShapeToString(sh);
  return r;
}

constexpr DType F = DType::kFloat32;
constexpr DType I = DType::kInt32;
SymDim S(const char* n) { return SymDim::Symbol(n); }

TEST(ShapeRules, Broadcast) {
  EXPECT_EQ(Infer(OpId::kAdd, {{F, {2, 1, 3}}, {F, {4, 1}}}, {}), "[2,4,3]");
  EXPECT_EQ(Infer(OpId::kAdd, {{F, {}}, {F, {0, 3}}}, {}), "[0,3]");
  EXPECT_EQ(Infer(OpId::kAdd, {{F, {2, 3}}, {F, {4}}}, {}),
            "add: shapes cannot be broadcast together: a is f32[2,3], b is f32[4] (NumPy rules: "
            "aligned on the right, each dim equal or 1)");
  EXPECT_EQ(InferSym(OpId::kMul, {{F, {S("n"), 3}}, {F, {1, 3}}}, {}), "[?n,3]");
  EXPECT_EQ(InferSym(OpId::kMul, {{F, {S("n")}}, {F, {S("m")}}}, {}), "[bcast(?m,?n)]");
  std::vector<DType> types;
  Infer(OpId::kWhere, {{DType::kBool, {3}}, {I, {2, 1}}, {I, {}}}, {}, nullptr, &types);
  EXPECT_EQ(types[0], I);
  EXPECT_EQ(Infer(OpId::kWhere, {{DType::kBool, {3}}, {I, {2, 1}}, {I, {}}}, {}), "[2,3]");
}

TEST(ShapeRules, MatMul) {
  EXPECT_EQ(Infer(OpId::kMatMul, {{F, {2, 3}}, {F, {3, 5}}}, {}), "[2,5]");
  EXPECT_EQ(Infer(OpId::kMatMul, {{F, {2, 3}}, {F, {4, 5}}}, {}),
            "matmul: inner dimensions differ: a is f32[2,3], b is f32[4,5]");
  EXPECT_EQ(Infer(OpId::kMatMul, {{F, {7, 1, 3, 2}}, {F, {4, 5, 3}}},
                  {{"transpose_a", AttrValue::Int(1)}, {"transpose_b", AttrValue::Int(1)}}),
            "[7,4,2,5]");
  EXPECT_NE(Infer(OpId::kMatMul, {{F, {3}}, {F, {3, 5}}}, {}).find("rank >= 2"),
            std::string::npos);
  EXPECT_EQ(InferSym(OpId::kMatMul, {{F, {S("b"), 784}}, {F, {784, 512}}}, {}), "[?b,512]");
}

TEST(ShapeRules, Reductions) {
  EXPECT_EQ(Infer(OpId::kReduceSum, {{F, {2, 3, 4}}}, {{"axes", AttrValue::Ints({-1, 0})}}),
            "[3]");
  EXPECT_EQ(Infer(OpId::kReduceMean, {{F, {2, 3, 4}}},
                  {{"axes", AttrValue::Ints({1})}, {"keepdims", AttrValue::Int(1)}}),
            "[2,1,4]");
  EXPECT_EQ(Infer(OpId::kReduceMax, {{F, {2, 3}}}, {}), "[]");
  EXPECT_NE(Infer(OpId::kReduceSum, {{F, {2, 3}}}, {{"axes", AttrValue::Ints({2})}})
                .find("axis 2 is out of range for f32[2,3]"),
            std::string::npos);
  EXPECT_NE(Infer(OpId::kReduceSum, {{F, {2, 3}}}, {{"axes", AttrValue::Ints({1, -1})}})
                .find("listed twice"),
            std::string::npos);
  std::vector<DType> types;
  EXPECT_EQ(Infer(OpId::kArgMax, {{F, {2, 3}}}, {{"axis", AttrValue::Int(-1)}}, nullptr, &types),
            "[2]");
  EXPECT_EQ(types[0], DType::kInt64);
  EXPECT_NE(Infer(OpId::kArgMin, {{F, {0, 3}}}, {}).find("empty axis"), std::string::npos);
}

TEST(ShapeRules, LayerNorm) {
  EXPECT_EQ(Infer(OpId::kLayerNorm, {{F, {2, 5, 8}}, {F, {8}}, {F, {8}}}, {}), "[2,5,8]");
  EXPECT_EQ(Infer(OpId::kLayerNorm, {{F, {2, 5, 8}}, {F, {5, 8}}, {F, {5, 8}}},
                  {{"axis", AttrValue::Int(1)}}),
            "[2,5,8]");
  EXPECT_NE(Infer(OpId::kLayerNorm, {{F, {2, 5, 8}}, {F, {5}}, {F, {8}}}, {})
                .find("scale must have the normalized shape [8]"),
            std::string::npos);
}

TEST(ShapeRules, Reshape) {
  EXPECT_EQ(Infer(OpId::kReshape, {{F, {2, 3, 4}}}, {{"shape", AttrValue::Ints({-1, 4})}}),
            "[6,4]");
  EXPECT_EQ(Infer(OpId::kReshape, {{F, {2, 3}}}, {{"shape", AttrValue::Ints({4, 2})}}),
            "reshape: cannot reshape f32[2,3] (6 elements) into [4,2] (8 elements)");
  EXPECT_NE(Infer(OpId::kReshape, {{F, {2, 3}}}, {{"shape", AttrValue::Ints({-1, -1})}})
                .find("more than one -1"),
            std::string::npos);
  EXPECT_NE(Infer(OpId::kReshape, {{F, {2, 3}}}, {{"shape", AttrValue::Ints({4, -1})}})
                .find("not a multiple of 4"),
            std::string::npos);
  EXPECT_EQ(InferSym(OpId::kReshape, {{F, {S("b"), 256}}}, {{"shape", AttrValue::Ints({-1, 4, 64})}}),
            "[?b,4,64]");
  EXPECT_EQ(InferSym(OpId::kReshape, {{F, {S("b"), S("t"), 256}}},
                     {{"shape", AttrValue::Ints({0, 0, 4, -1})}, {"copy_zero", AttrValue::Int(1)}}),
            "[?b,?t,4,64]");
  EXPECT_EQ(InferSym(OpId::kReshape, {{F, {S("b"), 3}}}, {{"shape", AttrValue::Ints({-1})}}),
            "[3*?b]");
  // A shape input computed at run time: new dims, unless "dims" says them
  // (attention's [b*4, s, 16] -> [b, 4, s, 16], from Shape(x) arithmetic).
  const SymShape heads{S("b") * SymDim(4), S("s"), 16};
  const std::pair<DType, SymShape> shape_input{DType::kInt64, {4}};
  EXPECT_EQ(InferSym(OpId::kReshape, {{F, heads}, shape_input}, {{"shape", AttrValue::Ints({})}}),
            "[?d0,?d1,?d2,?d3]");
  EXPECT_EQ(InferSym(OpId::kReshape, {{F, heads}, shape_input},
                     {{"shape", AttrValue::Ints({})}, {"dims", AttrValue::String("?b,4,?s,16")}}),
            "[?b,4,?s,16]");
  EXPECT_EQ(InferSym(OpId::kReshape, {{F, {S("a"), S("b")}}, {DType::kInt64, {1}}},
                     {{"shape", AttrValue::Ints({})}, {"dims", AttrValue::String("max(?a,?b)")}}),
            "[max(?a,?b)]");
  EXPECT_EQ(InferSym(OpId::kReshape, {{F, heads}, shape_input},
                     {{"shape", AttrValue::Ints({})}, {"dims", AttrValue::String("?b,4")}}),
            "reshape: dims \"?b,4\" has 2 dims, the shape input 4");
  EXPECT_NE(InferSym(OpId::kReshape, {{F, heads}, shape_input},
                     {{"shape", AttrValue::Ints({})}, {"dims", AttrValue::String("?b,4,?s,-16")}})
                .find("has a negative dim"),
            std::string::npos);
}

TEST(ShapeRules, TransposeExpandSqueeze) {
  EXPECT_EQ(Infer(OpId::kTranspose, {{F, {2, 3, 4}}}, {{"perm", AttrValue::Ints({2, 0, 1})}}),
            "[4,2,3]");
  EXPECT_EQ(Infer(OpId::kTranspose, {{F, {2, 3, 4}}}, {}), "[4,3,2]");
  EXPECT_NE(Infer(OpId::kTranspose, {{F, {2, 3}}}, {{"perm", AttrValue::Ints({0, 0})}})
                .find("not a permutation"),
            std::string::npos);
  EXPECT_EQ(Infer(OpId::kExpandDims, {{F, {2, 3}}}, {{"axis", AttrValue::Int(-1)}}), "[2,3,1]");
  EXPECT_EQ(Infer(OpId::kExpandDims, {{F, {2, 3}}}, {{"axis", AttrValue::Int(0)}}), "[1,2,3]");
  EXPECT_NE(Infer(OpId::kExpandDims, {{F, {2, 3}}}, {{"axis", AttrValue::Int(3)}}).find("out of range"),
            std::string::npos);
  EXPECT_EQ(Infer(OpId::kSqueeze, {{F, {1, 3, 1}}}, {}), "[3]");
  EXPECT_EQ(Infer(OpId::kSqueeze, {{F, {1, 3, 1}}}, {{"axes", AttrValue::Ints({-1})}}), "[1,3]");
  EXPECT_NE(Infer(OpId::kSqueeze, {{F, {1, 3}}}, {{"axes", AttrValue::Ints({1})}})
                .find("its size is not 1"),
            std::string::npos);
}

TEST(ShapeRules, ConcatSplit) {
  EXPECT_EQ(Infer(OpId::kConcat, {{F, {2, 3}}, {F, {2, 5}}}, {{"axis", AttrValue::Int(1)}}),
            "[2,8]");
  EXPECT_NE(Infer(OpId::kConcat, {{F, {2, 3}}, {F, {3, 5}}}, {{"axis", AttrValue::Int(1)}})
                .find("all dims except axis 1 must match"),
            std::string::npos);
  EXPECT_EQ(InferSym(OpId::kConcat, {{F, {S("a"), 3}}, {F, {S("b"), 3}}}, {{"axis", AttrValue::Int(0)}}),
            "[?a+?b,3]");
  EXPECT_EQ(Infer(OpId::kSplit, {{F, {6, 2}}}, {{"num_splits", AttrValue::Int(3)}}),
            "[2,2] [2,2] [2,2]");
  EXPECT_EQ(Infer(OpId::kSplit, {{F, {2, 7}}}, {{"axis", AttrValue::Int(1)}, {"sizes", AttrValue::Ints({2, -1, 1})}}),
            "[2,2] [2,4] [2,1]");
  EXPECT_NE(Infer(OpId::kSplit, {{F, {7}}}, {{"num_splits", AttrValue::Int(2)}}).find("equal parts"),
            std::string::npos);
  EXPECT_NE(Infer(OpId::kSplit, {{F, {7}}}, {{"sizes", AttrValue::Ints({2, 2})}}).find("add up"),
            std::string::npos);
}

TEST(ShapeRules, SliceFollowsPython) {
  const int64_t kEnd = int64_t{1} << 62;
  auto slice = [&](int64_t n, int64_t b, int64_t e, int64_t s) {
    return Infer(OpId::kSlice, {{F, {n}}},
                 {{"begin", AttrValue::Ints({b})}, {"end", AttrValue::Ints({e})},
                  {"strides", AttrValue::Ints({s})}});
  };
  EXPECT_EQ(slice(10, 2, 7, 1), "[5]");      // x[2:7]
  EXPECT_EQ(slice(10, 2, 7, 2), "[3]");      // x[2:7:2] -> 2,4,6
  EXPECT_EQ(slice(10, -3, kEnd, 1), "[3]");  // x[-3:]
  EXPECT_EQ(slice(10, 8, 2, 1), "[0]");      // empty
  EXPECT_EQ(slice(10, kEnd, -kEnd, -1), "[10]");  // x[::-1]
  EXPECT_EQ(slice(10, 7, 2, -2), "[3]");     // 7,5,3
  EXPECT_EQ(slice(10, 0, 100, 1), "[10]");   // clamped
  EXPECT_EQ(slice(10, -100, 3, 1), "[3]");
  EXPECT_NE(slice(10, 0, 1, 0).find("strides must not be 0"), std::string::npos);
  EXPECT_EQ(InferSym(OpId::kSlice, {{F, {S("n"), 4}}},
                     {{"begin", AttrValue::Ints({0, 1})}, {"end", AttrValue::Ints({kEnd, 3})}}),
            "[?n,2]");
  // Bounds read at run time: new dims, unless "dims" says them (a causal
  // mask buffer sliced to the sequence: mask[:, :, :s, :s]).
  const std::pair<DType, SymShape> bound{DType::kInt64, {4}};
  const SymShape mask{1, 1, 128, 128};
  Attrs none{{"begin", AttrValue::Ints({})}, {"end", AttrValue::Ints({})}};
  EXPECT_EQ(InferSym(OpId::kSlice, {{F, mask}, bound, bound, bound}, none), "[?d0,?d1,?d2,?d3]");
  Attrs dims = none;
  dims.Set("dims", AttrValue::String("1,1,min(?s,128),min(?s,128)"));
  EXPECT_EQ(InferSym(OpId::kSlice, {{F, mask}, bound, bound, bound}, dims),
            "[1,1,min(128,?s),min(128,?s)]");
  dims.Set("dims", AttrValue::String("1,?s"));
  EXPECT_EQ(InferSym(OpId::kSlice, {{F, mask}, bound, bound, bound}, dims),
            "slice: dims \"1,?s\" has 2 dims, the input's rank is 4");
}

TEST(ShapeRules, GatherPadTileBroadcastTo) {
  EXPECT_EQ(Infer(OpId::kGather, {{F, {5, 4, 3}}, {I, {2, 7}}}, {{"axis", AttrValue::Int(1)}}),
            "[5,2,7,3]");
  EXPECT_EQ(Infer(OpId::kGather, {{F, {5, 3}}, {I, {}}}, {}), "[3]");
  EXPECT_EQ(Infer(OpId::kPad, {{F, {2, 3}}}, {{"paddings", AttrValue::Ints({1, 0, 2, 2})}}),
            "[3,7]");
  EXPECT_NE(Infer(OpId::kPad, {{F, {2, 3}}}, {{"paddings", AttrValue::Ints({2, 0, 0, 0})},
                                              {"mode", AttrValue::String("reflect")}})
                .find("reflect padding"),
            std::string::npos);
  EXPECT_EQ(Infer(OpId::kTile, {{F, {2, 3}}}, {{"multiples", AttrValue::Ints({2, 1})}}), "[4,3]");
  EXPECT_EQ(Infer(OpId::kBroadcastTo, {{F, {3, 1}}}, {{"shape", AttrValue::Ints({2, 3, 4})}}),
            "[2,3,4]");
  EXPECT_NE(Infer(OpId::kBroadcastTo, {{F, {3}}}, {{"shape", AttrValue::Ints({4})}})
                .find("cannot broadcast f32[3] to [4]"),
            std::string::npos);
}

TEST(ShapeRules, Conv2DAndPooling) {
  auto conv = [](Shape x, Shape f, Attrs a) { return Infer(OpId::kConv2D, {{F, x}, {F, f}}, a); };
  EXPECT_EQ(conv({1, 28, 28, 1}, {3, 3, 1, 8}, {}), "[1,26,26,8]");
  EXPECT_EQ(conv({1, 28, 28, 1}, {3, 3, 1, 8},
                 {{"padding", AttrValue::String("SAME")}, {"strides", AttrValue::Ints({2, 2})}}),
            "[1,14,14,8]");
  EXPECT_EQ(conv({2, 10, 10, 4}, {3, 3, 4, 6}, {{"dilations", AttrValue::Ints({2, 2})}}),
            "[2,6,6,6]");
  EXPECT_EQ(conv({1, 8, 8, 6}, {3, 3, 1, 6},
                 {{"groups", AttrValue::Int(6)}, {"padding", AttrValue::String("EXPLICIT")},
                  {"pads", AttrValue::Ints({1, 1, 1, 1})}}),
            "[1,8,8,6]");
  EXPECT_NE(conv({1, 8, 8, 6}, {3, 3, 2, 6}, {}).find("expects 2 x 1 (groups) input channels"),
            std::string::npos);
  EXPECT_NE(conv({1, 2, 2, 1}, {3, 3, 1, 1}, {}).find("larger than the padded input"),
            std::string::npos);
  EXPECT_EQ(Infer(OpId::kMaxPool2D, {{F, {1, 7, 7, 3}}},
                  {{"ksize", AttrValue::Ints({2, 2})}, {"strides", AttrValue::Ints({2, 2})}}),
            "[1,3,3,3]");
  EXPECT_EQ(Infer(OpId::kAvgPool2D, {{F, {1, 7, 7, 3}}},
                  {{"ksize", AttrValue::Ints({2, 2})}, {"strides", AttrValue::Ints({2, 2})},
                   {"padding", AttrValue::String("SAME")}}),
            "[1,4,4,3]");
  EXPECT_EQ(InferSym(OpId::kConv2D, {{F, {S("n"), S("h"), 32, 3}}, {F, {3, 3, 3, 16}}},
                     {{"padding", AttrValue::String("SAME")}, {"strides", AttrValue::Ints({2, 2})}}),
            "[?n,floordiv(?h+1,2),16,16]");
}

TEST(ShapeRules, FactoriesAndShape) {
  EXPECT_EQ(Infer(OpId::kFill, {}, {{"shape", AttrValue::Ints({2, 3})}}), "[2,3]");
  EXPECT_NE(Infer(OpId::kFill, {}, {{"shape", AttrValue::Ints({2, -3})}}).find("negative dim"),
            std::string::npos);
  EXPECT_EQ(Infer(OpId::kRange, {}, {{"limit", AttrValue::Float(5)}}), "[5]");
  EXPECT_EQ(Infer(OpId::kRange, {},
                  {{"start", AttrValue::Float(1)}, {"limit", AttrValue::Float(2)},
                   {"delta", AttrValue::Float(0.3)}}),
            "[4]");
  EXPECT_EQ(Infer(OpId::kRange, {}, {{"limit", AttrValue::Float(-5)}}), "[0]");
  EXPECT_EQ(Infer(OpId::kShape, {{F, {2, 3, 4}}}, {}), "[3]");
  EXPECT_EQ(Infer(OpId::kSize, {{F, {2, 3, 4}}}, {}), "[]");
  std::vector<DType> types;
  Infer(OpId::kRandomNormal, {}, {{"shape", AttrValue::Ints({2})}, {"dtype", AttrValue::Type(DType::kFloat64)}},
        nullptr, &types);
  EXPECT_EQ(types[0], DType::kFloat64);
}

// Ops added with the ONNX importer: float predicates, cumsum, and the axes of
// reduce_* / the target of broadcast_to given as a (data-dependent) input.
TEST(ShapeRules, PredicatesAndCumSum) {
  std::vector<DType> types;
  EXPECT_EQ(Infer(OpId::kIsNan, {{F, {2, 3}}}, {}, nullptr, &types), "[2,3]");
  EXPECT_EQ(types[0], DType::kBool);
  EXPECT_NE(Infer(OpId::kIsInf, {{I, {2}}}, {}).find("must be f32 or f64"), std::string::npos);
  EXPECT_EQ(Infer(OpId::kLogicalXor, {{DType::kBool, {2, 1}}, {DType::kBool, {3}}}, {}), "[2,3]");
  EXPECT_EQ(Infer(OpId::kCumSum, {{F, {2, 3}}, {DType::kInt64, {}}}, {}), "[2,3]");
  EXPECT_NE(Infer(OpId::kCumSum, {{F, {2, 3}}, {DType::kInt64, {2}}}, {}).find("axis must be a scalar"),
            std::string::npos);
  EXPECT_NE(Infer(OpId::kCumSum, {{F, {}}, {I, {}}}, {}).find("rank >= 1"), std::string::npos);
}

// Concrete inference with input 1's values given (as the runtime does).
std::string InferWithValue(OpId op, In x, std::vector<int64_t> values, Attrs attrs = {}) {
  const OpDef& def = GetOpDef(op);
  if (Status s = NormalizeAttrs(def, &attrs); !s.ok()) return s.message();
  ConstTensor v = ConstTensor::Copy(DType::kInt64, Shape{static_cast<int64_t>(values.size())},
                                    values.data());
  DType in_types[] = {x.type, DType::kInt64};
  Shape in_shapes[] = {x.shape, v.shape};
  const ConstTensor* in_values[] = {nullptr, &v};
  DType ot;
  Shape os;
  Status s = InferOp(def, attrs, 2, in_types, in_shapes, in_values, 1, &ot, &os);
  return s.ok() ? ShapeToString(os) : s.message();
}

// Symbolic inference with input 1 of `n` unknown values.
std::string InferUnknownValue(OpId op, SymShape x, int64_t n, Attrs attrs = {}) {
  const OpDef& def = GetOpDef(op);
  if (Status s = NormalizeAttrs(def, &attrs); !s.ok()) return s.message();
  DType in_types[] = {F, DType::kInt64};
  SymShape in_shapes[] = {x, SymShape{SymDim(n)}};
  DType ot;
  SymShape os;
  int fresh = 0;
  Status s = InferOpSymbolic(def, attrs, 2, in_types, in_shapes, nullptr, 1, &ot, &os,
                             [&] { return SymDim::Symbol("d" + std::to_string(fresh++)); });
  return s.ok() ? SymShapeToString(os) : s.message();
}

TEST(ShapeRules, AxesAndShapeAsInputs) {
  Attrs keep{{"keepdims", AttrValue::Int(1)}};
  EXPECT_EQ(InferWithValue(OpId::kReduceSum, {F, {2, 3, 4}}, {-1, 0}), "[3]");
  EXPECT_EQ(InferWithValue(OpId::kReduceMax, {F, {2, 3, 4}}, {1}, keep), "[2,1,4]");
  EXPECT_EQ(InferWithValue(OpId::kReduceMean, {F, {2, 3}}, {}), "[]");  // empty: every axis
  EXPECT_NE(InferWithValue(OpId::kReduceSum, {F, {2, 3}}, {1}, {{"axes", AttrValue::Ints({0})}})
                .find("both as the attribute and as input 1"),
            std::string::npos);
  EXPECT_NE(InferWithValue(OpId::kReduceSum, {F, {2, 3}}, {3}).find("out of range"),
            std::string::npos);
  // While the axes are unknown, the reduced dims are too (dims of 1 stay).
  EXPECT_EQ(InferUnknownValue(OpId::kReduceSum, {2, 1, S("n")}, 1, keep), "[?d0,1,?d1]");
  EXPECT_EQ(InferUnknownValue(OpId::kReduceSum, {2, 3, 4}, 2), "[?d0]");
  EXPECT_NE(InferUnknownValue(OpId::kReduceSum, {2, 3}, 3).find("static length <= 2"),
            std::string::npos);
  EXPECT_EQ(InferWithValue(OpId::kBroadcastTo, {F, {3, 1}}, {2, 1, 4}), "[2,3,4]");
  EXPECT_NE(InferWithValue(OpId::kBroadcastTo, {F, {3}}, {4}).find("cannot broadcast"),
            std::string::npos);
  EXPECT_EQ(InferUnknownValue(OpId::kBroadcastTo, {S("b"), 3, 1}, 2), "[?b,?d0,?d1]");
  EXPECT_EQ(InferUnknownValue(OpId::kBroadcastTo, {3}, 2), "[?d0,?d1]");
}

}  // namespace
}  // namespace tfn
