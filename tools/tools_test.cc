// Integration tests of the tools on the built-in models: tfn-export each
// model (default and explicit specs), tfn-inspect it (signature lines, an op
// histogram equal to the traced graphs'), --verify it, and tfn-run it on .npy
// inputs; the outputs must equal an in-process run of the same traced
// function bit for bit (the same graph on the same kernels). tfn-run --jit
// agrees with the interpreter within a tolerance, benchmarks, and refuses
// what compiled code cannot run.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "exporter/model_registry.h"
#include "ir/graph.h"
#include "runtime/npy.h"
#include "tfn/tfn.h"
#include "tools/tool_test_util.h"

namespace tfn::tools::testing {
namespace {

struct ModelCase {
  std::string model;
  std::vector<std::string> sig_lines;  // tfn-inspect's lines for serving_default
  Shape run_shape;                     // the x fed to tfn-run
  std::string output;                  // serving_default's output name
  std::string spec_flag;               // an explicit --signature
  std::string spec_line;               // its input line in tfn-inspect
  Shape spec_run_shape;
};

void PrintTo(const ModelCase& c, std::ostream* os) { *os << c.model; }

std::map<std::string, int64_t> Histogram(const ir::Graph& g, std::map<std::string, int64_t> h) {
  for (const ir::Node& n : g.nodes()) {
    ++h[n.def().name];
    for (const ir::Graph& sub : n.subgraphs) h = Histogram(sub, h);
  }
  return h;
}

// The "ops (...)" section of tfn-inspect's summary as op -> count.
std::map<std::string, int64_t> ParseHistogram(const std::string& out) {
  std::map<std::string, int64_t> h;
  std::istringstream in(out.substr(out.find("\nops (")));
  std::string line;
  std::getline(in, line);
  std::getline(in, line);
  while (std::getline(in, line) && line.rfind("  ", 0) == 0) {
    std::istringstream fields(line);
    std::string op;
    int64_t n = 0;
    fields >> op >> n;
    h[op] = n;
  }
  return h;
}

class ModelTest : public ToolTest, public ::testing::WithParamInterface<ModelCase> {
 protected:
  // Traces the model in this process as tfn-export does for `request`.
  std::map<std::string, ConcreteFunction> Trace(const ExportRequest& request) {
    const RegisteredModel* m = FindModel(GetParam().model);
    EXPECT_NE(m, nullptr);
    return m->factory(request);
  }

