// The profiler (runtime/profile.h): one event per step of every profiled
// run, FLOPs as counted by hand, loops recorded as spans around their
// bodies' steps and left out of the totals, and a Chrome trace whose
// strings are escaped.
#include "runtime/profile.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/testing/bundle_bytes.h"
#include "tfn/runtime.h"
#include "tfn/tfn.h"

namespace tfn {
namespace {

std::shared_ptr<const runtime::Bundle> BundleOf(const std::string& bytes) {
  return testing::BundleFromBytes(bytes);
}

// relu(a . b) with both operands inputs: one matmul, one relu.
std::shared_ptr<const runtime::Bundle> MatMulBundle() {
  auto f = function([](Tensor a, Tensor b) { return relu(matmul(a, b)); });
  return BundleOf(serialize(
      {{"serving_default", f.get_concrete_function(TensorSpec({4, 8}, DType::kFloat32),
                                                   TensorSpec({8, 16}, DType::kFloat32))}}));
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(Profiler, RecordsEveryStepOfEveryRun) {
  runtime::Session session(MatMulBundle());
  auto method = session.method("serving_default");
  ASSERT_TRUE(method.ok()) << method.status().ToString();
  std::vector<runtime::Tensor> in = {random_uniform({4, 8}, 1, -1, 1).value(),
                                     random_uniform({8, 16}, 2, -1, 1).value()};
  ASSERT_TRUE(method->Run(in).ok());  // unprofiled: nothing to record into
  runtime::Profiler profiler;
  runtime::RunOptions options;
  options.profiler = &profiler;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(method->Run(in, options).ok());
  EXPECT_EQ(profiler.runs(), 3);
  std::vector<runtime::ProfileEvent> events = profiler.events();
  ASSERT_FALSE(events.empty());
  ASSERT_EQ(events.size() % 3, 0u) << "each run records the same steps";
  int matmuls = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const runtime::ProfileEvent& e = events[i];
    EXPECT_EQ(e.program, "serving_default");
    EXPECT_GE(e.duration_ns, 0);
    EXPECT_EQ(e.thread, 0);
    if (i > 0) {
      EXPECT_GE(e.start_ns, events[i - 1].start_ns + events[i - 1].duration_ns);
    }
    if (e.op == "matmul" || e.op == "fused_matmul") {
      ++matmuls;
      EXPECT_EQ(e.flops, 2.0 * 4 * 16 * 8) << "a [4,8] . [8,16] product: 2*M*N*K";
      EXPECT_NE(e.detail.find("f32[4,16]"), std::string::npos) << e.detail;
    } else {
      EXPECT_EQ(e.flops, 0) << e.op;
    }
  }
  EXPECT_EQ(matmuls, 3);

  int64_t calls = 0;
  double share = 0;
  for (const runtime::ProfileSummary& s : profiler.ByOp()) {
    calls += s.calls;
    share += s.share;
    EXPECT_EQ(s.calls, 3 * s.nodes) << s.op;
  }
  EXPECT_EQ(calls, static_cast<int64_t>(events.size()));
  EXPECT_NEAR(share, 1.0, 1e-9);
  const std::string table = profiler.Table(1);
  EXPECT_NE(table.find("profile: 3 runs"), std::string::npos) << table;
  EXPECT_NE(table.find("top 1 steps:"), std::string::npos) << table;

  const std::string trace = profiler.ChromeTrace();
  EXPECT_EQ(trace.rfind("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", 0), 0u) << trace;
  EXPECT_EQ(Count(trace, "\"ph\":\"X\""), events.size());
  EXPECT_EQ(Count(trace, "\"gflops\":1.024e-06"), 3u) << trace;

  profiler.Clear();
  EXPECT_TRUE(profiler.events().empty());
  EXPECT_EQ(profiler.runs(), 0);
  EXPECT_EQ(profiler.ChromeTrace(), "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n]}\n");
}

// x doubled while below 100: the loop is a span, its cond and body
// programs' steps are events of their own, and the totals count each
// nanosecond once.
TEST(Profiler, LoopsAreSpansAroundTheirBodies) {
  auto f = function([](Tensor x) {
    return while_loop(
        [](const std::vector<Tensor>& v) { return less(reduce_sum(v[0]), constant(100.0f)); },
        [](const std::vector<Tensor>& v) { return std::vector<Tensor>{v[0] * 2.0f}; }, {x})[0];
  });
  runtime::Session session(BundleOf(
      serialize({{"serving_default", f.get_concrete_function(TensorSpec({2}, DType::kFloat32))}})));
  runtime::Profiler profiler;
  runtime::RunOptions options;
  options.profiler = &profiler;
  void* data = nullptr;
  runtime::Tensor x = ConstTensor::Allocate(DType::kFloat32, {2}, &data);
  static_cast<float*>(data)[0] = 1;
  static_cast<float*>(data)[1] = 2;
  auto out = session.Run("serving_default", {x}, options);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // 3 -> 6 -> ... -> 96 -> 192: six bodies, seven conditions.
  EXPECT_EQ((*out)[0].ElementAsDouble(0), 64.0);
  int loops = 0, inner = 0;
  int64_t loop_ns = 0, inner_ns = 0;
  for (const runtime::ProfileEvent& e : profiler.events()) {
    if (e.container) {
      EXPECT_EQ(e.op, "while_loop");
      ++loops;
      loop_ns += e.duration_ns;
    } else if (e.program != "serving_default") {
      ++inner;
      inner_ns += e.duration_ns;
    }
  }
  EXPECT_EQ(loops, 1);
  EXPECT_GE(inner, 13) << "at least one step per condition and body run";
  EXPECT_GE(loop_ns, inner_ns) << "the span holds its bodies";
  for (const runtime::ProfileSummary& s : profiler.ByOp()) EXPECT_NE(s.op, "while_loop");
}

TEST(Profiler, TraceStringsAreEscaped) {
  runtime::Profiler profiler;
  runtime::ProfileEvent e;
  e.program = "a\"b\\c\nd";
  e.op = "add";
  e.duration_ns = 1500;
  profiler.Record(e);
  const std::string trace = profiler.ChromeTrace();
  EXPECT_NE(trace.find("\"program\":\"a\\\"b\\\\c\\u000ad\""), std::string::npos) << trace;
  EXPECT_NE(trace.find("\"dur\":1.500"), std::string::npos) << trace;
}

}  // namespace
}  // namespace tfn
