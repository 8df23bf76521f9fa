// Checkpoints (runtime/checkpoint.h, Session::SaveCheckpoint /
// RestoreCheckpoint): a training run continued from a checkpoint matches one
// that never stopped, bit for bit; every truncation, bit flips and files of
// another model are refused with errors that say so, and a refused restore
// leaves every variable as it was.
#include "runtime/checkpoint.h"

#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "schema/bundle_header.h"
#include "tests/testing/bundle_bytes.h"
#include "tfn/runtime.h"
#include "tfn/tfn.h"

namespace tfn {
namespace {

std::shared_ptr<const runtime::Bundle> BundleOf(const std::string& bytes) {
  return testing::BundleFromBytes(bytes);
}

// A linear model trained by SGD with momentum: weights and slots to save;
// with `state_signatures`, also tfn::checkpoint_signatures' save and restore.
std::shared_ptr<const runtime::Bundle> TrainBundle(int64_t features,
                                                   bool state_signatures = false) {
  Variable w(zeros({features, 1}), "w"), b(zeros({1}), "b");
  SGDOptions o;
  o.learning_rate = 0.05;
  o.momentum = 0.9;
  auto opt = std::make_shared<SGD>(o);
  auto step = function([w, b, opt](Tensor x, Tensor y) {
    GradientTape tape;
    Tensor loss = losses::mean_squared_error(matmul(x, w.value()) + b.value(), y);
    opt->apply(tape.gradient(loss, std::vector<Variable>{w, b}), {w, b});
    return loss;
  });
  ConcreteFunction train = step.get_concrete_function(TensorSpec({8, features}, DType::kFloat32),
                                                      TensorSpec({8, 1}, DType::kFloat32));
  std::map<std::string, ConcreteFunction> sigs;
  if (state_signatures) sigs = checkpoint_signatures(train.variables());
  sigs["train"] = train;
  return BundleOf(serialize(sigs));
}

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("tfn_ckpt_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

std::vector<float> Losses(const runtime::Session& s, int steps, int first_batch) {
  std::vector<float> out;
  for (int i = 0; i < steps; ++i) {
    const uint64_t seed = static_cast<uint64_t>(first_batch + i);
    ConstTensor x = random_uniform({8, 3}, 100 + seed).value();
    ConstTensor y = random_uniform({8, 1}, 200 + seed).value();
    auto r = s.Run("train", std::vector<runtime::Tensor>{x, y});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    out.push_back(static_cast<float>((*r)[0].ElementAsDouble(0)));
  }
  return out;
}

TEST(Checkpoint, ContinuedTrainingMatchesAnUninterruptedRun) {
  auto bundle = TrainBundle(3);
  runtime::Session whole(bundle), first(bundle), second(bundle);
  const std::vector<float> all = Losses(whole, 20, 0);
  Losses(first, 12, 0);
  const std::string path = TempPath("continue");
  ASSERT_TRUE(first.SaveCheckpoint(path).ok());
  ASSERT_TRUE(second.RestoreCheckpoint(path).ok());
  const std::vector<float> rest = Losses(second, 8, 12);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(rest[i], all[12 + i]) << "step " << 12 + i;
  EXPECT_LT(all.back(), all.front());  // it learns
  // The momentum slots and the step count are saved too.
  EXPECT_EQ(first.VariableNames().size(), 5u);
  std::remove(path.c_str());
}

TEST(Checkpoint, BadFilesAreRefusedAndChangeNothing) {
  auto bundle = TrainBundle(3);
  runtime::Session s(bundle);
  Losses(s, 3, 0);
  const std::string path = TempPath("good"), bad = TempPath("bad");
  ASSERT_TRUE(s.SaveCheckpoint(path).ok());
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string bytes = ss.str();
  Losses(s, 2, 3);  // move on, so a restore would change something
  const ConstTensor before = *s.ReadVariable("w");
  const std::vector<float> w_before(before.as<float>(), before.as<float>() + 3);
  auto expect_refused = [&](const std::string& content, const std::string& why) {
    std::ofstream(bad, std::ios::binary | std::ios::trunc) << content;
    Status st = s.RestoreCheckpoint(bad);
    EXPECT_FALSE(st.ok()) << why;
    const ConstTensor now = *s.ReadVariable("w");
    EXPECT_EQ(std::vector<float>(now.as<float>(), now.as<float>() + 3), w_before) << why;
    return st.message();
  };
  for (size_t n = 0; n < bytes.size(); ++n) expect_refused(bytes.substr(0, n), "truncated");
  for (size_t at = 0; at < bytes.size(); at += 7) {
    std::string flipped = bytes;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x10);
    expect_refused(flipped, "a flipped bit at " + std::to_string(at));
  }
  EXPECT_NE(expect_refused(bytes.substr(0, bytes.size() - 3), "").find("corrupt or truncated"),
            std::string::npos);
  // A checkpoint of another model: same names, other shapes.
  runtime::Session other(TrainBundle(4));
  const std::string other_path = TempPath("other");
  ASSERT_TRUE(other.SaveCheckpoint(other_path).ok());
  Status st = s.RestoreCheckpoint(other_path);
  EXPECT_NE(st.message().find("variable 'w' is f32[4,1] there and f32[3,1] in this bundle"),
            std::string::npos)
      << st.message();
  EXPECT_NE(s.RestoreCheckpoint(TempPath("missing")).message().find("missing"), std::string::npos);
  // The good file still restores.
  ASSERT_TRUE(s.RestoreCheckpoint(path).ok());
  for (const std::string& p : {path, bad, other_path}) std::remove(p.c_str());
}

// The bundle's own save and restore signatures carry the same state: one
// session's saved values restored into another continue its run exactly.
TEST(Checkpoint, SaveAndRestoreSignaturesMoveTheState) {
  auto bundle = TrainBundle(3, /*state_signatures=*/true);
  runtime::Session a(bundle), b(bundle);
  Losses(a, 7, 0);
  auto saved = a.Run("save", std::vector<runtime::Tensor>{});
  ASSERT_TRUE(saved.ok()) << saved.status().ToString();
  const runtime::SignatureInfo* save_sig = bundle->FindSignature("save");
  ASSERT_NE(save_sig, nullptr);
  ASSERT_EQ(saved->size(), 5u);  // w, b, two momentum slots, the step count
  std::map<std::string, runtime::Tensor> by_name;
  for (size_t i = 0; i < saved->size(); ++i) {
    const std::string& name = save_sig->outputs[i].name;
    by_name[name] = (*saved)[i];
    EXPECT_TRUE((*saved)[i].BytesEqual(*a.ReadVariable(name))) << name;
  }
  ASSERT_TRUE(b.Run("restore", by_name).ok());
  EXPECT_EQ(Losses(b, 4, 7), Losses(a, 4, 7));
}

// Files with a valid checksum whose fields do not add up.
std::string Checkpoint(int32_t dtype, uint32_t rank, int64_t dim, uint64_t nbytes) {
  std::string b = "TFNCKPT1";
  auto put = [&](const auto& v) { b.append(reinterpret_cast<const char*>(&v), sizeof(v)); };
  put(uint32_t{1});
  put(uint32_t{1});
  b += "v";
  put(dtype);
  put(rank);
  for (uint32_t d = 0; d < rank; ++d) put(dim);
  put(nbytes);
  b += std::string(static_cast<size_t>(nbytes < 64 ? nbytes : 64), '\0');
  put(schema::Hash64(b.data(), b.size()));
  return b;
}

TEST(Checkpoint, ParseRefusesFieldsThatDoNotAddUp) {
  auto parse = [](const std::string& b) {
    auto r = runtime::ParseCheckpoint(b.data(), b.size());
    return r.ok() ? std::string("ok") : r.status().message();
  };
  const int32_t f32 = static_cast<int32_t>(DType::kFloat32);
  EXPECT_EQ(parse(Checkpoint(f32, 1, 4, 16)), "ok");
  EXPECT_NE(parse(Checkpoint(f32, 1, 4, 8)).find("dtype, shape and size disagree"),
            std::string::npos);
  EXPECT_NE(parse(Checkpoint(99, 1, 4, 16)).find("dtype, shape and size disagree"),
            std::string::npos);
  EXPECT_NE(parse(Checkpoint(f32, 9, 1, 4)).find("a bad header"), std::string::npos);
  EXPECT_NE(parse(Checkpoint(f32, 1, -4, 16)).find("a bad shape"), std::string::npos);
  EXPECT_NE(parse(Checkpoint(f32, 2, int64_t{1} << 40, 16)).find("disagree"), std::string::npos);
  EXPECT_NE(parse(Checkpoint(f32, 1, 64, 256)).find("truncated"), std::string::npos);
}

}  // namespace
}  // namespace tfn
