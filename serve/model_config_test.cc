// Version policies and config.json: what is selected, and the errors a typo
// or a wrong type gives.
#include "serve/model_config.h"

#include <gtest/gtest.h>

namespace tfn::serve {
namespace {

std::vector<int64_t> Select(const std::string& policy, std::vector<int64_t> available) {
  Result<VersionPolicy> p = VersionPolicy::Parse(policy);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? p->Select(available) : std::vector<int64_t>{};
}

TEST(VersionPolicy, SelectsAsTfServingDoes) {
  EXPECT_EQ(Select("latest", {1, 2, 5}), (std::vector<int64_t>{5}));
  EXPECT_EQ(Select("latest:2", {1, 2, 5}), (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(Select("latest:9", {1, 2}), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(Select("all", {1, 2, 5}), (std::vector<int64_t>{1, 2, 5}));
  EXPECT_EQ(Select("specific:5,1", {1, 2, 5}), (std::vector<int64_t>{1, 5}));
  EXPECT_EQ(Select("specific:7", {1, 2}), (std::vector<int64_t>{}));
  EXPECT_EQ(VersionPolicy::Parse("specific:3,1")->ToString(), "specific:1,3");
}

TEST(VersionPolicy, BadTextSaysWhatIsExpected) {
  for (const char* bad : {"newest", "latest:0", "latest:x", "specific:", "specific:1,", "all:2"}) {
    Result<VersionPolicy> p = VersionPolicy::Parse(bad);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_NE(p.status().message().find(bad), std::string::npos) << p.status().message();
  }
}

TEST(ModelConfig, SetsWhatItNamesAndKeepsTheRest) {
  ModelOptions defaults;
  defaults.threads = 3;
  Result<ModelOptions> o = ParseModelConfig(
      R"({"version_policy": "all", "instances": 2,
          "dynamic_batching": {"max_batch_size": 32, "max_queue_delay_us": 500,
                               "preferred_batch_sizes": [8, 16]}})",
      defaults, "m/config.json");
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->version_policy.kind, VersionPolicy::Kind::kAll);
  EXPECT_EQ(o->instances, 2);
  EXPECT_EQ(o->threads, 3);
  EXPECT_EQ(o->batching.max_batch_size, 32);
  EXPECT_EQ(o->batching.max_queue_delay_us, 500);
  EXPECT_EQ(o->batching.preferred_batch_sizes, (std::vector<int64_t>{8, 16}));
  EXPECT_EQ(o->batching.max_queue_size, 1024);
}

TEST(ModelConfig, ErrorsNameTheFileAndTheKey) {
  struct Case {
    const char* json;
    const char* expect;
  } cases[] = {
      {"{", "not valid JSON"},
      {"[]", "expected an object"},
      {R"({"instance": 2})", "unknown key \"instance\""},
      {R"({"instances": "2"})", "\"instances\" must be"},
      {R"({"instances": 0})", "between 1 and 1024"},
      {R"({"version_policy": "newest"})", "version policy 'newest'"},
      {R"({"dynamic_batching": {"max_batch": 4}})", "unknown key \"dynamic_batching.max_batch\""},
      {R"({"dynamic_batching": {"max_batch_size": -4}})", "dynamic_batching.max_batch_size"},
      {R"({"dynamic_batching": {"preferred_batch_sizes": 8}})", "a list of positive integers"},
  };
  for (const Case& c : cases) {
    Result<ModelOptions> o = ParseModelConfig(c.json, ModelOptions(), "m/config.json");
    ASSERT_FALSE(o.ok()) << c.json;
    EXPECT_NE(o.status().message().find("m/config.json"), std::string::npos);
    EXPECT_NE(o.status().message().find(c.expect), std::string::npos) << o.status().message();
  }
}

}  // namespace
}  // namespace tfn::serve
