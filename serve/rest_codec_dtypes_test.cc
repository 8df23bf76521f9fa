// Tests of the REST codec (serve/rest_codec.h) on the datatypes beyond BOOL,
// INT32, INT64, FP32 and FP64: INT8, INT16, UINT8, UINT16, UINT32, UINT64,
// FP16 and BF16. Integers are taken in their ranges only; JSON numbers round
// to FP16 and BF16 to nearest even (once: not through FP32), and past the
// largest value plus half an ulp are errors; outputs are JSON numbers that
// read back to the same bits, or raw little-endian bytes in binary. Every
// expected value is worked out by hand (the bit patterns are IEEE 754
// binary16 and bfloat16, the upper half of a binary32).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "serve/rest_codec.h"
#include "serve/rest_codec_test_util.h"

namespace tfn::serve {
namespace {

using rest_test::Body;
using rest_test::ParseV2;
using rest_test::Values;

// The bit patterns of an FP16 or BF16 tensor.
std::vector<uint16_t> Bits(const ConstTensor& t) {
  EXPECT_EQ(DTypeSize(t.dtype), 2);
  return std::vector<uint16_t>(static_cast<const uint16_t*>(t.data),
                               static_cast<const uint16_t*>(t.data) + t.num_elements());
}

template <class T>
ConstTensor Make(const Shape& shape, const std::vector<T>& values) {
  return ConstTensor::Copy(DTypeOf<T>::value, shape, values.data());
}

// An FP16 or BF16 tensor of the given bit patterns.
ConstTensor MakeBits(DType dtype, const Shape& shape, const std::vector<uint16_t>& bits) {
  return ConstTensor::Copy(dtype, shape, bits.data());
}

runtime::SignatureInfo Signature(const std::string& name, const std::string& input, DType dtype,
                                 const Shape& shape) {
  runtime::SignatureInfo s;
  s.name = name;
  runtime::TensorInfo info;
  info.name = input;
  info.dtype = dtype;
  info.shape = shape;
  s.inputs.push_back(info);
  return s;
}

// The error must be kInvalidArgument, contain `fragment` and be one line.
void ExpectError(const Status& s, const std::string& fragment) {
  ASSERT_FALSE(s.ok()) << "expected an error containing: " << fragment;
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find(fragment), std::string::npos)
      << "message: " << s.message() << "\nexpected fragment: " << fragment;
  EXPECT_EQ(s.message().find('\n'), std::string::npos) << s.message();
}

// One input `name` of `datatype` with `data` (a JSON array's text).
std::string OneInput(const std::string& datatype, int64_t n, const std::string& data) {
  return R"({"inputs":[{"name":"v","shape":[)" + std::to_string(n) + R"(],"datatype":")" +
         datatype + R"(","data":)" + data + "}]}";
}

std::string Renamed(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from << " not in " << text;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// ---------------------------------------------------------------------------
// Integers.

TEST(RestCodecDtypes, ParsesIntegersAtTheEdgesOfTheirRanges) {
  auto r = ParseV2(R"({"inputs":[
      {"name":"c","shape":[3],"datatype":"INT8","data":[-128,127,0]},
      {"name":"s","shape":[2],"datatype":"INT16","data":[-32768,32767]},
      {"name":"p","shape":[2,2],"datatype":"UINT8","data":[[0,255],[1,128]]},
      {"name":"w","shape":[2],"datatype":"UINT16","data":[0,65535]},
      {"name":"u","shape":[2],"datatype":"UINT32","data":[0,4294967295]},
      {"name":"q","shape":[3],"datatype":"UINT64",
       "data":[0,9223372036854775808,18446744073709551615]}]})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto& in = r->request.inputs;
  ASSERT_EQ(in.size(), 6u);
  EXPECT_EQ(in[0].tensor.dtype, DType::kInt8);
  EXPECT_EQ(Values<int8_t>(in[0].tensor), (std::vector<int8_t>{-128, 127, 0}));
  EXPECT_EQ(in[1].tensor.dtype, DType::kInt16);
  EXPECT_EQ(Values<int16_t>(in[1].tensor), (std::vector<int16_t>{-32768, 32767}));
  EXPECT_EQ(in[2].tensor.dtype, DType::kUInt8);
  EXPECT_EQ(in[2].tensor.shape, (Shape{2, 2}));
  EXPECT_EQ(Values<uint8_t>(in[2].tensor), (std::vector<uint8_t>{0, 255, 1, 128}));
  EXPECT_EQ(in[3].tensor.dtype, DType::kUInt16);
  EXPECT_EQ(Values<uint16_t>(in[3].tensor), (std::vector<uint16_t>{0, 65535}));
  EXPECT_EQ(in[4].tensor.dtype, DType::kUInt32);
  EXPECT_EQ(Values<uint32_t>(in[4].tensor), (std::vector<uint32_t>{0, 4294967295u}));
  EXPECT_EQ(in[5].tensor.dtype, DType::kUInt64);
  EXPECT_EQ(Values<uint64_t>(in[5].tensor),
            (std::vector<uint64_t>{0, uint64_t{1} << 63, std::numeric_limits<uint64_t>::max()}));
}

