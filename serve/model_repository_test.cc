// The model repository on bundles saved by the tracer: version policies,
// hot swaps that leave requests in flight on their version, broken files
// and configs that keep the old version serving, batching through a
// repository, the request checks' messages, and a bundle of UINT8, FP16 and
// the other narrow datatypes served through the REST codec.
#include "serve/model_repository.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <thread>

#include "exporter/save.h"
#include "serve/metrics.h"
#include "serve/rest_codec.h"
#include "tests/serve/dtype_model.h"
#include "tfn/tfn.h"

namespace tfn::serve {
namespace {

// y = x * 2 + version, x: f32[?,3]: each version answers differently.
void SaveModel(const std::string& path, float version) {
  FunctionOptions options;
  options.arg_names = {"x"};
  auto f = function([version](Tensor x) { return x * constant(2.f) + constant(version); }, options);
  save(path,
       {{"serving_default", f.get_concrete_function(TensorSpec({kDynamic, 3}, DType::kFloat32))}});
}

std::string TempDir() {
  char tmpl[] = "/tmp/tfn_serve_repo_XXXXXX";
  return mkdtemp(tmpl);
}

void AddVersion(const std::string& repo, const std::string& model, int version) {
  const std::string dir = repo + "/" + model + "/" + std::to_string(version);
  ASSERT_EQ(std::system(("mkdir -p " + dir).c_str()), 0);
  SaveModel(dir + "/model.tfn", static_cast<float>(version));
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

InferRequest Request(const std::string& model, const std::string& version, int64_t rows = 1) {
  InferRequest r;
  r.model = model;
  r.version = version;
  std::vector<float> x(static_cast<size_t>(rows * 3));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  r.inputs.push_back({"x", runtime::Tensor::Copy(DType::kFloat32, Shape{rows, 3}, x.data())});
  return r;
}

// The first output's first element (x[0] * 2 + version = version).
float Answer(ModelRepository& repo, const std::string& model, const std::string& version) {
  Result<std::shared_ptr<const ModelVersion>> v = repo.Find(model, version);
  EXPECT_TRUE(v.ok()) << v.status().message();
  if (!v.ok()) return -1;
  Result<InferResponse> r = (*v)->Infer(Request(model, version));
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r->outputs[0].tensor.as<float>()[0] : -1;
}

std::unique_ptr<ModelRepository> Open(const std::string& dir, Metrics* metrics = nullptr,
                                      ModelOptions defaults = {}) {
  RepositoryOptions o;
  o.repository = dir;
  o.defaults = defaults;
  Result<std::unique_ptr<ModelRepository>> repo = ModelRepository::Open(o, metrics);
  EXPECT_TRUE(repo.ok()) << repo.status().message();
  return repo.ok() ? std::move(*repo) : nullptr;
}

TEST(ModelRepository, ServesTheNewestVersionAndNamesWhatIsLoaded) {
  const std::string dir = TempDir();
  AddVersion(dir, "m", 1);
  AddVersion(dir, "m", 2);
  auto repo = Open(dir);
  ASSERT_TRUE(repo);
  EXPECT_TRUE(repo->AllLoaded());
  EXPECT_EQ(Answer(*repo, "m", ""), 2.f);
  EXPECT_EQ(Answer(*repo, "m", "2"), 2.f);
  Result<std::shared_ptr<const ModelVersion>> v1 = repo->Find("m", "1");
  ASSERT_FALSE(v1.ok());
  EXPECT_EQ(v1.status().code(), StatusCode::kNotFound);
  EXPECT_NE(v1.status().message().find("loaded versions: 2"), std::string::npos)
      << v1.status().message();
  Result<std::shared_ptr<const ModelVersion>> other = repo->Find("nope", "");
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("this server has 'm'"), std::string::npos);
  Result<ModelMetadata> md = repo->Metadata("m", "");
  ASSERT_TRUE(md.ok());
  EXPECT_EQ(md->versions, (std::vector<std::string>{"2"}));
  ASSERT_EQ(md->inputs.size(), 1u);
  EXPECT_EQ(md->inputs[0].datatype, "FP32");
  EXPECT_EQ(md->inputs[0].shape, (std::vector<int64_t>{-1, 3}));
}

TEST(ModelRepository, HotSwapKeepsRequestsInFlightOnTheirVersion) {
  const std::string dir = TempDir();
  AddVersion(dir, "m", 1);
  Metrics metrics;
  auto repo = Open(dir, &metrics);
  ASSERT_TRUE(repo);
  Result<std::shared_ptr<const ModelVersion>> held = repo->Find("m", "");
  ASSERT_TRUE(held.ok());
  AddVersion(dir, "m", 2);
  std::vector<std::string> events = repo->Poll();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0], "loaded m version 2");
  EXPECT_EQ(events[1], "unloaded m version 1");
  EXPECT_EQ(Answer(*repo, "m", ""), 2.f);
  // The request that found version 1 before the swap still runs on it.
  Result<InferResponse> r = (*held)->Infer(Request("m", ""));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->outputs[0].tensor.as<float>()[0], 1.f);
  EXPECT_NE(metrics.Text().find("tfn_model_loaded{model=\"m\",version=\"1\"} 0"),
            std::string::npos);
  EXPECT_NE(metrics.Text().find("tfn_model_loaded{model=\"m\",version=\"2\"} 1"),
            std::string::npos);
  EXPECT_TRUE(repo->Poll().empty());  // nothing changed
}

