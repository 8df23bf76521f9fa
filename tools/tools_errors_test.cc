// Integration tests of the tools' failure paths and of a user's model
// library: every bad command line, bad spec, missing, corrupt or truncated
// file, and wrong input ends in a non-zero exit with one line on stderr,
// "TOOL: error: ...", naming what is wrong, never a crash. Also runs in the
// sanitizer build (label "sanitize"): the tools read hostile bytes here.
#include <cmath>
#include <string>
#include <vector>

#include "runtime/npy.h"
#include "runtime/runtime.h"
#include "tools/tool_test_util.h"

namespace tfn::tools::testing {
namespace {

ConstTensor Floats(const Shape& shape, float start) {
  std::vector<float> v(static_cast<size_t>(NumElements(shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = start + 0.25f * static_cast<float>(i % 17) - 2;
  return ConstTensor::Copy(DType::kFloat32, shape, v.data());
}

TEST_F(ToolTest, HelpExitsZeroAndUnknownFlagsAreErrors) {
  const std::vector<std::pair<std::string, std::string>> tools = {
      {kExport, "tfn-export"}, {kInspect, "tfn-inspect"}, {kRun, "tfn-run"}};
  for (const auto& [path, name] : tools) {
    ToolResult h = Run(path, "--help");
    EXPECT_EQ(h.code, 0) << name;
    EXPECT_EQ(h.out.rfind("usage: " + name + " ", 0), 0u) << h.out;
    EXPECT_NE(h.out.find("examples:\n  " + name), std::string::npos) << h.out;
    ExpectOneLineError(Run(path, "x --no-such-flag"), name, "unknown flag '--no-such-flag'");
  }
  ExpectOneLineError(Run(kRun, ""), "tfn-run", "missing FILE");
  ExpectOneLineError(Run(kRun, "a.tfn --benchmark many"), "tfn-run", "non-negative integer");
}

TEST_F(ToolTest, ExportErrors) {
  ExpectOneLineError(Run(kExport, "no_such_model -o m.tfn"), "tfn-export",
                     "unknown model 'no_such_model'; known models: cnn, mlp, transformer");
  ExpectOneLineError(Run(kExport, "mlp"), "tfn-export", "missing -o FILE");
  ExpectOneLineError(Run(kExport, "mlp -o m.tfn --signature 'serving_default:x=f33[?,784]'"),
                     "tfn-export", "unknown dtype 'f33'");
  ExpectOneLineError(Run(kExport, "mlp -o m.tfn --signature 'serving_default:x=f32[?,abc]'"),
                     "tfn-export", "'abc' is not a dim");
  ExpectOneLineError(Run(kExport, "mlp -o m.tfn --signature serving_default"), "tfn-export",
                     "is not NAME:SPECS");
  ExpectOneLineError(Run(kExport, "mlp -o m.tfn --signature 'nope:x=f32[?,784]'"), "tfn-export",
                     "model 'mlp' has no signature 'nope'; it has: classify, serving_default");
  ExpectOneLineError(Run(kExport, "mlp -o m.tfn --signature 'serving_default:x=f32[?,100]'"),
                     "tfn-export", "tracing model 'mlp': matmul: inner dimensions differ");
  ExpectOneLineError(Run(kExport, "mlp -o m.tfn --compress lz4"), "tfn-export",
                     "unknown compression 'lz4'");
  ExpectOneLineError(Run(kExport, "mlp -o m.tfn --library ./missing.so"), "tfn-export",
                     "cannot load the model library './missing.so'");
  ExpectOneLineError(Run(kExport, "mlp -o no/such/dir/m.tfn"), "tfn-export", "m.tfn");
  EXPECT_FALSE(std::filesystem::exists(Path("m.tfn")));
}

TEST_F(ToolTest, InspectAndRunRejectBadFiles) {
  Ok(kExport, "mlp -o good.tfn");
  std::string bytes = ReadText(Path("good.tfn"));
  ASSERT_GT(bytes.size(), 4096u) << "tfn-export did not write good.tfn";
  std::string weight = bytes, header = bytes;
  weight[bytes.size() / 2] ^= 0x5a;  // inside the first layer's kernel
  header[8] ^= 0x01;                 // the format version / header checksum
  WriteText(Path("weight.tfn"), weight);
  WriteText(Path("header.tfn"), header);
  WriteText(Path("half.tfn"), bytes.substr(0, bytes.size() / 2));
  WriteText(Path("tiny.tfn"), bytes.substr(0, 10));
  WriteText(Path("text.tfn"), "this is not a bundle, just some text that is long enough\n");

  ExpectOneLineError(Run(kInspect, "missing.tfn"), "tfn-inspect", "missing.tfn");
  ExpectOneLineError(Run(kInspect, "weight.tfn"), "tfn-inspect", "checksum");
  ExpectOneLineError(Run(kInspect, "weight.tfn --verify"), "tfn-inspect", "verification failed");
  ExpectOneLineError(Run(kInspect, "half.tfn"), "tfn-inspect", "truncated");
  ExpectOneLineError(Run(kInspect, "tiny.tfn"), "tfn-inspect", "truncated");
  ExpectOneLineError(Run(kInspect, "text.tfn"), "tfn-inspect", "not a tfn bundle");
  ExpectOneLineError(Run(kInspect, "header.tfn --verify"), "tfn-inspect", "header.tfn");
  ExpectOneLineError(Run(kInspect, "good.tfn --graph nope"), "tfn-inspect",
                     "no signature 'nope'; it has: classify, serving_default");

  ExpectOneLineError(Run(kRun, "missing.tfn --random-inputs 1"), "tfn-run", "missing.tfn");
  ExpectOneLineError(Run(kRun, "half.tfn --random-inputs 1"), "tfn-run", "truncated");
  ExpectOneLineError(Run(kRun, "text.tfn --random-inputs 1"), "tfn-run", "not a tfn bundle");
  ExpectOneLineError(Run(kRun, "header.tfn --random-inputs 1"), "tfn-run", "header.tfn");
  ExpectOneLineError(Run(kRun, "weight.tfn --random-inputs 1 --verify-checksums"), "tfn-run",
                     "checksum");
  // Every single-byte corruption of the first KiB fails cleanly or loads.
  for (size_t i = 0; i < 1024; i += 61) {
    std::string flipped = bytes;
    flipped[i] ^= 0xff;
    WriteText(Path("flip.tfn"), flipped);
    ToolResult r = Run(kInspect, "flip.tfn");
    EXPECT_GE(r.code, 0) << "tfn-inspect crashed on a byte flipped at " << i;
    if (r.code != 0) ExpectOneLineError(r, "tfn-inspect", "flip.tfn");
  }
}

TEST_F(ToolTest, RunRejectsWrongInputs) {
  Ok(kExport, "mlp -o mlp.tfn");
  ASSERT_TRUE(runtime::WriteNpy(Path("x.npy"), Floats({2, 784}, 0)).ok());
  std::vector<double> f64(2 * 784, 0.5);
  ASSERT_TRUE(runtime::WriteNpy(Path("x64.npy"),
                                ConstTensor::Copy(DType::kFloat64, Shape{2, 784}, f64.data()))
                  .ok());
  ASSERT_TRUE(runtime::WriteNpy(Path("short.npy"), Floats({2, 100}, 0)).ok());
  WriteText(Path("junk.npy"), "not numpy");
  const std::string takes = "signature 'serving_default' takes x: f32[?,784]";

  ExpectOneLineError(Run(kRun, "mlp.tfn"), "tfn-run", "missing input 'x'");
  ExpectOneLineError(Run(kRun, "mlp.tfn"), "tfn-run", takes);
  ExpectOneLineError(Run(kRun, "mlp.tfn --input x=x64.npy"), "tfn-run",
                     "input 'x' from 'x64.npy' is f64[2,784], which does not fit f32[?,784]");
  ExpectOneLineError(Run(kRun, "mlp.tfn --input x=short.npy"), "tfn-run", "is f32[2,100]");
  ExpectOneLineError(Run(kRun, "mlp.tfn --input x=x.npy --input image=x.npy"), "tfn-run",
                     "'image', which is not an input; " + takes);
  ExpectOneLineError(Run(kRun, "mlp.tfn --input x=x.npy --input x=x.npy"), "tfn-run",
                     "given twice");
  ExpectOneLineError(Run(kRun, "mlp.tfn --input x"), "tfn-run", "is not NAME=PATH.npy");
  ExpectOneLineError(Run(kRun, "mlp.tfn --input x=junk.npy"), "tfn-run", "bad .npy file");
  ExpectOneLineError(Run(kRun, "mlp.tfn --input x=none.npy"), "tfn-run", "none.npy");
  ExpectOneLineError(Run(kRun, "mlp.tfn --signature nope --input x=x.npy"), "tfn-run",
                     "no signature 'nope'; it has: classify, serving_default");

  ToolResult b = Ok(kRun, "mlp.tfn --input x=x.npy --benchmark 5 --warmup 1 --output-dir o");
  EXPECT_NE(b.out.find("probabilities: f32[2,10] -> o/probabilities.npy\n"), std::string::npos)
      << b.out;
  EXPECT_NE(b.out.find("benchmark: 5 runs after 1 warm-up: min "), std::string::npos) << b.out;
  EXPECT_NE(b.out.find(" µs, median "), std::string::npos) << b.out;
  EXPECT_NE(b.out.find(" µs, p90 "), std::string::npos) << b.out;
  ToolResult r = Ok(kRun, "mlp.tfn --random-inputs 3 --signature classify");
  EXPECT_NE(r.out.find("class: int64[3] -> ./class.npy"), std::string::npos) << r.out;
}

// A user's library, not linked against tfn, registers a model in tfn-export.
TEST_F(ToolTest, UserModelLibraryRoundTrip) {
  ExpectOneLineError(Run(kExport, "user_regressor -o u.tfn"), "tfn-export",
                     "unknown model 'user_regressor'");
  ToolResult list = Ok(kExport, "--list --library " + kUserLibrary);
  EXPECT_NE(list.out.find("user_regressor "), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("mlp "), std::string::npos) << list.out;
  Ok(kExport, "user_regressor --library " + kUserLibrary +
                  " -o u.tfn --signature 'serving_default:x=f32[?,4],scale=f32[]'");
  ToolResult s = Ok(kInspect, "u.tfn --verify");
  EXPECT_NE(s.out.find("  inputs:\n    x: f32[?,4]\n    scale: f32[]\n  outputs:\n    y: f32[?,1]"),
            std::string::npos)
      << s.out;

  ConstTensor x = Floats({3, 4}, 0.5f);
  float scale_value = 1.5f;
  ASSERT_TRUE(runtime::WriteNpy(Path("x.npy"), x).ok());
  ASSERT_TRUE(runtime::WriteNpy(Path("scale.npy"), ConstTensor::Scalar(scale_value)).ok());
  ExpectOneLineError(Run(kRun, "u.tfn --input x=x.npy"), "tfn-run", "missing input 'scale'");
  Ok(kRun, "u.tfn --input x=x.npy --input scale=scale.npy");
  Result<ConstTensor> y = runtime::ReadNpy(Path("y.npy"));
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  ASSERT_EQ(y->shape, (Shape{3, 1}));

  // The expected values from the bundle's own weights: scale*(tanh(x@w1+b1)@w2+b2).
  auto bundle = runtime::Bundle::Load(Path("u.tfn"));
  ASSERT_TRUE(bundle.ok()) << bundle.status().ToString();
  runtime::Session session(*bundle);
  auto var = [&](const char* name) { return session.ReadVariable(name).value(); };
  ConstTensor w1 = var("regressor/w1"), b1 = var("regressor/b1"), w2 = var("regressor/w2"),
              b2 = var("regressor/b2");
  for (int i = 0; i < 3; ++i) {
    double out = b2.as<float>()[0];
    for (int h = 0; h < 8; ++h) {
      double acc = b1.as<float>()[h];
      for (int k = 0; k < 4; ++k)
        acc += double{x.as<float>()[i * 4 + k]} * w1.as<float>()[k * 8 + h];
      out += std::tanh(acc) * w2.as<float>()[h];
    }
    EXPECT_NEAR(y->as<float>()[i], scale_value * out, 1e-5) << "row " << i;
  }
}

}  // namespace
}  // namespace tfn::tools::testing