TEST(RestCodecDtypes, RefusesIntegersBeyondTheirRanges) {
  struct Case {
    const char* datatype;
    const char* data;
    const char* fragment;
  };
  const Case cases[] = {
      {"INT8", "[0,128]",
       "input 'v': element 1 should be an integer in INT8's range [-128, 127] but is the "
       "integer 128"},
      {"INT8", "[-129]", "an integer in INT8's range [-128, 127] but is the integer -129"},
      {"INT8", "[1.5]", "element 0 should be an integer (INT8) but is the number 1.5"},
      {"INT16", "[32768]", "an integer in INT16's range [-32768, 32767] but is the integer 32768"},
      {"INT16", "[-32769]",
       "an integer in INT16's range [-32768, 32767] but is the integer -32769"},
      {"UINT8", "[256]", "an integer in UINT8's range [0, 255] but is the integer 256"},
      {"UINT8", "[-1]", "an integer in UINT8's range [0, 255] but is the integer -1"},
      {"UINT8", "[\"7\"]", "element 0 should be an integer (UINT8) but is the string '7'"},
      {"UINT8", "[true]", "element 0 should be an integer (UINT8) but is true"},
      {"UINT16", "[65536]", "an integer in UINT16's range [0, 65535] but is the integer 65536"},
      {"UINT32", "[4294967296]",
       "an integer in UINT32's range [0, 4294967295] but is the integer 4294967296"},
      {"UINT32", "[-1]", "an integer in UINT32's range [0, 4294967295] but is the integer -1"},
      {"UINT64", "[-1]",
       "an integer in UINT64's range [0, 18446744073709551615] but is the integer -1"},
      // Past 2^64 the reader has only a double: no integer at all.
      {"UINT64", "[18446744073709551616]", "element 0 should be an integer (UINT64) but is the "},
      {"UINT64", "[1e3]", "element 0 should be an integer (UINT64) but is the number"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.datatype) + " " + c.data);
    std::string data = c.data;
    int64_t n = std::count(data.begin(), data.end(), ',') + 1;
    ExpectError(ParseV2(OneInput(c.datatype, n, data)).status(), c.fragment);
  }
}

// ---------------------------------------------------------------------------
// FP16 and BF16.

