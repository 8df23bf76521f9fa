// Tests of the runtime Session: dynamic dims, variable state across runs and
// signatures, variables that share the bundle's bytes until assigned, named
// inputs, input checking, arena planning, print output, and the C API (its
// method handles too: outputs written into caller memory, hostile arguments).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

#include "tfn/runtime.h"
#include "tfn/tfn.h"
#include "tfn/tfn_runtime.h"

namespace tfn {
namespace {

struct Counter {
  Variable total{zeros({2}), "total"};
  Variable steps{constant(0), "steps"};
};

std::string CounterBundle(Counter& c) {
  auto add = function([&c](Tensor x) {
    c.total.assign_add(reduce_sum(x, {0}));
    c.steps.assign_add(constant(1));
    print("step", c.steps.value(), "total", c.total.value());
    return c.total.value();
  });
  auto peek = function([&c]() { return std::make_tuple(c.total.value(), c.steps.value()); });
  FunctionOptions o;
  o.arg_names = {"x"};
  return serialize({{"add", add.get_concrete_function(TensorSpec({kDynamic, 2}, DType::kFloat32))},
                    {"peek", peek.get_concrete_function()}});
}

std::shared_ptr<const runtime::Bundle> FromBytes(const std::string& bytes) {
  auto owned = std::make_shared<std::string>(bytes);
  auto b = runtime::Bundle::FromMemory(owned->data(), owned->size(), owned);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return *b;
}

TEST(Session, VariablesPersistAcrossRunsAndSignatures) {
  Counter c;
  auto bundle = FromBytes(CounterBundle(c));
  runtime::Session session(bundle);
  std::string printed;
  runtime::RunOptions options;
  options.print = [&](const std::string& t) { printed += t; };
  Tensor x = constant(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape{3, 2});
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(session.Run("add", {x.value()}, options).ok());
  EXPECT_EQ(printed, "step 1 total [9, 12]\nstep 2 total [18, 24]\nstep 3 total [27, 36]\n");
  auto peek = session.Run("peek", std::vector<runtime::Tensor>{});
  ASSERT_TRUE(peek.ok());
  EXPECT_EQ(std::vector<float>((*peek)[0].as<float>(), (*peek)[0].as<float>() + 2),
            (std::vector<float>{27, 36}));
  EXPECT_EQ(*(*peek)[1].as<int32_t>(), 3);
  // A second session starts from the bundle's stored values.
  runtime::Session fresh(bundle);
  auto v = fresh.ReadVariable("steps");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v->as<int32_t>(), 0);
  std::vector<std::string> names = fresh.VariableNames();
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"steps", "total"}));
}

// A bundle with one f32[4096] variable `w` (16 KB, so it gets a segment
// that compression applies to) and signatures that read, assign and add to it.
std::string WeightBundle(const SaveOptions& options) {
  std::vector<float> init(4096);
  for (size_t i = 0; i < init.size(); ++i) init[i] = static_cast<float>(i % 7);
  Variable w(constant(init, Shape{4096}), "w");
  auto read = function([&w]() { return w.value(); });
  auto set = function([&w](Tensor x) {
    w.assign(x);
    return w.value();
  });
  auto add = function([&w](Tensor x) {
    w.assign_add(x);
    return w.value();
  });
  TensorSpec spec({4096}, DType::kFloat32);
  return serialize({{"read", read.get_concrete_function()},
                    {"set", set.get_concrete_function(spec)},
                    {"add", add.get_concrete_function(spec)}},
                   options);
}

// The bundle's bytes in a 64-byte aligned block, so FromMemory uses them in
// place (as it does a mapped file) and the test knows where they are.
struct InPlaceBundle {
  explicit InPlaceBundle(const std::string& bytes)
      : size(bytes.size()), block(AllocateAligned(bytes.size())) {
    std::memcpy(block.get(), bytes.data(), size);
    auto b = runtime::Bundle::FromMemory(block.get(), size, block);
    EXPECT_TRUE(b.ok()) << b.status().ToString();
    bundle = *b;
  }
  bool Holds(const void* p) const {
    auto* base = static_cast<const char*>(block.get());
    return p >= base && p < base + size;
  }
  size_t size;
  std::shared_ptr<void> block;
  std::shared_ptr<const runtime::Bundle> bundle;
};

float First(const Result<runtime::Tensor>& t) { return t.ok() ? t->as<float>()[0] : -1.f; }