TEST(ModelRepository, ABrokenNewVersionLeavesTheOldOneServing) {
  const std::string dir = TempDir();
  AddVersion(dir, "m", 1);
  auto repo = Open(dir);
  ASSERT_TRUE(repo);
  ASSERT_EQ(std::system(("mkdir -p " + dir + "/m/2").c_str()), 0);
  WriteFile(dir + "/m/2/model.tfn", "not a bundle");
  std::vector<std::string> events = repo->Poll();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].rfind("failed to load m version 2: ", 0), 0u) << events[0];
  EXPECT_EQ(Answer(*repo, "m", ""), 1.f);
  EXPECT_TRUE(repo->Poll().empty()) << "an unchanged broken file is not retried";
  Result<std::vector<VersionStatus>> status = repo->ModelStatus("m");
  ASSERT_TRUE(status.ok());
  ASSERT_EQ(status->size(), 2u);
  EXPECT_EQ((*status)[0].state, "AVAILABLE");
  EXPECT_EQ((*status)[1].state, "END");
  EXPECT_FALSE((*status)[1].error.empty());
  // The file finished copying: the next poll loads it.
  SaveModel(dir + "/m/2/model.tfn", 2.f);
  events = repo->Poll();
  EXPECT_EQ(events.front(), "loaded m version 2");
  EXPECT_EQ(Answer(*repo, "m", ""), 2.f);
}

TEST(ModelRepository, ConfigJsonSetsThePolicyAndABadOneKeepsServing) {
  const std::string dir = TempDir();
  AddVersion(dir, "m", 1);
  AddVersion(dir, "m", 2);
  WriteFile(dir + "/m/config.json", R"({"version_policy": "all"})");
  auto repo = Open(dir);
  ASSERT_TRUE(repo);
  EXPECT_EQ(Answer(*repo, "m", "1"), 1.f);
  EXPECT_EQ(Answer(*repo, "m", "2"), 2.f);
  WriteFile(dir + "/m/config.json", R"({"version_policy": "al"})");
  std::vector<std::string> events = repo->Poll();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_NE(events[0].find("version policy 'al'"), std::string::npos) << events[0];
  EXPECT_EQ(Answer(*repo, "m", "1"), 1.f);
  WriteFile(dir + "/m/config.json", R"({"version_policy": "specific:1"})");
  repo->Poll();
  EXPECT_EQ(Answer(*repo, "m", ""), 1.f);
  EXPECT_FALSE(repo->Find("m", "2").ok());
}