TEST(RestCodecDtypes, Fp16RoundsJsonNumbersToNearestEven) {
  auto r = ParseV2(OneInput("FP16", 14,
                            "[1, -2.5, 0.1, 65504, 65519.99, -0.0, 1e-8,"
                            " 2.9802322387695312e-8, 2.980232238769532e-8,"
                            " 1.00048828125, 1.00146484375, 1.0004882812509095,"
                            " Infinity, -Infinity]"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->request.inputs[0].tensor.dtype, DType::kFloat16);
  EXPECT_EQ(Bits(r->request.inputs[0].tensor),
            (std::vector<uint16_t>{
                0x3c00,  // 1
                0xc100,  // -2.5 = -1.25 * 2^1
                0x2e66,  // 0.1 = 1.6 * 2^-4: mantissa 0.6 * 1024 = 614.4 -> 614
                0x7bff,  // 65504, the largest FP16
                0x7bff,  // below 65520 (65504 + half its ulp of 32) rounds down to it
                0x8000,  // -0
                0x0000,  // below 2^-25, half the smallest subnormal: 0
                0x0000,  // 2^-25 exactly: a tie, to the even 0
                0x0001,  // just above 2^-25: the smallest subnormal, 2^-24
                0x3c00,  // 1 + 2^-11: a tie between 1 and 1 + 2^-10, to the even 1
                0x3c02,  // 1 + 3 * 2^-11: a tie, to the even 1 + 2^-9
                // 1 + 2^-11 + 2^-40, just above the tie: 1 + 2^-10. Through
                // the nearest float (1 + 2^-11) it would round twice, to 1.
                0x3c01,
                0x7c00,  // Infinity
                0xfc00,  // -Infinity
            }));
  auto nan = ParseV2(OneInput("FP16", 1, "[NaN]"));
  ASSERT_TRUE(nan.ok()) << nan.status().ToString();
  EXPECT_TRUE(std::isnan(static_cast<float>(nan->request.inputs[0].tensor.as<Float16>()[0])));
}

TEST(RestCodecDtypes, Bf16RoundsJsonNumbersToNearestEven) {
  auto r = ParseV2(OneInput("BF16", 10,
                            "[1, -2.5, 0.1, 3.3895314e38, 3.3961775e38, 1.00390625,"
                            " 1.01171875, 1.0039062500009095, 9.183549615799121e-41, 1e-45]"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->request.inputs[0].tensor.dtype, DType::kBFloat16);
  EXPECT_EQ(Bits(r->request.inputs[0].tensor),
            (std::vector<uint16_t>{
                0x3f80,  // 1
                0xc020,  // -2.5
                0x3dcd,  // 0.1: float 0x3dcccccd, low half 0xcccd above the tie: up
                0x7f7f,  // the largest BF16, 0x1.fep127
                0x7f7f,  // below 0x1.ffp127 (it plus half its ulp) rounds down to it
                0x3f80,  // 1 + 2^-8: a tie between 1 and 1 + 2^-7, to the even 1
                0x3f82,  // 1 + 3 * 2^-8: a tie, to the even 1 + 2^-6
                0x3f81,  // 1 + 2^-8 + 2^-40, just above the tie (not twice rounded to 1)
                0x0001,  // 2^-133, the smallest subnormal
                0x0000,  // far below it: 0
            }));
}

TEST(RestCodecDtypes, Fp16AndBf16BeyondTheirRangesAreErrors) {
  // As for FP32: a number that would round to infinity is refused, not sent
  // to the model as infinity (Infinity itself is taken: see above).
  const char* kFp16Range =
      "should be a number in FP16's range (magnitude below 65520; the largest FP16 is 65504)";
  ExpectError(ParseV2(OneInput("FP16", 1, "[65520]")).status(),
              std::string("input 'v': element 0 ") + kFp16Range + " but is the integer 65520");
  ExpectError(ParseV2(OneInput("FP16", 2, "[1, -65520.5]")).status(),
              std::string("element 1 ") + kFp16Range + " but is the number -65520.5");
  ExpectError(ParseV2(OneInput("FP16", 1, "[1e300]")).status(), kFp16Range);
  const char* kBf16Range =
      "should be a number in BF16's range (magnitude below 3.3961775e38; the largest BF16 is "
      "3.3895314e38)";
  ExpectError(ParseV2(OneInput("BF16", 1, "[3.3961776e38]")).status(),
              std::string("input 'v': element 0 ") + kBf16Range);
  ExpectError(ParseV2(OneInput("BF16", 1, "[-1e39]")).status(), kBf16Range);
  ExpectError(ParseV2(OneInput("FP16", 1, "[\"1\"]")).status(),
              "element 0 should be a number (FP16) but is the string '1'");
  ExpectError(ParseV2(OneInput("BF16", 1, "[null]")).status(),
              "element 0 should be a number (BF16) but is null");
}

// ---------------------------------------------------------------------------
// Responses.

InferResponse NewDtypesResponse() {
  InferResponse r;
  r.model = "m";
  r.outputs.push_back({"c", Make<int8_t>({3}, {-128, 127, 0})});
  r.outputs.push_back({"s", Make<int16_t>({2}, {-32768, 32767})});
  r.outputs.push_back({"p", Make<uint8_t>({2, 2}, {0, 255, 1, 128})});
  r.outputs.push_back({"w", Make<uint16_t>({1}, {65535})});
  r.outputs.push_back({"u", Make<uint32_t>({1}, {4294967295u})});
  r.outputs.push_back({"q", Make<uint64_t>({2}, {0, std::numeric_limits<uint64_t>::max()})});
  // 1, 0x2e66 (FP16's 0.1), 65504, -0, the smallest subnormal 2^-24, -inf.
  r.outputs.push_back(
      {"h", MakeBits(DType::kFloat16, {6}, {0x3c00, 0x2e66, 0x7bff, 0x8000, 0x0001, 0xfc00})});
  // 1, 0x3dcd (BF16's 0.1), the largest BF16, -2.5, the smallest subnormal 2^-133.
  r.outputs.push_back(
      {"g", MakeBits(DType::kBFloat16, {5}, {0x3f80, 0x3dcd, 0x7f7f, 0xc020, 0x0001})});
  return r;
}

TEST(RestCodecDtypes, WritesEveryDatatypeAsJsonNumbers) {
  EncodedBody e = EncodeV2InferResponse(NewDtypesResponse(), V2InferRequest{});
  // FP16 and BF16 values are written as the floats they are, with the
  // shortest digits of those (0x2e66 is 0.0999755859375, 0x3dcd
  // 0.10009765625).
  EXPECT_EQ(e.body,
            R"({"model_name":"m","id":"","outputs":[)"
            R"({"name":"c","datatype":"INT8","shape":[3],"data":[-128,127,0]},)"
            R"({"name":"s","datatype":"INT16","shape":[2],"data":[-32768,32767]},)"
            R"({"name":"p","datatype":"UINT8","shape":[2,2],"data":[0,255,1,128]},)"
            R"({"name":"w","datatype":"UINT16","shape":[1],"data":[65535]},)"
            R"({"name":"u","datatype":"UINT32","shape":[1],"data":[4294967295]},)"
            R"({"name":"q","datatype":"UINT64","shape":[2],"data":[0,18446744073709551615]},)"
            R"({"name":"h","datatype":"FP16","shape":[6],)"
            R"("data":[1.0,0.099975586,65504.0,-0.0,5.9604645e-08,-Infinity]},)"
            R"({"name":"g","datatype":"BF16","shape":[5],)"
            R"("data":[1.0,0.100097656,3.3895314e+38,-2.5,9.1835e-41]}]})");
  // The same in TF Serving's columnar format, nested in the shape.
  InferResponse p;
  p.outputs.push_back({"p", Make<uint8_t>({2, 2}, {0, 255, 1, 128})});
  p.outputs.push_back({"h", MakeBits(DType::kFloat16, {2, 1}, {0x3c00, 0x2e66})});
  EXPECT_EQ(*EncodeV1PredictResponse(p, true),
            R"({"outputs":{"p":[[0,255],[1,128]],"h":[[1.0],[0.099975586]]}})");
  EXPECT_EQ(*EncodeV1PredictResponse(p, false),
            R"({"predictions":[{"p":[0,255],"h":[1.0]},{"p":[1,128],"h":[0.099975586]}]})");
}

TEST(RestCodecDtypes, EveryDatatypeRoundTripsThroughJsonAndBinary) {
  InferResponse r = NewDtypesResponse();
  EncodedBody json = EncodeV2InferResponse(r, V2InferRequest{});
  auto back = ParseV2(Renamed(json.body, "\"outputs\":", "\"inputs\":"));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->request.inputs.size(), r.outputs.size());
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    EXPECT_TRUE(back->request.inputs[i].tensor.BytesEqual(r.outputs[i].tensor)) << i;
  }

  V2InferRequest binary;
  binary.binary_data_output = true;
  EncodedBody bin = EncodeV2InferResponse(r, binary);
  EXPECT_NE(bin.body.find(R"({"name":"h","datatype":"FP16","shape":[6],)"
                          R"("parameters":{"binary_data_size":12}})"),
            std::string::npos)
      << bin.body.substr(0, static_cast<size_t>(bin.header_length));
  // The bytes after the JSON: each output's, little-endian, in order;
  // FP16's 1.0 is 0x3c00, so its first two bytes are 00 3c.
  const std::string tail = bin.body.substr(static_cast<size_t>(bin.header_length));
  ASSERT_EQ(tail.size(), 3u + 4 + 4 + 2 + 4 + 16 + 12 + 10);
  EXPECT_EQ(tail.substr(0, 3), std::string("\x80\x7f\x00", 3));       // INT8 -128, 127, 0
  EXPECT_EQ(tail.substr(7, 4), std::string("\x00\xff\x01\x80", 4));   // UINT8
  EXPECT_EQ(tail.substr(33, 4), std::string("\x00\x3c\x66\x2e", 4));  // FP16 1, 0.1
  auto again = ParseV2InferRequest(Body(Renamed(bin.body, "\"outputs\":", "\"inputs\":")),
                                   bin.header_length - 1, nullptr);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    EXPECT_TRUE(again->request.inputs[i].tensor.BytesEqual(r.outputs[i].tensor)) << i;
  }
}

