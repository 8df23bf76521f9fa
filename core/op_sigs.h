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
constexpr InputDef kInMoveX[] = {{"x", kAllTypes, false, false, false}};
inline constexpr TypeMask kHalfFloatTypes =
    kFloatTypes | TypeBit(DType::kFloat16) | TypeBit(DType::kBFloat16);
inline constexpr TypeMask kQuantizedTypes = TypeBit(DType::kInt8) | TypeBit(DType::kUInt8) |
                                           TypeBit(DType::kInt16) | TypeBit(DType::kUInt16) |
                                           TypeBit(DType::kInt32);
constexpr InputDef kInQuantize[] = {{"x", kHalfFloatTypes, false, false, false},
                                    {"scale", kHalfFloatTypes, false, false, false},
                                    {"zero_point", kQuantizedTypes, true, false, false}};
constexpr InputDef kInDequantize[] = {{"x", kQuantizedTypes, false, false, false},
                                      {"scale", kHalfFloatTypes, false, false, false},
                                      {"zero_point", kQuantizedTypes, true, false, false}};
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
                                 {"x", kAllTypes, false, false, false},
                                 {"y", kAllTypes, false, false, false}};
constexpr InputDef kInCond[] = {{"pred", kBoolTypes, false, false, false},
                                {"operands", kAllTypes, true, true, false}};
