// Tests of the REST codec (serve/rest_codec.h): v2 requests in JSON (flat
// and nested, every dtype), in binary (aligned views, misaligned copies) and
// raw; v2 responses in JSON (FP32 with its shortest digits) and binary,
// round-tripped through the parser; metadata, errors and TF Serving's v1
// predict (row and columnar) and model status; and hostile bodies, each of
// which must give kInvalidArgument with a one-line message naming what was
// wrong.
#include "serve/rest_codec.h"
#include "serve/rest_codec_test_util.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace tfn::serve {
namespace {

using rest_test::Body;
using rest_test::ParseV2;
using rest_test::Values;

std::vector<bool> Bools(const ConstTensor& t) {
  return std::vector<bool>(t.as<bool>(), t.as<bool>() + t.num_elements());
}

template <class T>
ConstTensor Make(const Shape& shape, const std::vector<T>& values) {
  return ConstTensor::Copy(DTypeOf<T>::value, shape, values.data());
}

ConstTensor MakeBools(const Shape& shape, const std::vector<char>& values) {
  return ConstTensor::Copy(DType::kBool, shape, values.data());
}

runtime::TensorInfo Info(const std::string& name, DType dtype, const Shape& shape) {
  runtime::TensorInfo info;
  info.name = name;
  info.dtype = dtype;
  info.shape = shape;
  return info;
}

runtime::SignatureInfo Signature(const std::string& name, std::vector<runtime::TensorInfo> inputs) {
  runtime::SignatureInfo s;
  s.name = name;
  s.inputs = std::move(inputs);
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

std::string ReplaceFirst(std::string s, const std::string& from, const std::string& to) {
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from << " not in " << s;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

// ---------------------------------------------------------------------------
// v2 requests in JSON.

TEST(RestCodecV2, ParsesEveryDtypeFlat) {
  auto r = ParseV2(R"({"id":"req-7","parameters":{"signature_name":"sig","binary_data_output":true},
    "inputs":[
      {"name":"b","shape":[2],"datatype":"BOOL","data":[true,false]},
      {"name":"i","shape":[2],"datatype":"INT32","data":[-2147483648,2147483647]},
      {"name":"l","shape":[3],"datatype":"INT64","data":[-9223372036854775808,9223372036854775807,9007199254740993]},
      {"name":"f","shape":[4],"datatype":"FP32","data":[1.5,-0.1,3,1e-45]},
      {"name":"d","shape":[3],"datatype":"FP64","data":[0.1,-2,1e308]}],
    "outputs":[{"name":"y","parameters":{"binary_data":false}},{"name":"z"}]})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const InferRequest& q = r->request;
  EXPECT_EQ(q.id, "req-7");
  EXPECT_EQ(q.signature, "sig");
  EXPECT_EQ(q.model, "");
  EXPECT_TRUE(r->binary_data_output);
  EXPECT_EQ(q.outputs, (std::vector<std::string>{"y", "z"}));
  EXPECT_EQ(r->binary_outputs, (std::map<std::string, bool>{{"y", false}}));
  EXPECT_EQ(q.keepalive, nullptr);  // nothing views the body
  ASSERT_EQ(q.inputs.size(), 5u);
  EXPECT_EQ(q.inputs[0].name, "b");
  EXPECT_EQ(q.inputs[0].tensor.dtype, DType::kBool);
  EXPECT_EQ(Bools(q.inputs[0].tensor), (std::vector<bool>{true, false}));
  EXPECT_EQ(q.inputs[1].tensor.dtype, DType::kInt32);
  EXPECT_EQ(Values<int32_t>(q.inputs[1].tensor),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), 2147483647}));
  EXPECT_EQ(q.inputs[2].tensor.dtype, DType::kInt64);
  EXPECT_EQ(Values<int64_t>(q.inputs[2].tensor),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::min(),
                                  std::numeric_limits<int64_t>::max(), 9007199254740993}));
  EXPECT_EQ(q.inputs[3].tensor.dtype, DType::kFloat32);
  EXPECT_EQ(q.inputs[3].tensor.shape, (Shape{4}));
  EXPECT_EQ(Values<float>(q.inputs[3].tensor),
            (std::vector<float>{1.5f, -0.1f, 3.0f, 1.40129846e-45f}));
  EXPECT_EQ(q.inputs[4].tensor.dtype, DType::kFloat64);
  EXPECT_EQ(Values<double>(q.inputs[4].tensor), (std::vector<double>{0.1, -2.0, 1e308}));
}

TEST(RestCodecV2, ParsesNestedData) {
  auto r = ParseV2(
      R"({"inputs":[{"name":"x","shape":[2,3],"datatype":"INT32","data":[[1,2,3],[4,5,6]]},
                    {"name":"s","shape":[],"datatype":"FP64","data":[2.5]},
                    {"name":"e","shape":[0,3],"datatype":"FP32","data":[]}]})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto& in = r->request.inputs;
  EXPECT_EQ(in[0].tensor.shape, (Shape{2, 3}));
  EXPECT_EQ(Values<int32_t>(in[0].tensor), (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(in[1].tensor.shape, Shape{});
  EXPECT_EQ(Values<double>(in[1].tensor), (std::vector<double>{2.5}));
  EXPECT_EQ(in[2].tensor.shape, (Shape{0, 3}));
  EXPECT_EQ(in[2].tensor.num_elements(), 0);
  EXPECT_TRUE(r->request.outputs.empty());
  EXPECT_FALSE(r->binary_data_output);
}

TEST(RestCodecV2, AcceptsNanInfinityAndUnderflow) {
  auto r = ParseV2(R"({"inputs":[{"name":"f","shape":[6],"datatype":"FP32",
      "data":[NaN,Infinity,-Infinity,1e-400,0.00000000001e-2147483639,3.4028235e38]}]})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<float> v = Values<float>(r->request.inputs[0].tensor);
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], std::numeric_limits<float>::infinity());
  EXPECT_EQ(v[2], -std::numeric_limits<float>::infinity());
  EXPECT_EQ(v[3], 0.0f);
  EXPECT_EQ(v[4], 0.0f);
  EXPECT_EQ(v[5], FLT_MAX);  // the shortest text of FLT_MAX is just above it as a double
}

struct HostileCase {
  const char* json;
  const char* fragment;
};