// Every FP16 and BF16 value but NaN is written as digits that parse back to
// its own bits (NaN is written NaN and parses to a NaN).
TEST(RestCodecDtypes, EveryFp16AndBf16ValueRoundTripsThroughJson) {
  for (DType dtype : {DType::kFloat16, DType::kBFloat16}) {
    SCOPED_TRACE(dtype == DType::kFloat16 ? "FP16" : "BF16");
    std::vector<uint16_t> bits;
    for (uint32_t b = 0; b <= 0xffff; ++b) {
      uint16_t h = static_cast<uint16_t>(b);
      float f = dtype == DType::kFloat16 ? HalfBitsToFloat(h) : BFloat16BitsToFloat(h);
      if (!std::isnan(f)) bits.push_back(h);
    }
    InferResponse r;
    r.outputs.push_back({"v", MakeBits(dtype, {static_cast<int64_t>(bits.size())}, bits)});
    EncodedBody e = EncodeV2InferResponse(r, V2InferRequest{});
    auto back = ParseV2(Renamed(e.body, "\"outputs\":", "\"inputs\":"));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    std::vector<uint16_t> got = Bits(back->request.inputs[0].tensor);
    ASSERT_EQ(got.size(), bits.size());
    for (size_t i = 0; i < bits.size(); ++i) {
      ASSERT_EQ(got[i], bits[i]) << "bits 0x" << std::hex << bits[i];
    }
  }
}