constexpr InputDef kInLoopVars[] = {{"loop_vars", kAllTypes, true, true, false}};
constexpr InputDef kInPrint[] = {{"inputs", kAnyType, true, true, false}};
constexpr InputDef kInValue[] = {{"value", kAnyType, false, false, false}};
constexpr InputDef kInConcat[] = {{"values", kAllTypes, false, true, false}};
constexpr InputDef kInGather[] = {{"params", kAllTypes, false, false, false},
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
constexpr AttrDef kAttrCast[] = {{"dtype", kT, true, 0, 0, ""}, {"truncate", kI, false, 0, 0, ""}};
constexpr AttrDef kAttrQuantize[] = {{"dtype", kT, true, 0, 0, ""}, {"axis", kI, false, 1, 0, ""}};
constexpr AttrDef kAttrAxis1[] = {{"axis", kI, false, 1, 0, ""}};
constexpr AttrDef kAttrMatMul[] = {{"transpose_a", kI, false, 0, 0, ""},
                                   {"transpose_b", kI, false, 0, 0, ""}};
// reduce_*: the axes are the "axes" attribute or, when given, input 1 (an
// int vector read at run time); empty axes reduce every dim.
constexpr AttrDef kAttrReduce[] = {{"axes", kIs, false, 0, 0, ""},
                                   {"keepdims", kI, false, 0, 0, ""}};
constexpr InputDef kInReduce[] = {{"x", kNumericTypes, false, false, false},
                                  {"axes", kIntTypes, true, false, true}};
// select_last_index: ties (and NaNs) resolve to the last index instead of the first.
constexpr AttrDef kAttrArgReduce[] = {{"axis", kI, false, 0, 0, ""},
                                      {"keepdims", kI, false, 0, 0, ""},
                                      {"select_last_index", kI, false, 0, 0, ""}};
// cumsum: the axis is input 1 (an int scalar, read at run time, as in ONNX and TF).
constexpr InputDef kInCumSum[] = {{"x", kNumericTypes, false, false, false},
                                  {"axis", kIntTypes, false, false, false}};
constexpr AttrDef kAttrCumSum[] = {{"exclusive", kI, false, 0, 0, ""},
                                   {"reverse", kI, false, 0, 0, ""}};
constexpr AttrDef kAttrAxisLast[] = {{"axis", kI, false, -1, 0, ""}};
constexpr AttrDef kAttrLayerNorm[] = {{"axis", kI, false, -1, 0, ""},
                                      {"epsilon", kF, false, 0, 1e-5, ""}};
// broadcast_to: the target is the "shape" attribute or, when given, input 1
// (an int vector read at run time: a data-dependent output shape).
// broadcast_to: "dims" as reshape's (the target's dims as text, for a shape input).
constexpr AttrDef kAttrBroadcastTo[] = {{"dims", kS, false, 0, 0, ""},
                                        {"shape", kIs, false, 0, 0, ""}};
constexpr InputDef kInBroadcastTo[] = {{"x", kAllTypes, false, false, false},
                                       {"shape", kIntTypes, true, false, true}};
// shape: -1 infers one dim; with copy_zero=1 a 0 copies the input's dim at
// that index (ONNX's Reshape), otherwise 0 is a dim of size 0.
constexpr AttrDef kAttrReshape[] = {{"copy_zero", kI, false, 0, 0, ""},
                                    {"dims", kS, false, 0, 0, ""},
                                    {"shape", kIs, true, 0, 0, ""}};
// reshape's input 1, when given, is the shape read at run time ("shape" is
// then []); "dims" may say its values as dim expressions (rules_shape.h).
constexpr InputDef kInReshape[] = {{"x", kAllTypes, false, false, false},
                                   {"shape", kIntTypes, true, false, true}};
constexpr AttrDef kAttrPerm[] = {{"perm", kIs, false, 0, 0, ""}};
constexpr AttrDef kAttrAxisRequired[] = {{"axis", kI, true, 0, 0, ""}};
constexpr AttrDef kAttrAxes[] = {{"axes", kIs, false, 0, 0, ""}};
constexpr AttrDef kAttrSplit[] = {{"axis", kI, false, 0, 0, ""},
                                  {"num_splits", kI, false, 0, 0, ""},
                                  {"sizes", kIs, false, 0, 0, ""}};
// split: the sizes are the "sizes" attribute or, when given, input 1 (an int
// vector read at run time; then num_splits gives the output count).
constexpr InputDef kInSplit[] = {{"x", kAllTypes, false, false, false},
                                 {"sizes", kIntTypes, true, false, true}};
constexpr AttrDef kAttrSlice[] = {{"begin", kIs, true, 0, 0, ""},
                                  {"dims", kS, false, 0, 0, ""},
                                  {"end", kIs, true, 0, 0, ""},
                                  {"strides", kIs, false, 0, 0, ""}};
// slice's inputs 1-3, when given, are begin, end and strides read at run time
// (one entry per dim; the attributes are then []); "dims" may say the
// output's dims as expressions, as reshape's does (rules_shape.h); the
// kernel checks them against the lengths the values give.
constexpr InputDef kInSlice[] = {{"x", kAllTypes, false, false, false},
                                 {"begin", kIntTypes, true, false, true},
                                 {"end", kIntTypes, true, false, true},
                                 {"strides", kIntTypes, true, false, true}};
constexpr AttrDef kAttrGather[] = {{"axis", kI, false, 0, 0, ""}};
// pad: paddings (before, after) per dim as the attribute or, computed at run
// time, as input 1; input 2 (x's dtype, a scalar) overrides constant_value.
constexpr InputDef kInPad[] = {{"x", kAllTypes, false, false, false},
                               {"paddings", kIntTypes, true, false, true},
                               {"constant_value", kAllTypes, true, false, false}};
constexpr AttrDef kAttrPad[] = {{"constant_value", kF, false, 0, 0, ""},
                                {"mode", kS, false, 0, 0, "constant"},
                                {"paddings", kIs, false, 0, 0, ""}};
// tile: the multiples are the attribute or, when given, input 1 (read at run time).
constexpr AttrDef kAttrTile[] = {{"multiples", kIs, false, 0, 0, ""}};
constexpr InputDef kInTile[] = {{"x", kAllTypes, false, false, false},
                                {"multiples", kIntTypes, true, false, true}};
constexpr AttrDef kAttrFill[] = {{"dtype", kT, false, static_cast<int64_t>(DType::kFloat32), 0, ""},
                                 {"shape", kIs, true, 0, 0, ""},
                                 {"value", kF, false, 0, 0, ""}};
constexpr AttrDef kAttrFillLike[] = {{"value", kF, false, 0, 0, ""}};
// range: start, limit and delta are attributes or, when given, the three
// inputs (numeric scalars read at run time: a data-dependent length).
// range: with inputs (run-time scalars), "dims" may say the length as a dim
// expression (rules_basic.h); the kernel checks it against the values.
constexpr AttrDef kAttrRange[] = {{"delta", kF, false, 0, 1, ""},
                                  {"dims", kS, false, 0, 0, ""},
                                  {"dtype", kT, false, static_cast<int64_t>(DType::kInt64), 0, ""},
                                  {"limit", kF, false, 0, 0, ""},
                                  {"start", kF, false, 0, 0, ""}};
constexpr InputDef kInRange[] = {{"start", kNumericTypes, true, false, true},
                                 {"limit", kNumericTypes, true, false, true},
                                 {"delta", kNumericTypes, true, false, true}};
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
// ceil_mode rounds the output size up (a last window must still start inside
// the input or its leading padding); dilations spread the window's taps.
constexpr AttrDef kAttrPool2D[] = {{"ceil_mode", kI, false, 0, 0, ""},
                                   {"count_include_pad", kI, false, 0, 0, ""},
                                   {"dilations", kIs, false, 0, 0, ""},
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

constexpr OpSig kSigUnaryAny = {kInMoveX, 1, nullptr, 0, 1, nullptr, TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigUnaryNumeric = {kInNumericX, 1, nullptr, 0, 1, nullptr,
                                    TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigUnaryFloat = {kInFloatX, 1, nullptr, 0, 1, nullptr, TypeRule::kSameAsInput0,
                                  0};
constexpr OpSig kSigUnaryBool = {kInBoolX, 1, nullptr, 0, 1, nullptr, TypeRule::kSameAsInput0, 0};
// Float in, bool out (is_inf, is_nan).
constexpr OpSig kSigFloatPredicate = {kInFloatX, 1, nullptr, 0, 1, nullptr, TypeRule::kBool, 0};
constexpr OpSig kSigGelu = {kInFloatX, 1, kAttrGelu, TFN_N(kAttrGelu), 1, nullptr,
                            TypeRule::kSameAsInput0, 0};
// cast: "truncate" 1 drops a bfloat16 result's low bits (ONNX Cast) instead
// of rounding to nearest even (TensorFlow, PyTorch).
constexpr OpSig kSigCast = {kInMoveX, 1, kAttrCast, TFN_N(kAttrCast), 1, nullptr,
                            TypeRule::kFromAttr, 0};
// quantize_linear(x, scale, zero_point?) → attribute dtype;
// dequantize_linear(x, scale, zero_point?) → scale's dtype. zero_point has
// the quantized dtype (inputs 0 and 2 of dequantize_linear share it).
constexpr OpSig kSigQuantizeLinear = {kInQuantize, 3, kAttrQuantize, TFN_N(kAttrQuantize), 1,
                                      nullptr, TypeRule::kFromAttr, 0};
constexpr OpSig kSigDequantizeLinear = {kInDequantize, 3, kAttrAxis1, TFN_N(kAttrAxis1), 1,
                                        nullptr, TypeRule::kSameAsInput1, 0b101};

// The quantized linear ops (core/rules/rules_quant.h): int8/uint8 tensors
// with float32 scales and zero points of their tensor's dtype; filter and b
// scales/zero points per tensor or per output channel; bias int32 at
// input_scale * filter_scale. qlinear_* give output_zero_point's dtype,
// *_integer int32 (ONNX's QLinearConv/QLinearMatMul, ConvInteger/MatMulInteger,
// conv2d in NHWC with an HWIO filter as conv2d's). activation "relu" or
// "clip" (clip_min/clip_max, in real units) clamps the quantized output.
inline constexpr TypeMask kInt8Types = TypeBit(DType::kInt8) | TypeBit(DType::kUInt8);
inline constexpr TypeMask kScaleTypes = TypeBit(DType::kFloat32);
constexpr InputDef kInQLinearConv[] = {{"input", kInt8Types, false, false, false},
                                       {"input_scale", kScaleTypes, false, false, false},
                                       {"input_zero_point", kInt8Types, false, false, false},
                                       {"filter", kInt8Types, false, false, false},
                                       {"filter_scale", kScaleTypes, false, false, false},
                                       {"filter_zero_point", kInt8Types, false, false, false},
                                       {"output_scale", kScaleTypes, false, false, false},
                                       {"output_zero_point", kInt8Types, false, false, false},
                                       {"bias", TypeBit(DType::kInt32), true, false, false}};
constexpr InputDef kInQLinearMatMul[] = {{"a", kInt8Types, false, false, false},
                                         {"a_scale", kScaleTypes, false, false, false},
                                         {"a_zero_point", kInt8Types, false, false, false},
                                         {"b", kInt8Types, false, false, false},
                                         {"b_scale", kScaleTypes, false, false, false},
                                         {"b_zero_point", kInt8Types, false, false, false},
                                         {"output_scale", kScaleTypes, false, false, false},
                                         {"output_zero_point", kInt8Types, false, false, false},
                                         {"bias", TypeBit(DType::kInt32), true, false, false}};
constexpr InputDef kInConvInteger[] = {{"input", kInt8Types, false, false, false},
                                       {"filter", kInt8Types, false, false, false},
                                       {"input_zero_point", kInt8Types, true, false, false},
                                       {"filter_zero_point", kInt8Types, true, false, false}};
constexpr InputDef kInMatMulInteger[] = {{"a", kInt8Types, false, false, false},
                                         {"b", kInt8Types, false, false, false},
                                         {"a_zero_point", kInt8Types, true, false, false},
                                         {"b_zero_point", kInt8Types, true, false, false}};
// packed_filter [KH, KW, Cin/groups, Cout] / packed_b [K, N]: the weights
// are prepacked (ir/passes/prepack_weights; layout in core/packed_layout.h).
constexpr AttrDef kAttrQLinearConv2D[] = {{"activation", kS, false, 0, 0, "none"},
                                          {"clip_max", kF, false, 0, 0, ""},
                                          {"clip_min", kF, false, 0, 0, ""},
                                          {"dilations", kIs, false, 0, 0, ""},
                                          {"groups", kI, false, 1, 0, ""},
                                          {"packed_filter", kIs, false, 0, 0, ""},
                                          {"padding", kS, false, 0, 0, "VALID"},
                                          {"pads", kIs, false, 0, 0, ""},
                                          {"strides", kIs, false, 0, 0, ""}};
constexpr AttrDef kAttrQLinearMatMul[] = {{"activation", kS, false, 0, 0, "none"},
                                          {"clip_max", kF, false, 0, 0, ""},
                                          {"clip_min", kF, false, 0, 0, ""},
                                          {"packed_b", kIs, false, 0, 0, ""}};
constexpr OpSig kSigQLinearConv2D = {kInQLinearConv, 9, kAttrQLinearConv2D,
                                     TFN_N(kAttrQLinearConv2D), 1, nullptr,
                                     TypeRule::kByShapeRule, 0};
constexpr OpSig kSigQLinearMatMul = {kInQLinearMatMul, 9, kAttrQLinearMatMul,
                                     TFN_N(kAttrQLinearMatMul), 1, nullptr,
                                     TypeRule::kByShapeRule, 0};
// qlinear_add: y = quantize(dequantize(a) + dequantize(b)) in float32, each
// step as quantize_linear / dequantize_linear compute it, with an optional
// relu before quantizing (relu = 1): a residual add of a QDQ graph in one pass.
// Its inputs are qlinear_matmul's first eight (a and b with their scales and
// zero points, then the output's), without the bias.
constexpr AttrDef kAttrQLinearAdd[] = {{"relu", kI, false, 0, 0, ""}};
constexpr OpSig kSigQLinearAdd = {kInQLinearMatMul,       8, kAttrQLinearAdd,
                                  TFN_N(kAttrQLinearAdd), 1, nullptr,
                                  TypeRule::kByShapeRule, 0};
constexpr OpSig kSigConv2DInteger = {kInConvInteger, 4, kAttrConv2D, TFN_N(kAttrConv2D), 1,
                                     nullptr, TypeRule::kByShapeRule, 0};
constexpr OpSig kSigMatMulInteger = {kInMatMulInteger, 4, nullptr, 0, 1, nullptr,
                                     TypeRule::kByShapeRule, 0};

constexpr OpSig kSigBinaryNumeric = {kInNumericAB, 2, nullptr, 0, 1, nullptr,
                                     TypeRule::kSameAsInput0, 0b11};
constexpr OpSig kSigCompareAny = {kInAnyAB, 2, nullptr, 0, 1, nullptr, TypeRule::kBool, 0b11};
constexpr OpSig kSigCompare = {kInNumericAB, 2, nullptr, 0, 1, nullptr, TypeRule::kBool, 0b11};
constexpr OpSig kSigBinaryBool = {kInBoolAB, 2, nullptr, 0, 1, nullptr, TypeRule::kBool, 0b11};
constexpr OpSig kSigWhere = {kInWhere, 3, nullptr, 0, 1, nullptr, TypeRule::kSameAsInput1, 0b110};

constexpr OpSig kSigMatMul = {kInNumericAB, 2, kAttrMatMul, TFN_N(kAttrMatMul), 1, nullptr,
                              TypeRule::kSameAsInput0, 0b11};
constexpr OpSig kSigReduce = {kInReduce, 2, kAttrReduce, TFN_N(kAttrReduce), 1, nullptr,
                              TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigArgReduce = {kInNumericX, 1, kAttrArgReduce, TFN_N(kAttrArgReduce), 1,
                                 nullptr, TypeRule::kInt64, 0};
constexpr OpSig kSigCumSum = {kInCumSum, 2, kAttrCumSum, TFN_N(kAttrCumSum), 1, nullptr,
                              TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigSoftmax = {kInFloatX, 1, kAttrAxisLast, TFN_N(kAttrAxisLast), 1, nullptr,
                               TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigLayerNorm = {kInLayerNorm, 3, kAttrLayerNorm, TFN_N(kAttrLayerNorm), 1,
                                 nullptr, TypeRule::kSameAsInput0, 0b111};

constexpr OpSig kSigReshape = {kInReshape, 2, kAttrReshape, TFN_N(kAttrReshape), 1, nullptr,
                               TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigTranspose = {kInMoveX, 1, kAttrPerm, TFN_N(kAttrPerm), 1, nullptr,
                                 TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigExpandDims = {kInMoveX, 1, kAttrAxisRequired, TFN_N(kAttrAxisRequired), 1,
                                  nullptr, TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigSqueeze = {kInMoveX, 1, kAttrAxes, TFN_N(kAttrAxes), 1, nullptr,
                               TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigConcat = {kInConcat, 1, kAttrAxisRequired, TFN_N(kAttrAxisRequired), 1,
                              nullptr, TypeRule::kSameAsInput0, 0b1};
constexpr OpSig kSigSplit = {kInSplit, 2, kAttrSplit, TFN_N(kAttrSplit), -1, &SplitOutputs,
                             TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigSlice = {kInSlice, 4, kAttrSlice, TFN_N(kAttrSlice), 1, nullptr,
                             TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigGather = {kInGather, 2, kAttrGather, TFN_N(kAttrGather), 1, nullptr,
                              TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigPad = {kInPad, 3, kAttrPad, TFN_N(kAttrPad), 1, nullptr,
                           TypeRule::kSameAsInput0, 0b101};
constexpr OpSig kSigBroadcastTo = {kInBroadcastTo,          2, kAttrBroadcastTo,
                                   TFN_N(kAttrBroadcastTo), 1, nullptr,
                                   TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigTile = {kInTile, 2, kAttrTile, TFN_N(kAttrTile), 1, nullptr,
                            TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigShape = {kInMoveX, 1, nullptr, 0, 1, nullptr, TypeRule::kInt64, 0};

constexpr OpSig kSigFill = {nullptr, 0, kAttrFill, TFN_N(kAttrFill), 1, nullptr,
                            TypeRule::kFromAttr, 0};
constexpr OpSig kSigFillLike = {kInAnyX, 1, kAttrFillLike, TFN_N(kAttrFillLike), 1, nullptr,
                                TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigRange = {kInRange, 3, kAttrRange, TFN_N(kAttrRange), 1, nullptr,
                             TypeRule::kFromAttr, 0};
constexpr OpSig kSigRandomUniform = {nullptr, 0, kAttrRandomUniform, TFN_N(kAttrRandomUniform), 1,
                                     nullptr, TypeRule::kFromAttr, 0};
constexpr OpSig kSigRandomNormal = {nullptr, 0, kAttrRandomNormal, TFN_N(kAttrRandomNormal), 1,
                                    nullptr, TypeRule::kFromAttr, 0};

constexpr OpSig kSigConv2D = {kInConv, 3, kAttrConv2D, TFN_N(kAttrConv2D), 1, nullptr,
                              TypeRule::kSameAsInput0, 0b111};
constexpr OpSig kSigPool2D = {kInFloatX, 1, kAttrPool2D, TFN_N(kAttrPool2D), 1, nullptr,
                              TypeRule::kSameAsInput0, 0};
// conv2d_transpose: NHWC input, filter [KH, KW, out_channels/groups, in_channels]
// (TensorFlow's layout); pads {top, bottom, left, right} crop the full output,
// output_padding {h, w} adds rows/columns at its end.
constexpr AttrDef kAttrConv2DTranspose[] = {{"dilations", kIs, false, 0, 0, ""},
                                            {"groups", kI, false, 1, 0, ""},
                                            {"output_padding", kIs, false, 0, 0, ""},
                                            {"pads", kIs, false, 0, 0, ""},
                                            {"strides", kIs, false, 0, 0, ""}};
constexpr OpSig kSigConv2DTranspose = {kInConv, 3, kAttrConv2DTranspose,
                                       TFN_N(kAttrConv2DTranspose), 1, nullptr,
                                       TypeRule::kSameAsInput0, 0b111};
// fused_matmul / fused_conv2d (core/rules/rules_fused.h): made by
// ir/passes/fuse_epilogue and prepack_weights; y = act(op + bias + residual).
// clip_min/clip_max are used by activation="clip" only, act_alpha/act_beta
// by "hard_sigmoid" and "hard_swish".
// A bfloat16 b (with a float32 a) computes on a rounded to bfloat16 with
// float32 sums (the bf16 GEMM's arithmetic, kernels/opt/bf16_gemm.h).
constexpr InputDef kInFusedMatMul[] = {{"a", kFloatTypes, false, false, false},
                                       {"b", kHalfFloatTypes, false, false, false},
                                       {"bias", kFloatTypes, true, false, false},
                                       {"residual", kFloatTypes, true, false, false}};
constexpr AttrDef kAttrFusedMatMul[] = {{"act_alpha", kF, false, 0, 0, ""},
                                        {"act_beta", kF, false, 0, 0, ""},
                                        {"activation", kS, false, 0, 0, "none"},
                                        {"clip_max", kF, false, 0, 0, ""},
                                        {"clip_min", kF, false, 0, 0, ""},
                                        {"packed_n", kI, false, 0, 0, ""},
                                        {"transpose_b", kI, false, 0, 0, ""}};
constexpr OpSig kSigFusedMatMul = {kInFusedMatMul, 4, kAttrFusedMatMul, TFN_N(kAttrFusedMatMul),
                                   1, nullptr, TypeRule::kSameAsInput0, 0b1101};
constexpr InputDef kInFusedConv[] = {{"input", kFloatTypes, false, false, false},
                                     {"filter", kFloatTypes, false, false, false},
                                     {"bias", kFloatTypes, true, false, false},
                                     {"residual", kFloatTypes, true, false, false}};
constexpr AttrDef kAttrFusedConv2D[] = {{"act_alpha", kF, false, 0, 0, ""},
                                        {"act_beta", kF, false, 0, 0, ""},
                                        {"activation", kS, false, 0, 0, "none"},
                                        {"clip_max", kF, false, 0, 0, ""},
                                        {"clip_min", kF, false, 0, 0, ""},
                                        {"dilations", kIs, false, 0, 0, ""},
                                        {"groups", kI, false, 1, 0, ""},
                                        {"packed_out_channels", kI, false, 0, 0, ""},
                                        {"padding", kS, false, 0, 0, "VALID"},
                                        {"pads", kIs, false, 0, 0, ""},
                                        {"strides", kIs, false, 0, 0, ""},
                                        {"winograd", kI, false, 0, 0, ""}};
constexpr OpSig kSigFusedConv2D = {kInFusedConv, 4, kAttrFusedConv2D, TFN_N(kAttrFusedConv2D), 1,
                                   nullptr, TypeRule::kSameAsInput0, 0b1111};
// resize(x, sizes[, scales[, roi]]): sizes (the output shape; empty: trunc(
// x.shape * scales) with constant scales) is read by the shape rule; scales
// (per axis; <= 0 means sizes/in) and roi ({starts, ends},
// tf_crop_and_resize) feed the coordinate transform. ONNX's semantics. When
// sizes is not a constant, the symbolic rule takes it to be trunc(x.shape *
// scales) for constant scales (what the ONNX importer computes).
constexpr InputDef kInResize[] = {{"x", kNumericTypes, false, false, false},
                                  {"sizes", kIntTypes, false, false, true},
                                  {"scales", kFloatTypes, true, false, false},
                                  {"roi", kFloatTypes, true, false, false}};
constexpr AttrDef kAttrResize[] = {{"coordinate_transformation_mode", kS, false, 0, 0, "half_pixel"},
                                   {"cubic_coeff_a", kF, false, 0, -0.75, ""},
                                   {"exclude_outside", kI, false, 0, 0, ""},
                                   {"extrapolation_value", kF, false, 0, 0, ""},
                                   {"mode", kS, false, 0, 0, "nearest"},
                                   {"nearest_mode", kS, false, 0, 0, "round_prefer_floor"}};
constexpr OpSig kSigResize = {kInResize, 4, kAttrResize, TFN_N(kAttrResize), 1, nullptr,
                              TypeRule::kSameAsInput0, 0};

// ---- indexing ----
// gather_elements / scatter_elements: indices (and updates) have data's rank;
// reduction: "none", "add", "mul", "max" or "min" (ONNX's ScatterElements).
constexpr InputDef kInGatherElements[] = {{"params", kAllTypes, false, false, false},
                                          {"indices", kIntTypes, false, false, false}};
constexpr InputDef kInScatter[] = {{"data", kAnyType, false, false, false},
                                   {"indices", kIntTypes, false, false, false},
                                   {"updates", kAnyType, false, false, false}};
constexpr AttrDef kAttrGatherElements[] = {{"axis", kI, false, 0, 0, ""}};
constexpr AttrDef kAttrScatterElements[] = {{"axis", kI, false, 0, 0, ""},
                                            {"reduction", kS, false, 0, 0, "none"}};
constexpr OpSig kSigGatherElements = {kInGatherElements, 2, kAttrGatherElements,
                                      TFN_N(kAttrGatherElements), 1, nullptr,
                                      TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigScatterElements = {kInScatter, 3, kAttrScatterElements,
                                       TFN_N(kAttrScatterElements), 1, nullptr,
                                       TypeRule::kSameAsInput0, 0b101};
// gather_nd / scatter_nd: the last dim of indices indexes the leading dims of
// data (after batch_dims shared leading dims, gather_nd only).
constexpr AttrDef kAttrGatherND[] = {{"batch_dims", kI, false, 0, 0, ""}};
constexpr AttrDef kAttrScatterND[] = {{"reduction", kS, false, 0, 0, "none"}};
constexpr OpSig kSigGatherND = {kInGatherElements, 2, kAttrGatherND, TFN_N(kAttrGatherND), 1,
                                nullptr, TypeRule::kSameAsInput0, 0};
constexpr OpSig kSigScatterND = {kInScatter, 3, kAttrScatterND, TFN_N(kAttrScatterND), 1,
                                 nullptr, TypeRule::kSameAsInput0, 0b101};
// top_k(x, k) -> (values, int64 indices) along axis; k is a one-element int
// tensor read by the shape rule. Ties keep the lower index first.
constexpr InputDef kInTopK[] = {{"x", kNumericTypes, false, false, false},
                                {"k", kIntTypes, false, false, true}};
constexpr AttrDef kAttrTopK[] = {{"axis", kI, false, -1, 0, ""},
                                 {"largest", kI, false, 1, 0, ""},
                                 {"sorted", kI, false, 1, 0, ""}};
constexpr OpSig kSigTopK = {kInTopK, 2, kAttrTopK, TFN_N(kAttrTopK), 2, nullptr,
                            TypeRule::kByShapeRule, 0};
// non_zero(x) -> int64 [rank, count]: the coordinates of x's nonzero elements.
constexpr InputDef kInValueShaped[] = {{"x", kAnyType, false, false, true}};
constexpr OpSig kSigNonZero = {kInValueShaped, 1, nullptr, 0, 1, nullptr, TypeRule::kInt64, 0};
// unique(x) -> (values, int64 indices, inverse_indices, counts) as ONNX's
// Unique: "axis" empty flattens x, else one axis whose slices are the items.
constexpr AttrDef kAttrUnique[] = {{"axis", kIs, false, 0, 0, ""},
                                   {"sorted", kI, false, 1, 0, ""}};
constexpr OpSig kSigUnique = {kInValueShaped, 1, kAttrUnique, TFN_N(kAttrUnique), 4, nullptr,
                              TypeRule::kByShapeRule, 0};

#undef TFN_N

}  // namespace tfn::sigs
