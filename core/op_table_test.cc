// Tests of the op table: completeness, lookups, attribute normalization, dtype checks.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/op_def.h"

namespace tfn {
namespace {

TEST(OpTable, EveryOpHasAUniqueNameAndItsOwnIndex) {
  std::set<std::string> names;
  for (int i = 0; i < static_cast<int>(OpId::kNumOps); ++i) {
    const OpDef& d = GetOpDef(static_cast<OpId>(i));
    EXPECT_EQ(static_cast<int>(d.id), i);
    EXPECT_TRUE(names.insert(d.name).second) << d.name;
    EXPECT_EQ(FindOpDef(d.name), &d);
  }
  EXPECT_EQ(FindOpDef("no_such_op"), nullptr);
}

TEST(OpTable, NormalizeFillsDefaultsAndRejectsUnknown) {
  const OpDef& conv = GetOpDef(OpId::kConv2D);
  Attrs a;
  ASSERT_TRUE(NormalizeAttrs(conv, &a).ok());
  EXPECT_EQ(a.GetString("padding"), "VALID");
  EXPECT_EQ(a.GetInt("groups"), 1);
  Attrs bad{{"stride", AttrValue::Ints({1, 1})}};
  Status s = NormalizeAttrs(conv, &bad);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("unknown attribute 'stride'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("strides"), std::string::npos);
  Attrs wrong{{"groups", AttrValue::String("2")}};
  EXPECT_NE(NormalizeAttrs(conv, &wrong).message().find("'groups' must be int, got string"),
            std::string::npos);
  Attrs missing;
  EXPECT_NE(NormalizeAttrs(GetOpDef(OpId::kReshape), &missing)
                .message()
                .find("missing required attribute 'shape'"),
            std::string::npos);
  Attrs int_for_float{{"epsilon", AttrValue::Int(1)}};
  ASSERT_TRUE(NormalizeAttrs(GetOpDef(OpId::kLayerNorm), &int_for_float).ok());
  EXPECT_EQ(int_for_float.Find("epsilon")->type(), AttrType::kFloat);
}

TEST(OpTable, DTypeChecks) {
  DType out;
  DType ints[] = {DType::kInt32};
  Status s = InferTypes(GetOpDef(OpId::kExp), Attrs(), 1, ints, 1, &out);
  EXPECT_EQ(s.message(), "exp: argument 'x' must be f32 or f64, got int32");
  DType mixed[] = {DType::kFloat32, DType::kInt32};
  s = InferTypes(GetOpDef(OpId::kAdd), Attrs(), 2, mixed, 1, &out);
  EXPECT_NE(s.message().find("argument 'b' (input 1) is int32 but argument 'a' is f32"),
            std::string::npos)
      << s.message();
  DType cmp[] = {DType::kFloat32, DType::kFloat32};
  ASSERT_TRUE(InferTypes(GetOpDef(OpId::kLess), Attrs(), 2, cmp, 1, &out).ok());
  EXPECT_EQ(out, DType::kBool);
  s = InferTypes(GetOpDef(OpId::kAdd), Attrs(), 1, cmp, 1, &out);
  EXPECT_EQ(s.message(), "add: expected 2 inputs, got 1");
  DType where[] = {DType::kBool, DType::kInt64, DType::kInt64};
  ASSERT_TRUE(InferTypes(GetOpDef(OpId::kWhere), Attrs(), 3, where, 1, &out).ok());
  EXPECT_EQ(out, DType::kInt64);
}

TEST(OpTable, VariadicInputs) {
  const OpDef& concat = GetOpDef(OpId::kConcat);
  EXPECT_EQ(concat.min_inputs(), 1);
  EXPECT_EQ(concat.max_inputs(), -1);
  const OpDef& print = GetOpDef(OpId::kPrint);
  EXPECT_EQ(print.min_inputs(), 0);
  DType t[] = {DType::kFloat32, DType::kFloat32, DType::kInt32};
  DType out;
  EXPECT_FALSE(InferTypes(concat, Attrs(), 3, t, 1, &out).ok());
  EXPECT_TRUE(InferTypes(print, Attrs(), 3, t, 0, &out).ok());
}

TEST(OpTable, SplitOutputCount) {
  const OpDef& split = GetOpDef(OpId::kSplit);
  EXPECT_EQ(split.NumOutputs(Attrs{{"num_splits", AttrValue::Int(3)}}, 1), 3);
  EXPECT_EQ(split.NumOutputs(Attrs{{"sizes", AttrValue::Ints({1, 2})}}, 1), 2);
  EXPECT_EQ(GetOpDef(OpId::kCond).NumOutputs(Attrs(), 2), -1);
}

}  // namespace
}  // namespace tfn
