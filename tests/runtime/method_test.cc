// Tests of runtime::Method: a signature resolved once, outputs bound to
// caller memory (written in place, checked against the output's dtype and
// shape, mixed with allocated ones), output shapes known before running, and
// a warm run with every output bound that allocates nothing (operator new
// is counted in this binary while a test asks for it; not under
// ThreadSanitizer, whose runtime owns operator new), and the same through
// compiled code (a hand-written descriptor of ThreeOutputs' signature).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "schema/aot_abi.h"

#include "tfn/runtime.h"
#include "tfn/tfn.h"

// ThreadSanitizer's runtime defines every operator new itself (it must see
// each allocation), so a TSan build cannot replace them: the counting test is
// left out there, and runs in every other build (ASan's included).
#if defined(__SANITIZE_THREAD__)
#define TFN_COUNT_ALLOCATIONS 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TFN_COUNT_ALLOCATIONS 0
#endif
#endif
#ifndef TFN_COUNT_ALLOCATIONS
#define TFN_COUNT_ALLOCATIONS 1
#endif

#if TFN_COUNT_ALLOCATIONS
namespace {
std::atomic<bool> g_counting{false};
std::atomic<int64_t> g_allocations{0};
}  // namespace

// Counts every allocation of this test binary while g_counting is set. The
// replacements pair malloc with free, which GCC cannot see across calls.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
// Every form of new and delete (but the aligned ones, which the library pairs
// itself) is replaced, so that all of them pair malloc with free, under
// AddressSanitizer too.
namespace {
void* Counted(size_t size) {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1);
  return std::malloc(size ? size : 1);
}
}  // namespace
void* operator new(size_t size) {
  if (void* p = Counted(size)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t size) { return operator new(size); }
void* operator new(size_t size, const std::nothrow_t&) noexcept { return Counted(size); }
void* operator new[](size_t size, const std::nothrow_t&) noexcept { return Counted(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
#endif  // TFN_COUNT_ALLOCATIONS

namespace tfn {
namespace {

// y = relu(x * 2 - 3) (an elementwise chain), s = reduce_sum(x, 1), and x
// itself (a result the run copies rather than computes): three kinds of
// result, with a dynamic batch.
std::shared_ptr<const runtime::Bundle> ThreeOutputs() {
  auto f = function([](Tensor x) {
    return std::make_tuple(relu(x * constant(2.f) - constant(3.f)), reduce_sum(x, {1}), x);
  });
  std::string bytes = serialize(
      {{"serving_default", f.get_concrete_function(TensorSpec({kDynamic, 3}, DType::kFloat32))}});
  auto owned = std::make_shared<std::string>(bytes);
  auto b = runtime::Bundle::FromMemory(owned->data(), owned->size(), owned);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return *b;
}

struct Buffers {
  std::vector<float> y, s, x;
  explicit Buffers(int64_t batch)
      : y(static_cast<size_t>(batch) * 3, -1.f),
        s(static_cast<size_t>(batch), -1.f),
        x(static_cast<size_t>(batch) * 3, -1.f) {}
  std::vector<runtime::Tensor> Bind(int64_t batch) {
    return {runtime::OutputView(DType::kFloat32, {batch, 3}, y.data()),
            runtime::OutputView(DType::kFloat32, {batch}, s.data()),
            runtime::OutputView(DType::kFloat32, {batch, 3}, x.data())};
  }
};

// Runs ThreeOutputs' signature on x = [[0, 1, 2], [3, 4, 5]] with every
// output bound to `buf`, against values computed by hand.
void ExpectTheHandComputedResults(const runtime::Method& method,
                                  const std::vector<runtime::Tensor>& in,
                                  std::vector<runtime::Tensor>* out, const Buffers& buf) {
  Status st = method.Run(in, out);
  ASSERT_TRUE(st.ok()) << st.ToString();
  // relu(2x - 3), row sums, x.
  EXPECT_EQ(buf.y, (std::vector<float>{0, 0, 1, 3, 5, 7}));
  EXPECT_EQ(buf.s, (std::vector<float>{3, 12}));
  EXPECT_EQ(buf.x, (std::vector<float>{0, 1, 2, 3, 4, 5}));
}

TEST(Method, BoundOutputsAreWrittenInPlace) {
  runtime::Session session(ThreeOutputs());
  auto method = session.method("serving_default");
  ASSERT_TRUE(method.ok()) << method.status().ToString();
  EXPECT_EQ(method->name(), "serving_default");
  const float x[6] = {0, 1, 2, 3, 4, 5};
  std::vector<runtime::Tensor> in = {runtime::View(DType::kFloat32, {2, 3}, x)};
  Buffers buf(2);
  std::vector<runtime::Tensor> out = buf.Bind(2);
  ExpectTheHandComputedResults(*method, in, &out, buf);
  // The bound tensors are left as they were: the caller's views.
  EXPECT_EQ(out[0].data, buf.y.data());
  EXPECT_EQ(out[2].data, buf.x.data());
  // The same as an allocating run, and as Session::Run.
  auto allocated = method->Run(in);
  ASSERT_TRUE(allocated.ok());
  EXPECT_EQ(std::vector<float>((*allocated)[0].as<float>(), (*allocated)[0].as<float>() + 6),
            buf.y);
  auto by_name = session.Run("serving_default", in);
  ASSERT_TRUE(by_name.ok());
  EXPECT_EQ(std::vector<float>((*by_name)[1].as<float>(), (*by_name)[1].as<float>() + 2), buf.s);
}

TEST(Method, BoundAndAllocatedOutputsMix) {
  runtime::Session session(ThreeOutputs());
  auto method = session.method("serving_default");
  ASSERT_TRUE(method.ok());
  const float x[3] = {2, 2, 2};
  std::vector<runtime::Tensor> in = {runtime::View(DType::kFloat32, {1, 3}, x)};
  float s = -1;
  std::vector<runtime::Tensor> out(3);
  out[1] = runtime::OutputView(DType::kFloat32, {1}, &s);
  ASSERT_TRUE(method->Run(in, &out).ok());
  EXPECT_EQ(s, 6.f);
  ASSERT_NE(out[0].owner, nullptr);  // allocated: owns its memory
  EXPECT_EQ(out[0].shape, (Shape{1, 3}));
  EXPECT_EQ(out[0].as<float>()[2], 1.f);
  EXPECT_EQ(out[1].data, &s);
}

TEST(Method, ABoundBufferOfAnotherShapeOrDtypeIsRefusedBeforeRunning) {
  runtime::Session session(ThreeOutputs());
  auto method = session.method("serving_default");
  ASSERT_TRUE(method.ok());
  const float x[6] = {0, 1, 2, 3, 4, 5};
  std::vector<runtime::Tensor> in = {runtime::View(DType::kFloat32, {2, 3}, x)};
  Buffers buf(3);
  std::vector<runtime::Tensor> out = buf.Bind(3);  // batch 3 for a batch-2 input
  Status st = method->Run(in, &out);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("output 0 is f32[2,3], but the buffer bound to it is f32[3,3]"),
            std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("serving_default"), std::string::npos) << st.message();
  EXPECT_EQ(buf.y[0], -1.f);  // nothing ran
  int32_t wrong[2];
  out = Buffers(2).Bind(2);
  out[1] = runtime::OutputView(DType::kInt32, {2}, wrong);
  st = method->Run(in, &out);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("output 1 is f32[2], but the buffer bound to it is int32[2]"),
            std::string::npos)
      << st.message();
  std::vector<runtime::Tensor> two(2);
  st = method->Run(in, &two);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("returns 3 outputs"), std::string::npos) << st.message();
}

TEST(Method, OutputShapesAreKnownBeforeRunning) {
  runtime::Session session(ThreeOutputs());
  auto method = session.method("serving_default");
  ASSERT_TRUE(method.ok());
  auto shapes = method->OutputShapes({Shape{5, 3}});
  ASSERT_TRUE(shapes.ok()) << shapes.status().ToString();
  EXPECT_EQ(*shapes, (std::vector<Shape>{Shape{5, 3}, Shape{5}, Shape{5, 3}}));
  EXPECT_FALSE(method->OutputShapes({Shape{5, 4}}).ok());
}

TEST(Method, AnUnknownSignatureIsNamedWithTheKnownOnes) {
  runtime::Session session(ThreeOutputs());
  auto method = session.method("serve");
  ASSERT_FALSE(method.ok());
  EXPECT_EQ(method.status().code(), StatusCode::kNotFound);
  EXPECT_NE(method.status().message().find("it has: serving_default"), std::string::npos);
}

#if TFN_COUNT_ALLOCATIONS
TEST(Method, AWarmRunWithEveryOutputBoundAllocatesNothing) {
  runtime::SessionOptions one;
  one.num_threads = 1;
  runtime::Session session(ThreeOutputs(), one);
  auto method = session.method("serving_default");
  ASSERT_TRUE(method.ok());
  std::vector<float> x(64 * 3, 1.5f);
  std::vector<runtime::Tensor> in = {runtime::View(DType::kFloat32, {64, 3}, x.data())};
  Buffers buf(64);
  std::vector<runtime::Tensor> out = buf.Bind(64);
  runtime::RunOptions options;
  ASSERT_TRUE(method->Run(in, &out, options).ok());  // plans and takes an arena
  g_allocations = 0;
  g_counting = true;
  Status st;
  for (int i = 0; i < 10 && st.ok(); ++i) st = method->Run(in, &out, options);
  g_counting = false;
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(g_allocations.load(), 0);
  EXPECT_EQ(buf.s[63], 4.5f);
  // The counter counts: an allocating run does allocate.
  g_counting = true;
  ASSERT_TRUE(method->Run(in, options).ok());
  g_counting = false;
  EXPECT_GT(g_allocations.load(), 0);
}
#endif  // TFN_COUNT_ALLOCATIONS

// ThreeOutputs' signature as compiled code would give it, written by hand:
// inputs {x f32[?,3]}, dims {batch}, outputs {y, s, x}.
const TfnAotTensorDesc kIn[] = {{"x", 4, 2, {-1, 3}, {0, -1}}};
const TfnAotTensorDesc kOut[] = {{"output_0", 4, 2, {-1, 3}, {0, -1}},
                                 {"output_1", 4, 1, {-1}, {0}},
                                 {"output_2", 4, 2, {-1, 3}, {0, -1}}};
int32_t HandRun(const void* const* in, const int64_t* dims, void* const* out, void*) {
  const float* x = static_cast<const float*>(in[0]);
  float* y = static_cast<float*>(out[0]);
  float* s = static_cast<float*>(out[1]);
  float* copy = static_cast<float*>(out[2]);
  for (int64_t b = 0; b < dims[0]; ++b) {
    s[b] = 0;
    for (int64_t k = 0; k < 3; ++k) {
      float v = x[b * 3 + k];
      y[b * 3 + k] = v * 2 - 3 > 0 ? v * 2 - 3 : 0;
      s[b] += v;
      copy[b * 3 + k] = v;
    }
  }
  return TFN_AOT_OK;
}
int64_t HandScratch(const int64_t* dims) { return dims[0] < 0 ? -1 : 1024; }
int32_t HandShape(const int64_t* dims, int32_t index, int64_t* out) {
  out[0] = dims[0];
  out[1] = 3;
  return index < 3 ? TFN_AOT_OK : TFN_AOT_BAD_ARGUMENT;
}
const TfnAotSignature kHand = {1,    "serving_default", 1,       3,           1,         kIn,
                               kOut, nullptr,           HandRun, HandScratch, HandShape, nullptr};

TEST(Method, CompiledCodeWritesBoundOutputsAndHonoursTheMemoryLimit) {
  runtime::Session session(ThreeOutputs());
  ASSERT_TRUE(session.UseCompiled("serving_default", &kHand).ok());
  auto method = session.method("serving_default");
  ASSERT_TRUE(method.ok());
  const float x[6] = {0, 1, 2, 3, 4, 5};
  std::vector<runtime::Tensor> in = {runtime::View(DType::kFloat32, {2, 3}, x)};
  Buffers buf(2);
  std::vector<runtime::Tensor> out = buf.Bind(2);
  ExpectTheHandComputedResults(*method, in, &out, buf);
  out = Buffers(3).Bind(3);
  Status st = method->Run(in, &out);
  EXPECT_NE(st.message().find("output 0 is f32[2,3], but the buffer bound to it is f32[3,3]"),
            std::string::npos)
      << st.message();
  // Scratch (1024 bytes) and the allocated outputs count against the limit.
  runtime::RunOptions tight;
  tight.max_run_bytes = 1000;
  auto over = method->Run(in, tight);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(over.status().message().find("max_run_bytes"), std::string::npos);
}

TEST(Method, CompiledCodeIsRefusedForASignatureReadingStateOthersAssign) {
  Variable total{zeros({2}), "method_test_total"};
  auto add = function([&](Tensor x) {
    total.assign_add(x);
    return total.value();
  });
  auto peek = function([&]() { return total.value(); });
  std::string bytes =
      serialize({{"add", add.get_concrete_function(TensorSpec({2}, DType::kFloat32))},
                 {"peek", peek.get_concrete_function()}});
  auto owned = std::make_shared<std::string>(bytes);
  auto bundle = runtime::Bundle::FromMemory(owned->data(), owned->size(), owned);
  ASSERT_TRUE(bundle.ok());
  runtime::Session session(*bundle);
  const TfnAotTensorDesc out[] = {{"output_0", 4, 1, {2}, {-1}}};
  const TfnAotSignature compiled = {1,   "peek",  0,       1,           0,         nullptr,
                                    out, nullptr, HandRun, HandScratch, HandShape, nullptr};
  Status st = session.UseCompiled("peek", &compiled);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(st.message().find("reads variable 'method_test_total'"), std::string::npos)
      << st.message();
}

}  // namespace
}  // namespace tfn