TEST(RestCodecV2, RefusesHostileJson) {
  const HostileCase cases[] = {
      {"", "the request body is not valid JSON: The document is empty. (at byte 0)"},
      {"{", "is not valid JSON"},
      {R"({"inputs":[]} x)",
       "is not valid JSON: The document root must not be followed by other values"},
      {"{\"inputs\":\"\xff\"}", "Invalid encoding in string"},
      // Unpaired UTF-16 surrogates in \u escapes: no characters, so no UTF-8
      // to echo them as (a name is echoed in messages and responses).
      {R"({"inputs":[{"name":"a\udc00","shape":[1],"datatype":"FP32","data":[1]}]})",
       "the request body is not valid JSON: The surrogate pair in string is invalid. (at byte"},
      {R"({"inputs":[{"name":"\ud800x","shape":[1],"datatype":"FP32","data":[1]}]})",
       "is not valid JSON: The surrogate pair in string is invalid."},
      {R"({"\udfff":1})", "is not valid JSON: The surrogate pair in string is invalid."},
      {"[]",
       "the request should be a JSON object {\"inputs\": [...]} but is an array of 0 elements"},
      {"{}", "the request has no \"inputs\""},
      {R"({"inputs":[]})",
       "\"inputs\" should be a non-empty array of input tensors but is an array of 0"},
      {R"({"inputs":{}})",
       "\"inputs\" should be a non-empty array of input tensors but is an object"},
      {R"({"inputs":[5]})", "inputs[0] should be an object with \"name\""},
      {R"({"inputs":[{"shape":[1],"datatype":"FP32","data":[1]}]})", "inputs[0] has no \"name\""},
      {R"({"inputs":[{"name":5}]})", "inputs[0]: \"name\" should be a string but is the integer 5"},
      {R"({"inputs":[{"name":"x","shape":[1],"data":[1]}]})", "input 'x' has no \"datatype\""},
      {R"({"inputs":[{"name":"x","datatype":"BYTES","shape":[1],"data":["a"]}]})",
       "input 'x': 'BYTES' is an Open Inference Protocol datatype that tfn's bundles do not have "
       "yet; this server takes BOOL, UINT8, UINT16, UINT32, UINT64, INT8, INT16, INT32, INT64, "
       "FP16, FP32, FP64, BF16"},
      {R"({"inputs":[{"name":"x","datatype":"F32","shape":[1],"data":[1]}]})",
       "input 'x': 'F32' is not an Open Inference Protocol datatype; expected one of BOOL, UINT8"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","data":[1]}]})", "input 'x' has no \"shape\""},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":"2","data":[1]}]})",
       "input 'x': \"shape\" should be an array of non-negative integers but is the string '2'"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[2,-1],"data":[1]}]})",
       "input 'x': shape[1] should be a non-negative integer but is the integer -1"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1.5],"data":[1]}]})",
       "shape[0] should be a non-negative integer but is the number 1.5"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1,1,1,1,1,1,1,1,1],"data":[1]}]})",
       "input 'x': \"shape\" has 9 dims; tfn tensors have at most 8"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[4294967296,4294967296],"data":[1]}]})",
       "input 'x': shape [4294967296,4294967296] holds more than 2^63 elements"},
      {R"({"inputs":[{"name":"x","datatype":"FP64","shape":[1152921504606846976],"data":[1]}]})",
       "input 'x': FP64 [1152921504606846976] takes more than 2^63 bytes"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[2,3],"data":[1,2,3,4,5]}]})",
       "input 'x': shape [2,3] holds 6 elements but data has 5"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1000000000],"data":[1]}]})",
       "input 'x': shape [1000000000] holds 1000000000 elements but data has 1"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1]}]})",
       "input 'x' has no \"data\" (and no parameters.binary_data_size)"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":1}]})",
       "input 'x': \"data\" should be an array (flat or nested, row-major) but is the integer 1"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":[[[[[[[[[1]]]]]]]]]}]})",
       "input 'x': \"data\" nests more than 8 arrays deep"},
      {R"({"inputs":[{"name":"b","datatype":"BOOL","shape":[2],"data":[true,1]}]})",
       "input 'b': element 1 should be true or false (BOOL) but is the integer 1"},
      {R"({"inputs":[{"name":"i","datatype":"INT32","shape":[2],"data":[1,2147483648]}]})",
       "input 'i': element 1 should be an integer in INT32's range [-2147483648, 2147483647] but "
       "is the "
       "integer 2147483648"},
      {R"({"inputs":[{"name":"i","datatype":"INT32","shape":[1],"data":[-2147483649]}]})",
       "element 0 should be an integer in INT32's range"},
      {R"({"inputs":[{"name":"i","datatype":"INT32","shape":[1],"data":[1.5]}]})",
       "input 'i': element 0 should be an integer (INT32) but is the number 1.5"},
      {R"({"inputs":[{"name":"l","datatype":"INT64","shape":[1],"data":[9223372036854775808]}]})",
       "input 'l': element 0 should be an integer in INT64's range [-9223372036854775808, "
       "9223372036854775807] but is the integer 9223372036854775808"},
      {R"({"inputs":[{"name":"l","datatype":"INT64","shape":[1],"data":[1e30]}]})",
       "input 'l': element 0 should be an integer (INT64) but is the number 1e30"},
      {R"({"inputs":[{"name":"f","datatype":"FP32","shape":[2],"data":[1,"1.0"]}]})",
       "input 'f': element 1 should be a number (FP32) but is the string '1.0'"},
      {R"({"inputs":[{"name":"f","datatype":"FP32","shape":[1],"data":[null]}]})",
       "element 0 should be a number (FP32) but is null"},
      {R"({"inputs":[{"name":"f","datatype":"FP32","shape":[1],"data":[1e39]}]})",
       "input 'f': element 0 should be a number in FP32's range (magnitude below 3.4028235e38) but "
       "is the "
       "number 1e39"},
      {R"({"inputs":[{"name":"d","datatype":"FP64","shape":[1],"data":[1e400]}]})",
       "is not valid JSON: Number too big to be stored in double"},
      {R"({"inputs":[{"name":"d","datatype":"FP64","shape":[1],"data":[99e307]}]})",
       "the request body: the number 99e307 is outside the range of a double"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":[1]},
                     {"name":"x","datatype":"FP32","shape":[1],"data":[2]}]})",
       "input 'x' appears twice in \"inputs\""},
      {R"({"id":5,"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":[1]}]})",
       "\"id\" should be a string but is the integer 5"},
      {R"({"parameters":[],"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":[1]}]})",
       "\"parameters\" should be an object but is an array of 0 elements"},
      {R"({"parameters":{"binary_data_output":"yes"},"inputs":[]})",
       "parameters.binary_data_output should be true or false but is the string 'yes'"},
      {R"({"parameters":{"signature_name":1},"inputs":[]})",
       "parameters.signature_name should be a string but is the integer 1"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":[1],"parameters":5}]})",
       "input 'x': \"parameters\" should be an object but is the integer 5"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":[1]}],"outputs":{}})",
       "\"outputs\" should be an array of {\"name\": ...} objects but is an object"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":[1]}],"outputs":[{}]})",
       "outputs[0] has no \"name\""},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":[1]}],
           "outputs":[{"name":"y","parameters":{"binary_data":1}}]})",
       "output 'y': parameters.binary_data should be true or false but is the integer 1"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":[1]}],
           "outputs":[{"name":"y"},{"name":"y"}]})",
       "output 'y' is requested twice in \"outputs\""},
      {R"({"inputs":[{"name":"a\nb","datatype":"FP32","shape":[1],"data":[]}]})",
       "input 'a\\x0ab': shape [1] holds 1 elements but data has 0"},
      {R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1],"parameters":{"binary_data_size":4}}]})",
       "input 'x' has parameters.binary_data_size but the request has no "
       "Inference-Header-Content-Length"},
  };
  for (const HostileCase& c : cases) {
    SCOPED_TRACE(c.json);
    ExpectError(ParseV2(c.json).status(), c.fragment);
  }
}