// The one variable of a WeightBundle.
std::string OnlyVariable(const runtime::Session& s) {
  std::vector<std::string> names = s.VariableNames();
  EXPECT_EQ(names.size(), 1u);
  return names.empty() ? "" : names[0];
}

TEST(Session, VariablesReadTheBundleBytesUntilTheirFirstAssignment) {
  std::string bytes = WeightBundle({});
  InPlaceBundle in_place(bytes);
  runtime::Session reader(in_place.bundle), writer(in_place.bundle);
  const std::string name = OnlyVariable(reader);
  // No copy at Session construction: both read the bundle's own bytes.
  auto r = reader.ReadVariable(name);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(in_place.Holds(r->data));
  EXPECT_EQ(r->data, writer.ReadVariable(name)->data);
  // Runs that only read keep reading them.
  auto out = reader.Run("read", std::vector<runtime::Tensor>{});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].as<float>()[6], 6.f);
  EXPECT_TRUE(in_place.Holds(reader.ReadVariable(name)->data));
  // assign_add copies the value into the writer's own state first.
  Tensor ones4096 = ones({4096});
  ASSERT_TRUE(writer.Run("add", {ones4096.value()}).ok());
  auto w = writer.ReadVariable(name);
  EXPECT_FALSE(in_place.Holds(w->data));
  EXPECT_EQ(w->as<float>()[6], 7.f);
  ASSERT_TRUE(writer.Run("add", {ones4096.value()}).ok());
  EXPECT_EQ(First(writer.ReadVariable(name)), 2.f);
  // The other session and the bundle's bytes still hold the initial value.
  EXPECT_EQ(First(reader.ReadVariable(name)), 0.f);
  EXPECT_EQ(reader.ReadVariable(name)->as<float>()[6], 6.f);
  EXPECT_EQ(std::memcmp(in_place.block.get(), bytes.data(), bytes.size()), 0);
  runtime::Session fresh(in_place.bundle);
  EXPECT_TRUE(in_place.Holds(fresh.ReadVariable(name)->data));
  EXPECT_EQ(First(fresh.ReadVariable(name)), 0.f);
  // assign, too, leaves the bundle alone; a snapshot taken before an
  // assignment keeps its value.
  auto before = fresh.ReadVariable(name);
  Tensor fives = constant(std::vector<float>(4096, 5.f), Shape{4096});
  ASSERT_TRUE(fresh.Run("set", {fives.value()}).ok());
  EXPECT_EQ(First(fresh.ReadVariable(name)), 5.f);
  EXPECT_FALSE(in_place.Holds(fresh.ReadVariable(name)->data));
  EXPECT_EQ(First(before), 0.f);
  EXPECT_EQ(std::memcmp(in_place.block.get(), bytes.data(), bytes.size()), 0);
}

TEST(Session, CompressedVariablesAreDecompressedOnceAndShared) {
  SaveOptions o;
  o.compress = true;
  o.min_compress_bytes = 0;
  InPlaceBundle in_place(WeightBundle(o));
  runtime::Session a(in_place.bundle), b(in_place.bundle);
  const std::string name = OnlyVariable(a);
  // Both sessions read the one decompressed copy the bundle made at load.
  auto va = a.ReadVariable(name);
  ASSERT_TRUE(va.ok());
  EXPECT_FALSE(in_place.Holds(va->data));
  EXPECT_EQ(va->data, b.ReadVariable(name)->data);
  EXPECT_EQ(va->as<float>()[6], 6.f);
  Tensor ones4096 = ones({4096});
  ASSERT_TRUE(a.Run("add", {ones4096.value()}).ok());
  EXPECT_EQ(First(a.ReadVariable(name)), 1.f);
  EXPECT_EQ(First(b.ReadVariable(name)), 0.f);
  EXPECT_EQ(b.ReadVariable(name)->data, va->data);
  EXPECT_EQ(va->as<float>()[0], 0.f);
}

