// The model repository on bundles saved by the tracer: version policies,
// hot swaps that leave requests in flight on their version, broken files
// and configs that keep the old version serving, batching through a
// repository, and the request checks' messages.
#include "serve/model_repository.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <thread>

#include "exporter/save.h"
#include "serve/metrics.h"
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

}  // namespace
}  // namespace tfn::serve
