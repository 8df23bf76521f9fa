// CheckNode: one hand-made node per class of defect (operand count, dtype,
// result count and dtype, rank, missing attribute, attribute out of range);
// each message says what was expected and what was found.
#include "core/node_check.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tfn {
namespace {

struct Node {
  OpId op;
  Attrs attrs;
  std::vector<DType> in_types, out_types;
  std::vector<int> in_ranks, out_ranks;

  Status Check() {
    Status n = NormalizeAttrs(GetOpDef(op), &attrs);
    if (!n.ok()) return n;
    return CheckNode({op, &attrs, static_cast<int>(in_types.size()), in_types.data(),
                      in_ranks.data(), static_cast<int>(out_types.size()), out_types.data(),
                      out_ranks.data()});
  }
};

constexpr DType F = DType::kFloat32;
constexpr DType I = DType::kInt64;

void ExpectError(Node n, const std::string& part) {
  Status s = n.Check();
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find(part), std::string::npos) << s.message();
}

TEST(CheckNode, WellFormedNodesPass) {
  EXPECT_TRUE((Node{OpId::kAdd, {}, {F, F}, {F}, {2, 1}, {2}}.Check().ok()));
  EXPECT_TRUE((Node{OpId::kSoftmax, {}, {F}, {F}, {3}, {3}}.Check().ok()));
  EXPECT_TRUE((Node{OpId::kGatherND, {{"batch_dims", AttrValue::Int(1)}}, {F, I}, {F}, {3, 2}, {2}}
                   .Check()
                   .ok()));
  EXPECT_TRUE((Node{OpId::kConcat, {{"axis", AttrValue::Int(-1)}}, {F, F, F}, {F}, {2, 2, 2}, {2}}
                   .Check()
                   .ok()));
}

TEST(CheckNode, WrongOperandCount) {
  // The crash of hostile bundles 04/06: gather_nd's Prepare read indices' rank.
  ExpectError({OpId::kGatherND, {}, {F}, {F}, {2}, {2}}, "gather_nd: expected 2 inputs, got 1");
  // 01: layer_norm with no operand at all.
  ExpectError({OpId::kLayerNorm, {}, {}, {F}, {}, {2}}, "layer_norm: expected 3 inputs, got 0");
  ExpectError({OpId::kTranspose, {}, {}, {F}, {}, {2}}, "transpose: expected 1 inputs, got 0");
  ExpectError({OpId::kConv2D, {}, {F, F, F, F}, {F}, {4, 4, 1, 1}, {4}},
              "conv2d: expected 2 to 3 inputs, got 4");
}

TEST(CheckNode, WrongDType) {
  ExpectError({OpId::kAdd, {}, {F, I}, {F}, {1, 1}, {1}},
              "argument 'b' (input 1) is int64 but argument 'a' is f32");
  ExpectError({OpId::kGather, {}, {F, F}, {F}, {2, 1}, {2}},
              "argument 'indices' must be int32 or int64, got f32");
  ExpectError({OpId::kAdd, {}, {F, F}, {I}, {1, 1}, {1}},
              "output 0 must be f32 (the op's dtype rule), got int64");
}

TEST(CheckNode, WrongResultCount) {
  ExpectError({OpId::kAdd, {}, {F, F}, {F, F}, {1, 1}, {1, 1}}, "add: expected 1 outputs, got 2");
  ExpectError({OpId::kSplit, {{"num_splits", AttrValue::Int(3)}}, {F}, {F, F}, {1}, {1, 1}},
              "split: expected 3 outputs, got 2");
}

TEST(CheckNode, BadRank) {
  ExpectError({OpId::kRelu, {}, {F}, {F}, {9}, {9}}, "input 0 has rank 9; ranks are 0 to 8");
  ExpectError({OpId::kConv2D, {}, {F, F}, {F}, {3, 4}, {4}},
              "input 'input' must have rank 4, got rank 3");
  ExpectError({OpId::kCond, {}, {DType::kBool}, {}, {1}, {}},
              "input 'pred' must have rank 0, got rank 1");
}

TEST(CheckNode, MissingAttribute) {
  // NormalizeAttrs, which the loader runs first, owns presence and types.
  ExpectError({OpId::kConcat, {}, {F}, {F}, {1}, {1}},
              "concat: missing required attribute 'axis' (int)");
  ExpectError({OpId::kConcat, {{"axis", AttrValue::String("0")}}, {F}, {F}, {1}, {1}},
              "attribute 'axis' must be int, got string");
}

TEST(CheckNode, AttributeOutOfRange) {
  ExpectError(
      {OpId::kSoftmax, {{"axis", AttrValue::Int(2)}}, {F}, {F}, {2}, {2}},
      "softmax: axis 2 (attribute 'axis') is out of range for rank 2; expected an axis in [-2, 2)");
  ExpectError({OpId::kReduceSum, {{"axes", AttrValue::Ints({0, -4})}}, {F}, {F}, {3}, {1}},
              "axis -4 (attribute 'axes') is out of range for rank 3");
  ExpectError({OpId::kGatherND, {{"batch_dims", AttrValue::Int(2)}}, {F, I}, {F}, {3, 2}, {2}},
              "batch_dims 2 must be in [0, 2)");
  ExpectError({OpId::kTranspose, {{"perm", AttrValue::Ints({0, 0})}}, {F}, {F}, {2}, {2}},
              "'perm' must be a permutation of the input's 2 dims, got [0,0]");
  ExpectError({OpId::kSlice,
               {{"begin", AttrValue::Ints({0})}, {"end", AttrValue::Ints({1, 1})}},
               {F},
               {F},
               {2},
               {2}},
              "need one entry per dim (2), got 1, 2 and 0");
  ExpectError({OpId::kPad, {{"paddings", AttrValue::Ints({1, 1})}}, {F}, {F}, {2}, {2}},
              "paddings need 2 entries (before, after) per dim: 4 for rank 2, got 2");
  ExpectError({OpId::kMaxPool2D, {{"ksize", AttrValue::Ints({2, 0})}}, {F}, {F}, {4}, {4}},
              "attribute 'ksize' needs entries in [1, 2^31), got 0");
  ExpectError({OpId::kConv2D, {{"strides", AttrValue::Ints({1})}}, {F, F}, {F}, {4, 4}, {4}},
              "attribute 'strides' needs 2 entries, got 1");
  ExpectError({OpId::kConv2D, {{"groups", AttrValue::Int(0)}}, {F, F}, {F}, {4, 4}, {4}},
              "attribute 'groups' must be in [1, 2^31), got 0");
  ExpectError(
      {OpId::kUnique, {{"axis", AttrValue::Ints({0, 1})}}, {F}, {F, I, I, I}, {2}, {2, 1, 1, 1}},
      "attribute 'axis' must be empty or one axis, got 2 entries");
}

}  // namespace
}  // namespace tfn