// ---------------------------------------------------------------------------
// Binary inputs and raw requests.

// `json` padded with spaces so that the binary part starts at an address
// that is `remainder` mod 8, then `binary`.
std::shared_ptr<const std::string> BinaryBody(std::string json, const std::string& binary,
                                              size_t remainder, int64_t* header_length) {
  auto body = std::make_shared<std::string>();
  body->reserve(json.size() + 16 + binary.size());
  const char* base = body->data();
  while ((reinterpret_cast<uintptr_t>(base) + json.size()) % 8 != remainder) json += ' ';
  *header_length = static_cast<int64_t>(json.size());
  body->append(json).append(binary);
  EXPECT_EQ(body->data(), base);  // no reallocation: the alignment holds
  return body;
}

TEST(RestCodecDtypes, BinaryInputsAreLittleEndianBytes) {
  const std::string json = R"({"inputs":[
      {"name":"p","shape":[3],"datatype":"UINT8","parameters":{"binary_data_size":3}},
      {"name":"h","shape":[2],"datatype":"FP16","parameters":{"binary_data_size":4}},
      {"name":"g","shape":[1],"datatype":"BF16","parameters":{"binary_data_size":2}},
      {"name":"q","shape":[1],"datatype":"UINT64","parameters":{"binary_data_size":8}}]})";
  // UINT8 7, 0, 255; FP16 1.0 (0x3c00), -2.5 (0xc100); BF16 0.1 (0x3dcd); UINT64 2^63 + 1.
  const std::string bytes(
      "\x07\x00\xff"
      "\x00\x3c\x00\xc1"
      "\xcd\x3d"
      "\x01\x00\x00\x00\x00\x00\x00\x80",
      17);
  for (size_t remainder : {0u, 1u}) {
    SCOPED_TRACE("binary data at " + std::to_string(remainder) + " mod 8");
    int64_t header = 0;
    auto body = BinaryBody(json, bytes, remainder, &header);
    auto r = ParseV2InferRequest(body, header, nullptr);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const auto& in = r->request.inputs;
    EXPECT_EQ(Values<uint8_t>(in[0].tensor), (std::vector<uint8_t>{7, 0, 255}));
    EXPECT_EQ(in[0].tensor.data, body->data() + header);  // bytes need no alignment: a view
    EXPECT_EQ(Bits(in[1].tensor), (std::vector<uint16_t>{0x3c00, 0xc100}));
    EXPECT_EQ(static_cast<float>(in[1].tensor.as<Float16>()[1]), -2.5f);
    EXPECT_EQ(Bits(in[2].tensor), (std::vector<uint16_t>{0x3dcd}));
    EXPECT_EQ(Values<uint64_t>(in[3].tensor), (std::vector<uint64_t>{(uint64_t{1} << 63) + 1}));
    // FP16 starts 3 bytes in: aligned to 2 only when the data starts odd.
    const char* h = static_cast<const char*>(in[1].tensor.data);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(h) % 2, 0u);
    EXPECT_EQ(h == body->data() + header + 3, remainder == 1);
  }
  int64_t header = 0;
  auto wrong = BinaryBody(
      R"({"inputs":[{"name":"h","shape":[3],"datatype":"FP16","parameters":{"binary_data_size":3}}]})",
      "abc", 0, &header);
  ExpectError(ParseV2InferRequest(wrong, header, nullptr).status(),
              "input 'h': parameters.binary_data_size is 3 but FP16 [3] takes 6 bytes");
}

