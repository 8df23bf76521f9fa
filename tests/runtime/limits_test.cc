// The limits of a run no bundle can lift (runtime/README.md, "Limits"): the
// while_loop iteration cap (on by default), the cap on planned memory and the
// deadline, through the C++ API and the C API. Each error names what hit the
// limit and how to raise it.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "tfn/runtime.h"
#include "tfn/tfn.h"
#include "tfn/tfn_runtime.h"

namespace tfn {
namespace {

// loop(n): while (n < 10) n = n * 2. From 0 it never ends.
std::string LoopBundle() {
  auto loop = function([](Tensor n) {
    auto out =
        while_loop([](const std::vector<Tensor>& s) { return s[0] < 10; },
                   [](const std::vector<Tensor>& s) { return std::vector<Tensor>{s[0] * 2}; }, {n});
    return out[0];
  });
  auto twice = function([](Tensor x) { return x * 2.f; });
  return serialize(
      {{"loop", loop.get_concrete_function(TensorSpec({}, DType::kInt32))},
       {"twice", twice.get_concrete_function(TensorSpec({kDynamic}, DType::kFloat32))}});
}

std::shared_ptr<const runtime::Bundle> Load(const std::string& bytes) {
  auto owned = std::make_shared<std::string>(bytes);
  auto b = runtime::Bundle::FromMemory(owned->data(), owned->size(), owned);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? *b : nullptr;
}

runtime::Tensor Int(int32_t* v) { return runtime::View(DType::kInt32, Shape{}, v); }

TEST(Limits, DefaultsAreOn) {
  runtime::RunOptions o;
  EXPECT_EQ(o.max_while_iterations, runtime::kDefaultMaxWhileIterations);
  EXPECT_GT(o.max_run_bytes, int64_t{0});
  EXPECT_EQ(o.deadline_ms, 0);
  TfnRtSessionOptions c = tfn_rt_session_options_default();
  EXPECT_EQ(c.max_while_iterations, runtime::kDefaultMaxWhileIterations);
  EXPECT_EQ(c.max_run_bytes, o.max_run_bytes);
  EXPECT_EQ(c.deadline_ms, 0);
}

TEST(Limits, AWhileLoopThatNeverEndsHitsTheCap) {
  auto bundle = Load(LoopBundle());
  ASSERT_TRUE(bundle);
  runtime::Session session(bundle);
  int32_t three = 3, zero = 0;
  auto ok = session.Run("loop", {Int(&three)});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(*static_cast<const int32_t*>((*ok)[0].data), 12);
  runtime::RunOptions o;
  o.max_while_iterations = 100;
  auto out = session.Run("loop", {Int(&zero)}, o);
  ASSERT_FALSE(out.ok());
  const std::string& m = out.status().message();
  EXPECT_EQ(out.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(m.find("the while_loop at instruction "), std::string::npos) << m;
  EXPECT_NE(m.find("(body 'loop/while_loop"), std::string::npos) << m;  // the loop's body program
  EXPECT_NE(m.find("did not end after 100 iterations"), std::string::npos) << m;
  EXPECT_NE(m.find("raise RunOptions::max_while_iterations"), std::string::npos) << m;
}

TEST(Limits, PlannedMemoryOverTheCapIsAnErrorBeforeAllocating) {
  auto bundle = Load(LoopBundle());
  ASSERT_TRUE(bundle);
  runtime::Session session(bundle);
  std::vector<float> x(1000, 1.f);
  runtime::Tensor in = runtime::View(DType::kFloat32, Shape{1000}, x.data());
  runtime::RunOptions o;
  o.max_run_bytes = 4000;  // exactly the output
  ASSERT_TRUE(session.Run("twice", {in}, o).ok());
  o.max_run_bytes = 3999;
  auto out = session.Run("twice", {in}, o);
  ASSERT_FALSE(out.ok());
  const std::string& m = out.status().message();
  EXPECT_EQ(out.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(m.find("result 0 [1000] of 4000 bytes"), std::string::npos) << m;
  EXPECT_NE(m.find("limit of 3999 bytes"), std::string::npos) << m;
  EXPECT_NE(m.find("raise RunOptions::max_run_bytes"), std::string::npos) << m;
}

TEST(Limits, TheDeadlineEndsALongLoop) {
  auto bundle = Load(LoopBundle());
  ASSERT_TRUE(bundle);
  runtime::Session session(bundle);
  int32_t zero = 0;
  runtime::RunOptions o;
  o.max_while_iterations = 0;  // no cap: only the deadline ends it
  o.deadline_ms = 50;
  auto start = std::chrono::steady_clock::now();
  auto out = session.Run("loop", {Int(&zero)}, o);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(out.ok());
  const std::string& m = out.status().message();
  EXPECT_EQ(out.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(m.find("passed its deadline of 50 ms"), std::string::npos) << m;
  EXPECT_NE(m.find("raise RunOptions::deadline_ms"), std::string::npos) << m;
  EXPECT_LT(ms, 5000);
}

// LoopBundle's bytes through the C API, on a session whose loops stop after
// 50 iterations (`o` holds its options).
void OpenLoopSession(const std::string& bytes, TfnRtBundle** bundle, TfnRtSessionOptions* o,
                     TfnRtSession** session, char* error, size_t error_size) {
  ASSERT_EQ(tfn_rt_bundle_from_memory(bytes.data(), bytes.size(), bundle, error, error_size),
            TFN_RT_OK)
      << error;
  *o = tfn_rt_session_options_default();
  o->max_while_iterations = 50;
  ASSERT_EQ(tfn_rt_session_create_with_options(*bundle, o, session, error, error_size), TFN_RT_OK);
}

TEST(Limits, TheCApiTakesThemInSessionOptions) {
  std::string bytes = LoopBundle();
  char error[512] = "";
  TfnRtBundle* bundle = nullptr;
  TfnRtSessionOptions o;
  TfnRtSession* session = nullptr;
  ASSERT_NO_FATAL_FAILURE(OpenLoopSession(bytes, &bundle, &o, &session, error, sizeof error));
  int32_t zero = 0;
  TfnRtTensor in{};
  in.dtype = TFN_RT_INT32;
  in.rank = 0;
  in.data = &zero;
  TfnRtOutputs* out = nullptr;
  EXPECT_EQ(tfn_rt_session_run(session, "loop", &in, 1, &out, error, sizeof error),
            TFN_RT_RESOURCE_EXHAUSTED);
  EXPECT_NE(std::strstr(error, "did not end after 50 iterations"), nullptr) << error;
  tfn_rt_session_free(session);
  o.max_while_iterations = -1;
  EXPECT_EQ(tfn_rt_session_create_with_options(bundle, &o, &session, error, sizeof error),
            TFN_RT_INVALID_ARGUMENT);
  // A caller built against API version 2 (no limit fields) gets the defaults.
  TfnRtSessionOptions old = tfn_rt_session_options_default();
  old.struct_size = offsetof(TfnRtSessionOptions, max_while_iterations);
  old.max_while_iterations = -7;  // not read
  ASSERT_EQ(tfn_rt_session_create_with_options(bundle, &old, &session, error, sizeof error),
            TFN_RT_OK);
  tfn_rt_session_free(session);
  tfn_rt_bundle_free(bundle);
}

TEST(Limits, CApiMethodsRunWithTheirSessionsLimits) {
  std::string bytes = LoopBundle();
  char error[512] = "";
  TfnRtBundle* bundle = nullptr;
  TfnRtSessionOptions o;
  TfnRtSession* session = nullptr;
  ASSERT_NO_FATAL_FAILURE(OpenLoopSession(bytes, &bundle, &o, &session, error, sizeof error));
  TfnRtMethod* method = nullptr;
  ASSERT_EQ(tfn_rt_session_method(session, "loop", &method, error, sizeof error), TFN_RT_OK);
  int32_t zero = 0, result = -1;
  TfnRtTensor in{};
  in.dtype = TFN_RT_INT32;
  in.rank = 0;
  in.data = &zero;
  TfnRtTensor out = in;
  out.data = &result;
  EXPECT_EQ(tfn_rt_method_run_into(method, &in, 1, &out, 1, error, sizeof error),
            TFN_RT_RESOURCE_EXHAUSTED);
  EXPECT_NE(std::strstr(error, "did not end after 50 iterations"), nullptr) << error;
  TfnRtOutputs* outs = nullptr;
  EXPECT_EQ(tfn_rt_method_run(method, &in, 1, &outs, error, sizeof error),
            TFN_RT_RESOURCE_EXHAUSTED);
  int32_t one = 1;
  in.data = &one;
  ASSERT_EQ(tfn_rt_method_run_into(method, &in, 1, &out, 1, error, sizeof error), TFN_RT_OK)
      << error;
  EXPECT_EQ(result, 16);
  tfn_rt_method_free(method);
  tfn_rt_session_free(session);
  tfn_rt_bundle_free(bundle);
}

}  // namespace
}  // namespace tfn