TEST(Session, DynamicDimsAndNamedInputs) {
  auto f = function([](Tensor x) { return matmul(x, ones({3, 2})) * 2.0; });
  // The spec's name names the input (an unnamed argument would be "arg0").
  auto bundle = FromBytes(
      serialize({{"serving_default",
                  f.get_concrete_function(TensorSpec({kDynamic, 3}, DType::kFloat32, "x"))}}));
  const runtime::SignatureInfo* sig = bundle->FindSignature("serving_default");
  ASSERT_NE(sig, nullptr);
  EXPECT_EQ(sig->inputs[0].ToString(), "x: f32[?,3]");
  EXPECT_EQ(sig->inputs[0].dim_names[0], "?s0");
  runtime::Session session(bundle);
  for (int n : {1, 5, 64}) {
    Tensor x = ones({n, 3});
    auto out =
        session.Run("serving_default", std::map<std::string, runtime::Tensor>{{"x", x.value()}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)[0].shape, (Shape{n, 2}));
    EXPECT_EQ((*out)[0].as<float>()[0], 6.f);
  }
  // Arena bytes are known before running, and grow with the batch.
  auto small = session.ArenaBytes("serving_default", {Shape{1, 3}});
  auto big = session.ArenaBytes("serving_default", {Shape{1000, 3}});
  ASSERT_TRUE(small.ok() && big.ok());
  EXPECT_GT(*big, *small);
}

TEST(Session, InputErrorsNameTheInputAndSpec) {
  auto f = function([](Tensor x) { return x + 1.0; });
  auto bundle = FromBytes(serialize({{"serving_default", f.get_concrete_function(TensorSpec(
                                                             {kDynamic, 784}, DType::kFloat32))}}));
  runtime::Session session(bundle);
  auto out = session.Run("serving_default", {zeros({1, 785}).value()});
  EXPECT_EQ(out.status().message(),
            "signature 'serving_default': input 'arg0' expects f32[?,784], got f32[1,785]");
  out = session.Run("serving_default", {zeros({1, 784}, DType::kFloat64).value()});
  EXPECT_NE(out.status().message().find("got f64[1,784]"), std::string::npos);
  out = session.Run("nope", {zeros({1, 784}).value()});
  EXPECT_EQ(out.status().code(), StatusCode::kNotFound);
  EXPECT_NE(out.status().message().find("it has: serving_default"), std::string::npos);
  out = session.Run("serving_default", std::vector<runtime::Tensor>{});
  EXPECT_NE(out.status().message().find("takes 1 inputs, got 0"), std::string::npos);
  out = session.Run("serving_default",
                    std::map<std::string, runtime::Tensor>{{"y", zeros({1, 784}).value()}});
  EXPECT_NE(out.status().message().find("needs input 'arg0' (f32[?,784])"), std::string::npos);
}

TEST(Session, LoadsFromAFileWithMapping) {
  auto f = function([](Tensor x) { return x * 3.0; });
  std::string path = ::testing::TempDir() + "/session_test.tfn";
  save(path, {{"serving_default", f.get_concrete_function(TensorSpec({2}, DType::kFloat32))}});
  for (bool mmap : {true, false}) {
    runtime::LoadOptions o;
    o.use_mmap = mmap;
    o.verify_checksums = true;
    auto b = runtime::Bundle::Load(path, o);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    EXPECT_TRUE((*b)->VerifyChecksums().ok());
    EXPECT_EQ((*b)->producer(), "tfn");
    runtime::Session s(*b);
    auto out = s.Run("serving_default", {constant({1.f, 2.f}).value()});
    ASSERT_TRUE(out.ok());
    EXPECT_EQ((*out)[0].as<float>()[1], 6.f);
  }
  auto missing = runtime::Bundle::Load(path + ".nope");
  EXPECT_EQ(missing.status().code(), StatusCode::kIoError);
  EXPECT_NE(missing.status().message().find("cannot open"), std::string::npos);
}

TEST(CApi, LoadsAndRuns) {
  auto f = function([](Tensor x) { return x * 2.0 + 1.0; });
  std::string path = ::testing::TempDir() + "/c_api_test.tfn";
  save(path,
       {{"serving_default", f.get_concrete_function(TensorSpec({kDynamic}, DType::kFloat32))}});
  char error[256];
  TfnRtBundle* bundle = nullptr;
  ASSERT_EQ(tfn_rt_bundle_load(path.c_str(), &bundle, error, sizeof error), TFN_RT_OK) << error;
  EXPECT_EQ(tfn_rt_signature_count(bundle), 1);
  EXPECT_STREQ(tfn_rt_signature_name(bundle, 0), "serving_default");
  TfnRtTensor type;
  const char* name = nullptr;
  ASSERT_EQ(tfn_rt_signature_input(bundle, "serving_default", 0, &name, &type), 0);
  EXPECT_EQ(type.dims[0], -1);
  TfnRtSession* session = nullptr;
  ASSERT_EQ(tfn_rt_session_create(bundle, &session, error, sizeof error), TFN_RT_OK);
  float data[3] = {1, 2, 3};
  TfnRtTensor in{TFN_RT_FLOAT32, 1, {3}, data};
  TfnRtOutputs* outs = nullptr;
  ASSERT_EQ(tfn_rt_session_run(session, "serving_default", &in, 1, &outs, error, sizeof error),
            TFN_RT_OK)
      << error;
  ASSERT_EQ(tfn_rt_outputs_count(outs), 1);
  const float* y = static_cast<const float*>(tfn_rt_outputs_get(outs, 0)->data);
  EXPECT_EQ(y[2], 7.f);
  tfn_rt_outputs_free(outs);
  TfnRtTensor bad{TFN_RT_INT32, 1, {3}, data};
  EXPECT_EQ(tfn_rt_session_run(session, "serving_default", &bad, 1, &outs, error, sizeof error),
            TFN_RT_INVALID_ARGUMENT);
  EXPECT_NE(std::string(error).find("expects f32[?], got int32[3]"), std::string::npos) << error;
  tfn_rt_session_free(session);
  tfn_rt_bundle_free(bundle);
  EXPECT_EQ(tfn_rt_bundle_load("/no/such/file.tfn", &bundle, error, sizeof error), TFN_RT_IO_ERROR);
}