TEST(RestCodecV2, DeepNestingIsRefusedWithoutRecursion) {
  // A million nested arrays: the parser is iterative and the data walk stops at rank 8.
  std::string data = std::string(1000000, '[') + std::string(1000000, ']');
  ExpectError(
      ParseV2(R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":)" + data + "}]}")
          .status(),
      "nests more than 8 arrays deep");
  ExpectError(ParseV2(std::string(1000000, '[')).status(), "is not valid JSON");
}

TEST(RestCodecV2, NoBody) {
  ExpectError(ParseV2InferRequest(nullptr, -1, nullptr).status(), "has no body");
}

// ---------------------------------------------------------------------------
// v2 requests with binary data.

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

template <class T>
std::string Raw(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

TEST(RestCodecV2, AlignedBinaryInputIsAViewOfTheBody) {
  int64_t header = 0;
  auto body = BinaryBody(
      R"({"inputs":[{"name":"x","shape":[2],"datatype":"FP32","parameters":{"binary_data_size":8}}]})",
      Raw<float>({1.5f, -2.0f}), 0, &header);
  auto r = ParseV2InferRequest(body, header, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const ConstTensor& t = r->request.inputs[0].tensor;
  EXPECT_EQ(t.dtype, DType::kFloat32);
  EXPECT_EQ(t.shape, Shape{2});
  EXPECT_EQ(t.data, body->data() + header);
  EXPECT_EQ(t.owner.get(), static_cast<const void*>(body.get()));
  EXPECT_EQ(r->request.keepalive.get(), static_cast<const void*>(body.get()));
  EXPECT_EQ(Values<float>(t), (std::vector<float>{1.5f, -2.0f}));
}

TEST(RestCodecV2, MisalignedBinaryInputIsCopiedAligned) {
  int64_t header = 0;
  auto body = BinaryBody(
      R"({"inputs":[{"name":"x","shape":[3],"datatype":"FP64","parameters":{"binary_data_size":24}}]})",
      Raw<double>({0.1, -0.0, 1e300}), 3, &header);
  auto r = ParseV2InferRequest(body, header, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const ConstTensor& t = r->request.inputs[0].tensor;
  const char* p = static_cast<const char*>(t.data);
  EXPECT_FALSE(p >= body->data() && p < body->data() + body->size());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 8, 0u);
  EXPECT_EQ(std::memcmp(p, body->data() + header, 24), 0);
  EXPECT_TRUE(std::signbit(Values<double>(t)[1]));
  EXPECT_EQ(r->request.keepalive, nullptr);  // nothing views the body
}

TEST(RestCodecV2, SeveralBinaryInputsInJsonOrderBesideJsonData) {
  int64_t header = 0;
  std::string binary =
      Raw<int64_t>({-1, 1LL << 40}) + Raw<int32_t>({7, 8, 9}) + std::string("\x01\x00\x01", 3);
  auto body = BinaryBody(R"({"inputs":[
      {"name":"l","shape":[2],"datatype":"INT64","parameters":{"binary_data_size":16}},
      {"name":"j","shape":[1],"datatype":"FP32","data":[0.25]},
      {"name":"i","shape":[3,1],"datatype":"INT32","parameters":{"binary_data_size":12}},
      {"name":"b","shape":[3],"datatype":"BOOL","parameters":{"binary_data_size":3}}]})",
                         binary, 0, &header);
  auto r = ParseV2InferRequest(body, header, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto& in = r->request.inputs;
  EXPECT_EQ(Values<int64_t>(in[0].tensor), (std::vector<int64_t>{-1, 1LL << 40}));
  EXPECT_EQ(in[0].tensor.data, body->data() + header);
  EXPECT_EQ(Values<float>(in[1].tensor), (std::vector<float>{0.25f}));
  EXPECT_EQ(in[2].tensor.shape, (Shape{3, 1}));
  EXPECT_EQ(Values<int32_t>(in[2].tensor), (std::vector<int32_t>{7, 8, 9}));
  EXPECT_EQ(in[2].tensor.data, body->data() + header + 16);
  EXPECT_EQ(Bools(in[3].tensor), (std::vector<bool>{true, false, true}));
  EXPECT_NE(r->request.keepalive, nullptr);
}

