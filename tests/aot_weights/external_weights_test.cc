// tfn-aot --weights external: an mlp object that reads its weights from the
// mapped bundle at run time gives the outputs of the object that embeds them
// (bit for bit: the same code on the same bytes), both agree with the
// interpreter, the object is smaller by at least the weight bytes, and it
// refuses to run before its bundle is bound or with bytes that are not that
// bundle (another export, truncated, corrupt magic, misaligned). tfn-aot
// refuses --weights external for a zstd-compressed bundle.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "exporter/bundle_reader.h"
#include "exporter/model_registry.h"
#include "runtime/compiled.h"
#include "tests/testing/aot_shared_object.h"
#include "tfn/runtime.h"
#include "tfn/tfn.h"

namespace tfn {
namespace {

using BindFn = int32_t (*)(const void*, uint64_t);

// A file mapped read-only (page-aligned), as an app maps its bundle.
class Mapped {
 public:
  explicit Mapped(const std::string& path) {
    int fd = open(path.c_str(), O_RDONLY);
    struct stat st;
    if (fd < 0) return;
    if (fstat(fd, &st) == 0) {
      size_ = static_cast<size_t>(st.st_size);
      void* p = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      data_ = p == MAP_FAILED ? nullptr : p;
    }
    close(fd);
  }
  ~Mapped() {
    if (data_) munmap(data_, size_);
  }
  const void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

// Bytes in 64-byte aligned memory (for corrupt copies of a bundle).
struct AlignedCopy {
  explicit AlignedCopy(const void* data, size_t n) : size(n) {
    bytes = static_cast<char*>(std::aligned_alloc(64, (n + 64) / 64 * 64));
    std::memcpy(bytes, data, n);
  }
  ~AlignedCopy() { std::free(bytes); }
  char* bytes;
  size_t size;
};

class ExternalWeightsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(::testing::TempDir() + "/tfn_external_weights");
    std::filesystem::create_directories(*dir_);
    auto fns = FindModel("mlp")->factory({});
    std::map<std::string, ConcreteFunction> sigs = {{"serving_default", fns["serving_default"]}};
    save(*dir_ + "/mlp.tfn", sigs);
    // The same model exported again with other metadata: another content hash.
    SaveOptions other;
    other.metadata = {{"note", "another export"}};
    save(*dir_ + "/other.tfn", sigs, other);
    SaveOptions zstd;
    zstd.compress = true;
    save(*dir_ + "/mlp_zstd.tfn", sigs, zstd);
  }

  static std::string Path(const std::string& name) { return *dir_ + "/" + name; }

  static std::unique_ptr<testing::AotSharedObject> Build(const std::string& name,
                                                         const std::string& flags) {
    auto so = testing::AotSharedObject::Build(TFN_AOT_BIN, Path("mlp.tfn"), "serving_default", name,
                                              Path(name), flags);
    EXPECT_TRUE(so.ok()) << so.status().ToString();
    return so.ok() ? std::move(*so) : nullptr;
  }

