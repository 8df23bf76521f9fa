// Hostile bundles: every truncation of a small bundle and 10,000 random
// mutations must give an error or a valid result, never a crash, a hang or
// a sanitizer report. This suite also runs under ASan/UBSan (label sanitize).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <random>

#include "schema/bundle_header.h"
#include "tfn/runtime.h"
#include "tfn/tfn.h"

namespace tfn {
namespace {

// A small bundle that exercises most of the loader: several signatures,
// dynamic dims, control flow, a variable, compressed and raw weights.
std::string SmallBundle() {
  static Variable v(random_normal({16, 8}, 3), "w");
  auto dense = function([](Tensor x) { return softmax(relu(matmul(x, v.value()) + 0.5)); });
  auto loop = function([](Tensor n) {
    auto out =
        while_loop([](const std::vector<Tensor>& s) { return s[0] < 100; },
                   [](const std::vector<Tensor>& s) {
                     return std::vector<Tensor>{s[0] * 2 + 1, s[1] + cast(s[0], DType::kFloat32)};
                   },
                   {n, constant(0.f)});
    return cond(
        out[1] > 10.f, [&] { return out[1] - 1.f; }, [&] { return out[1]; });
  });
  auto update = function([](Tensor d) {
    v.assign_add(d);
    return reduce_sum(v.value(), {0});
  });
  SaveOptions o;
  o.compress = true;
  o.min_compress_bytes = 256;
  return serialize({{"serving_default",
                     dense.get_concrete_function(TensorSpec({kDynamic, 16}, DType::kFloat32))},
                    {"loop", loop.get_concrete_function(TensorSpec({}, DType::kInt32))},
                    {"update", update.get_concrete_function(TensorSpec({16, 8}, DType::kFloat32))}},
                   o);
}

// Loads and, when that works, runs every signature on zero inputs.
void LoadAndRun(const std::string& bytes) {
  auto owned = std::make_shared<std::string>(bytes);
  auto bundle = runtime::Bundle::FromMemory(owned->data(), owned->size(), owned);
  if (!bundle.ok()) {
    EXPECT_FALSE(bundle.status().message().empty());
    return;
  }
  runtime::Session session(*bundle);
  runtime::RunOptions options;
  options.print = [](const std::string&) {};
  options.max_while_iterations = 1000;
  for (const runtime::SignatureInfo& sig : (*bundle)->signatures()) {
    std::vector<ConstTensor> inputs;
    for (const runtime::TensorInfo& in : sig.inputs) {
      Shape s = in.shape;
      for (int64_t& d : s) d = d < 0 ? 2 : d;
      int64_t n = 0;
      if (!CheckedNumElements(s, &n) || n > (1 << 20)) return;
      void* data = nullptr;
      inputs.push_back(ConstTensor::Allocate(in.dtype, s, &data));
    }
    auto out = session.Run(sig.name, inputs, options);
    if (!out.ok()) {
      EXPECT_FALSE(out.status().message().empty());
    }
  }
}

TEST(Hostile, TheIntactBundleWorks) {
  std::string bytes = SmallBundle();
  auto owned = std::make_shared<std::string>(bytes);
  auto bundle = runtime::Bundle::FromMemory(owned->data(), owned->size(), owned);
  ASSERT_TRUE(bundle.ok()) << bundle.status().ToString();
  EXPECT_EQ((*bundle)->signatures().size(), 3u);
  LoadAndRun(bytes);
}

TEST(Hostile, EveryTruncationIsAnError) {
  std::string bytes = SmallBundle();
  for (size_t len = 0; len < bytes.size(); ++len) {
    auto owned = std::make_shared<std::string>(bytes.substr(0, len));
    auto bundle = runtime::Bundle::FromMemory(owned->data(), owned->size(), owned);
    ASSERT_FALSE(bundle.ok()) << "a bundle truncated to " << len << " bytes loaded";
    EXPECT_EQ(bundle.status().code(), StatusCode::kDataLoss)
        << len << ": " << bundle.status().ToString();
  }
}

TEST(Hostile, RandomMutationsNeverCrash) {
  std::string bytes = SmallBundle();
  std::mt19937 rng(20261130);
  int loaded = 0;
  for (int trial = 0; trial < 10000; ++trial) {
    std::string m = bytes;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % m.size();
      if (rng() % 2) {
        m[pos] = static_cast<char>(m[pos] ^ (1 << (rng() % 8)));
      } else {
        m[pos] = static_cast<char>(rng());
      }
    }
    // In half the trials keep the header and give it the mutated graph's
    // hash, as a hostile writer would, so mutations reach the checks behind
    // the hash (EveryGraphByteIsHashed shows the hash alone stops them).
    if (trial % 2) {
      std::copy(bytes.begin(), bytes.begin() + 64, m.begin());
      ASSERT_TRUE(schema::ResealHeader(m.data(), m.size()));
    }
    auto owned = std::make_shared<std::string>(m);
    loaded += runtime::Bundle::FromMemory(owned->data(), owned->size(), owned).ok();
    LoadAndRun(m);
  }
  // Many mutations hit weights (raw segments are only checksummed on
  // request), so some load; the point is that none crashed.
  EXPECT_GT(loaded, 0);
  std::printf("%d of 10000 mutated bundles loaded\n", loaded);
}

// From format version 2 on, the graph is hashed on every load: any change to any byte
// of the FlatBuffer is found before it is parsed.
TEST(Hostile, EveryGraphByteIsHashed) {
  std::string bytes = SmallBundle();
  TfnBundleHeader h;
  std::memcpy(&h, bytes.data(), sizeof h);
  ASSERT_EQ(h.format_version, TFN_BUNDLE_FORMAT_VERSION);
  for (uint64_t at = h.flatbuffer_offset; at < h.flatbuffer_offset + h.flatbuffer_size; ++at) {
    std::string m = bytes;
    m[at] = static_cast<char>(m[at] ^ (1 << (at % 8)));
    auto owned = std::make_shared<std::string>(m);
    Status s = runtime::Bundle::FromMemory(owned->data(), owned->size(), owned).status();
    ASSERT_EQ(s.code(), StatusCode::kDataLoss) << "byte " << at << ": " << s.ToString();
    ASSERT_NE(s.message().find("graph (its " + std::to_string(h.flatbuffer_size) +
                               "-byte FlatBuffer) does not match its checksum"),
              std::string::npos)
        << s.message();
  }
}

TEST(Hostile, ErrorsSayWhatIsWrong) {
  std::string bytes = SmallBundle();
  auto load = [](std::string b) {
    auto owned = std::make_shared<std::string>(b);
    return runtime::Bundle::FromMemory(owned->data(), owned->size(), owned).status();
  };
  std::string bad_magic = bytes;
  bad_magic[0] = 'X';
  EXPECT_NE(load(bad_magic).message().find("not a tfn bundle"), std::string::npos);
  std::string newer = bytes;
  newer[8] = 4;
  Status s = load(newer);
  EXPECT_EQ(s.code(), StatusCode::kIncompatibleVersion);
  EXPECT_NE(s.message().find("format version 4; this runtime reads format versions 1 to 3"),
            std::string::npos)
      << s.message();
  std::string zero_version = bytes;
  zero_version[8] = 0;
  EXPECT_NE(load(zero_version)
                .message()
                .find("format version 0, which no tfn writes: the file is corrupt"),
            std::string::npos)
      << load(zero_version).message();
  std::string header = bytes;
  header[20] ^= 1;
  EXPECT_NE(load(header).message().find("checksum"), std::string::npos);
  EXPECT_NE(load("").message().find("fewer than the 64-byte bundle header"), std::string::npos);
}

}  // namespace
}  // namespace tfn