TEST(RestCodecV2, RefusesBadBinaryData) {
  const std::string x8 =
      R"({"inputs":[{"name":"x","shape":[2],"datatype":"FP32","parameters":{"binary_data_size":8}}]})";
  std::string eight(8, '\0');
  auto parse = [](const std::string& json, const std::string& binary, int64_t header_delta = 0) {
    int64_t header = 0;
    auto body = BinaryBody(json, binary, 0, &header);
    return ParseV2InferRequest(body, header + header_delta, nullptr).status();
  };
  ExpectError(parse(x8, eight + "abcd"),
              "leaves 12 bytes of binary data after the JSON, but the inputs' binary_data_size add "
              "up to 8");
  ExpectError(
      parse(x8, "abcd"),
      "input 'x': its 8 bytes of binary data go past the end of the body (4 bytes are left");
  ExpectError(
      parse(R"({"inputs":[{"name":"x","shape":[2],"datatype":"FP32",
                        "parameters":{"binary_data_size":9223372036854775807}}]})",
            eight),
      "input 'x': parameters.binary_data_size is 9223372036854775807 but FP32 [2] takes 8 bytes");
  ExpectError(parse(R"({"inputs":[{"name":"x","shape":[1000000000],"datatype":"FP32",
                        "parameters":{"binary_data_size":4000000000}}]})",
                    eight),
              "its 4000000000 bytes of binary data go past the end of the body (8 bytes are left");
  ExpectError(parse(R"({"inputs":[{"name":"x","shape":[2],"datatype":"FP32",
                        "parameters":{"binary_data_size":-8}}]})",
                    eight),
              "parameters.binary_data_size should be a non-negative integer but is the integer -8");
  ExpectError(
      parse(R"({"inputs":[{"name":"x","shape":[2],"datatype":"FP32",
                        "parameters":{"binary_data_size":1e3}}]})",
            eight),
      "parameters.binary_data_size should be a non-negative integer but is the number 1000.0");
  ExpectError(parse(R"({"inputs":[{"name":"x","shape":[2],"datatype":"FP32","data":[1,2],
                        "parameters":{"binary_data_size":8}}]})",
                    eight),
              "input 'x' has both \"data\" and parameters.binary_data_size");
  ExpectError(parse(R"({"inputs":[{"name":"b","shape":[2],"datatype":"BOOL",
                        "parameters":{"binary_data_size":2}}]})",
                    std::string("\x01\x02", 2)),
              "input 'b': BOOL element 1 is the byte 2; binary BOOL elements are one byte, 0 or 1");
  // A header length that cuts the JSON short.
  ExpectError(parse(x8, eight, -12), "the request's JSON header is not valid JSON");
  auto body = Body(x8 + eight);
  ExpectError(ParseV2InferRequest(body, static_cast<int64_t>(body->size()) + 1, nullptr).status(),
              "Inference-Header-Content-Length is " + std::to_string(body->size() + 1) +
                  " but the body has only " + std::to_string(body->size()) + " bytes");
  ExpectError(ParseV2InferRequest(body, -2, nullptr).status(),
              "Inference-Header-Content-Length should be a byte count but is -2");
}

// ---------------------------------------------------------------------------
// Raw binary requests (Inference-Header-Content-Length: 0).

TEST(RestCodecV2, RawBinaryRequestInfersTheDynamicDim) {
  runtime::SignatureInfo sig =
      Signature("serving_default", {Info("x", DType::kFloat32, {kDynamic, 3})});
  std::vector<float> values = {1, 2, 3, 4, 5, 6};
  auto body = Body(Raw(values));
  auto r = ParseV2InferRequest(body, 0, &sig);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->request.inputs.size(), 1u);
  EXPECT_EQ(r->request.inputs[0].name, "x");
  EXPECT_EQ(r->request.inputs[0].tensor.shape, (Shape{2, 3}));
  EXPECT_EQ(Values<float>(r->request.inputs[0].tensor), values);
  EXPECT_EQ(r->request.signature, "serving_default");
  EXPECT_TRUE(r->binary_data_output);
  EXPECT_EQ(r->request.keepalive.get(), static_cast<const void*>(body.get()));

  runtime::SignatureInfo fixed = Signature("s", {Info("b", DType::kBool, {2, 2})});
  auto b = ParseV2InferRequest(Body(std::string("\x01\x00\x00\x01", 4)), 0, &fixed);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(Bools(b->request.inputs[0].tensor), (std::vector<bool>{true, false, false, true}));
}

TEST(RestCodecV2, RawBinaryRequestErrors) {
  auto body = Body(std::string(20, '\0'));
  ExpectError(
      ParseV2InferRequest(body, 0, nullptr).status(),
      "a raw binary request (Inference-Header-Content-Length: 0) needs the model's signature");
  runtime::SignatureInfo two = Signature(
      "two", {Info("a", DType::kFloat32, {kDynamic}), Info("b", DType::kFloat32, {kDynamic})});
  ExpectError(
      ParseV2InferRequest(body, 0, &two).status(),
      "carries one input, but signature 'two' takes 2; send a JSON header that names each input");
  runtime::SignatureInfo rows = Signature("s", {Info("x", DType::kFloat32, {kDynamic, 3})});
  ExpectError(
      ParseV2InferRequest(body, 0, &rows).status(),
      "input 'x' (FP32 [?,3]): the body's 20 bytes are not a whole number of 12-byte steps");
  runtime::SignatureInfo dyn2 = Signature("s", {Info("x", DType::kFloat32, {kDynamic, kDynamic})});
  ExpectError(ParseV2InferRequest(body, 0, &dyn2).status(),
              "has 2 dynamic dims and only one can be inferred from the byte count");
  runtime::SignatureInfo fixed = Signature("s", {Info("x", DType::kFloat32, {2, 3})});
  ExpectError(ParseV2InferRequest(body, 0, &fixed).status(),
              "input 'x' (FP32 [2,3]) takes 24 bytes but the body has 20");
  runtime::SignatureInfo empty = Signature("s", {Info("x", DType::kFloat32, {kDynamic, 0})});
  ExpectError(ParseV2InferRequest(body, 0, &empty).status(),
              "has no elements whatever its dynamic dim");
  runtime::SignatureInfo flags = Signature("s", {Info("b", DType::kBool, {kDynamic})});
  ExpectError(ParseV2InferRequest(Body(std::string("\x00\x01\xff", 3)), 0, &flags).status(),
              "input 'b': BOOL element 2 is the byte 255");
}

// ---------------------------------------------------------------------------
// v2 responses.

InferResponse SampleResponse() {
  InferResponse r;
  r.model = "m";
  r.version = "2";
  r.id = "req-1";
  r.outputs.push_back({"y", Make<float>({2}, {0.5f, -1.0f})});
  r.outputs.push_back({"z", Make<int64_t>({1, 2}, {-3, 9007199254740993})});
  r.outputs.push_back({"b", MakeBools({2}, {1, 0})});
  r.outputs.push_back({"w", Make<int32_t>({}, {7})});
  r.outputs.push_back({"d", Make<double>({1}, {0.1})});
  return r;
}

