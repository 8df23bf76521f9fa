// Status and Result<T>: values, errors, and the assertion that guards the
// value of an error. This file is compiled without NDEBUG (core/CMakeLists.txt)
// so that the assertion is tested in every build type; it instantiates
// Result only for a type of its own, so no other file sees these bodies.
#include <gtest/gtest.h>

#include "core/status.h"

namespace tfn {
namespace {

struct Payload {
  int n = 0;
};

Result<Payload> Make(bool ok) {
  if (!ok) return InvalidArgument("no payload here");
  return Payload{7};
}

Status UseAssignOrReturn(bool ok, int* out) {
  TFN_ASSIGN_OR_RETURN(Payload p, Make(ok));
  *out = p.n;
  return Status::Ok();
}

TEST(Result, HoldsAValue) {
  Result<Payload> r = Make(true);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->n, 7);
  EXPECT_EQ((*r).n, 7);
  EXPECT_EQ(r.value().n, 7);
  Result<Payload> copy = r;
  EXPECT_EQ(std::move(copy).value().n, 7);
}

TEST(Result, HoldsAnError) {
  Result<Payload> r = Make(false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "no payload here");
  int n = 0;
  Status s = UseAssignOrReturn(false, &n);
  EXPECT_EQ(s.message(), "no payload here");
  EXPECT_EQ(n, 0);
  EXPECT_TRUE(UseAssignOrReturn(true, &n).ok());
  EXPECT_EQ(n, 7);
}

TEST(Result, AnOkStatusIsNotAResult) {
  Result<Payload> r = Status::Ok();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
}

TEST(ResultDeathTest, TheValueOfAnErrorAsserts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Result<Payload> r = Make(false);
  EXPECT_DEATH((void)r.value(), "the value of an error was used; check ok\\(\\) first");
  EXPECT_DEATH((void)r->n, "check ok");
  const Result<Payload>& c = r;
  EXPECT_DEATH((void)(*c).n, "check ok");
}

}  // namespace
}  // namespace tfn
