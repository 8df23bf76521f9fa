// The model of tfn-serve's datatype tests (serve/model_repository_test.cc,
// tests/serve/*_test.py through make_dtype_bundle.cc): inputs and outputs in
// every OIP datatype tfn has beyond BOOL, INT32, INT64, FP32 and FP64, with
// values a test works out by hand.
//
//   serving_default  x: uint8[?,3], h: f16[?,3]
//     -> doubled:    f16[?,3]   = f16(f32(x) * 2)        (255 -> 510, exact in f16)
//        quadrupled: uint8[?,3] = uint8(f32(h) * 4)      (truncated toward 0,
//                                                         saturated to [0, 255])
//   narrow  i8: int8[?], i16: int16[?], u8: uint8[?], u16: uint16[?],
//           u32: uint32[?], u64: uint64[?]
//     -> NAME_twice = concat(NAME, NAME) along dim 0, for each input
//        (every datatype with a typed InferTensorContents field over gRPC)
//   bf16    g: bf16[?] -> g_twice = concat(g, g)
//
// The ops are the ones that take these dtypes (cast and data movement).
#pragma once

#include <map>
#include <string>

#include "exporter/save.h"
#include "tfn/tfn.h"

namespace tfn::serve_testing {

inline ConcreteFunction DtypeServingDefault() {
  FunctionOptions options;
  options.name = "dtypes";
  options.arg_names = {"x", "h"};
  auto f = function(
      [](Tensor x, Tensor h) {
        Tensor doubled = cast(cast(x, DType::kFloat32) * 2.f, DType::kFloat16);
        Tensor quadrupled = cast(cast(h, DType::kFloat32) * 4.f, DType::kUInt8);
        return std::map<std::string, Tensor>{{"doubled", doubled}, {"quadrupled", quadrupled}};
      },
      options);
  return f.get_concrete_function(TensorSpec({kDynamic, 3}, DType::kUInt8),
                                 TensorSpec({kDynamic, 3}, DType::kFloat16));
}

inline Tensor Twice(const Tensor& t) { return concat({t, t}, 0); }

inline ConcreteFunction DtypeNarrow() {
  FunctionOptions options;
  options.name = "narrow";
  options.arg_names = {"i8", "i16", "u8", "u16", "u32", "u64"};
  auto f = function(
      [](Tensor i8, Tensor i16, Tensor u8, Tensor u16, Tensor u32, Tensor u64) {
        return std::map<std::string, Tensor>{{"i8_twice", Twice(i8)},   {"i16_twice", Twice(i16)},
                                             {"u8_twice", Twice(u8)},   {"u16_twice", Twice(u16)},
                                             {"u32_twice", Twice(u32)}, {"u64_twice", Twice(u64)}};
      },
      options);
  return f.get_concrete_function(
      TensorSpec({kDynamic}, DType::kInt8), TensorSpec({kDynamic}, DType::kInt16),
      TensorSpec({kDynamic}, DType::kUInt8), TensorSpec({kDynamic}, DType::kUInt16),
      TensorSpec({kDynamic}, DType::kUInt32), TensorSpec({kDynamic}, DType::kUInt64));
}

inline ConcreteFunction DtypeBFloat16() {
  FunctionOptions options;
  options.name = "bf16";
  options.arg_names = {"g"};
  auto f = function(
      [](Tensor g) {
        return std::map<std::string, Tensor>{{"g_twice", Twice(g)}};
      },
      options);
  return f.get_concrete_function(TensorSpec({kDynamic}, DType::kBFloat16));
}

// Writes the bundle to `path`; throws tfn::Error when tracing or saving fails.
inline void SaveDtypeModel(const std::string& path) {
  save(path, {{"serving_default", DtypeServingDefault()},
              {"narrow", DtypeNarrow()},
              {"bf16", DtypeBFloat16()}});
}

}  // namespace tfn::serve_testing
