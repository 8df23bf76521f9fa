// Tests of eager execution through the public API: values, operators, the
// op functions, errors, element access and printing.
#include <gtest/gtest.h>

#include <cmath>

#include "tfn/tfn.h"

namespace tfn {
namespace {

TEST(Eager, ArithmeticComputesImmediately) {
  Tensor a = constant(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape{2, 3});
  Tensor b = constant({10.f, 20.f, 30.f});
  Tensor c = a + b;
  EXPECT_FALSE(c.is_symbolic());
  EXPECT_EQ(c.shape(), (Shape{2, 3}));
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ((a * 2.0).to_vector<float>(), (std::vector<float>{2, 4, 6, 8, 10, 12}));
  EXPECT_EQ((1 - a).to_vector<float>(), (std::vector<float>{0, -1, -2, -3, -4, -5}));
  EXPECT_EQ((-a / 2).to_vector<float>()[1], -1.0f);
  EXPECT_EQ(exp(constant(0.0f)).item<float>(), 1.0f);
}

TEST(Eager, ScalarsTakeTheTensorsDType) {
  Tensor n = constant(7);
  EXPECT_EQ(n.dtype(), DType::kInt32);
  Tensor m = n * 3;
  EXPECT_EQ(m.dtype(), DType::kInt32);
  EXPECT_EQ(m.item<int32_t>(), 21);
  Tensor d = constant(2.0) + 1;
  EXPECT_EQ(d.dtype(), DType::kFloat64);
  EXPECT_EQ(d.item<double>(), 3.0);
}

// Braced lists take tf.constant's dtypes: [1, 2] is int32, [1., 2.] float32.
TEST(Eager, ConstantLiteralsTakeTensorFlowsDTypes) {
  Tensor ints = constant({1, 2});
  EXPECT_EQ(ints.dtype(), DType::kInt32);
  EXPECT_EQ(ints.shape(), (Shape{2}));
  EXPECT_EQ(ints.to_vector<int32_t>(), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(constant({1.f}).dtype(), DType::kFloat32);
  Tensor doubles = constant({1.0, 2.5});  // C++ doubles count as Python floats
  EXPECT_EQ(doubles.dtype(), DType::kFloat32);
  EXPECT_EQ(doubles.to_vector<float>(), (std::vector<float>{1, 2.5f}));
  EXPECT_EQ(constant({1.0}).dtype(), DType::kFloat32);
  EXPECT_EQ(constant({true, false}).to_vector<bool>(), (std::vector<bool>{true, false}));
  EXPECT_EQ(constant({3000000000}).dtype(), DType::kInt64);  // a long literal: too big for int32
  EXPECT_EQ(constant({int64_t{1}}).dtype(), DType::kInt64);
  Tensor shaped = constant({1, 2, 3, 4}, Shape{2, 2});
  EXPECT_EQ(shaped.dtype(), DType::kInt32);
  EXPECT_EQ(shaped.shape(), (Shape{2, 2}));
  EXPECT_THROW(constant({1, 2, 3}, Shape{2, 2}), Error);
  // Scalars and typed vectors keep their C++ type.
  EXPECT_EQ(constant(3).dtype(), DType::kInt32);
  EXPECT_EQ(constant(3).shape(), Shape{});
  EXPECT_EQ(constant(true).dtype(), DType::kBool);
  EXPECT_EQ(constant(2.0).dtype(), DType::kFloat64);
  EXPECT_EQ(constant(std::vector<double>{1.0, 2.0}).dtype(), DType::kFloat64);
}

// An int32 literal is not converted where a float is wanted (as in
// TensorFlow): the op names both dtypes.
TEST(Eager, IntLiteralsAreNotCastToFloat) {
  try {
    constant({1.f, 2.f}) + constant({1, 2});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("add: argument 'b' (input 1) is int32 but argument 'a' is f32"),
              std::string::npos)
        << m;
  }
  try {
    exp(constant({1, 2}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("exp: argument 'x' must be f32 or f64, got int32"),
              std::string::npos)
        << e.what();
  }
  auto scale = function([](Tensor x) { return x * constant({2, 3}); });
  EXPECT_THROW(scale(constant({1.f, 2.f})), Error);
  EXPECT_EQ(scale(constant({1, 2})).to_vector<int32_t>(), (std::vector<int32_t>{2, 6}));
}

TEST(Eager, ComparisonsAndLogic) {
  Tensor x = constant({1.f, 2.f, 3.f});
  Tensor gt = x > 1.5;
  EXPECT_EQ(gt.dtype(), DType::kBool);
  EXPECT_EQ(gt.to_vector<bool>(), (std::vector<bool>{false, true, true}));
  EXPECT_EQ((gt & (x < 2.5)).to_vector<bool>(), (std::vector<bool>{false, true, false}));
  EXPECT_EQ((!gt).to_vector<bool>(), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(where(gt, x, zeros_like(x)).to_vector<float>(), (std::vector<float>{0, 2, 3}));
}

TEST(Eager, TrigPredicatesAndScans) {
  Tensor x = constant({0.f, 0.5f});
  EXPECT_NEAR(tan(x).to_vector<float>()[1], 0.5463025f, 1e-6);
  EXPECT_NEAR(atanh(x).to_vector<float>()[1], 0.5493061f, 1e-6);
  EXPECT_EQ(cosh(x).to_vector<float>()[0], 1.0f);
  Tensor odd = constant({1.f, INFINITY, NAN});
  EXPECT_EQ(is_inf(odd).to_vector<bool>(), (std::vector<bool>{false, true, false}));
  EXPECT_EQ(is_nan(odd).dtype(), DType::kBool);
  EXPECT_EQ(fmod(constant(-7), constant(3)).item<int32_t>(), -1);
  EXPECT_EQ(mod(constant(-7), constant(3)).item<int32_t>(), 2);
  EXPECT_EQ(logical_xor(constant(true), constant(std::vector<bool>{true, false})).to_vector<bool>(),
            (std::vector<bool>{false, true}));
  Tensor t = constant({1.f, 3.f, 3.f});
  EXPECT_EQ(argmax(t).item<int64_t>(), 1);
  EXPECT_EQ(argmax(t, 0, false, /*select_last_index=*/true).item<int64_t>(), 2);
  EXPECT_EQ(cumsum(t, 0).to_vector<float>(), (std::vector<float>{1, 4, 7}));
  EXPECT_EQ(cumsum(t, -1, /*exclusive=*/true, /*reverse=*/true).to_vector<float>(),
            (std::vector<float>{6, 3, 0}));
  auto f = function([](Tensor v) { return cumsum(v, 0, false, true); });
  EXPECT_EQ(f(t).to_vector<float>(), (std::vector<float>{7, 6, 3}));
}

TEST(Eager, ErrorsNameOpArgumentAndTypes) {
  Tensor a = zeros({2, 3});
  Tensor b = zeros({4, 5});
  try {
    matmul(a, b);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "matmul: inner dimensions differ: a is f32[2,3], b is f32[4,5]");
    EXPECT_EQ(e.code(), StatusCode::kInvalidArgument);
  }
  try {
    add(a, cast(a, DType::kInt32));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("add: argument 'b' (input 1) is int32 but argument 'a' is f32"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(a + zeros({3, 2}), Error);
  EXPECT_THROW(exp(constant(1)), Error);
}

TEST(Eager, ElementAccessChecksTypes) {
  Tensor x = constant({1.f, 2.f});
  EXPECT_THROW(x.to_vector<int32_t>(), Error);
  try {
    x.item<float>();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("item: the tensor has 2 elements"), std::string::npos);
  }
  Tensor undefined;
  EXPECT_FALSE(undefined.defined());
  EXPECT_THROW(undefined.shape(), Error);
  EXPECT_THROW(exp(undefined), Error);
}

TEST(Eager, Printing) {
  EXPECT_EQ(constant(std::vector<float>{1, 2.5f, 3, 4}, Shape{2, 2}).ToString(),
            "Tensor(f32[2,2], [[1, 2.5],\n        [3, 4]])");
  EXPECT_EQ(constant(std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8}).ToString(),
            "Tensor(int32[8], [1, 2, 3, ..., 6, 7, 8])");
  EXPECT_EQ(constant(true).ToString(), "Tensor(bool[], true)");
  EXPECT_EQ(constant(std::nanf("")).ToString(), "Tensor(f32[], nan)");
}

TEST(Eager, ConstantChecksShape) {
  EXPECT_THROW(constant(std::vector<float>{1, 2, 3}, Shape{2, 2}), Error);
  Tensor b = constant(std::vector<bool>{true, false, true});
  EXPECT_EQ(b.to_vector<bool>(), (std::vector<bool>{true, false, true}));
}

}  // namespace
}  // namespace tfn