// The C API's method handles: y = relu(x * 2 - 3), s = reduce_sum(x, 1) and
// x itself, with a dynamic batch, in a session of one thread.
struct CMethod {
  TfnRtBundle* bundle = nullptr;
  TfnRtSession* session = nullptr;
  TfnRtMethod* method = nullptr;
  char error[512] = "";
  CMethod() {
    auto f = function([](Tensor x) {
      return std::make_tuple(relu(x * constant(2.f) - constant(3.f)), reduce_sum(x, {1}), x);
    });
    std::string bytes = serialize(
        {{"serving_default", f.get_concrete_function(TensorSpec({kDynamic, 3}, DType::kFloat32))}});
    EXPECT_EQ(tfn_rt_bundle_from_memory(bytes.data(), bytes.size(), &bundle, error, sizeof error),
              TFN_RT_OK)
        << error;
    TfnRtSessionOptions o = tfn_rt_session_options_default();
    o.num_threads = 1;
    EXPECT_EQ(tfn_rt_session_create_with_options(bundle, &o, &session, error, sizeof error),
              TFN_RT_OK)
        << error;
    EXPECT_EQ(tfn_rt_session_method(session, "serving_default", &method, error, sizeof error),
              TFN_RT_OK)
        << error;
  }
  ~CMethod() {
    tfn_rt_method_free(method);
    tfn_rt_session_free(session);
    tfn_rt_bundle_free(bundle);
  }
};

TfnRtTensor CTensor(int32_t dtype, std::initializer_list<int64_t> dims, void* data) {
  TfnRtTensor t;
  std::memset(&t, 0, sizeof t);
  t.dtype = dtype;
  t.rank = static_cast<int32_t>(dims.size());
  std::copy(dims.begin(), dims.end(), t.dims);
  t.data = data;
  return t;
}

