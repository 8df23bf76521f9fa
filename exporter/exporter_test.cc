// Tests of the exporter: round trips through the IR reader, determinism,
// weight deduplication, compression, and atomic writes (including a full disk).
#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "core/atomic_file.h"
#include "exporter/bundle_reader.h"
#include "exporter/bundle_writer.h"
#include "ir/text.h"
#include "schema/bundle_generated.h"
#include "schema/bundle_verify.h"
#include "tfn/runtime.h"
#include "tfn/tfn.h"

namespace tfn {
namespace {

std::string TempDir() {
  char tmpl[] = "/tmp/tfn_exporter_test.XXXXXX";
  return mkdtemp(tmpl);
}

std::vector<std::string> Files(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  closedir(d);
  return names;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Model {
  Variable w{random_normal({64, 32}, 1), "w"};
  Variable b{zeros({32}), "b"};
};

std::map<std::string, ConcreteFunction> Signatures(Model& m) {
  auto dense = function([&m](Tensor x) { return relu(matmul(x, m.w.value()) + m.b.value()); },
                        [] { FunctionOptions o; o.name = "dense"; o.arg_names = {"x"}; return o; }());
  auto bump = function([&m](Tensor delta) {
    m.b.assign_add(delta);
    return m.b.value() * 2.0;
  });
  return {{"serving_default", dense.get_concrete_function(TensorSpec({kDynamic, 64}, DType::kFloat32))},
          {"bump", bump.get_concrete_function(TensorSpec({32}, DType::kFloat32))}};
}

TEST(Exporter, RoundTripThroughTheReader) {
  Model m;
  auto sigs = Signatures(m);
  std::string bytes = serialize(sigs);
  absl::StatusOr<exporter::ImportedBundle> b =
      exporter::ReadBundle(std::make_shared<const std::string>(bytes));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->format_version, TFN_BUNDLE_FORMAT_VERSION);
  EXPECT_EQ(b->producer, "tfn");
  ASSERT_EQ(b->signatures.size(), 2u);
  EXPECT_EQ(b->signatures[0].name, "bump");  // std::map order
  EXPECT_EQ(ir::PrintGraph(b->signatures[0].graph), sigs["bump"].graph_text());
  // Fusion groups (ir/passes/fuse_elementwise.h) travel in the bundle too.
  EXPECT_NE(sigs["bump"].graph_text().find(" fusion 0"), std::string::npos);
  EXPECT_EQ(ir::PrintGraph(b->signatures[1].graph), sigs["serving_default"].graph_text());
  EXPECT_EQ(b->signatures[1].graph.param_names()[0], "x");
  ASSERT_EQ(b->variables.size(), 2u);
  for (const exporter::VariableToExport& v : b->variables) {
    const Variable& src = v.name == "w" ? m.w : m.b;
    EXPECT_TRUE(v.value.BytesEqual(src.value().value())) << v.name;
  }
}

TEST(Exporter, DeterministicAndDeduplicated) {
  Model m;
  auto sigs = Signatures(m);
  std::string a = serialize(sigs), b = serialize(sigs);
  EXPECT_EQ(a, b);
  SaveOptions zstd;
  zstd.compress = true;
  EXPECT_EQ(serialize(sigs, zstd), serialize(sigs, zstd));
  schema::VerifyResult v = schema::VerifyBundle(a.data(), a.size());
  ASSERT_TRUE(v.ok) << v.message;
  // w and b are stored once although both signatures use b; the third
  // weight is bump's constant 2.0.
  EXPECT_EQ(v.bundle->variables()->size(), 2u);
  EXPECT_EQ(v.bundle->tensors()->size(), 3u);
  EXPECT_EQ(v.bundle->segments()->size(), 3u);
}

TEST(Exporter, CompressionShrinksAndRoundTrips) {
  Variable big(zeros({256, 256}), "big");
  auto f = function([&big](Tensor x) { return x + big.value(); });
  std::map<std::string, ConcreteFunction> sigs{
      {"serving_default", f.get_concrete_function(TensorSpec({256, 256}, DType::kFloat32))}};
  SaveOptions zstd;
  zstd.compress = true;
  std::string raw = serialize(sigs), packed = serialize(sigs, zstd);
  EXPECT_GT(raw.size(), 256u * 256 * 4);
  EXPECT_LT(packed.size(), raw.size() / 20);
  absl::StatusOr<exporter::ImportedBundle> b =
      exporter::ReadBundle(std::make_shared<const std::string>(packed));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_TRUE(b->variables[0].value.BytesEqual(big.value().value()));
  bool recorded = false;
  for (const auto& [k, v] : b->metadata) recorded |= k == "compression" && v == "zstd:3";
  EXPECT_TRUE(recorded);
}

// Names are kept as given, so a bundle's variables are called what the code
// calls them; two different variables of one name in one bundle would alias
// and are refused, naming both.
TEST(Exporter, SameNamedVariablesClashInOneBundle) {
  Variable a(zeros({3}), "state");
  Variable b(constant(0), "state");
  auto fa = function([&a] { return a.value(); },
                     [] {
                       FunctionOptions o;
                       o.name = "read_a";
                       return o;
                     }());
  auto fb = function([&b] { return b.value(); },
                     [] {
                       FunctionOptions o;
                       o.name = "read_b";
                       return o;
                     }());
  try {
    serialize({{"first", fa.get_concrete_function()}, {"second", fb.get_concrete_function()}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("save: two different variables are named 'state': "
                                         "f32[3] in signature 'first' (function 'read_a') and "
                                         "int32[] in signature 'second' (function 'read_b')"),
              std::string::npos)
        << e.what();
  }
  // The same variable in two signatures is one variable.
  std::string both =
      serialize({{"first", fa.get_concrete_function()}, {"again", fa.get_concrete_function()}});
  schema::VerifyResult v = schema::VerifyBundle(both.data(), both.size());
  ASSERT_TRUE(v.ok) << v.message;
  EXPECT_EQ(v.bundle->variables()->size(), 1u);
}

TEST(Exporter, SameNamedVariablesInSeparateBundles) {
  Variable a(constant(std::vector<float>{1, 2}), "w");
  Variable b(constant(std::vector<float>{5, 6, 7}), "w");
  auto fa = function([&a] { return a.value(); });
  auto fb = function([&b] { return b.value(); });
  std::string bundle_a = serialize({{"serving_default", fa.get_concrete_function()}});
  std::string bundle_b = serialize({{"serving_default", fb.get_concrete_function()}});
  for (const auto& [bytes, var] : {std::pair{&bundle_a, &a}, std::pair{&bundle_b, &b}}) {
    absl::StatusOr<exporter::ImportedBundle> r =
        exporter::ReadBundle(std::make_shared<const std::string>(*bytes));
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(r->variables.size(), 1u);
    EXPECT_EQ(r->variables[0].name, "w");
    EXPECT_TRUE(r->variables[0].value.BytesEqual(var->value().value()));
    // The runtime finds each bundle's own "w" by name.
    auto owned = std::make_shared<std::string>(*bytes);
    auto loaded = runtime::Bundle::FromMemory(owned->data(), owned->size(), owned);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    runtime::Session session(*loaded);
    auto out = session.Run("serving_default", std::vector<runtime::Tensor>{});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)[0].shape, var->shape());
    EXPECT_EQ(std::memcmp((*out)[0].data, var->value().data(), 4 * var->value().num_elements()), 0);
    EXPECT_EQ(session.ReadVariable("w")->shape, var->shape());
  }
}

TEST(Exporter, ReaderRejectsCorruptionAndNewerVersions) {
  Model m;
  std::string bytes = serialize(Signatures(m));
  std::string flipped = bytes;
  flipped[flipped.size() - 5] ^= 0x40;  // inside a weight segment
  absl::StatusOr<exporter::ImportedBundle> b =
      exporter::ReadBundle(std::make_shared<const std::string>(flipped));
  EXPECT_EQ(b.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(b.status().message().find("checksum"), std::string::npos) << b.status();
  std::string newer = bytes;
  newer[8] = 7;  // format_version
  b = exporter::ReadBundle(std::make_shared<const std::string>(newer));
  EXPECT_EQ(b.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(b.status().message().find("format version 7; this runtime reads format versions 1 to 3"),
            std::string::npos)
      << b.status();
}

TEST(Exporter, SaveWritesAtomically) {
  std::string dir = TempDir();
  std::string path = dir + "/model.tfn";
  Model m;
  save(path, Signatures(m));
  EXPECT_EQ(ReadAll(path), serialize(Signatures(m)));
  EXPECT_EQ(Files(dir), std::vector<std::string>{"model.tfn"});
  try {
    save("/nonexistent-dir/model.tfn", Signatures(m));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does the folder exist?"), std::string::npos) << e.what();
  }
}

TEST(Exporter, FullDiskLeavesTheDestinationUntouched) {
  std::string dir = TempDir();
  std::string path = dir + "/model.tfn";
  {
    std::ofstream old(path);
    old << "previous contents";
  }
  std::string bytes(1 << 20, 'x');
  pid_t pid = fork();
  if (pid == 0) {
    // A 64 KiB file-size limit makes the write fail like a full disk.
    struct rlimit limit {65536, 65536};
    setrlimit(RLIMIT_FSIZE, &limit);
    Status s = WriteFileAtomically(path, bytes);
    bool ok = !s.ok() && std::string(s.message()).find("disk is full") != std::string::npos;
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the write should fail with a clear 'disk is full' error";
  EXPECT_EQ(ReadAll(path), "previous contents");
  EXPECT_EQ(Files(dir), std::vector<std::string>{"model.tfn"}) << "no temporary file is left";
}

}  // namespace
}  // namespace tfn