  // Writes x, runs tfn-run on it and checks the output against `f`.
  void RunAndCompare(const std::string& bundle, const std::string& signature,
                     const std::string& input, const ConcreteFunction& f, const Shape& shape,
                     const std::string& output) {
    Tensor x = random_normal(shape, /*seed=*/42);
    ASSERT_TRUE(runtime::WriteNpy(Path("x.npy"), x.value()).ok());
    Ok(kRun,
       bundle + " --signature " + signature + " --input " + input + "=x.npy --output-dir out");
    Result<ConstTensor> got = runtime::ReadNpy(Path("out/" + output + ".npy"));
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    std::vector<Tensor> want = f({x});
    ASSERT_EQ(want.size(), 1u);
    EXPECT_EQ(got->dtype, want[0].dtype());
    EXPECT_EQ(got->shape, want[0].shape());
    EXPECT_TRUE(got->BytesEqual(want[0].value())) << "tfn-run differs from the in-process run";
  }
};

TEST_P(ModelTest, ExportInspectVerifyRun) {
  const ModelCase& c = GetParam();
  ToolResult e = Ok(kExport, c.model + " -o model.tfn");
  EXPECT_NE(e.out.find("wrote model.tfn"), std::string::npos) << e.out;

  ToolResult s = Ok(kInspect, "model.tfn");
  std::string block = "signature 'serving_default':\n  inputs:\n";
  for (const std::string& l : c.sig_lines) block += l + "\n";
  EXPECT_NE(s.out.find(block), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("format version: 3\nproducer: tfn "), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("  model: " + c.model), std::string::npos) << s.out;

  std::map<std::string, ConcreteFunction> fns = Trace({});
  std::map<std::string, int64_t> want;
  for (const auto& [name, f] : fns) want = Histogram(f.graph(), want);
  EXPECT_EQ(ParseHistogram(s.out), want) << s.out;

  ToolResult v = Ok(kInspect, "model.tfn --verify");
  EXPECT_NE(v.out.find("verify: OK"), std::string::npos) << v.out;

  RunAndCompare("model.tfn", "serving_default", "x", fns["serving_default"], c.run_shape, c.output);
}

TEST_P(ModelTest, ExplicitSignatureSpecs) {
  const ModelCase& c = GetParam();
  Ok(kExport, c.model + " -o spec.tfn --signature '" + c.spec_flag + "'");
  ToolResult s = Ok(kInspect, "spec.tfn");
  EXPECT_NE(s.out.find("  inputs:\n" + c.spec_line + "\n"), std::string::npos) << s.out;

  ExportRequest request;
  std::string specs = c.spec_flag.substr(c.spec_flag.find(':') + 1);
  std::string name = specs.substr(0, specs.find('='));
  request.signature_specs["serving_default"] = {ParseTensorSpec(specs.substr(name.size() + 1))};
  request.signature_specs["serving_default"][0].name = name;
  RunAndCompare("spec.tfn", "serving_default", name, Trace(request)["serving_default"],
                c.spec_run_shape, c.output);
}

TEST_P(ModelTest, CompressedBundleRunsTheSame) {
  const ModelCase& c = GetParam();
  Ok(kExport, c.model + " -o z.tfn --compress zstd:9");
  ToolResult s = Ok(kInspect, "z.tfn --verify");
  EXPECT_NE(s.out.find("  compression: zstd:9"), std::string::npos) << s.out;
  RunAndCompare("z.tfn", "serving_default", "x", Trace({})["serving_default"], c.run_shape,
                c.output);
}

INSTANTIATE_TEST_SUITE_P(
    BuiltIn, ModelTest,
    ::testing::Values(ModelCase{"mlp",
                                {"    x: f32[?,784]", "  outputs:", "    probabilities: f32[?,10]"},
                                {3, 784},
                                "probabilities",
                                "serving_default:image=f32[4,784]",
                                "    image: f32[4,784]",
                                {4, 784}},
                      ModelCase{
                          "cnn",
                          {"    x: f32[?,28,28,1]", "  outputs:", "    probabilities: f32[?,10]"},
                          {2, 28, 28, 1},
                          "probabilities",
                          "serving_default:x=f32[1,28,28,1]",
                          "    x: f32[1,28,28,1]",
                          {1, 28, 28, 1}},
                      ModelCase{"transformer",
                                {"    x: f32[?,256]", "  outputs:", "    y: f32[?,256]"},
                                {7, 256},
                                "y",
                                "serving_default:tokens=f32[?,256]",
                                "    tokens: f32[?,256]",
                                {12, 256}}),
    [](const ::testing::TestParamInfo<ModelCase>& info) { return info.param.model; });

// The mlp's second signature shares its variables; int64 outputs round-trip.
TEST_F(ToolTest, MlpClassifySignature) {
  Ok(kExport, "mlp -o mlp.tfn");
  ToolResult s = Ok(kInspect, "mlp.tfn");
  EXPECT_NE(s.out.find("signature 'classify':\n  inputs:\n    x: f32[?,784]\n  outputs:\n"
                       "    class: int64[?]\n"),
            std::string::npos)
      << s.out;
  EXPECT_NE(s.out.find("variables (6, "), std::string::npos) << s.out;  // stored once
  Tensor x = random_normal({5, 784}, /*seed=*/7);
  ASSERT_TRUE(runtime::WriteNpy(Path("x.npy"), x.value()).ok());
  Ok(kRun, "mlp.tfn --signature classify --input x=x.npy");
  Result<ConstTensor> got = runtime::ReadNpy(Path("class.npy"));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  std::vector<Tensor> want = FindModel("mlp")->factory({})["classify"]({x});
  EXPECT_EQ(got->dtype, DType::kInt64);
  EXPECT_TRUE(got->BytesEqual(want[0].value()));
}

TEST_F(ToolTest, GraphAndDotViews) {
  Ok(kExport, "transformer -o t.tfn");
  ToolResult g = Ok(kInspect, "t.tfn --graph serving_default");
  EXPECT_EQ(g.out.rfind("graph {\n  %0 = parameter {index=0} : f32[?s0,256] @x\n", 0), 0u) << g.out;
  EXPECT_NE(g.out.find("@y\n}"), std::string::npos) << g.out;
  ToolResult d = Ok(kInspect, "t.tfn --dot serving_default");
  EXPECT_EQ(d.out.rfind("digraph \"serving_default\" {\n", 0), 0u) << d.out;
  EXPECT_NE(d.out.find("[label=\"x\\nf32[?s0,256]\", shape=ellipse]"), std::string::npos);
  EXPECT_NE(d.out.find("label=\"softmax\\nf32[4,?s0,?s0]\""), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("[label=\"y\\nf32[?s0,256]\", shape=ellipse]"), std::string::npos);
  ToolResult j = Ok(kInspect, "t.tfn --json");
  EXPECT_NE(j.out.find("\"inputs\": [{\"name\": \"x\", \"dtype\": \"f32\", \"shape\": [-1, 256]}]"),
            std::string::npos)
      << j.out;
}

// tfn-run --jit's outputs agree with the interpreter's within rtol 1e-4,
// atol 1e-6 (the conformance suite's tolerance for the example models: the
// fused loops use vec_math.h's approximations and sum in their own order);
// integer outputs are equal.
TEST_F(ToolTest, JitMatchesInterpreter) {
  Ok(kExport, "mlp -o mlp.tfn");
  Tensor x = random_normal({5, 784}, /*seed=*/11);
  ASSERT_TRUE(runtime::WriteNpy(Path("x.npy"), x.value()).ok());
  for (const auto& [signature, output] : std::vector<std::pair<std::string, std::string>>{
           {"serving_default", "probabilities"}, {"classify", "class"}}) {
    std::string args = "mlp.tfn --signature " + signature + " --input x=x.npy";
    ToolResult i = Ok(kRun, args + " --output-dir interp");
    EXPECT_EQ(i.out.find("jit:"), std::string::npos) << i.out;
    ToolResult j = Ok(kRun, args + " --output-dir jit --jit");
    EXPECT_NE(j.out.find("jit: compiled signature '" + signature + "' in "), std::string::npos)
        << j.out;
    Result<ConstTensor> want = runtime::ReadNpy(Path("interp/" + output + ".npy"));
    Result<ConstTensor> got = runtime::ReadNpy(Path("jit/" + output + ".npy"));
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->dtype, want->dtype) << signature;
    ASSERT_EQ(got->shape, want->shape) << signature;
    ASSERT_EQ(got->shape[0], 5) << signature;
    for (int64_t e = 0; e < got->num_elements(); ++e) {
      double g = got->ElementAsDouble(e), w = want->ElementAsDouble(e);
      EXPECT_LE(std::fabs(g - w), 1e-6 + 1e-4 * std::fabs(w))
          << signature << " element " << e << ": jit " << g << ", interpreter " << w;
    }
  }
}

// --jit --fast-math: the fast functions stay well within the example's
// tolerance; --fast-math without --jit is an error that says why.
TEST_F(ToolTest, JitFastMath) {
  Ok(kExport, "mlp -o mlp.tfn");
  Tensor x = random_normal({3, 784}, /*seed=*/12);
  ASSERT_TRUE(runtime::WriteNpy(Path("x.npy"), x.value()).ok());
  Ok(kRun, "mlp.tfn --input x=x.npy --output-dir interp");
  ToolResult j = Ok(kRun, "mlp.tfn --input x=x.npy --output-dir fast --jit --fast-math");
  EXPECT_NE(j.out.find("jit: compiled signature 'serving_default' with --fast-math in "),
            std::string::npos)
      << j.out;
  Result<ConstTensor> want = runtime::ReadNpy(Path("interp/probabilities.npy"));
  Result<ConstTensor> got = runtime::ReadNpy(Path("fast/probabilities.npy"));
  ASSERT_TRUE(want.ok() && got.ok());
  ASSERT_EQ(got->shape, want->shape);
  for (int64_t e = 0; e < got->num_elements(); ++e) {
    EXPECT_NEAR(got->ElementAsDouble(e), want->ElementAsDouble(e),
                1e-6 + 1e-4 * std::fabs(want->ElementAsDouble(e)))
        << "element " << e;
  }
  ExpectOneLineError(Run(kRun, "mlp.tfn --input x=x.npy --fast-math"), "tfn-run",
                     "add --jit or drop --fast-math");
}

TEST_F(ToolTest, JitBenchmark) {
  Ok(kExport, "mlp -o mlp.tfn");
  ToolResult r = Ok(kRun, "mlp.tfn --jit --random-inputs 8 --benchmark 3 --warmup 1 --threads 2");
  EXPECT_NE(r.out.find("jit: compiled signature 'serving_default'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("threads: 2\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("benchmark: 3 runs after 1 warm-up: min "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("arena:"), std::string::npos) << "the interpreter's arena is not used\n"
                                                     << r.out;
}

// --profile prints the time per op type and the slowest steps of its own
// runs; --profile-json writes them as a Chrome trace that a JSON parser
// (Python's) reads, one complete event per step; the flags' misuse is one
// line each.
TEST_F(ToolTest, Profile) {
  Ok(kExport, "cnn -o cnn.tfn");
  ToolResult r = Ok(kRun,
                    "cnn.tfn --random-inputs 2 --profile --profile-runs 4 --profile-json "
                    "trace.json --threads 1");
  EXPECT_NE(r.out.find("profile: 4 runs; "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nfused_conv2d "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("top 10 steps:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-> trace.json"), std::string::npos) << r.out;
  const std::string check =
      "python3 -c \"import json,sys; e=json.load(open('" + Path("trace.json") +
      "'))['traceEvents']; sys.exit(0 if len(e) > 0 and len(e) % 4 == 0 and all(x['ph'] == 'X' "
      "and x['dur'] >= 0 for x in e) and sum(x['args']['op'] == 'fused_conv2d' for x in e) == 8 "
      "else 1)\"";
  EXPECT_EQ(std::system(check.c_str()), 0) << ReadText(Path("trace.json"));
  ExpectOneLineError(Run(kRun, "cnn.tfn --random-inputs 2 --profile --jit"), "tfn-run",
                     "--jit code runs as one call");
  ExpectOneLineError(Run(kRun, "cnn.tfn --random-inputs 2 --profile-runs 3"), "tfn-run",
                     "add --profile or --profile-json");
  ExpectOneLineError(Run(kRun, "cnn.tfn --random-inputs 2 --profile-json no/such/dir/t.json"),
                     "tfn-run", "writing --profile-json 'no/such/dir/t.json'");
}

// A signature that updates a variable cannot be compiled (compiled code is
// stateless): --jit says so in one line and points to the interpreter,
// which runs it. --max-while-iterations applies to the interpreter only.
TEST_F(ToolTest, JitRefusesWhatItCannotRun) {
  Variable total(zeros({2}), "total");
  auto add = function([&total](Tensor x) {
    total.assign_add(reduce_sum(x, {0}));
    return total.value();
  });
  save(
      Path("counter.tfn"),
      {{"serving_default", add.get_concrete_function(TensorSpec({kDynamic, 2}, DType::kFloat32))}});
  ToolResult r = Run(kRun, "counter.tfn --random-inputs 3 --jit");
  ExpectOneLineError(r, "tfn-run", "--jit cannot compile signature 'serving_default'");
  EXPECT_NE(r.err.find("updates variable 'total'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("run without --jit"), std::string::npos) << r.err;
  Ok(kRun, "counter.tfn --random-inputs 3");

  Ok(kExport, "mlp -o mlp.tfn");
  ExpectOneLineError(Run(kRun, "mlp.tfn --random-inputs 1 --jit --max-while-iterations 10"),
                     "tfn-run", "drop one of the two flags");
}

}  // namespace
}  // namespace tfn::tools::testing

namespace tfn::tools::testing {
namespace {

// A linear regression trained by SGD as a bundle's "train" signature, and
// 10 batches of its data stacked as .npy files.
void WriteTrainingBundle(const std::string& bundle, const std::string& x_path,
                         const std::string& y_path, int64_t features) {
  Variable w(zeros({features, 1}), "w"), b(zeros({1}), "b");
  auto opt = std::make_shared<SGD>(SGDOptions{0.05, 0.9, false, 0});
  auto step = function([w, b, opt](Tensor x, Tensor y) {
    GradientTape tape;
    Tensor loss = losses::mean_squared_error(matmul(x, w.value()) + b.value(), y);
    opt->apply(tape.gradient(loss, std::vector<Variable>{w, b}), {w, b});
    return loss;
  });
  save(bundle, {{"train", step.get_concrete_function(TensorSpec({8, features}, DType::kFloat32),
                                                     TensorSpec({8, 1}, DType::kFloat32))}});
  Tensor x = random_uniform({10, 8, features}, 3);
  Tensor y = matmul(reshape(x, {80, features}), fill({features, 1}, 0.5f)) + 1.0f;
  ASSERT_TRUE(runtime::WriteNpy(x_path, x.value()).ok());
  ASSERT_TRUE(runtime::WriteNpy(y_path, reshape(y, {10, 8, 1}).value()).ok());
}

// The loss printed for the last step.
std::string LastLoss(const std::string& out) {
  size_t at = out.rfind(" output_0 ");
  if (at == std::string::npos) return "(none)";
  return out.substr(at + 10, out.find('\n', at) - at - 10);
}

TEST_F(ToolTest, RunTrainsStepsAndResumesFromCheckpoints) {
  WriteTrainingBundle(Path("lin.tfn"), Path("x.npy"), Path("y.npy"), 3);
  const std::string in = "lin.tfn --signature train --input arg0=x.npy --input arg1=y.npy";
  ToolResult all = Ok(kRun, in + " --steps 40");
  EXPECT_NE(all.out.find("step 40/40: output_0 "), std::string::npos) << all.out;
  EXPECT_NE(all.out.find("40 steps in "), std::string::npos) << all.out;
  EXPECT_NE(all.out.find("10 input sets"), std::string::npos) << all.out;
  // 30 steps (three passes over the 10 batches), a checkpoint, then 10 more
  // from it: the same last loss as 40 in a row.
  ToolResult first = Ok(kRun, in + " --steps 30 --save-checkpoint lin.ckpt");
  EXPECT_NE(first.out.find("saved the variables to 'lin.ckpt'"), std::string::npos);
  ToolResult rest = Ok(kRun, in + " --steps 10 --restore-checkpoint lin.ckpt");
  EXPECT_EQ(LastLoss(rest.out), LastLoss(all.out));
  EXPECT_LT(std::stod(LastLoss(all.out)),
            0.1 * std::stod(LastLoss(Ok(kRun, in + " --steps 1").out)));

  // A truncated checkpoint, one of another model, and flags that clash.
  const std::string bytes = ReadText(Path("lin.ckpt"));
  WriteText(Path("cut.ckpt"), bytes.substr(0, bytes.size() / 2));
  ExpectOneLineError(Run(kRun, in + " --steps 1 --restore-checkpoint cut.ckpt"), "tfn-run",
                     "corrupt or truncated");
  WriteTrainingBundle(Path("other.tfn"), Path("ox.npy"), Path("oy.npy"), 4);
  Ok(kRun,
     "other.tfn --signature train --input arg0=ox.npy --input arg1=oy.npy --steps 1 "
     "--save-checkpoint other.ckpt");
  ExpectOneLineError(Run(kRun, in + " --steps 1 --restore-checkpoint other.ckpt"), "tfn-run",
                     "saved from another model");
  ExpectOneLineError(Run(kRun, in + " --steps 5 --benchmark 3"), "tfn-run", "drop one of them");
  ExpectOneLineError(Run(kRun,
                         "lin.tfn --signature train --input arg0=ox.npy --input arg1=y.npy "
                         "--steps 2"),
                     "tfn-run", "nor is it a stack of such batches");
}

}  // namespace
}  // namespace tfn::tools::testing