// Checkpoints through the C API: a session's state moves to another one;
// bad files and arguments are refused and change nothing.
TEST(CApi, CheckpointsSaveAndRestoreTheState) {
  Counter c;
  const std::string path = ::testing::TempDir() + "/c_api_counter.tfn";
  {
    std::string bytes = CounterBundle(c);
    std::ofstream(path, std::ios::binary) << bytes;
  }
  char error[256];
  TfnRtBundle* bundle = nullptr;
  ASSERT_EQ(tfn_rt_bundle_load(path.c_str(), &bundle, error, sizeof error), TFN_RT_OK) << error;
  TfnRtSession *a = nullptr, *b = nullptr;
  ASSERT_EQ(tfn_rt_session_create(bundle, &a, error, sizeof error), TFN_RT_OK);
  ASSERT_EQ(tfn_rt_session_create(bundle, &b, error, sizeof error), TFN_RT_OK);
  float data[4] = {1, 2, 3, 4};
  TfnRtTensor in{TFN_RT_FLOAT32, 2, {2, 2}, data};
  for (int i = 0; i < 2; ++i) {
    TfnRtOutputs* outs = nullptr;
    ASSERT_EQ(tfn_rt_session_run(a, "add", &in, 1, &outs, error, sizeof error), TFN_RT_OK) << error;
    tfn_rt_outputs_free(outs);
  }
  const std::string ckpt = ::testing::TempDir() + "/c_api_counter.ckpt";
  ASSERT_EQ(tfn_rt_session_save_checkpoint(a, ckpt.c_str(), error, sizeof error), TFN_RT_OK)
      << error;
  auto total = [&](TfnRtSession* s) {
    TfnRtOutputs* outs = nullptr;
    EXPECT_EQ(tfn_rt_session_run(s, "peek", nullptr, 0, &outs, error, sizeof error), TFN_RT_OK);
    const float* t = static_cast<const float*>(tfn_rt_outputs_get(outs, 0)->data);
    const float sum = t[0] + t[1];
    tfn_rt_outputs_free(outs);
    return sum;
  };
  EXPECT_EQ(total(b), 0.f);
  // A truncated copy and a NULL path change nothing.
  {
    std::ifstream f(ckpt, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    std::ofstream(ckpt + ".cut", std::ios::binary) << bytes.substr(0, bytes.size() - 9);
  }
  EXPECT_EQ(tfn_rt_session_restore_checkpoint(b, (ckpt + ".cut").c_str(), error, sizeof error),
            TFN_RT_DATA_LOSS);
  EXPECT_NE(std::string(error).find("corrupt or truncated"), std::string::npos) << error;
  EXPECT_EQ(tfn_rt_session_restore_checkpoint(b, nullptr, error, sizeof error),
            TFN_RT_INVALID_ARGUMENT);
  EXPECT_EQ(total(b), 0.f);
  ASSERT_EQ(tfn_rt_session_restore_checkpoint(b, ckpt.c_str(), error, sizeof error), TFN_RT_OK)
      << error;
  EXPECT_EQ(total(b), total(a));
  EXPECT_EQ(total(b), 20.f);  // two runs of 1 + 2 + 3 + 4
  tfn_rt_session_free(a);
  tfn_rt_session_free(b);
  tfn_rt_bundle_free(bundle);
}

TEST(CApi, MethodRunsIntoCallerMemory) {
  CMethod c;
  ASSERT_NE(c.method, nullptr);
  EXPECT_EQ(tfn_rt_method_input_count(c.method), 1);
  EXPECT_EQ(tfn_rt_method_output_count(c.method), 3);
  float x[6] = {0, 1, 2, 3, 4, 5};
  TfnRtTensor in = CTensor(TFN_RT_FLOAT32, {2, 3}, x);
  // The shapes to allocate, before running.
  TfnRtTensor shapes[3];
  ASSERT_EQ(tfn_rt_method_output_shapes(c.method, &in, 1, shapes, 3, c.error, sizeof c.error),
            TFN_RT_OK)
      << c.error;
  EXPECT_EQ(shapes[0].dtype, TFN_RT_FLOAT32);
  EXPECT_EQ(shapes[0].rank, 2);
  EXPECT_EQ(shapes[0].dims[0], 2);
  EXPECT_EQ(shapes[0].dims[1], 3);
  EXPECT_EQ(shapes[1].rank, 1);
  EXPECT_EQ(shapes[1].dims[0], 2);
  EXPECT_EQ(shapes[2].data, nullptr);
  std::vector<float> y(6, -1.f), sum(2, -1.f), copy(6, -1.f);
  TfnRtTensor out[3] = {shapes[0], shapes[1], shapes[2]};
  out[0].data = y.data();
  out[1].data = sum.data();
  out[2].data = copy.data();
  const TfnRtTensor before = out[1];
  ASSERT_EQ(tfn_rt_method_run_into(c.method, &in, 1, out, 3, c.error, sizeof c.error), TFN_RT_OK)
      << c.error;
  EXPECT_STREQ(c.error, "");
  // By hand: relu(2x - 3), row sums, x.
  EXPECT_EQ(y, (std::vector<float>{0, 0, 1, 3, 5, 7}));
  EXPECT_EQ(sum, (std::vector<float>{3, 12}));
  EXPECT_EQ(copy, (std::vector<float>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(std::memcmp(&before, &out[1], sizeof before), 0);  // descriptors untouched
  // The allocating run and the run by name agree.
  TfnRtOutputs* allocated = nullptr;
  ASSERT_EQ(tfn_rt_method_run(c.method, &in, 1, &allocated, c.error, sizeof c.error), TFN_RT_OK)
      << c.error;
  ASSERT_EQ(tfn_rt_outputs_count(allocated), 3);
  EXPECT_EQ(std::memcmp(tfn_rt_outputs_get(allocated, 0)->data, y.data(), 6 * sizeof(float)), 0);
  EXPECT_EQ(tfn_rt_outputs_get(allocated, 1)->dims[0], 2);
  tfn_rt_outputs_free(allocated);
  TfnRtOutputs* by_name = nullptr;
  ASSERT_EQ(
      tfn_rt_session_run(c.session, "serving_default", &in, 1, &by_name, c.error, sizeof c.error),
      TFN_RT_OK);
  EXPECT_EQ(std::memcmp(tfn_rt_outputs_get(by_name, 1)->data, sum.data(), 2 * sizeof(float)), 0);
  tfn_rt_outputs_free(by_name);
  // One handle, another batch size; and a second handle beside the first.
  float x1[3] = {2, 2, 2};
  float y1[3], s1 = -1, c1[3];
  TfnRtTensor in1 = CTensor(TFN_RT_FLOAT32, {1, 3}, x1);
  TfnRtTensor out1[3] = {CTensor(TFN_RT_FLOAT32, {1, 3}, y1), CTensor(TFN_RT_FLOAT32, {1}, &s1),
                         CTensor(TFN_RT_FLOAT32, {1, 3}, c1)};
  ASSERT_EQ(tfn_rt_method_run_into(c.method, &in1, 1, out1, 3, c.error, sizeof c.error), TFN_RT_OK)
      << c.error;
  EXPECT_EQ(s1, 6.f);
  EXPECT_EQ(y1[2], 1.f);
  TfnRtMethod* second = nullptr;
  ASSERT_EQ(tfn_rt_session_method(c.session, "serving_default", &second, c.error, sizeof c.error),
            TFN_RT_OK);
  s1 = -1;
  ASSERT_EQ(tfn_rt_method_run_into(second, &in1, 1, out1, 3, c.error, sizeof c.error), TFN_RT_OK);
  EXPECT_EQ(s1, 6.f);
  tfn_rt_method_free(second);
}

TEST(CApi, MethodEmptyOutputsNeedNoData) {
  CMethod c;
  TfnRtTensor in = CTensor(TFN_RT_FLOAT32, {0, 3}, nullptr);
  TfnRtTensor out[3] = {CTensor(TFN_RT_FLOAT32, {0, 3}, nullptr),
                        CTensor(TFN_RT_FLOAT32, {0}, nullptr),
                        CTensor(TFN_RT_FLOAT32, {0, 3}, nullptr)};
  EXPECT_EQ(tfn_rt_method_run_into(c.method, &in, 1, out, 3, c.error, sizeof c.error), TFN_RT_OK)
      << c.error;
  // An empty buffer bound to a non-empty output is still a wrong shape.
  float x[6] = {};
  in = CTensor(TFN_RT_FLOAT32, {2, 3}, x);
  float s[2], y[6];
  out[1] = CTensor(TFN_RT_FLOAT32, {2}, s);
  out[2] = CTensor(TFN_RT_FLOAT32, {2, 3}, y);
  EXPECT_EQ(tfn_rt_method_run_into(c.method, &in, 1, out, 3, c.error, sizeof c.error),
            TFN_RT_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(c.error, "output 0 is f32[2,3], but the buffer bound to it is f32[0,3]"),
            nullptr)
      << c.error;
}

TEST(CApi, MethodRefusesHostileArguments) {
  CMethod c;
  char* e = c.error;
  const size_t n = sizeof c.error;
  float x[6] = {0, 1, 2, 3, 4, 5};
  std::vector<float> y(9, -1.f), sum(3, -1.f), copy(9, -1.f);
  TfnRtTensor in = CTensor(TFN_RT_FLOAT32, {2, 3}, x);
  TfnRtTensor out[3] = {CTensor(TFN_RT_FLOAT32, {2, 3}, y.data()),
                        CTensor(TFN_RT_FLOAT32, {2}, sum.data()),
                        CTensor(TFN_RT_FLOAT32, {2, 3}, copy.data())};
  TfnRtOutputs* outs = nullptr;
  TfnRtTensor shapes[3];

  // NULL pointers.
  TfnRtMethod* m = nullptr;
  EXPECT_EQ(tfn_rt_session_method(nullptr, "serving_default", &m, e, n), TFN_RT_INVALID_ARGUMENT);
  EXPECT_EQ(tfn_rt_session_method(c.session, nullptr, &m, e, n), TFN_RT_INVALID_ARGUMENT);
  EXPECT_EQ(tfn_rt_session_method(c.session, "serving_default", nullptr, e, n),
            TFN_RT_INVALID_ARGUMENT);
  EXPECT_EQ(m, nullptr);
  EXPECT_EQ(tfn_rt_method_run_into(nullptr, &in, 1, out, 3, e, n), TFN_RT_INVALID_ARGUMENT);
  EXPECT_EQ(tfn_rt_method_run_into(c.method, nullptr, 1, out, 3, e, n), TFN_RT_INVALID_ARGUMENT);
  EXPECT_EQ(tfn_rt_method_run_into(c.method, &in, 1, nullptr, 3, e, n), TFN_RT_INVALID_ARGUMENT);
  EXPECT_EQ(tfn_rt_method_run(nullptr, &in, 1, &outs, e, n), TFN_RT_INVALID_ARGUMENT);
  EXPECT_EQ(tfn_rt_method_run(c.method, nullptr, 1, &outs, e, n), TFN_RT_INVALID_ARGUMENT);
  EXPECT_EQ(tfn_rt_method_run(c.method, &in, 1, nullptr, e, n), TFN_RT_INVALID_ARGUMENT);
  EXPECT_EQ(tfn_rt_method_output_shapes(nullptr, &in, 1, shapes, 3, e, n), TFN_RT_INVALID_ARGUMENT);
  EXPECT_EQ(tfn_rt_method_output_shapes(c.method, &in, 1, nullptr, 3, e, n),
            TFN_RT_INVALID_ARGUMENT);
  EXPECT_EQ(tfn_rt_method_input_count(nullptr), -1);
  EXPECT_EQ(tfn_rt_method_output_count(nullptr), -1);
  tfn_rt_method_free(nullptr);
  // No error buffer, or one byte of it: the status alone, or an empty string.
  EXPECT_EQ(tfn_rt_method_run_into(c.method, &in, 2, out, 3, nullptr, 0), TFN_RT_INVALID_ARGUMENT);
  char tiny[1] = {'x'};
  EXPECT_EQ(tfn_rt_method_run_into(c.method, &in, 2, out, 3, tiny, 1), TFN_RT_INVALID_ARGUMENT);
  EXPECT_EQ(tiny[0], '\0');

  // An unknown signature names the ones there are.
  EXPECT_EQ(tfn_rt_session_method(c.session, "serve", &m, e, n), TFN_RT_NOT_FOUND);
  EXPECT_NE(std::strstr(e, "it has: serving_default"), nullptr) << e;
  EXPECT_EQ(m, nullptr);

  // Wrong counts.
  for (int count : {-1, 0, 2}) {
    EXPECT_EQ(tfn_rt_method_run_into(c.method, &in, count, out, 3, e, n), TFN_RT_INVALID_ARGUMENT);
    EXPECT_NE(std::strstr(e, ("takes 1 inputs, got " + std::to_string(count)).c_str()), nullptr)
        << e;
    EXPECT_EQ(tfn_rt_method_run(c.method, &in, count, &outs, e, n), TFN_RT_INVALID_ARGUMENT);
  }
  for (int count : {-1, 0, 2, 4}) {
    EXPECT_EQ(tfn_rt_method_run_into(c.method, &in, 1, out, count, e, n), TFN_RT_INVALID_ARGUMENT);
    EXPECT_NE(std::strstr(e, ("returns 3 outputs, got " + std::to_string(count)).c_str()), nullptr)
        << e;
    EXPECT_EQ(tfn_rt_method_output_shapes(c.method, &in, 1, shapes, count, e, n),
              TFN_RT_INVALID_ARGUMENT);
  }

  // Invalid dtypes, ranks and dims, in inputs and outputs.
  TfnRtTensor bad_in[] = {CTensor(99, {2, 3}, x), CTensor(0, {2, 3}, x),
                          CTensor(TFN_RT_FLOAT32, {2, 3}, x), CTensor(TFN_RT_FLOAT32, {-2, 3}, x),
                          CTensor(TFN_RT_FLOAT32, {INT64_MAX, INT64_MAX}, x)};
  bad_in[2].rank = TFN_RT_MAX_RANK + 1;
  for (const TfnRtTensor& b : bad_in) {
    EXPECT_EQ(tfn_rt_method_run_into(c.method, &b, 1, out, 3, e, n), TFN_RT_INVALID_ARGUMENT);
    EXPECT_NE(std::strstr(e, "input 0 "), nullptr) << e;
    EXPECT_EQ(tfn_rt_method_run(c.method, &b, 1, &outs, e, n), TFN_RT_INVALID_ARGUMENT);
    EXPECT_EQ(tfn_rt_method_output_shapes(c.method, &b, 1, shapes, 3, e, n),
              TFN_RT_INVALID_ARGUMENT);
    EXPECT_EQ(tfn_rt_session_run(c.session, "serving_default", &b, 1, &outs, e, n),
              TFN_RT_INVALID_ARGUMENT);
  }
  TfnRtTensor bad_out[3] = {out[0], out[1], out[2]};
  bad_out[2].dtype = 42;
  EXPECT_EQ(tfn_rt_method_run_into(c.method, &in, 1, bad_out, 3, e, n), TFN_RT_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(e, "output 2 has an invalid dtype or rank"), nullptr) << e;
  bad_out[2] = out[2];
  bad_out[1].rank = -1;
  EXPECT_EQ(tfn_rt_method_run_into(c.method, &in, 1, bad_out, 3, e, n), TFN_RT_INVALID_ARGUMENT);
  bad_out[1] = CTensor(TFN_RT_FLOAT32, {-2}, sum.data());
  EXPECT_EQ(tfn_rt_method_run_into(c.method, &in, 1, bad_out, 3, e, n), TFN_RT_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(e, "output 1 has dims [-2]: a dim is negative"), nullptr) << e;

  // A wrong input dtype or shape: the C++ message.
  TfnRtTensor wrong = CTensor(TFN_RT_INT32, {2, 3}, x);
  EXPECT_EQ(tfn_rt_method_run_into(c.method, &wrong, 1, out, 3, e, n), TFN_RT_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(e, "input 'arg0' expects f32[?,3], got int32[2,3]"), nullptr) << e;
  EXPECT_EQ(tfn_rt_method_output_shapes(c.method, &wrong, 1, shapes, 3, e, n),
            TFN_RT_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(e, "input 'arg0' expects f32[?,3], got int32[2,3]"), nullptr) << e;
  wrong = CTensor(TFN_RT_FLOAT32, {3, 2}, x);
  EXPECT_EQ(tfn_rt_method_output_shapes(c.method, &wrong, 1, shapes, 3, e, n),
            TFN_RT_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(e, "expects f32[?,3], got f32[3,2]"), nullptr) << e;
  TfnRtTensor no_data = CTensor(TFN_RT_FLOAT32, {2, 3}, nullptr);
  EXPECT_EQ(tfn_rt_method_run_into(c.method, &no_data, 1, out, 3, e, n), TFN_RT_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(e, "input 'arg0' has no data"), nullptr) << e;

  // A bound buffer of the wrong shape or dtype is refused before anything
  // runs, naming the output, what it is and what was bound.
  bad_out[1] = out[1];
  bad_out[0] = CTensor(TFN_RT_FLOAT32, {3, 3}, y.data());
  EXPECT_EQ(tfn_rt_method_run_into(c.method, &in, 1, bad_out, 3, e, n), TFN_RT_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(e, "output 0 is f32[2,3], but the buffer bound to it is f32[3,3]"), nullptr)
      << e;
  EXPECT_NE(std::strstr(e, "serving_default"), nullptr) << e;
  EXPECT_EQ(y[0], -1.f);
  EXPECT_EQ(sum[0], -1.f);
  bad_out[0] = out[0];
  int32_t ints[2];
  bad_out[1] = CTensor(TFN_RT_INT32, {2}, ints);
  EXPECT_EQ(tfn_rt_method_run_into(c.method, &in, 1, bad_out, 3, e, n), TFN_RT_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(e, "output 1 is f32[2], but the buffer bound to it is int32[2]"), nullptr)
      << e;
  bad_out[1] = CTensor(TFN_RT_FLOAT32, {2, 1}, sum.data());  // right size, wrong rank
  EXPECT_EQ(tfn_rt_method_run_into(c.method, &in, 1, bad_out, 3, e, n), TFN_RT_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(e, "output 1 is f32[2], but the buffer bound to it is f32[2,1]"), nullptr)
      << e;
  // A non-empty output without data: bind one or use tfn_rt_method_run.
  bad_out[1] = CTensor(TFN_RT_FLOAT32, {2}, nullptr);
  EXPECT_EQ(tfn_rt_method_run_into(c.method, &in, 1, bad_out, 3, e, n), TFN_RT_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(e, "output 1 ('output_1') has no data"), nullptr) << e;
  EXPECT_EQ(y[0], -1.f);

  // After all that the handle still runs.
  ASSERT_EQ(tfn_rt_method_run_into(c.method, &in, 1, out, 3, e, n), TFN_RT_OK) << e;
  EXPECT_EQ(sum[1], 12.f);
}

}  // namespace
}  // namespace tfn