TEST(ModelRepository, AModelWithNothingLoadableKeepsTheServerUnready) {
  const std::string dir = TempDir();
  AddVersion(dir, "good", 1);
  ASSERT_EQ(std::system(("mkdir -p " + dir + "/bad/1").c_str()), 0);
  WriteFile(dir + "/bad/1/model.tfn", "junk");
  auto repo = Open(dir);
  ASSERT_TRUE(repo);
  EXPECT_FALSE(repo->AllLoaded());
  Result<std::shared_ptr<const ModelVersion>> bad = repo->Find("bad", "");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(bad.status().message().find("no version loaded"), std::string::npos);
  EXPECT_EQ(Answer(*repo, "good", ""), 1.f);
}

TEST(ModelRepository, RequestChecksNameTheInputAndTheSpec) {
  const std::string dir = TempDir();
  AddVersion(dir, "m", 1);
  auto repo = Open(dir);
  ASSERT_TRUE(repo);
  std::shared_ptr<const ModelVersion> v = *repo->Find("m", "");
  auto error = [&](InferRequest r) {
    Result<InferResponse> out = v->Infer(r);
    EXPECT_FALSE(out.ok());
    return out.ok() ? std::string() : out.status().message();
  };
  InferRequest wrong_name = Request("m", "");
  wrong_name.inputs[0].name = "y";
  EXPECT_NE(error(wrong_name).find("has no input 'y'; its inputs are 'x'"), std::string::npos);
  InferRequest wrong_shape = Request("m", "");
  wrong_shape.inputs[0].tensor.shape = Shape{3};
  EXPECT_NE(error(wrong_shape)
                .find("input 'x' of model 'm' version 1 signature "
                      "'serving_default': expected FP32 [?,3]"),
            std::string::npos)
      << error(wrong_shape);
  InferRequest wrong_dtype = Request("m", "");
  int64_t zeros[3] = {0, 0, 0};
  wrong_dtype.inputs[0].tensor = runtime::Tensor::Copy(DType::kInt64, Shape{1, 3}, zeros);
  EXPECT_NE(error(wrong_dtype).find("got INT64 [1,3]"), std::string::npos);
  InferRequest missing = Request("m", "");
  missing.inputs.clear();
  EXPECT_NE(error(missing).find("input 'x' (FP32 [?,3]"), std::string::npos);
  InferRequest twice = Request("m", "");
  twice.inputs.push_back(twice.inputs[0]);
  EXPECT_NE(error(twice).find("given twice"), std::string::npos);
  InferRequest output = Request("m", "");
  output.outputs = {"nope"};
  EXPECT_NE(error(output).find("has no output 'nope'"), std::string::npos);
  InferRequest signature = Request("m", "");
  signature.signature = "train";
  EXPECT_NE(error(signature).find("has no signature 'train'; its signatures are 'serving_default'"),
            std::string::npos);
}

