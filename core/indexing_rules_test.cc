// Tests of the shape rules of the indexing ops (gather_elements,
// scatter_elements, gather_nd, scatter_nd, top_k, non_zero, unique) and of
// the run-time inputs of reshape, slice, split, tile and range, through both
// instantiations: values known (run time, constants) and unknown (the IR,
// where data-dependent dims become fresh symbols ?d0, ?d1, ...).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/op_def.h"
#include "core/op_def_symbolic.h"

namespace tfn {
namespace {

constexpr DType F = DType::kFloat32;
constexpr DType I = DType::kInt64;
SymDim S(const char* n) { return SymDim::Symbol(n); }
AttrValue Ints(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }
ConstTensor Vec(std::vector<int64_t> v) {
  return ConstTensor::Copy(I, Shape{static_cast<int64_t>(v.size())}, v.data());
}

// Symbolic inference: every output as "dtype[shape]" joined by "; ", or the error.
std::string InferSym(OpId op, std::vector<std::pair<DType, SymShape>> inputs, Attrs attrs,
                     std::vector<const ConstTensor*> values = {}) {
  const OpDef& def = GetOpDef(op);
  Status s = NormalizeAttrs(def, &attrs);
  if (!s.ok()) return s.message();
  std::vector<DType> types;
  std::vector<SymShape> shapes;
  for (const auto& [t, sh] : inputs) {
    types.push_back(t);
    shapes.push_back(sh);
  }
  values.resize(inputs.size(), nullptr);
  const int n = def.NumOutputs(attrs, static_cast<int>(inputs.size()));
  std::vector<DType> ot(n);
  std::vector<SymShape> os(n);
  int fresh = 0;
  s = InferOpSymbolic(def, attrs, static_cast<int>(inputs.size()), types.data(), shapes.data(),
                      values.data(), n, ot.data(), os.data(),
                      [&] { return SymDim::Symbol("d" + std::to_string(fresh++)); });
  if (!s.ok()) return s.message();
  std::string out;
  for (int i = 0; i < n; ++i) {
    out += std::string(i ? "; " : "") + DTypeName(ot[i]) + SymShapeToString(os[i]);
  }
  return out;
}

TEST(IndexingRules, GatherScatterElements) {
  EXPECT_EQ(InferSym(OpId::kGatherElements, {{F, {S("n"), 5}}, {I, {S("n"), 2}}},
                     {{"axis", AttrValue::Int(1)}}),
            "f32[?n,2]");
  EXPECT_EQ(InferSym(OpId::kGatherElements, {{F, {3, 5}}, {I, {4, 2}}}, {}), "f32[4,2]");
  EXPECT_NE(InferSym(OpId::kGatherElements, {{F, {3, 5}}, {I, {2, 6}}}, {}).find("larger than"),
            std::string::npos);
  EXPECT_NE(InferSym(OpId::kGatherElements, {{F, {3, 5}}, {I, {2}}}, {}).find("rank of"),
            std::string::npos);
  EXPECT_EQ(InferSym(OpId::kScatterElements, {{F, {3, 5}}, {I, {2, 5}}, {F, {2, 5}}},
                     {{"reduction", AttrValue::String("mul")}}),
            "f32[3,5]");
  EXPECT_NE(InferSym(OpId::kScatterElements, {{F, {3, 5}}, {I, {2, 5}}, {F, {2, 4}}}, {})
                .find("must have the shape of indices"),
            std::string::npos);
}

TEST(IndexingRules, GatherScatterND) {
  // indices [.., 2] over data [4, 5, 6]: each tuple picks a [6] slice.
  EXPECT_EQ(InferSym(OpId::kGatherND, {{F, {4, 5, 6}}, {I, {S("k"), 3, 2}}}, {}), "f32[?k,3,6]");
  EXPECT_EQ(InferSym(OpId::kGatherND, {{F, {S("b"), 5, 6}}, {I, {S("b"), 1}}},
                     {{"batch_dims", AttrValue::Int(1)}}),
            "f32[?b,6]");
  EXPECT_NE(InferSym(OpId::kGatherND, {{F, {4, 5}}, {I, {3, S("m")}}}, {}).find("must be static"),
            std::string::npos);
  EXPECT_EQ(InferSym(OpId::kScatterND, {{F, {4, 5, 6}}, {I, {7, 2}}, {F, {7, 6}}}, {}),
            "f32[4,5,6]");
  EXPECT_NE(InferSym(OpId::kScatterND, {{F, {4, 5, 6}}, {I, {7, 2}}, {F, {7, 5}}}, {})
                .find("must be [7,6]"),
            std::string::npos);
}

TEST(IndexingRules, TopKNonZeroUnique) {
  ConstTensor k = Vec({2});
  EXPECT_EQ(InferSym(OpId::kTopK, {{F, {S("n"), 5}}, {I, {1}}}, {}, {nullptr, &k}),
            "f32[?n,2]; int64[?n,2]");
  EXPECT_EQ(InferSym(OpId::kTopK, {{F, {S("n"), 5}}, {I, {1}}}, {{"axis", AttrValue::Int(0)}}),
            "f32[?d0,5]; int64[?d0,5]");
  ConstTensor big = Vec({6});
  EXPECT_NE(InferSym(OpId::kTopK, {{F, {3, 5}}, {I, {1}}}, {}, {nullptr, &big}).find("k = 6"),
            std::string::npos);
  EXPECT_EQ(InferSym(OpId::kNonZero, {{F, {S("n"), 3}}}, {}), "int64[2,?d0]");
  ConstTensor x = Vec({0, 4, 0, 4, 1, 0});
  EXPECT_EQ(InferSym(OpId::kNonZero, {{I, {2, 3}}}, {}, {&x}), "int64[2,3]");
  // Unique: one fresh symbol shared by the outputs that count the items.
  EXPECT_EQ(InferSym(OpId::kUnique, {{F, {S("n"), 3}}}, {{"axis", Ints({0})}}),
            "f32[?d0,3]; int64[?d0]; int64[?n]; int64[?d0]");
  EXPECT_EQ(InferSym(OpId::kUnique, {{I, {2, 3}}}, {}, {&x}),
            "int64[3]; int64[3]; int64[6]; int64[3]");
  EXPECT_EQ(InferSym(OpId::kUnique, {{I, {3, 2}}}, {{"axis", Ints({0})}}, {&x}),
            "int64[3,2]; int64[3]; int64[3]; int64[3]");
}

TEST(IndexingRules, RunTimeInputsOfShapeOps) {
  // reshape: a 1-D target keeps the element count; others become new dims.
  EXPECT_EQ(InferSym(OpId::kReshape, {{F, {S("n"), 4}}, {I, {1}}}, {{"shape", Ints({})}}),
            "f32[4*?n]");
  EXPECT_EQ(InferSym(OpId::kReshape, {{F, {S("n"), 4}}, {I, {3}}}, {{"shape", Ints({})}}),
            "f32[?d0,?d1,?d2]");
  ConstTensor target = Vec({0, 2, -1});
  EXPECT_EQ(InferSym(OpId::kReshape, {{F, {S("n"), 4}}, {I, {3}}},
                     {{"shape", Ints({})}, {"copy_zero", AttrValue::Int(1)}}, {nullptr, &target}),
            "f32[?n,2,2]");
  EXPECT_NE(InferSym(OpId::kReshape, {{F, {2, 4}}, {I, {S("r")}}}, {{"shape", Ints({})}})
                .find("static length"),
            std::string::npos);
  ConstTensor huge = Vec({int64_t{1} << 40, int64_t{1} << 40});
  EXPECT_NE(
      InferSym(OpId::kReshape, {{F, {2, 4}}, {I, {2}}}, {{"shape", Ints({})}}, {nullptr, &huge})
          .find("too many elements"),
      std::string::npos);
  // slice, split, tile, range: new dims where the values are unknown.
  EXPECT_EQ(InferSym(OpId::kSlice, {{F, {S("n"), 4}}, {I, {2}}, {I, {2}}, {I, {2}}},
                     {{"begin", Ints({})}, {"end", Ints({})}}),
            "f32[?d0,?d1]");
  ConstTensor b = Vec({1, 0}), e = Vec({int64_t{1} << 62, -1});
  EXPECT_EQ(InferSym(OpId::kSlice, {{F, {S("n"), 4}}, {I, {2}}, {I, {2}}},
                     {{"begin", Ints({})}, {"end", Ints({})}}, {nullptr, &b, &e}),
            "f32[max(0,?n-min(1,?n)),3]");
  EXPECT_EQ(InferSym(OpId::kSplit, {{F, {S("n"), 6}}, {I, {2}}},
                     {{"axis", AttrValue::Int(1)}, {"num_splits", AttrValue::Int(2)}}),
            "f32[?n,?d0]; f32[?n,?d1]");
  EXPECT_EQ(InferSym(OpId::kTile, {{F, {S("n"), 6}}, {I, {2}}}, {}), "f32[?d0,?d1]");
  ConstTensor m = Vec({3, 1});
  EXPECT_EQ(InferSym(OpId::kTile, {{F, {S("n"), 6}}, {I, {2}}}, {}, {nullptr, &m}), "f32[3*?n,6]");
  EXPECT_EQ(InferSym(OpId::kRange, {{F, {}}, {F, {}}, {F, {}}}, {{"dtype", AttrValue::Type(F)}}),
            "f32[?d0]");
  ConstTensor lo = Vec({-5}), hi = Vec({5}), step = Vec({3});
  EXPECT_EQ(InferSym(OpId::kRange, {{I, {1}}, {I, {1}}, {I, {1}}}, {}, {&lo, &hi, &step}),
            "int64[4]");
}

}  // namespace
}  // namespace tfn
