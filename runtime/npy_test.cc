// Tests of .npy reading and writing against files written by NumPy 1.24
// (runtime/testdata/*.npy): every supported dtype, a scalar, an empty array,
// a version 2 header; SerializeNpy reproduces NumPy's version 1 files byte
// for byte; unsupported (big-endian, Fortran order, uint8) and truncated
// files give clear errors.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/npy.h"

namespace tfn::runtime {
namespace {

std::string Path(const std::string& name) { return std::string(TFN_NPY_TESTDATA) + "/" + name; }

std::string Bytes(const std::string& name) {
  std::ifstream in(Path(name), std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

template <class T>
std::vector<T> Values(const ConstTensor& t) {
  return std::vector<T>(t.as<T>(), t.as<T>() + t.num_elements());
}

ConstTensor Read(const std::string& name) {
  Result<ConstTensor> t = ReadNpy(Path(name));
  EXPECT_TRUE(t.ok()) << name << ": " << t.status().ToString();
  return t.ok() ? *t : ConstTensor{};
}

TEST(Npy, ReadsNumPyFiles) {
  ConstTensor f32 = Read("f32_2x3.npy");
  EXPECT_EQ(f32.dtype, DType::kFloat32);
  EXPECT_EQ(f32.shape, (Shape{2, 3}));
  EXPECT_EQ(Values<float>(f32), (std::vector<float>{0, 1.5f, 3, 4.5f, 6, 7.5f}));

  ConstTensor f64 = Read("f64_scalar.npy");
  EXPECT_EQ(f64.dtype, DType::kFloat64);
  EXPECT_EQ(f64.shape.rank(), 0);
  EXPECT_EQ(Values<double>(f64), (std::vector<double>{3.25}));

  ConstTensor i32 = Read("i32_5.npy");
  EXPECT_EQ(i32.dtype, DType::kInt32);
  EXPECT_EQ(i32.shape, (Shape{5}));
  EXPECT_EQ(Values<int32_t>(i32), (std::vector<int32_t>{1, -2, 3, -4, 5}));

  ConstTensor i64 = Read("i64_2x2x2.npy");
  EXPECT_EQ(i64.dtype, DType::kInt64);
  EXPECT_EQ(i64.shape, (Shape{2, 2, 2}));
  EXPECT_EQ(Values<int64_t>(i64), (std::vector<int64_t>{-3, -2, -1, 0, 1, 2, 3, 4}));

  ConstTensor b = Read("bool_3.npy");
  EXPECT_EQ(b.dtype, DType::kBool);
  EXPECT_EQ(b.shape, (Shape{3}));
  EXPECT_EQ(Values<bool>(b), (std::vector<bool>{true, false, true}));

  ConstTensor empty = Read("f32_empty_0x4.npy");
  EXPECT_EQ(empty.dtype, DType::kFloat32);
  EXPECT_EQ(empty.shape, (Shape{0, 4}));
  EXPECT_EQ(empty.num_elements(), 0);

  ConstTensor v2 = Read("f32_v2.npy");
  EXPECT_EQ(v2.dtype, DType::kFloat32);
  EXPECT_EQ(v2.shape, (Shape{2}));
  EXPECT_EQ(Values<float>(v2), (std::vector<float>{7.5f, -1}));
}

// NumPy pads version 1 headers to 64 bytes; so does SerializeNpy.
TEST(Npy, SerializeMatchesNumPyByteForByte) {
  for (const char* name : {"f32_2x3.npy", "f64_scalar.npy", "i32_5.npy", "i64_2x2x2.npy",
                           "bool_3.npy", "f32_empty_0x4.npy"}) {
    std::string numpy = Bytes(name);
    ASSERT_FALSE(numpy.empty()) << name;
    EXPECT_EQ(SerializeNpy(Read(name)), numpy) << name;
  }
}

TEST(Npy, WriteThenReadRoundTrips) {
  ConstTensor t = Read("i64_2x2x2.npy");
  std::string path = ::testing::TempDir() + "/npy_test_roundtrip.npy";
  ASSERT_TRUE(WriteNpy(path, t).ok());
  Result<ConstTensor> back = ReadNpy(path);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->shape, t.shape);
  EXPECT_TRUE(back->BytesEqual(t));
  std::remove(path.c_str());
}

void ExpectError(const std::string& bytes, const std::string& needle) {
  Result<ConstTensor> t = ParseNpy(bytes.data(), bytes.size());
  ASSERT_FALSE(t.ok()) << "expected an error mentioning '" << needle << "'";
  EXPECT_NE(t.status().message().find(needle), std::string::npos) << t.status().message();
  EXPECT_NE(t.status().message().find("bad .npy file"), std::string::npos) << t.status().message();
}

TEST(Npy, UnsupportedFilesGiveClearErrors) {
  ExpectError(Bytes("be_f4.npy"), "'>f4' is not supported");
  ExpectError(Bytes("fortran.npy"), "Fortran-order");
  std::string complex64 = Bytes("f32_2x3.npy");
  complex64.replace(complex64.find("<f4"), 3, "<c8");
  ExpectError(complex64, "'<c8' is not supported");
}

// uint8 (NumPy's '|u1'), and the other reduced-precision descriptors written
// and read back.
TEST(Npy, SmallIntegerAndHalfFiles) {
  Result<ConstTensor> u8 = ParseNpy(Bytes("u8.npy").data(), Bytes("u8.npy").size());
  ASSERT_TRUE(u8.ok()) << u8.status().ToString();
  EXPECT_EQ(u8->dtype, DType::kUInt8);
  EXPECT_EQ(u8->shape, Shape{2});
  EXPECT_EQ(u8->as<uint8_t>()[0], 1);
  EXPECT_EQ(u8->as<uint8_t>()[1], 2);
  const uint16_t half_bits[2] = {0x3C00, 0xC000};  // 1.0, -2.0
  ConstTensor h = ConstTensor::Copy(DType::kFloat16, Shape{2}, half_bits);
  std::string bytes = SerializeNpy(h);
  EXPECT_NE(bytes.find("'descr': '<f2'"), std::string::npos);
  Result<ConstTensor> back = ParseNpy(bytes.data(), bytes.size());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->dtype, DType::kFloat16);
  EXPECT_TRUE(back->BytesEqual(h));
  // bfloat16 has no NumPy dtype: its bit patterns, as uint16.
  ConstTensor b = ConstTensor::Copy(DType::kBFloat16, Shape{2}, half_bits);
  bytes = SerializeNpy(b);
  EXPECT_NE(bytes.find("'descr': '<u2'"), std::string::npos);
  back = ParseNpy(bytes.data(), bytes.size());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->dtype, DType::kUInt16);
  const int8_t i8[3] = {-128, 0, 127};
  bytes = SerializeNpy(ConstTensor::Copy(DType::kInt8, Shape{3}, i8));
  EXPECT_NE(bytes.find("'descr': '|i1'"), std::string::npos);
}

TEST(Npy, TruncatedAndJunkFilesError) {
  std::string f32 = Bytes("f32_2x3.npy");
  // Data cut short, header cut short, magic only, nothing.
  ExpectError(f32.substr(0, f32.size() - 1), "truncated file?");
  ExpectError(f32.substr(0, 40), "the header is longer than the file");
  ExpectError(f32.substr(0, 6), "magic");
  ExpectError("", "magic");
  ExpectError(f32 + "x", "the data has 25 bytes");
  std::string v2 = Bytes("f32_v2.npy");
  ExpectError(v2.substr(0, 11), "truncated");
  ExpectError("not a numpy file at all", "magic");
  std::string bad_version = f32;
  bad_version[6] = 9;
  ExpectError(bad_version, "format version 9");
}

TEST(Npy, MissingFileNamesThePath) {
  Result<ConstTensor> t = ReadNpy(Path("no_such_file.npy"));
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("no_such_file.npy"), std::string::npos);
}

}  // namespace
}  // namespace tfn::runtime