TEST(ModelRepository, BatchingThroughTheRepositoryAnswersEachRequest) {
  const std::string dir = TempDir();
  AddVersion(dir, "m", 7);
  ModelOptions defaults;
  defaults.instances = 2;
  defaults.batching.max_batch_size = 16;
  defaults.batching.max_queue_delay_us = 2000;
  Metrics metrics;
  auto repo = Open(dir, &metrics, defaults);
  ASSERT_TRUE(repo);
  std::shared_ptr<const ModelVersion> v = *repo->Find("m", "");
  ASSERT_TRUE(v->Batches(""));
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 12; ++t) {
    threads.emplace_back([&, t] {
      const int64_t rows = 1 + t % 3;
      Result<InferResponse> r = v->Infer(Request("m", "", rows));
      if (!r.ok() || r->outputs[0].tensor.shape != Shape({rows, 3})) {
        ++wrong;
        return;
      }
      for (int64_t i = 0; i < rows * 3; ++i) {
        if (r->outputs[0].tensor.as<float>()[i] != static_cast<float>(i) * 2 + 7) ++wrong;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_NE(metrics.Text().find("tfn_inferences_total{model=\"m\",version=\"7\"} 12"),
            std::string::npos)
      << metrics.Text();
}

TEST(ModelRepository, WarmUpLeavesVariablesAsSaved) {
  // A signature that counts its calls: serving must start from the saved
  // count, however the version was warmed up.
  const std::string dir = TempDir();
  Variable steps(constant(int64_t{5}), "steps");
  FunctionOptions options;
  options.arg_names = {"x"};
  auto count = function(
      [&steps](Tensor x) {
        steps.assign_add(constant(int64_t{1}));
        return x + cast(steps.value(), DType::kFloat32);
      },
      options);
  save(dir + "/count.tfn", {{"serving_default", count.get_concrete_function(
                                                    TensorSpec({kDynamic, 3}, DType::kFloat32))}});
  RepositoryOptions o;
  o.bundles = {{"count", dir + "/count.tfn"}};
  o.defaults.instances = 2;
  Result<std::unique_ptr<ModelRepository>> repo = ModelRepository::Open(o, nullptr);
  ASSERT_TRUE(repo.ok()) << repo.status().message();
  // x[0] = 0, and the first call makes steps 6.
  EXPECT_EQ(Answer(**repo, "count", ""), 6.f);
}

TEST(ModelRepository, SingleBundlesAndBadPaths) {
  const std::string dir = TempDir();
  SaveModel(dir + "/one.tfn", 5.f);
  RepositoryOptions o;
  o.bundles = {{"one", dir + "/one.tfn"}};
  Result<std::unique_ptr<ModelRepository>> repo = ModelRepository::Open(o, nullptr);
  ASSERT_TRUE(repo.ok());
  EXPECT_EQ(Answer(**repo, "one", "1"), 5.f);
  o.bundles = {{"two", dir + "/missing.tfn"}};
  EXPECT_NE(ModelRepository::Open(o, nullptr).status().message().find("does not exist"),
            std::string::npos);
  RepositoryOptions r;
  r.repository = dir + "/nowhere";
  EXPECT_NE(ModelRepository::Open(r, nullptr).status().message().find("is not a directory"),
            std::string::npos);
}

// tests/serve/dtype_model.h as one bundle, opened as model "dtypes".
std::unique_ptr<ModelRepository> OpenDtypeModel() {
  const std::string dir = TempDir();
  serve_testing::SaveDtypeModel(dir + "/dtypes.tfn");
  RepositoryOptions o;
  o.bundles = {{"dtypes", dir + "/dtypes.tfn"}};
  Result<std::unique_ptr<ModelRepository>> repo = ModelRepository::Open(o, nullptr);
  EXPECT_TRUE(repo.ok()) << repo.status().message();
  return repo.ok() ? std::move(*repo) : nullptr;
}

// A v2 REST body through the codec and the model, and the response's body.
EncodedBody InferRest(ModelRepository& repo, std::shared_ptr<const std::string> body,
                      int64_t header_length) {
  Result<V2InferRequest> request = ParseV2InferRequest(std::move(body), header_length, nullptr);
  EXPECT_TRUE(request.ok()) << request.status().message();
  if (!request.ok()) return {};
  request->request.model = "dtypes";
  Result<std::shared_ptr<const ModelVersion>> v = repo.Find("dtypes", "");
  EXPECT_TRUE(v.ok()) << v.status().message();
  if (!v.ok()) return {};
  Result<InferResponse> response = (*v)->Infer(request->request);
  EXPECT_TRUE(response.ok()) << response.status().message();
  if (!response.ok()) return {};
  return EncodeV2InferResponse(*response, *request);
}

TEST(ModelRepository, MetadataNamesTheNewDatatypes) {
  auto repo = OpenDtypeModel();
  ASSERT_TRUE(repo);
  Result<ModelMetadata> md = repo->Metadata("dtypes", "");
  ASSERT_TRUE(md.ok()) << md.status().message();
  auto names = [](const std::vector<TensorMetadata>& ts) {
    std::vector<std::string> out;
    for (const TensorMetadata& t : ts) out.push_back(t.name + ":" + t.datatype);
    return out;
  };
  EXPECT_EQ(names(md->inputs), (std::vector<std::string>{"x:UINT8", "h:FP16"}));
  EXPECT_EQ(names(md->outputs), (std::vector<std::string>{"doubled:FP16", "quadrupled:UINT8"}));
  EXPECT_EQ(md->inputs[0].shape, (std::vector<int64_t>{-1, 3}));
  // The default signature first, then the others by name.
  ASSERT_EQ(md->signatures.size(), 3u);
  EXPECT_EQ(md->signatures[1].name, "bf16");
  EXPECT_EQ(names(md->signatures[1].inputs), (std::vector<std::string>{"g:BF16"}));
  EXPECT_EQ(names(md->signatures[1].outputs), (std::vector<std::string>{"g_twice:BF16"}));
  EXPECT_EQ(md->signatures[2].name, "narrow");
  EXPECT_EQ(names(md->signatures[2].inputs),
            (std::vector<std::string>{"i8:INT8", "i16:INT16", "u8:UINT8", "u16:UINT16",
                                      "u32:UINT32", "u64:UINT64"}));
}

// x: uint8, h: f16 -> doubled = f16(x * 2), quadrupled = uint8(h * 4).
// h's FP16 values are 0.5, 1.2998046875 (1.3 rounded), 63.75, 100, -1 and
// 0.0999755859375 (0.1 rounded); times 4, truncated and saturated to
// [0, 255]: 2, 5, 255, 255, 0, 0.
const char* kDtypeRequest =
    R"({"inputs":[{"name":"x","shape":[2,3],"datatype":"UINT8","data":[[0,1,255],[7,128,3]]},)"
    R"({"name":"h","shape":[2,3],"datatype":"FP16","data":[0.5,1.3,63.75,100,-1,0.1]}]})";

TEST(ModelRepository, ServesUint8AndFp16InJson) {
  auto repo = OpenDtypeModel();
  ASSERT_TRUE(repo);
  EncodedBody e = InferRest(*repo, std::make_shared<const std::string>(kDtypeRequest), -1);
  EXPECT_EQ(e.body,
            R"({"model_name":"dtypes","model_version":"1","id":"","outputs":[)"
            R"({"name":"doubled","datatype":"FP16","shape":[2,3],)"
            R"("data":[0.0,2.0,510.0,14.0,256.0,6.0]},)"
            R"({"name":"quadrupled","datatype":"UINT8","shape":[2,3],"data":[2,5,255,255,0,0]}]})");
}

TEST(ModelRepository, ServesUint8AndFp16InBinary) {
  auto repo = OpenDtypeModel();
  ASSERT_TRUE(repo);
  // The same values as kDtypeRequest, as the binary tensor data extension
  // sends them: UINT8 bytes, then FP16 bit patterns little-endian (0.5 is
  // 0x3800, 1.3 0x3d33, 63.75 0x53f8, 100 0x5640, -1 0xbc00, 0.1 0x2e66).
  std::string json =
      R"({"inputs":[{"name":"x","shape":[2,3],"datatype":"UINT8","parameters":{"binary_data_size":6}},)"
      R"({"name":"h","shape":[2,3],"datatype":"FP16","parameters":{"binary_data_size":12}}],)"
      R"("parameters":{"binary_data_output":true}})";
  const std::string bytes(
      "\x00\x01\xff\x07\x80\x03"
      "\x00\x38\x33\x3d\xf8\x53\x40\x56\x00\xbc\x66\x2e",
      18);
  auto body = std::make_shared<const std::string>(json + bytes);
  EncodedBody e = InferRest(*repo, body, static_cast<int64_t>(json.size()));
  ASSERT_GT(e.header_length, 0);
  EXPECT_EQ(e.body.substr(0, static_cast<size_t>(e.header_length)),
            R"({"model_name":"dtypes","model_version":"1","id":"","outputs":[)"
            R"({"name":"doubled","datatype":"FP16","shape":[2,3],)"
            R"("parameters":{"binary_data_size":12}},)"
            R"({"name":"quadrupled","datatype":"UINT8","shape":[2,3],)"
            R"("parameters":{"binary_data_size":6}}]})");
  // doubled: 0, 2, 510, 14, 256, 6 in FP16 (0x0000, 0x4000, 0x5ff8, 0x4b00,
  // 0x5c00, 0x4600); then quadrupled's bytes.
  EXPECT_EQ(e.body.substr(static_cast<size_t>(e.header_length)),
            std::string("\x00\x00\x00\x40\xf8\x5f\x00\x4b\x00\x5c\x00\x46"
                        "\x02\x05\xff\xff\x00\x00",
                        18));
}

TEST(ModelRepository, ServesEveryNarrowDatatypeInJson) {
  auto repo = OpenDtypeModel();
  ASSERT_TRUE(repo);
  const char* request =
      R"({"parameters":{"signature_name":"narrow"},"inputs":[)"
      R"({"name":"i8","shape":[2],"datatype":"INT8","data":[-128,127]},)"
      R"({"name":"i16","shape":[1],"datatype":"INT16","data":[-32768]},)"
      R"({"name":"u8","shape":[1],"datatype":"UINT8","data":[255]},)"
      R"({"name":"u16","shape":[1],"datatype":"UINT16","data":[65535]},)"
      R"({"name":"u32","shape":[1],"datatype":"UINT32","data":[4294967295]},)"
      R"({"name":"u64","shape":[1],"datatype":"UINT64","data":[18446744073709551615]}]})";
  EncodedBody e = InferRest(*repo, std::make_shared<const std::string>(request), -1);
  EXPECT_EQ(e.body,
            R"({"model_name":"dtypes","model_version":"1","id":"","outputs":[)"
            R"({"name":"i16_twice","datatype":"INT16","shape":[2],"data":[-32768,-32768]},)"
            R"({"name":"i8_twice","datatype":"INT8","shape":[4],"data":[-128,127,-128,127]},)"
            R"({"name":"u16_twice","datatype":"UINT16","shape":[2],"data":[65535,65535]},)"
            R"({"name":"u32_twice","datatype":"UINT32","shape":[2],)"
            R"("data":[4294967295,4294967295]},)"
            R"({"name":"u64_twice","datatype":"UINT64","shape":[2],)"
            R"("data":[18446744073709551615,18446744073709551615]},)"
            R"({"name":"u8_twice","datatype":"UINT8","shape":[2],"data":[255,255]}]})");

  // BF16's 0.1 is 0x3dcd, 0.10009765625.
  const char* bf16 = R"({"parameters":{"signature_name":"bf16"},"inputs":[)"
                     R"({"name":"g","shape":[2],"datatype":"BF16","data":[0.1,-2.5]}]})";
  e = InferRest(*repo, std::make_shared<const std::string>(bf16), -1);
  EXPECT_EQ(e.body, R"({"model_name":"dtypes","model_version":"1","id":"","outputs":[)"
                    R"({"name":"g_twice","datatype":"BF16","shape":[4],)"
                    R"("data":[0.100097656,-2.5,0.100097656,-2.5]}]})");
}

TEST(ModelRepository, ANewDatatypeOfTheWrongKindNamesBoth) {
  auto repo = OpenDtypeModel();
  ASSERT_TRUE(repo);
  std::shared_ptr<const ModelVersion> v = *repo->Find("dtypes", "");
  InferRequest r;
  r.model = "dtypes";
  int32_t ints[6] = {0, 1, 2, 3, 4, 5};
  uint16_t halves[6] = {};
  r.inputs.push_back({"x", runtime::Tensor::Copy(DType::kInt32, Shape{2, 3}, ints)});
  r.inputs.push_back({"h", runtime::Tensor::Copy(DType::kFloat16, Shape{2, 3}, halves)});
  Result<InferResponse> out = v->Infer(r);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("input 'x' of model 'dtypes' version 1 signature "
                                        "'serving_default': expected UINT8 [?,3]"),
            std::string::npos)
      << out.status().message();
  EXPECT_NE(out.status().message().find("got INT32 [2,3]"), std::string::npos)
      << out.status().message();
}

}  // namespace
}  // namespace tfn::serve