TEST(RestCodecV2, EncodesJsonResponse) {
  EncodedBody e = EncodeV2InferResponse(SampleResponse(), V2InferRequest{});
  EXPECT_EQ(e.body, R"({"model_name":"m","model_version":"2","id":"req-1","outputs":[)"
                    R"({"name":"y","datatype":"FP32","shape":[2],"data":[0.5,-1.0]},)"
                    R"({"name":"z","datatype":"INT64","shape":[1,2],"data":[-3,9007199254740993]},)"
                    R"({"name":"b","datatype":"BOOL","shape":[2],"data":[true,false]},)"
                    R"({"name":"w","datatype":"INT32","shape":[],"data":[7]},)"
                    R"({"name":"d","datatype":"FP64","shape":[1],"data":[0.1]}]})");
  EXPECT_EQ(e.header_length, -1);
  EXPECT_EQ(e.content_type, "application/json");
}

TEST(RestCodecV2, Fp32RoundTripsThroughJson) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> values = {
      0.1f,        1.0f / 3, FLT_MAX, -FLT_MIN, std::numeric_limits<float>::denorm_min(), -0.0f,
      16777216.0f, 1e-7f,    inf,     -inf,     std::numeric_limits<float>::quiet_NaN()};
  InferResponse r;
  r.model = "m";
  r.outputs.push_back({"f", Make<float>({static_cast<int64_t>(values.size())}, values)});
  EncodedBody e = EncodeV2InferResponse(r, V2InferRequest{});
  EXPECT_NE(e.body.find("[0.1,"), std::string::npos) << e.body;
  EXPECT_NE(e.body.find("Infinity,-Infinity,NaN]"), std::string::npos) << e.body;
  // An output entry has a request input's fields: parse it back as one.
  auto back = ParseV2(ReplaceFirst(e.body, "\"outputs\":", "\"inputs\":"));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  std::vector<float> got = Values<float>(back->request.inputs[0].tensor);
  ASSERT_EQ(got.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::isnan(values[i])) {
      EXPECT_TRUE(std::isnan(got[i]));
    } else {
      EXPECT_EQ(std::memcmp(&got[i], &values[i], 4), 0)
          << i << ": " << got[i] << " vs " << values[i];
    }
  }
}

// FP32 is written with the shortest digits that give the float back, not
// those of the double it widens to.
TEST(RestCodecV2, Fp32IsWrittenWithItsShortestDigits) {
  InferResponse r;
  r.outputs.push_back({"f", Make<float>({6}, {0.1f, 1.0f, -0.0f, 1e-7f, 3.4028235e38f, 1e20f})});
  EncodedBody e = EncodeV2InferResponse(r, V2InferRequest{});
  EXPECT_NE(e.body.find(R"("data":[0.1,1.0,-0.0,1e-07,3.4028235e+38,1e+20])"), std::string::npos)
      << e.body;
  EXPECT_EQ(*EncodeV1PredictResponse(r, true),
            R"({"outputs":[0.1,1.0,-0.0,1e-07,3.4028235e+38,1e+20]})");
  // 7.038531e-26 read as a double rounds to the next float up (double
  // rounding, as in tfn's reader and Python's): that float gets the double's
  // digits.
  InferResponse odd;
  odd.outputs.push_back({"f", Make<float>({1}, {7.038531e-26f})});
  EXPECT_EQ(*EncodeV1PredictResponse(odd, true), R"({"outputs":[7.038530691851209e-26]})");
  // FP64 keeps the double's own shortest digits.
  InferResponse d;
  d.outputs.push_back({"d", Make<double>({1}, {static_cast<double>(0.1f)})});
  EXPECT_EQ(*EncodeV1PredictResponse(d, true), R"({"outputs":[0.10000000149011612]})");
}

// Random floats of every exponent (subnormals, the extremes, both zeros)
// come back bit for bit through the v2 and v1 encoders and parsers.
TEST(RestCodecV2, RandomFp32RoundTripBitExactly) {
  std::mt19937 random(20240611);
  std::vector<float> values = {FLT_MAX,
                               -FLT_MAX,
                               FLT_MIN,
                               -FLT_MIN,
                               std::numeric_limits<float>::denorm_min(),
                               -std::numeric_limits<float>::denorm_min(),
                               std::nextafter(FLT_MIN, 0.0f),  // the largest subnormal
                               std::nextafter(FLT_MAX, 0.0f),
                               0.0f,
                               -0.0f,
                               7.038531e-26f,  // its shortest digits, read as a double, miss it
                               -7.038531e-26f};
  while (values.size() < 10000) {
    uint32_t bits = static_cast<uint32_t>(random());
    if (values.size() % 8 == 0) bits &= 0x807fffffu;  // a subnormal (or zero) every 8th
    float f = 0;
    std::memcpy(&f, &bits, 4);
    if (!std::isnan(f)) values.push_back(f);
  }
  InferResponse r;
  r.outputs.push_back({"f", Make<float>({static_cast<int64_t>(values.size())}, values)});
  auto expect_same = [&](const ConstTensor& got) {
    ASSERT_EQ(got.num_elements(), static_cast<int64_t>(values.size()));
    const float* g = got.as<float>();
    for (size_t i = 0; i < values.size(); ++i) {
      ASSERT_EQ(std::memcmp(&g[i], &values[i], 4), 0) << i << ": " << g[i] << " vs " << values[i];
    }
  };
  EncodedBody e = EncodeV2InferResponse(r, V2InferRequest{});
  auto v2 = ParseV2(ReplaceFirst(e.body, "\"outputs\":", "\"inputs\":"));
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  expect_same(v2->request.inputs[0].tensor);

  runtime::SignatureInfo sig = Signature("s", {Info("f", DType::kFloat32, {kDynamic})});
  std::string v1_text = *EncodeV1PredictResponse(r, true);
  auto v1 = ParseV1PredictRequest(Body(ReplaceFirst(v1_text, "\"outputs\":", "\"inputs\":")), sig,
                                  nullptr);
  ASSERT_TRUE(v1.ok()) << v1.status().ToString();
  expect_same(v1->inputs[0].tensor);
}

TEST(RestCodecV2, EveryDtypeRoundTripsThroughJson) {
  EncodedBody e = EncodeV2InferResponse(SampleResponse(), V2InferRequest{});
  auto back = ParseV2(ReplaceFirst(e.body, "\"outputs\":", "\"inputs\":"));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  InferResponse expected = SampleResponse();
  ASSERT_EQ(back->request.inputs.size(), expected.outputs.size());
  for (size_t i = 0; i < expected.outputs.size(); ++i) {
    EXPECT_EQ(back->request.inputs[i].name, expected.outputs[i].name);
    EXPECT_TRUE(back->request.inputs[i].tensor.BytesEqual(expected.outputs[i].tensor)) << i;
  }
  EXPECT_EQ(back->request.id, "req-1");
}