TEST(RestCodecDtypes, RawBinaryRequestOfUint8AndFp16) {
  runtime::SignatureInfo image = Signature("s", "p", DType::kUInt8, {kDynamic, 2, 3});
  auto r = ParseV2InferRequest(
      Body(std::string("\x00\x01\x02\x03\x04\x05\xfa\xfb\xfc\xfd\xfe\xff", 12)), 0, &image);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->request.inputs[0].tensor.shape, (Shape{2, 2, 3}));
  EXPECT_EQ(Values<uint8_t>(r->request.inputs[0].tensor),
            (std::vector<uint8_t>{0, 1, 2, 3, 4, 5, 250, 251, 252, 253, 254, 255}));

  runtime::SignatureInfo halves = Signature("s", "h", DType::kFloat16, {kDynamic});
  auto h = ParseV2InferRequest(Body(std::string("\x00\x3c\x00\x7c", 4)), 0, &halves);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(Bits(h->request.inputs[0].tensor), (std::vector<uint16_t>{0x3c00, 0x7c00}));
  ExpectError(ParseV2InferRequest(Body("abc"), 0, &halves).status(),
              "input 'h' (FP16 [?]): the body's 3 bytes are not a whole number of 2-byte steps");
}

// ---------------------------------------------------------------------------
// TF Serving's predict: types come from the signature.

TEST(RestCodecDtypes, V1PredictTakesTheSignaturesDatatypes) {
  runtime::SignatureInfo image = Signature("serving_default", "p", DType::kUInt8, {kDynamic, 2});
  auto rows = ParseV1PredictRequest(Body(R"({"instances":[[0,255],[7,8]]})"), image, nullptr);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->inputs[0].tensor.dtype, DType::kUInt8);
  EXPECT_EQ(Values<uint8_t>(rows->inputs[0].tensor), (std::vector<uint8_t>{0, 255, 7, 8}));
  ExpectError(ParseV1PredictRequest(Body(R"({"instances":[[0,256]]})"), image, nullptr).status(),
              "input 'p' of instance 0: element 1 should be an integer in UINT8's range [0, 255] "
              "but is the integer 256");

  runtime::SignatureInfo halves = Signature("serving_default", "h", DType::kFloat16, {kDynamic});
  bool columnar = false;
  auto cols = ParseV1PredictRequest(Body(R"({"inputs":{"h":[0.1,-Infinity]}})"), halves, &columnar);
  ASSERT_TRUE(cols.ok()) << cols.status().ToString();
  EXPECT_TRUE(columnar);
  EXPECT_EQ(Bits(cols->inputs[0].tensor), (std::vector<uint16_t>{0x2e66, 0xfc00}));
  ExpectError(ParseV1PredictRequest(Body(R"({"inputs":[70000]})"), halves, nullptr).status(),
              "input 'h': element 0 should be a number in FP16's range");
}

TEST(RestCodecDtypes, BytesIsStillRefused) {
  ExpectError(ParseV2(OneInput("BYTES", 1, "[\"abc\"]")).status(),
              "input 'v': 'BYTES' is an Open Inference Protocol datatype that tfn's bundles do "
              "not have yet; this server takes BOOL, UINT8, UINT16, UINT32, UINT64, INT8, INT16, "
              "INT32, INT64, FP16, FP32, FP64, BF16");
  ExpectError(ParseV2(OneInput("FLOAT16", 1, "[1]")).status(),
              "'FLOAT16' is not an Open Inference Protocol datatype; expected one of BOOL");
}

}  // namespace
}  // namespace tfn::serve
