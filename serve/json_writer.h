// Writing JSON text with RapidJSON's Writer, as every REST body and message
// of tfn-serve does: NaN and infinities as the tokens NaN, Infinity and
// -Infinity (which TF Serving and Triton read), strings made valid UTF-8,
// FP32 with the shortest digits that give the float back.
//
// Thread-safety: a JsonWriter is used by one thread; the functions here keep
// no state.
#pragma once

#include "serve/rapidjson.h"

#include <cstdint>
#include <string>
#include <string_view>

#include "core/half.h"

namespace tfn::serve {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer, rapidjson::UTF8<>, rapidjson::UTF8<>,
                                     rapidjson::CrtAllocator, rapidjson::kWriteNanAndInfFlag>;

// `s` as a JSON string, every byte that does not start a valid UTF-8
// sequence replaced by '?': JSON strings must be UTF-8, and model names or
// messages need not be.
void WriteString(JsonWriter& w, std::string_view s);
void WriteKey(JsonWriter& w, const char* key);

// Tensor elements as JSON values: one overload per dtype's storage type
// (core/dtype.h), so that none converts to another's.
inline void WriteValue(JsonWriter& w, bool v) { w.Bool(v); }
inline void WriteValue(JsonWriter& w, int8_t v) { w.Int(v); }
inline void WriteValue(JsonWriter& w, int16_t v) { w.Int(v); }
inline void WriteValue(JsonWriter& w, int32_t v) { w.Int(v); }
inline void WriteValue(JsonWriter& w, int64_t v) { w.Int64(v); }
inline void WriteValue(JsonWriter& w, uint8_t v) { w.Uint(v); }
inline void WriteValue(JsonWriter& w, uint16_t v) { w.Uint(v); }
inline void WriteValue(JsonWriter& w, uint32_t v) { w.Uint(v); }
inline void WriteValue(JsonWriter& w, uint64_t v) { w.Uint64(v); }
// The shortest digits that parse back to `v` (0.1f is 0.1, not the
// 0.10000000149011612 of the double it is), with ".0" when they are a whole
// number; digits that a reader going through a double would not read back
// as `v` (only +-7.038531e-26) are the double's.
void WriteValue(JsonWriter& w, float v);
// RapidJSON's shortest round-trip digits of the double.
inline void WriteValue(JsonWriter& w, double v) { w.Double(v); }
// FP16 and BF16 as the float they are exactly (JSON has no narrower
// numbers): its shortest digits, which read back as FP16 or BF16 give the
// same bits, since rounding an FP16 or BF16 value to either is exact.
inline void WriteValue(JsonWriter& w, Float16 v) { WriteValue(w, static_cast<float>(v)); }
inline void WriteValue(JsonWriter& w, BFloat16 v) { WriteValue(w, static_cast<float>(v)); }

// The buffer's text.
std::string Text(const rapidjson::StringBuffer& buffer);
// The text WriteValue(double) writes for `d`, for messages.
std::string FormatDouble(double d);

}  // namespace tfn::serve