TEST(RestCodecV2, EncodesBinaryOutputs) {
  InferResponse r;
  r.model = "m";
  r.outputs.push_back({"y", Make<float>({2}, {1.5f, -2.0f})});
  r.outputs.push_back({"z", Make<int32_t>({3}, {1, 2, 3})});
  r.outputs.push_back({"b", MakeBools({2}, {0, 1})});
  V2InferRequest how;
  how.binary_data_output = true;
  how.binary_outputs["z"] = false;  // a per-output binary_data overrides binary_data_output
  EncodedBody e = EncodeV2InferResponse(r, how);
  const std::string json =
      R"({"model_name":"m","id":"","outputs":[)"
      R"({"name":"y","datatype":"FP32","shape":[2],"parameters":{"binary_data_size":8}},)"
      R"({"name":"z","datatype":"INT32","shape":[3],"data":[1,2,3]},)"
      R"({"name":"b","datatype":"BOOL","shape":[2],"parameters":{"binary_data_size":2}}]})";
  EXPECT_EQ(e.header_length, static_cast<int64_t>(json.size()));
  EXPECT_EQ(e.content_type, "application/octet-stream");
  EXPECT_EQ(e.body, json + Raw<float>({1.5f, -2.0f}) + std::string("\x00\x01", 2));

  // Parsed back as a request (outputs -> inputs is one byte shorter).
  auto body = Body(ReplaceFirst(e.body, "\"outputs\":", "\"inputs\":"));
  auto back = ParseV2InferRequest(body, e.header_length - 1, nullptr);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    EXPECT_TRUE(back->request.inputs[i].tensor.BytesEqual(r.outputs[i].tensor)) << i;
  }
}

TEST(RestCodecV2, BinaryOnlyForOutputsThatAskForIt) {
  InferResponse r;
  r.outputs.push_back({"y", Make<float>({1}, {1.0f})});
  r.outputs.push_back({"z", Make<float>({1}, {2.0f})});
  V2InferRequest how;
  how.binary_outputs["z"] = true;
  EncodedBody e = EncodeV2InferResponse(r, how);
  EXPECT_NE(e.body.find(R"({"name":"y","datatype":"FP32","shape":[1],"data":[1.0]})"),
            std::string::npos);
  EXPECT_EQ(e.body.substr(static_cast<size_t>(e.header_length)), Raw<float>({2.0f}));
}

// ---------------------------------------------------------------------------
// Metadata and errors.

TEST(RestCodecMetadata, ServerMetadata) {
  EXPECT_EQ(EncodeServerMetadata("tfn", "0.3.0", {"binary_tensor_data"}),
            R"({"name":"tfn","version":"0.3.0","extensions":["binary_tensor_data"]})");
}

TEST(RestCodecMetadata, ModelReady) {
  EXPECT_EQ(EncodeModelReady("mlp", true), R"({"name":"mlp","ready":true})");
  EXPECT_EQ(EncodeModelReady("a\"b", false), R"({"name":"a\"b","ready":false})");
}

TEST(RestCodecMetadata, ModelMetadata) {
  ModelMetadata m;
  m.name = "mlp";
  m.versions = {"1", "3"};
  m.inputs = {{"x", "FP32", {-1, 784}}};
  m.outputs = {{"y", "FP32", {-1, 10}}};
  m.signatures = {{"serving_default", m.inputs, m.outputs}, {"embed", {{"t", "INT64", {}}}, {}}};
  EXPECT_EQ(
      EncodeModelMetadata(m),
      R"({"name":"mlp","versions":["1","3"],"platform":"tfn",)"
      R"("inputs":[{"name":"x","datatype":"FP32","shape":[-1,784]}],)"
      R"("outputs":[{"name":"y","datatype":"FP32","shape":[-1,10]}],)"
      R"("signatures":[{"name":"serving_default",)"
      R"("inputs":[{"name":"x","datatype":"FP32","shape":[-1,784]}],)"
      R"("outputs":[{"name":"y","datatype":"FP32","shape":[-1,10]}]},)"
      R"({"name":"embed","inputs":[{"name":"t","datatype":"INT64","shape":[]}],"outputs":[]}]})");
}

TEST(RestCodecMetadata, ErrorIsValidJsonWhateverTheMessage) {
  EXPECT_EQ(EncodeError("bad \"x\"\n\xff\xc3\xa9"), "{\"error\":\"bad \\\"x\\\"\\n?\xc3\xa9\"}");
  // It parses back as JSON with the same message (invalid bytes replaced).
  auto parsed = ParseV2(EncodeError(std::string("a\0b", 3)));
  ExpectError(parsed.status(), "the request has no \"inputs\"");
}

TEST(RestCodecMetadata, V1ModelStatus) {
  EXPECT_EQ(
      EncodeV1ModelStatus({{1, "AVAILABLE", ""}, {2, "END", "failed to load: bad file"}}),
      R"({"model_version_status":[)"
      R"({"version":"1","state":"AVAILABLE","status":{"error_code":"OK","error_message":""}},)"
      R"({"version":"2","state":"END","status":{"error_code":"UNKNOWN",)"
      R"("error_message":"failed to load: bad file"}}]})");
  EXPECT_EQ(EncodeV1ModelStatus({}), R"({"model_version_status":[]})");
}

// ---------------------------------------------------------------------------
// TF Serving's v1 predict.

const runtime::SignatureInfo kOne =
    Signature("serving_default", {Info("x", DType::kFloat32, {kDynamic, 3})});
const runtime::SignatureInfo kTwo =
    Signature("serving_default",
              {Info("a", DType::kInt64, {kDynamic}), Info("b", DType::kBool, {kDynamic, 2})});

Result<InferRequest> ParseV1(const std::string& json, const runtime::SignatureInfo& sig,
                             bool* columnar) {
  return ParseV1PredictRequest(Body(json), sig, columnar);
}

