// The Prometheus text: counters, cumulative histogram buckets, escaping.
#include "serve/metrics.h"

#include <gtest/gtest.h>

namespace tfn::serve {
namespace {

bool Has(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

TEST(Metrics, CountsRequestsFailuresAndBatches) {
  Metrics m;
  m.RecordRequest("mlp", "1", "serving_default", "rest", 200, 0.0003);
  m.RecordRequest("mlp", "1", "serving_default", "rest", 400, 0.00004);
  m.RecordBatch("mlp", "1", 6, 3, {0.001, 0.002, 0.0});
  m.SetLoaded("mlp", "1", true);
  const std::string t = m.Text();
  const std::string mv = "model=\"mlp\",version=\"1\"";
  EXPECT_TRUE(
      Has(t, "tfn_requests_total{" + mv + ",signature=\"serving_default\",protocol=\"rest\"} 2"))
      << t;
  EXPECT_TRUE(Has(t, "tfn_request_failures_total{" + mv +
                         ",signature=\"serving_default\",protocol=\"rest\",code=\"400\"} 1"));
  // Buckets are cumulative: 40 us falls in the first (50 us), 300 us by 500 us.
  EXPECT_TRUE(Has(t, "tfn_request_duration_seconds_bucket{" + mv +
                         ",protocol=\"rest\",le=\"5.0000000000000002e-05\"} 1"))
      << t;
  EXPECT_TRUE(Has(t, "tfn_request_duration_seconds_bucket{" + mv +
                         ",protocol=\"rest\",le=\"0.00050000000000000001\"} 2"));
  EXPECT_TRUE(Has(t, "tfn_request_duration_seconds_count{" + mv + ",protocol=\"rest\"} 2"));
  EXPECT_TRUE(Has(t, "tfn_inferences_total{" + mv + "} 3"));
  EXPECT_TRUE(Has(t, "tfn_batch_executions_total{" + mv + "} 1"));
  EXPECT_TRUE(Has(t, "tfn_batch_size_bucket{" + mv + ",le=\"4\"} 0"));
  EXPECT_TRUE(Has(t, "tfn_batch_size_bucket{" + mv + ",le=\"8\"} 1"));
  EXPECT_TRUE(Has(t, "tfn_queue_duration_seconds_count{" + mv + "} 3"));
  EXPECT_TRUE(Has(t, "tfn_model_loaded{" + mv + "} 1"));
  EXPECT_TRUE(Has(t, "# TYPE tfn_request_duration_seconds histogram"));
}

TEST(Metrics, EscapesLabelValues) {
  Metrics m;
  m.SetLoaded("a\"b\\c\nd", "1", false);
  EXPECT_TRUE(Has(m.Text(), "tfn_model_loaded{model=\"a\\\"b\\\\c\\nd\",version=\"1\"} 0"))
      << m.Text();
}

}  // namespace
}  // namespace tfn::serve
