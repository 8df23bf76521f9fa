// Op signatures: inputs with their allowed dtypes, attributes with defaults,
// output counts and dtype rules. Internal to core/: included by the op tables.
// Field order: InputDef{name, types, optional, variadic, value_needed};
// AttrDef{name, type, required, int_default, float_default, string_default};
// OpSig{inputs, n, attrs, n, num_outputs, num_outputs_fn, type_rule, same_type_mask}.
#pragma once

#include <iterator>

#include "core/op_def.h"

namespace tfn::sigs {

#define TFN_N(a) static_cast<int>(std::size(a))

constexpr AttrType kI = AttrType::kInt;
constexpr AttrType kF = AttrType::kFloat;
constexpr AttrType kS = AttrType::kString;
constexpr AttrType kIs = AttrType::kInts;
constexpr AttrType kT = AttrType::kDType;

// ---- inputs ----
constexpr InputDef kInAnyX[] = {{"x", kAnyType, false, false, false}};
constexpr InputDef kInNumericX[] = {{"x", kNumericTypes, false, false, false}};
constexpr InputDef kInFloatX[] = {{"x", kFloatTypes, false, false, false}};
constexpr InputDef kInBoolX[] = {{"x", kBoolTypes, false, false, false}};
constexpr InputDef kInNumericAB[] = {{"a", kNumericTypes, false, false, false},
                                     {"b", kNumericTypes, false, false, false}};
constexpr InputDef kInAnyAB[] = {{"a", kAnyType, false, false, false},
                                 {"b", kAnyType, false, false, false}};
constexpr InputDef kInBoolAB[] = {{"a", kBoolTypes, false, false, false},
                                  {"b", kBoolTypes, false, false, false}};
constexpr InputDef kInWhere[] = {{"condition", kBoolTypes, false, false, false},
                                 {"x", kAnyType, false, false, false},
                                 {"y", kAnyType, false, false, false}};
constexpr InputDef kInCond[] = {{"pred", kBoolTypes, false, false, false},
                                {"operands", kAnyType, true, true, false}};
constexpr InputDef kInLoopVars[] = {{"loop_vars", kAnyType, true, true, false}};
constexpr InputDef kInPrint[] = {{"inputs", kAnyType, true, true, false}};
constexpr InputDef kInValue[] = {{"value", kAnyType, false, false, false}};
constexpr InputDef kInConcat[] = {{"values", kAnyType, false, true, false}};
constexpr InputDef kInGather[] = {{"params", kAnyType, false, false, false},
                                  {"indices", kIntTypes, false, false, false}};
constexpr InputDef kInLayerNorm[] = {{"x", kFloatTypes, false, false, false},
                                     {"scale", kFloatTypes, false, false, false},
                                     {"bias", kFloatTypes, false, false, false}};
constexpr InputDef kInConv[] = {{"input", kFloatTypes, false, false, false},
                                {"filter", kFloatTypes, false, false, false},
                                {"bias", kFloatTypes, true, false, false}};

// ---- attributes ----
constexpr AttrDef kAttrIndex[] = {{"index", kI, true, 0, 0, ""}};
constexpr AttrDef kAttrValue[] = {{"value", AttrType::kTensor, true, 0, 0, ""}};
constexpr AttrDef kAttrPrint[] = {{"message", kS, false, 0, 0, ""},
                                  {"summarize", kI, false, 3, 0, ""}};
constexpr AttrDef kAttrVarRead[] = {{"dtype", kT, true, 0, 0, ""},
                                    {"name", kS, true, 0, 0, ""},
                                    {"shape", kIs, true, 0, 0, ""}};
constexpr AttrDef kAttrVarAssign[] = {{"name", kS, true, 0, 0, ""}};
constexpr AttrDef kAttrGelu[] = {{"approximate", kS, false, 0, 0, "none"}};
constexpr AttrDef kAttrDType[] = {{"dtype", kT, true, 0, 0, ""}};
constexpr AttrDef kAttrMatMul[] = {{"transpose_a", kI, false, 0, 0, ""},
                                   {"transpose_b", kI, false, 0, 0, ""}};
constexpr AttrDef kAttrReduce[] = {{"axes", kIs, false, 0, 0, ""},
                                   {"keepdims", kI, false, 0, 0, ""}};
constexpr AttrDef kAttrArgReduce[] = {{"axis", kI, false, 0, 0, ""},
                                      {"keepdims", kI, false, 0, 0, ""}};
constexpr AttrDef kAttrAxisLast[] = {{"axis", kI, false, -1, 0, ""}};
constexpr AttrDef kAttrLayerNorm[] = {{"axis", kI, false, -1, 0, ""},
                                      {"epsilon", kF, false, 0, 1e-5, ""}};
constexpr AttrDef kAttrShape[] = {{"shape", kIs, true, 0, 0, ""}};
// shape: -1 infers one dim; with copy_zero=1 a 0 copies the input's dim at
// that index (ONNX's Reshape), otherwise 0 is a dim of size 0.
constexpr AttrDef kAttrReshape[] = {{"copy_zero", kI, false, 0, 0, ""},
                                    {"shape", kIs, true, 0, 0, ""}};
constexpr AttrDef kAttrPerm[] = {{"perm", kIs, false, 0, 0, ""}};
constexpr AttrDef kAttrAxisRequired[] = {{"axis", kI, true, 0, 0, ""}};
constexpr AttrDef kAttrAxes[] = {{"axes", kIs, false, 0, 0, ""}};
constexpr AttrDef kAttrSplit[] = {{"axis", kI, false, 0, 0, ""},
                                  {"num_splits", kI, false, 0, 0, ""},
                                  {"sizes", kIs, false, 0, 0, ""}};
constexpr AttrDef kAttrSlice[] = {{"begin", kIs, true, 0, 0, ""},
                                  {"end", kIs, true, 0, 0, ""},
                                  {"strides", kIs, false, 0, 0, ""}};
constexpr AttrDef kAttrGather[] = {{"axis", kI, false, 0, 0, ""}};
constexpr AttrDef kAttrPad[] = {{"constant_value", kF, false, 0, 0, ""},
                                {"mode", kS, false, 0, 0, "constant"},
                                {"paddings", kIs, true, 0, 0, ""}};
constexpr AttrDef kAttrTile[] = {{"multiples", kIs, true, 0, 0, ""}};
constexpr AttrDef kAttrFill[] = {{"dtype", kT, false, static_cast<int64_t>(DType::kFloat32), 0, ""},
                                 {"shape", kIs, true, 0, 0, ""},
                                 {"value", kF, false, 0, 0, ""}};
constexpr AttrDef kAttrFillLike[] = {{"value", kF, false, 0, 0, ""}};
constexpr AttrDef kAttrRange[] = {{"delta", kF, false, 0, 1, ""},
                                  {"dtype", kT, false, static_cast<int64_t>(DType::kInt64), 0, ""},
                                  {"limit", kF, true, 0, 0, ""},
                                  {"start", kF, false, 0, 0, ""}};
constexpr AttrDef kAttrRandomUniform[] = {
    {"dtype", kT, false, static_cast<int64_t>(DType::kFloat32), 0, ""},
    {"maxval", kF, false, 0, 1, ""},
    {"minval", kF, false, 0, 0, ""},
    {"seed", kI, false, 0, 0, ""},
    {"shape", kIs, true, 0, 0, ""}};
constexpr AttrDef kAttrRandomNormal[] = {
    {"dtype", kT, false, static_cast<int64_t>(DType::kFloat32), 0, ""},
    {"mean", kF, false, 0, 0, ""},
    {"seed", kI, false, 0, 0, ""},
    {"shape", kIs, true, 0, 0, ""},
    {"stddev", kF, false, 0, 1, ""}};
// padding: "VALID", "SAME" (TensorFlow's SAME_UPPER) or "EXPLICIT" with pads
// {top, bottom, left, right}. Empty strides/dilations mean 1.
constexpr AttrDef kAttrConv2D[] = {{"dilations", kIs, false, 0, 0, ""},
                                   {"groups", kI, false, 1, 0, ""},
                                   {"padding", kS, false, 0, 0, "VALID"},
                                   {"pads", kIs, false, 0, 0, ""},
                                   {"strides", kIs, false, 0, 0, ""}};
constexpr AttrDef kAttrPool2D[] = {{"count_include_pad", kI, false, 0, 0, ""},
                                   {"ksize", kIs, true, 0, 0, ""},
                                   {"padding", kS, false, 0, 0, "VALID"},
                                   {"pads", kIs, false, 0, 0, ""},
                                   {"strides", kIs, false, 0, 0, ""}};

inline int SplitOutputs(const Attrs& attrs, int) {
  std::vector<int64_t> sizes = attrs.GetInts("sizes");
  if (!sizes.empty()) return static_cast<int>(sizes.size());
  return static_cast<int>(attrs.GetInt("num_splits", 0));
}

// ---- signatures ----
constexpr OpSig kSigParameter = {nullptr, 0, kAttrIndex, TFN_N(kAttrIndex), 1, nullptr,
                                 TypeRule::kExternal, 0};
constexpr OpSig kSigConstant = {nullptr, 0, kAttrValue, TFN_N(kAttrValue), 1, nullptr,
                                TypeRule::kByShapeRule, 0};
constexpr OpSig kSigCond = {kInCond, 2, nullptr, 0, -1, nullptr, TypeRule::kExternal, 0};
constexpr OpSig kSigWhile = {kInLoopVars, 1, nullptr, 0, -1, nullptr, TypeRule::kExternal, 0};
constexpr OpSig kSigPrint = {kInPrint, 1, kAttrPrint, TFN_N(kAttrPrint), 0, nullptr,
                             TypeRule::kNoOutputs, 0};
constexpr OpSig kSigVarRead = {nullptr, 0, kAttrVarRead, TFN_N(kAttrVarRead), 1, nullptr,
                               TypeRule::kFromAttr, 0};
constexpr OpSig kSigVarAssign = {kInValue, 1, kAttrVarAssign, TFN_N(kAttrVarAssign), 0, nullptr,
                                 TypeRule::kNoOutputs, 0};

constexpr OpSig kSigUnaryAny = {kInAnyX, 1, nullptr, 0, 1, nullptr, TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigUnaryNumeric = {kInNumericX, 1, nullptr, 0, 1, nullptr,
                                    TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigUnaryFloat = {kInFloatX, 1, nullptr, 0, 1, nullptr, TypeRule::kSameAsInput0,
                                  0};
constexpr OpSig kSigUnaryBool = {kInBoolX, 1, nullptr, 0, 1, nullptr, TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigGelu = {kInFloatX, 1, kAttrGelu, TFN_N(kAttrGelu), 1, nullptr,
                            TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigCast = {kInAnyX, 1, kAttrDType, TFN_N(kAttrDType), 1, nullptr,
                            TypeRule::kFromAttr, 0};

constexpr OpSig kSigBinaryNumeric = {kInNumericAB, 2, nullptr, 0, 1, nullptr,
                                     TypeRule::kSameAsInput0, 0b11};
constexpr OpSig kSigCompareAny = {kInAnyAB, 2, nullptr, 0, 1, nullptr, TypeRule::kBool, 0b11};
constexpr OpSig kSigCompare = {kInNumericAB, 2, nullptr, 0, 1, nullptr, TypeRule::kBool, 0b11};
constexpr OpSig kSigBinaryBool = {kInBoolAB, 2, nullptr, 0, 1, nullptr, TypeRule::kBool, 0b11};
constexpr OpSig kSigWhere = {kInWhere, 3, nullptr, 0, 1, nullptr, TypeRule::kSameAsInput1, 0b110};

constexpr OpSig kSigMatMul = {kInNumericAB, 2, kAttrMatMul, TFN_N(kAttrMatMul), 1, nullptr,
                              TypeRule::kSameAsInput0, 0b11};
constexpr OpSig kSigReduce = {kInNumericX, 1, kAttrReduce, TFN_N(kAttrReduce), 1, nullptr,
                              TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigArgReduce = {kInNumericX, 1, kAttrArgReduce, TFN_N(kAttrArgReduce), 1,
                                 nullptr, TypeRule::kInt64, 0};
constexpr OpSig kSigSoftmax = {kInFloatX, 1, kAttrAxisLast, TFN_N(kAttrAxisLast), 1, nullptr,
                               TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigLayerNorm = {kInLayerNorm, 3, kAttrLayerNorm, TFN_N(kAttrLayerNorm), 1,
                                 nullptr, TypeRule::kSameAsInput0, 0b111};

constexpr OpSig kSigReshape = {kInAnyX, 1, kAttrReshape, TFN_N(kAttrReshape), 1, nullptr,
                               TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigTranspose = {kInAnyX, 1, kAttrPerm, TFN_N(kAttrPerm), 1, nullptr,
                                 TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigExpandDims = {kInAnyX, 1, kAttrAxisRequired, TFN_N(kAttrAxisRequired), 1,
                                  nullptr, TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigSqueeze = {kInAnyX, 1, kAttrAxes, TFN_N(kAttrAxes), 1, nullptr,
                               TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigConcat = {kInConcat, 1, kAttrAxisRequired, TFN_N(kAttrAxisRequired), 1,
                              nullptr, TypeRule::kSameAsInput0, 0b1};
constexpr OpSig kSigSplit = {kInAnyX, 1, kAttrSplit, TFN_N(kAttrSplit), -1, &SplitOutputs,
                             TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigSlice = {kInAnyX, 1, kAttrSlice, TFN_N(kAttrSlice), 1, nullptr,
                             TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigGather = {kInGather, 2, kAttrGather, TFN_N(kAttrGather), 1, nullptr,
                              TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigPad = {kInAnyX, 1, kAttrPad, TFN_N(kAttrPad), 1, nullptr,
                           TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigBroadcastTo = {kInAnyX, 1, kAttrShape, TFN_N(kAttrShape), 1, nullptr,
                                   TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigTile = {kInAnyX, 1, kAttrTile, TFN_N(kAttrTile), 1, nullptr,
                            TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigShape = {kInAnyX, 1, nullptr, 0, 1, nullptr, TypeRule::kInt64, 0};

constexpr OpSig kSigFill = {nullptr, 0, kAttrFill, TFN_N(kAttrFill), 1, nullptr,
                            TypeRule::kFromAttr, 0};
constexpr OpSig kSigFillLike = {kInAnyX, 1, kAttrFillLike, TFN_N(kAttrFillLike), 1, nullptr,
                                TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigRange = {nullptr, 0, kAttrRange, TFN_N(kAttrRange), 1, nullptr,
                             TypeRule::kFromAttr, 0};
constexpr OpSig kSigRandomUniform = {nullptr, 0, kAttrRandomUniform, TFN_N(kAttrRandomUniform), 1,
                                     nullptr, TypeRule::kFromAttr, 0};
constexpr OpSig kSigRandomNormal = {nullptr, 0, kAttrRandomNormal, TFN_N(kAttrRandomNormal), 1,
                                    nullptr, TypeRule::kFromAttr, 0};

constexpr OpSig kSigConv2D = {kInConv, 3, kAttrConv2D, TFN_N(kAttrConv2D), 1, nullptr,
                              TypeRule::kSameAsInput0, 0b111};
constexpr OpSig kSigPool2D = {kInFloatX, 1, kAttrPool2D, TFN_N(kAttrPool2D), 1, nullptr,
                              TypeRule::kSameAsInput0, 0};

#undef TFN_N

}  // namespace tfn::sigs
