// The fuzzer's bundles (testdata/hostile/README.md): each crashed or hung the
// runtime before node checking, default checksums and run limits. Through the
// C++ API and the C API, each must now give a clear error, never a crash (the
// sanitizer stage runs this too). 12's hang is also replayed past its
// checksum to show that the loop cap, not only the checksum, ends it.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "schema/bundle_generated.h"
#include "schema/bundle_header.h"
#include "tfn/runtime.h"
#include "tfn/tfn_runtime.h"

namespace tfn {
namespace {

const std::string kDir = TFN_HOSTILE_DIR;

std::string Read(const std::string& name) {
  std::ifstream in(kDir + "/" + name, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> HostileFiles() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(kDir)) {
    if (e.path().extension() == ".tfn") names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Zero-filled inputs for a signature, dynamic dims 1.
std::vector<runtime::Tensor> ZeroInputs(const runtime::SignatureInfo& sig) {
  std::vector<runtime::Tensor> inputs;
  for (const runtime::TensorInfo& in : sig.inputs) {
    Shape s = in.shape;
    for (int64_t& d : s) d = d < 0 ? 1 : d;
    void* data = nullptr;
    inputs.push_back(ConstTensor::Allocate(in.dtype, s, &data));
    if (data) std::memset(data, 0, static_cast<size_t>(inputs.back().byte_size()));
  }
  return inputs;
}

runtime::RunOptions Bounded() {
  runtime::RunOptions o;
  o.print = [](const std::string&) {};
  o.max_while_iterations = 1000;
  o.deadline_ms = 20000;
  return o;
}

// Loads, then runs every signature; the first error.
Status LoadAndRun(const std::string& bytes, const runtime::LoadOptions& options = {}) {
  auto owned = std::make_shared<std::string>(bytes);
  auto bundle = runtime::Bundle::FromMemory(owned->data(), owned->size(), owned, options);
  if (!bundle.ok()) return bundle.status();
  runtime::Session session(*bundle);
  for (const runtime::SignatureInfo& sig : (*bundle)->signatures()) {
    auto out = session.Run(sig.name, ZeroInputs(sig), Bounded());
    if (!out.ok()) return out.status();
  }
  return Status::Ok();
}

TEST(HostileFiles, TheyAreAllThere) { EXPECT_EQ(HostileFiles().size(), 12u); }

// 01-11 reach a kernel's Prepare with too few operands: CheckNode stops them
// at load, naming the node and what the op expects (04 also has a corrupt op
// name, which the reader names first).
TEST(HostileFiles, CxxApiRejectsEachWithAClearError) {
  for (const std::string& name : HostileFiles()) {
    SCOPED_TRACE(name);
    Status s = LoadAndRun(Read(name));
    ASSERT_FALSE(s.ok());
    EXPECT_FALSE(s.message().empty());
    std::printf("%s: %s\n", name.c_str(), s.ToString().c_str());
    if (name.rfind("12-", 0) == 0) {
      EXPECT_NE(s.message().find("fails its checksum"), std::string::npos) << s.message();
    } else {
      // Most fail CheckNode; 04's corrupt op name is read (all graphs are
      // read before any is built) before its earlier nodes are checked.
      EXPECT_NE(s.message().find("node "), std::string::npos) << s.message();
      if (s.code() == StatusCode::kUnimplemented) {
        EXPECT_NE(s.message().find("does not know the op"), std::string::npos) << s.message();
      } else {
        EXPECT_EQ(s.code(), StatusCode::kDataLoss) << s.ToString();
        EXPECT_NE(s.message().find("expected"), std::string::npos) << s.message();
      }
    }
  }
}

TEST(HostileFiles, CApiRejectsEachWithAClearError) {
  for (const std::string& name : HostileFiles()) {
    SCOPED_TRACE(name);
    std::string bytes = Read(name);
    char error[512] = "";
    TfnRtBundle* bundle = nullptr;
    TfnRtStatus st =
        tfn_rt_bundle_from_memory(bytes.data(), bytes.size(), &bundle, error, sizeof error);
    if (st != TFN_RT_OK) {
      EXPECT_GT(std::strlen(error), 0u);
      continue;
    }
    ADD_FAILURE() << name << " loaded through the C API";
    TfnRtSessionOptions o = tfn_rt_session_options_default();
    o.max_while_iterations = 1000;
    TfnRtSession* session = nullptr;
    ASSERT_EQ(tfn_rt_session_create_with_options(bundle, &o, &session, error, sizeof error),
              TFN_RT_OK);
    for (int s = 0; s < tfn_rt_signature_count(bundle); ++s) {
      const char* sig = tfn_rt_signature_name(bundle, s);
      std::vector<TfnRtTensor> inputs(tfn_rt_signature_input_count(bundle, sig));
      std::vector<std::vector<char>> data(inputs.size());
      for (size_t i = 0; i < inputs.size(); ++i) {
        tfn_rt_signature_input(bundle, sig, static_cast<int>(i), nullptr, &inputs[i]);
        int64_t n = 8;
        for (int d = 0; d < inputs[i].rank; ++d) {
          if (inputs[i].dims[d] < 0) inputs[i].dims[d] = 1;
          n *= inputs[i].dims[d];
        }
        data[i].assign(static_cast<size_t>(n), 0);
        inputs[i].data = data[i].data();
      }
      TfnRtOutputs* out = nullptr;
      if (tfn_rt_session_run(session, sig, inputs.data(), static_cast<int>(inputs.size()), &out,
                             error, sizeof error) == TFN_RT_OK) {
        tfn_rt_outputs_free(out);
      } else {
        EXPECT_GT(std::strlen(error), 0u);
      }
    }
    tfn_rt_session_free(session);
    tfn_rt_bundle_free(bundle);
  }
}

// A test-only repair of 12: give each segment the checksum of its bytes, as
// a bundle written that way would have. Its while_loop then never ends, and
// the default iteration cap is what stops it.
std::string WithSegmentChecksumsFixed(std::string bytes) {
  TfnBundleHeader h;
  std::memcpy(&h, bytes.data(), sizeof h);
  const auto* b = schema::GetBundle(bytes.data() + h.flatbuffer_offset);
  const char* segments = bytes.data() + h.segments_offset;
  for (uint32_t s = 0; s < b->segments()->size(); ++s) {
    const schema::Segment* seg = b->segments()->Get(s);
    uint64_t stored = seg->checksum(),
             actual = schema::Hash64(segments + seg->offset(), seg->size());
    if (stored == actual) continue;
    // The checksum field is stored as is in the FlatBuffer: find its bytes.
    size_t at =
        bytes.find(std::string(reinterpret_cast<const char*>(&stored), 8), h.flatbuffer_offset);
    EXPECT_NE(at, std::string::npos);
    if (at != std::string::npos) std::memcpy(&bytes[at], &actual, 8);
  }
  return bytes;
}

TEST(HostileFiles, TheHangEndsAtTheIterationCap) {
  std::string fixed = WithSegmentChecksumsFixed(Read("12-hang-while-loop.tfn"));
  auto owned = std::make_shared<std::string>(fixed);
  auto bundle = runtime::Bundle::FromMemory(owned->data(), owned->size(), owned);
  ASSERT_TRUE(bundle.ok()) << bundle.status().ToString();
  runtime::Session session(*bundle);
  bool hit = false;
  for (const runtime::SignatureInfo& sig : (*bundle)->signatures()) {
    runtime::RunOptions o = Bounded();
    o.max_while_iterations = 5000;
    auto out = session.Run(sig.name, ZeroInputs(sig), o);
    if (out.ok()) continue;
    Status s = out.status();
    std::printf("%s: %s\n", sig.name.c_str(), s.ToString().c_str());
    EXPECT_EQ(s.code(), StatusCode::kResourceExhausted) << s.ToString();
    EXPECT_NE(s.message().find("did not end after 5000 iterations"), std::string::npos)
        << s.message();
    EXPECT_NE(s.message().find("max_while_iterations"), std::string::npos) << s.message();
    hit = true;
  }
  EXPECT_TRUE(hit) << "no signature of the repaired bundle hit the iteration cap";
}

}  // namespace
}  // namespace tfn