TEST(RestCodecV1, RowFormatOneInput) {
  bool columnar = true;
  auto r = ParseV1(R"({"instances":[[1,2,3],[4,5,6.5]]})", kOne, &columnar);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(columnar);
  EXPECT_EQ(r->signature, "serving_default");
  ASSERT_EQ(r->inputs.size(), 1u);
  EXPECT_EQ(r->inputs[0].name, "x");
  EXPECT_EQ(r->inputs[0].tensor.dtype, DType::kFloat32);
  EXPECT_EQ(r->inputs[0].tensor.shape, (Shape{2, 3}));
  EXPECT_EQ(Values<float>(r->inputs[0].tensor), (std::vector<float>{1, 2, 3, 4, 5, 6.5f}));

  // The same input named in each instance.
  auto named = ParseV1(R"({"instances":[{"x":[1,2,3]}]})", kOne, nullptr);
  ASSERT_TRUE(named.ok()) << named.status().ToString();
  EXPECT_EQ(named->inputs[0].tensor.shape, (Shape{1, 3}));

  // Scalar instances stack to a vector.
  runtime::SignatureInfo ids = Signature("s", {Info("id", DType::kInt32, {kDynamic})});
  auto scalars = ParseV1(R"({"instances":[5,-6,7]})", ids, nullptr);
  ASSERT_TRUE(scalars.ok()) << scalars.status().ToString();
  EXPECT_EQ(scalars->inputs[0].tensor.shape, Shape{3});
  EXPECT_EQ(Values<int32_t>(scalars->inputs[0].tensor), (std::vector<int32_t>{5, -6, 7}));
}

TEST(RestCodecV1, RowFormatSeveralInputs) {
  bool columnar = true;
  auto r = ParseV1(R"({"instances":[{"b":[true,false],"a":1},{"a":-2,"b":[false,true]}]})", kTwo,
                   &columnar);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(columnar);
  ASSERT_EQ(r->inputs.size(), 2u);
  EXPECT_EQ(r->inputs[0].name, "a");  // signature order
  EXPECT_EQ(r->inputs[0].tensor.shape, Shape{2});
  EXPECT_EQ(Values<int64_t>(r->inputs[0].tensor), (std::vector<int64_t>{1, -2}));
  EXPECT_EQ(r->inputs[1].name, "b");
  EXPECT_EQ(r->inputs[1].tensor.shape, (Shape{2, 2}));
  EXPECT_EQ(Bools(r->inputs[1].tensor), (std::vector<bool>{true, false, false, true}));
}

TEST(RestCodecV1, ColumnarFormat) {
  bool columnar = false;
  runtime::SignatureInfo f64 = Signature("s", {Info("x", DType::kFloat64, {kDynamic, 1})});
  auto one = ParseV1(R"({"inputs":[[1.5],[NaN],[-Infinity]]})", f64, &columnar);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_TRUE(columnar);
  EXPECT_EQ(one->inputs[0].tensor.shape, (Shape{3, 1}));
  std::vector<double> v = Values<double>(one->inputs[0].tensor);
  EXPECT_EQ(v[0], 1.5);
  EXPECT_TRUE(std::isnan(v[1]));
  EXPECT_EQ(v[2], -std::numeric_limits<double>::infinity());

  runtime::SignatureInfo scalar = Signature("s", {Info("k", DType::kInt32, {})});
  auto named = ParseV1(R"({"inputs":{"k":5}})", scalar, nullptr);
  ASSERT_TRUE(named.ok()) << named.status().ToString();
  EXPECT_EQ(named->inputs[0].tensor.shape, Shape{});
  EXPECT_EQ(Values<int32_t>(named->inputs[0].tensor), (std::vector<int32_t>{5}));

  // Several inputs, each with its own dim 0.
  auto two =
      ParseV1(R"({"signature_name":"serving_default","inputs":{"b":[[true,false]],"a":[7,8,9]}})",
              kTwo, &columnar);
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  EXPECT_EQ(two->inputs[0].name, "a");
  EXPECT_EQ(Values<int64_t>(two->inputs[0].tensor), (std::vector<int64_t>{7, 8, 9}));
  EXPECT_EQ(two->inputs[1].tensor.shape, (Shape{1, 2}));

  auto empty = ParseV1(R"({"inputs":[[],[]]})", kOne, nullptr);
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->inputs[0].tensor.shape, (Shape{2, 0}));
}

TEST(RestCodecV1, SignatureLookup) {
  runtime::SignatureInfo other = Signature("other", {Info("q", DType::kInt64, {kDynamic})});
  SignatureLookup find = [&](const std::string& name) -> Result<const runtime::SignatureInfo*> {
    if (name.empty()) return &kOne;
    if (name == "other") return &other;
    return NotFound("model 'm' has no signature '" + name + "'; it has serving_default, other");
  };
  auto r =
      ParseV1PredictRequest(Body(R"({"signature_name":"other","instances":[1,2]})"), find, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->signature, "other");
  EXPECT_EQ(Values<int64_t>(r->inputs[0].tensor), (std::vector<int64_t>{1, 2}));
  auto missing =
      ParseV1PredictRequest(Body(R"({"signature_name":"nope","instances":[1]})"), find, nullptr);
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(),
            "model 'm' has no signature 'nope'; it has serving_default, other");
  ExpectError(
      ParseV1(R"({"signature_name":"nope","instances":[[1,2,3]]})", kOne, nullptr).status(),
      "the body asks for signature 'nope' but this request is for signature 'serving_default'");
}

