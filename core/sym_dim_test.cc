// Tests of symbolic dims: canonical form, simplification, printing, parsing, evaluation.
#include "core/sym_dim.h"

#include <gtest/gtest.h>

namespace tfn {
namespace {

SymDim S(const char* name) { return SymDim::Symbol(name); }

TEST(SymDim, StaticArithmetic) {
  EXPECT_TRUE((SymDim(3) + SymDim(4)).is_static());
  EXPECT_EQ((SymDim(3) * SymDim(4)).value(), 12);
  EXPECT_EQ(FloorDiv(SymDim(7), SymDim(2)).value(), 3);
  EXPECT_EQ(CeilDiv(SymDim(7), SymDim(2)).value(), 4);
  EXPECT_EQ(FloorDiv(int64_t{-7}, int64_t{2}), -4);
  EXPECT_EQ(Mod(int64_t{-7}, int64_t{3}), 2);
}

TEST(SymDim, SymbolsAreInternedByName) {
  EXPECT_EQ(S("a"), S("a"));
  EXPECT_NE(S("a"), S("b"));
  EXPECT_TRUE(S("a").is_symbol());
  EXPECT_EQ(S("a").symbol_name(), "a");
  EXPECT_EQ(S("a").StaticOrDynamic(), kDynamic);
}

TEST(SymDim, PolynomialsAreCanonical) {
  SymDim a = S("a"), b = S("b");
  EXPECT_EQ(a + b, b + a);
  EXPECT_EQ(a * b, b * a);
  EXPECT_EQ((a + b) * SymDim(2), a * SymDim(2) + b + b);
  EXPECT_EQ(a - a, SymDim(0));
  EXPECT_TRUE((a - a).is_static());
  EXPECT_EQ((a + SymDim(1)) - SymDim(1), a);
  EXPECT_FALSE((a * b).is_symbol());
}

TEST(SymDim, ExactDivisionSimplifies) {
  SymDim b = S("b");
  // reshape [?b,256] -> [-1,4,64] infers ?b.
  EXPECT_EQ(FloorDiv(b * SymDim(256), SymDim(256)), b);
  EXPECT_EQ(FloorDiv(b * SymDim(6), SymDim(3)), b * SymDim(2));
  EXPECT_EQ(FloorDiv(b * S("t") * SymDim(4), b * SymDim(2)), S("t") * SymDim(2));
  EXPECT_EQ(FloorDiv(b * SymDim(2) + SymDim(1), SymDim(2)), b);  // floor((2b+1)/2) = b
  EXPECT_EQ(CeilDiv(b * SymDim(2) + SymDim(1), SymDim(2)), b + SymDim(1));
  EXPECT_EQ(FloorDiv(b, b), SymDim(1));
  // Not exact: an opaque node, equal to itself.
  SymDim q = FloorDiv(b, SymDim(3));
  EXPECT_FALSE(q.is_static());
  EXPECT_EQ(q, FloorDiv(b, SymDim(3)));
  EXPECT_EQ(q.ToString(), "floordiv(?b,3)");
}

TEST(SymDim, MaxMinUseNonNegativity) {
  SymDim a = S("a");
  EXPECT_EQ(Max(a, SymDim(0)), a);
  EXPECT_EQ(Min(a, SymDim(0)), SymDim(0));
  EXPECT_EQ(Max(a + SymDim(2), a), a + SymDim(2));
  EXPECT_EQ(Max(a, S("b")), Max(S("b"), a));
  EXPECT_TRUE(KnownNonNegative(a * SymDim(3) + SymDim(1)));
  EXPECT_FALSE(KnownNonNegative(a - SymDim(1)));
}

TEST(SymDim, BroadcastDim) {
  SymDim a = S("a");
  EXPECT_EQ(BroadcastDim(a, SymDim(1)), a);
  EXPECT_EQ(BroadcastDim(SymDim(1), a), a);
  EXPECT_EQ(BroadcastDim(a, a), a);
  EXPECT_EQ(BroadcastDim(a, SymDim(5)), SymDim(5));
  EXPECT_EQ(BroadcastDim(int64_t{1}, int64_t{7}), 7);
  // Idempotent: broadcasting against an operand again changes nothing, so
  // a state broadcast once per unrolled step keeps one bcast (it doubled
  // per step: an LSTM of 12 steps took minutes to import).
  const SymDim b = S("b"), ab = BroadcastDim(a, b);
  EXPECT_EQ(ab.ToString(), "bcast(?a,?b)");
  EXPECT_EQ(BroadcastDim(ab, a), ab);
  EXPECT_EQ(BroadcastDim(b, ab), ab);
  SymDim grown = ab;
  for (int step = 0; step < 64; ++step) grown = BroadcastDim(BroadcastDim(grown, b), grown);
  EXPECT_EQ(grown, ab);
  EXPECT_EQ(BroadcastDim(ab, S("c")).ToString(), "bcast(?c,bcast(?a,?b))");
}

// UpperMax: the larger coefficient per term, >= both for every dims (tried
// on a grid); Max where a coefficient is negative.
TEST(SymDim, UpperMax) {
  const SymDim a = S("a"), b = S("b");
  const SymDim x = a * SymDim(96) + SymDim(4096), y = a * b * SymDim(8) + a * SymDim(128);
  const SymDim m = UpperMax(x, y);
  EXPECT_EQ(m, a * b * SymDim(8) + a * SymDim(128) + SymDim(4096));
  for (int64_t va : {0, 1, 7, 300}) {
    for (int64_t vb : {0, 1, 5, 64}) {
      auto at = [&](const SymDim& d) {
        int64_t v = 0;
        EXPECT_TRUE(Evaluate(
            d,
            [&](const std::string& n, int64_t* out) {
              *out = n == "a" ? va : vb;
              return true;
            },
            &v));
        return v;
      };
      EXPECT_GE(at(m), at(x));
      EXPECT_GE(at(m), at(y));
    }
  }
  EXPECT_EQ(UpperMax(SymDim(3), SymDim(9)), SymDim(9));
  EXPECT_EQ(UpperMax(a - SymDim(1), b), Max(a - SymDim(1), b));
}

TEST(SymDim, KnownNotEqual) {
  SymDim a = S("a");
  EXPECT_TRUE(KnownNotEqual(a, a + SymDim(1)));
  EXPECT_FALSE(KnownNotEqual(a, S("b")));
  EXPECT_FALSE(KnownNotEqual(a, SymDim(3)));
  EXPECT_TRUE(KnownNotEqual(SymDim(2), SymDim(3)));
}

TEST(SymDim, PrintingIsDeterministicAndParses) {
  SymDim e = S("zz") * SymDim(4) + S("aa") - SymDim(3);
  EXPECT_EQ(e.ToString(), "?aa+4*?zz-3");
  SymDim parsed;
  std::string error;
  ASSERT_TRUE(ParseSymDim(e.ToString(), &parsed, &error)) << error;
  EXPECT_EQ(parsed, e);
  for (const char* text : {"7", "?s0", "-2*?x+1", "max(?a,?b)", "floordiv(?a+1,2)*?c"}) {
    ASSERT_TRUE(ParseSymDim(text, &parsed, &error)) << text << ": " << error;
    SymDim again;
    ASSERT_TRUE(ParseSymDim(parsed.ToString(), &again, &error)) << error;
    EXPECT_EQ(again, parsed) << text;
  }
  EXPECT_FALSE(ParseSymDim("?", &parsed, &error));
  EXPECT_FALSE(ParseSymDim("3+", &parsed, &error));
  EXPECT_FALSE(ParseSymDim("sqrt(?a,?b)", &parsed, &error));
  // Nesting is bounded (hostile bundles carry dim text): an error, not a
  // stack overflow; 200 levels still parse.
  const std::string deep = std::string(200, '(') + "?a" + std::string(200, ')');
  ASSERT_TRUE(ParseSymDim(deep, &parsed, &error)) << error;
  EXPECT_EQ(parsed, S("a"));
  EXPECT_FALSE(ParseSymDim(std::string(1000000, '(') + "1", &parsed, &error));
  EXPECT_FALSE(ParseSymDim(std::string(1000000, '-') + "1", &parsed, &error));
}

TEST(SymDim, EvaluateAndSubstitute) {
  SymDim e = FloorDiv(S("h") + SymDim(2), SymDim(2)) * S("w") + SymDim(1);
  auto lookup = [](const std::string& n, int64_t* v) {
    if (n == "h") *v = 9;
    else if (n == "w") *v = 4;
    else return false;
    return true;
  };
  int64_t v = 0;
  ASSERT_TRUE(Evaluate(e, lookup, &v));
  EXPECT_EQ(v, (11 / 2) * 4 + 1);
  EXPECT_FALSE(Evaluate(S("unbound"), lookup, &v));
  EXPECT_EQ(SymbolsOf(e), (std::vector<std::string>{"h", "w"}));
  SymDim sub = Substitute(e, [](const std::string& n, SymDim* out) {
    if (n != "h") return false;
    *out = SymDim(4);
    return true;
  });
  EXPECT_EQ(sub, S("w") * SymDim(3) + SymDim(1));
}

TEST(SymDim, ShapesPrint) {
  SymShape s{S("s0"), SymDim(3)};
  EXPECT_EQ(SymShapeToString(s), "[?s0,3]");
  EXPECT_EQ(ShapeToString(ToStaticShape(s)), "[?,3]");
}

}  // namespace
}  // namespace tfn