  static std::string* dir_;
};

std::string* ExternalWeightsTest::dir_ = nullptr;

TEST_F(ExternalWeightsTest, SameOutputsSmallerObjectAndChecksTheBundle) {
  auto embedded = Build("mlp_embedded", "");
  auto external = Build("mlp_external", "--weights external");
  ASSERT_TRUE(embedded && external);
  auto bind = reinterpret_cast<BindFn>(external->Symbol("mlp_external_bind_weights"));
  ASSERT_NE(bind, nullptr);
  EXPECT_EQ(embedded->Symbol("mlp_embedded_bind_weights"), nullptr);

  Tensor x = random_normal({3, 784}, /*seed=*/5);
  std::vector<ConstTensor> in = {x.value()};
  // Not bound yet.
  auto unbound = runtime::RunCompiled(external->signature(), in);
  ASSERT_FALSE(unbound.ok());
  EXPECT_NE(unbound.status().message().find("bind_weights"), std::string::npos)
      << unbound.status().ToString();

  Mapped bundle(Path("mlp.tfn"));
  ASSERT_NE(bundle.data(), nullptr);
  // Refused bytes: another export, truncated, corrupt magic, misaligned, NULL.
  Mapped other(Path("other.tfn"));
  ASSERT_NE(other.data(), nullptr);
  EXPECT_EQ(bind(other.data(), other.size()), TFN_AOT_WEIGHTS_MISMATCH);
  EXPECT_EQ(bind(bundle.data(), bundle.size() - 64), TFN_AOT_WEIGHTS_MISMATCH);
  AlignedCopy corrupt(bundle.data(), bundle.size());
  corrupt.bytes[0] ^= 1;
  EXPECT_EQ(bind(corrupt.bytes, corrupt.size), TFN_AOT_WEIGHTS_MISMATCH);
  AlignedCopy hashed(bundle.data(), bundle.size());
  hashed.bytes[48] ^= 1;  // the header's content hash
  EXPECT_EQ(bind(hashed.bytes, hashed.size), TFN_AOT_WEIGHTS_MISMATCH);
  AlignedCopy shifted(bundle.data(), bundle.size());  // 64-aligned; +8 is not
  EXPECT_EQ(bind(shifted.bytes + 8, bundle.size()), TFN_AOT_BAD_ARGUMENT);
  EXPECT_EQ(bind(nullptr, bundle.size()), TFN_AOT_BAD_ARGUMENT);
  // Every refusal left the object unbound.
  EXPECT_FALSE(runtime::RunCompiled(external->signature(), in).ok());

  ASSERT_EQ(bind(bundle.data(), bundle.size()), TFN_AOT_OK);
  auto got = runtime::RunCompiled(external->signature(), in);
  auto want = runtime::RunCompiled(embedded->signature(), in);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0].shape, Shape({3, 10}));
  EXPECT_TRUE((*got)[0].BytesEqual((*want)[0])) << "external weights change the results";
  // And both agree with the interpreter (the conformance suite's tolerance).
  auto loaded = runtime::Bundle::Load(Path("mlp.tfn"));
  ASSERT_TRUE(loaded.ok());
  runtime::Session session(*loaded);
  auto interp = session.Run("serving_default", {x.value()});
  ASSERT_TRUE(interp.ok());
  for (int64_t i = 0; i < (*got)[0].num_elements(); ++i) {
    double g = (*got)[0].ElementAsDouble(i), w = (*interp)[0].ElementAsDouble(i);
    EXPECT_LE(std::fabs(g - w), 1e-6 + 1e-4 * std::fabs(w)) << "element " << i;
  }

  // The object no longer carries the weights.
  auto read = exporter::ReadBundleFile(Path("mlp.tfn"));
  ASSERT_TRUE(read.ok());
  int64_t weight_bytes = 0;
  for (const exporter::VariableToExport& v : read->variables) weight_bytes += v.value.byte_size();
  ASSERT_GT(weight_bytes, 100000);
  int64_t embedded_size =
      static_cast<int64_t>(std::filesystem::file_size(Path("mlp_embedded/mlp_embedded.o")));
  int64_t external_size =
      static_cast<int64_t>(std::filesystem::file_size(Path("mlp_external/mlp_external.o")));
  // The drop is within 1% of the variables' bytes (the embedded object holds
  // what its optimized graph reads; the external one keeps weights under
  // 1 KiB, 40 bytes here, and adds its bind code); the rest is code.
  EXPECT_GE(embedded_size - external_size, weight_bytes * 99 / 100)
      << "embedded " << embedded_size << " bytes, external " << external_size << ", weights "
      << weight_bytes;
  // What is left is code (GEMM, softmax, the bind checks: ~300 KB for the
  // AVX-512 build), a small fraction of the weights it no longer carries.
  EXPECT_LT(external_size, weight_bytes / 5);
  std::ifstream header(Path("mlp_external/mlp_external.h"));
  std::stringstream text;
  text << header.rdbuf();
  EXPECT_NE(text.str().find(
                "int32_t mlp_external_bind_weights(const void* bundle_bytes, uint64_t size);"),
            std::string::npos);
  EXPECT_NE(text.str().find("bytes read from the bound bundle"), std::string::npos);
}

TEST_F(ExternalWeightsTest, CompressedBundleIsRefusedAtCompileTime) {
  auto so = testing::AotSharedObject::Build(TFN_AOT_BIN, Path("mlp_zstd.tfn"), "serving_default",
                                            "mlp_zstd", Path("mlp_zstd"), "--weights external");
  ASSERT_FALSE(so.ok());
  EXPECT_NE(so.status().message().find("tfn-aot: error: --weights external reads weights in place"),
            std::string::npos)
      << so.status().ToString();
  EXPECT_NE(so.status().message().find("export the bundle without --compress"), std::string::npos);
  auto bad = testing::AotSharedObject::Build(TFN_AOT_BIN, Path("mlp.tfn"), "serving_default",
                                             "mlp_bad", Path("mlp_bad"), "--weights mapped");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--weights must be embedded or external, got 'mapped'"),
            std::string::npos)
      << bad.status().ToString();
}

}  // namespace
}  // namespace tfn