TEST(RestCodecV1, RefusesHostileBodies) {
  struct Case {
    const char* json;
    const runtime::SignatureInfo* sig;
    const char* fragment;
  };
  const Case cases[] = {
      {"nope", &kOne, "the request body is not valid JSON: Invalid value. (at byte 1)"},
      {"[1]", &kOne,
       "should be a JSON object {\"instances\": [...]} or {\"inputs\": ...} but is an array"},
      {R"({"instances":[[1,2,3]],"inputs":[[1,2,3]]})", &kOne,
       "the request has both \"instances\" (row format) and \"inputs\" (columnar format); send "
       "one"},
      {R"({"signature_name":"serving_default"})", &kOne,
       "has neither \"instances\" (row format) nor \"inputs\""},
      {R"({"signature_name":3,"instances":[]})", &kOne,
       "\"signature_name\" should be a string but is the integer 3"},
      {R"({"instances":{}})", &kOne,
       "\"instances\" should be a non-empty array with one entry per instance"},
      {R"({"instances":[]})", &kOne, "\"instances\" should be a non-empty array"},
      {R"({"instances":[[1,2,3],[4,5]]})", &kOne,
       "input 'x' of instance 1 has shape [2] but instance 0 has [3]; every instance must have the "
       "same shape"},
      {R"({"instances":[[[1,2],[3]]]})", &kOne,
       "input 'x' of instance 0: expected an array of 2 elements at depth 1 but found an array of "
       "1 elements"},
      {R"({"instances":[[[1],2]]})", &kOne,
       "expected an array of 1 elements at depth 1 but found the integer 2"},
      {R"({"instances":[[1,[2]]]})", &kOne,
       "input 'x' of instance 0: element 1 is an array of 1 elements"},
      {R"({"instances":[[1,"2",3]]})", &kOne,
       "input 'x' of instance 0: element 1 should be a number (FP32) but is the string '2'"},
      {R"({"instances":[[[[[[[[[1]]]]]]]]]})", &kOne,
       "input 'x' of instance 0 nests more than 7 arrays deep; tfn tensors have at most 8 dims and "
       "the "
       "instances add one"},
      {R"({"inputs":[[[[[[[[[1]]]]]]]]]})", &kOne, "input 'x' nests more than 8 arrays deep"},
      {R"({"instances":[{"b64":"AAAA"}]})", &kOne,
       "{\"b64\": ...} values carry bytes, and tfn has no bytes dtype; send numbers"},
      {R"({"instances":[[{"b64":"AAAA"},1,2]]})", &kOne,
       "input 'x' of instance 0: {\"b64\": ...} values"},
      {R"({"inputs":{"b64":"AAAA"}})", &kOne, "input 'x': {\"b64\": ...} values carry bytes"},
      {R"({"inputs":{"b64":"AAAA"}})", &kTwo, "\"inputs\": {\"b64\": ...} values carry bytes"},
      {R"({"instances":[{"x":[1,2,3],"y":1}]})", &kOne,
       "instance 0 names 'y', which is not an input of signature 'serving_default' (inputs: 'x')"},
      {R"({"instances":[{"a":1,"b":[true,true]},{"a":2}]})", &kTwo,
       "instance 1 has no input 'b'; give every input of signature 'serving_default' ('a', 'b')"},
      {R"({"instances":[{"a":1,"a":2,"b":[true,true]}]})", &kTwo, "instance 0 names 'a' twice"},
      {R"({"instances":[[1,2]]})", &kTwo,
       "instance 0 should be an object naming the inputs of signature 'serving_default' ('a', 'b') "
       "but is an "
       "array of 2 elements"},
      {R"({"instances":[{"a":1,"b":[1,0]}]})", &kTwo,
       "input 'b' of instance 0: element 0 should be true or false (BOOL) but is the integer 1"},
      {R"({"instances":[{"a":1.5,"b":[true,false]}]})", &kTwo,
       "input 'a' of instance 0: element 0 should be an integer (INT64) but is the number 1.5"},
      {R"({"inputs":{"a":[1]}})", &kTwo, "\"inputs\" has no input 'b'"},
      {R"({"inputs":[1]})", &kTwo, "\"inputs\" should be an object naming the inputs of signature"},
      {R"({"inputs":{"x":[[1,2,3]],"z":1}})", &kOne, "\"inputs\" names 'z', which is not an input"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.json);
    ExpectError(ParseV1(c.json, *c.sig, nullptr).status(), c.fragment);
  }
}

TEST(RestCodecV1, EncodesRowFormat) {
  InferResponse one;
  one.outputs.push_back({"y", Make<float>({2, 2}, {1, 2, 3, 4.5f})});
  auto r = EncodeV1PredictResponse(one, false);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, R"({"predictions":[[1.0,2.0],[3.0,4.5]]})");

  InferResponse two;
  two.outputs.push_back({"a", Make<int64_t>({2}, {5, 6})});
  two.outputs.push_back({"b", MakeBools({2, 1}, {1, 0})});
  auto t = EncodeV1PredictResponse(two, false);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(*t, R"({"predictions":[{"a":5,"b":[true]},{"a":6,"b":[false]}]})");
}

TEST(RestCodecV1, EncodesColumnarFormat) {
  InferResponse one;
  one.outputs.push_back({"y", Make<float>({2, 2}, {1, 2, 3, 4.5f})});
  EXPECT_EQ(*EncodeV1PredictResponse(one, true), R"({"outputs":[[1.0,2.0],[3.0,4.5]]})");

  InferResponse two;
  two.outputs.push_back({"a", Make<int64_t>({2}, {5, 6})});
  two.outputs.push_back({"b", MakeBools({2, 1}, {1, 0})});
  EXPECT_EQ(*EncodeV1PredictResponse(two, true), R"({"outputs":{"a":[5,6],"b":[[true],[false]]}})");

  InferResponse scalar;
  scalar.outputs.push_back({"s", Make<double>({}, {2.5})});
  EXPECT_EQ(*EncodeV1PredictResponse(scalar, true), R"({"outputs":2.5})");

  InferResponse special;
  const double inf = std::numeric_limits<double>::infinity();
  special.outputs.push_back({"f", Make<double>({3}, {std::nan(""), inf, -inf})});
  special.outputs.push_back({"e", Make<int32_t>({2, 0}, {})});
  EXPECT_EQ(*EncodeV1PredictResponse(special, true),
            R"({"outputs":{"f":[NaN,Infinity,-Infinity],"e":[[],[]]}})");
}

TEST(RestCodecV1, RowFormatNeedsOneDim0) {
  InferResponse r;
  r.outputs.push_back({"a", Make<float>({2}, {1, 2})});
  r.outputs.push_back({"b", Make<float>({3}, {1, 2, 3})});
  ExpectError(EncodeV1PredictResponse(r, false).status(),
              "needs every output to have the same dim 0, but output 'a' has 2 rows and output 'b' "
              "has 3; send "
              "the request in columnar format");
  InferResponse s;
  s.outputs.push_back({"s", Make<float>({}, {1})});
  ExpectError(EncodeV1PredictResponse(s, false).status(), "output 's' is a scalar");
  EXPECT_EQ(*EncodeV1PredictResponse(InferResponse{}, false), R"({"predictions":[]})");
}

TEST(RestCodecV1, RowFormatRoundTrip) {
  // What the encoder writes for a row-format request parses back to the same tensor.
  InferResponse r;
  r.outputs.push_back({"x", Make<float>({2, 3}, {0.1f, -1, 2, 3, 1e-30f, 5})});
  std::string text = *EncodeV1PredictResponse(r, false);
  auto back = ParseV1(ReplaceFirst(text, "\"predictions\"", "\"instances\""), kOne, nullptr);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(back->inputs[0].tensor.BytesEqual(r.outputs[0].tensor));
}

}  // namespace
}  // namespace tfn::serve
