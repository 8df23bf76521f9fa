// libFuzzer target: bundle bytes through the runtime, as an app that loads
// an untrusted .tfn would: tfn_rt_bundle_from_memory (structural
// verification), then the checksums, a plan for every signature, and one run
// of each signature in a session through the C API.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz/run_signatures.h"
#include "runtime/runtime.h"
#include "runtime/tfn_runtime.h"
#include "schema/bundle_header.h"

namespace {

// What the C API does not expose: every checksum (the content hash too) and
// the planner on its own (ArenaBytes plans without running), dynamic dims 2.
void VerifyAndPlan(const uint8_t* data, size_t size) {
  tfn::runtime::LoadOptions options;
  options.verify_checksums = true;
  auto bundle = tfn::runtime::Bundle::FromMemory(data, size, nullptr, options);
  if (!bundle.ok()) return;
  (void)(*bundle)->VerifyChecksums();
  tfn::runtime::Session session(*bundle, tfn::runtime::SessionOptions{1, nullptr});
  for (const tfn::runtime::SignatureInfo& sig : (*bundle)->signatures()) {
    std::vector<tfn::Shape> shapes;
    for (const tfn::runtime::TensorInfo& in : sig.inputs) {
      tfn::Shape s = in.shape;
      for (int64_t& d : s) d = d < 0 ? 2 : d;
      shapes.push_back(s);
    }
    (void)session.ArenaBytes(sig.name, shapes);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* in, size_t size) {
  // The graph's hash would reject nearly every mutation before the checks
  // behind it: give the mutated bytes a matching header, as a hostile writer
  // can (inputs whose header sizes do not fit still go in as they are).
  std::vector<uint8_t> bytes(in, in + size);
  tfn::schema::ResealHeader(bytes.data(), bytes.size());
  const uint8_t* data = bytes.data();
  TfnRtBundle* bundle = nullptr;
  char error[256];
  if (tfn_rt_bundle_from_memory(data, size, &bundle, error, sizeof error) != TFN_RT_OK) return 0;
  VerifyAndPlan(data, size);
  tfn::fuzz::RunEverySignature(bundle, tfn::fuzz::HashBytes(data, size));
  tfn_rt_bundle_free(bundle);
  return 0;
}
