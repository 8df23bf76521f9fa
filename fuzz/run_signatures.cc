// RunEverySignature: inputs drawn from a seeded generator, one run each.
#include "fuzz/run_signatures.h"

#include <cstring>
#include <memory>
#include <vector>

#include "core/dtype.h"

namespace tfn::fuzz {
namespace {

// Inputs of more elements than this are not made: the fuzzer looks for
// crashes, not for how long a large matmul takes.
constexpr int64_t kMaxElements = 1 << 14;

// splitmix64: small, and the same sequence on every platform.
struct Rng {
  uint64_t state;
  uint64_t Next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  int64_t Int(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
};

int DTypeBytes(int32_t dtype) {
  return tfn::IsValidDType(dtype) ? tfn::DTypeSize(static_cast<tfn::DType>(dtype)) : 0;
}

// Small values: indices and counts in [-2, 5] reach both the valid and the
// out-of-range paths of gathers, slices and shape inputs.
void Fill(int32_t dtype, int64_t n, void* data, Rng* rng) {
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = rng->Int(-2, 5);
    switch (dtype) {
      case TFN_RT_BOOL:
        static_cast<uint8_t*>(data)[i] = static_cast<uint8_t>(v & 1);
        break;
      case TFN_RT_INT32:
        static_cast<int32_t*>(data)[i] = static_cast<int32_t>(v);
        break;
      case TFN_RT_INT64:
        static_cast<int64_t*>(data)[i] = v;
        break;
      case TFN_RT_FLOAT32:
        static_cast<float*>(data)[i] = static_cast<float>(v) * 0.5f;
        break;
      case TFN_RT_FLOAT64:
        static_cast<double*>(data)[i] = static_cast<double>(v) * 0.5;
        break;
      default: {  // the small and unsigned integers, float16/bfloat16 bits: v's low bytes
        const int bytes = DTypeBytes(dtype);
        std::memcpy(static_cast<char*>(data) + i * bytes, &v, static_cast<size_t>(bytes));
      }
    }
  }
}

void RunOne(TfnRtSession* session, const TfnRtBundle* bundle, const char* sig, Rng* rng) {
  int n = tfn_rt_signature_input_count(bundle, sig);
  if (n < 0 || n > 64) return;
  std::vector<TfnRtTensor> inputs(static_cast<size_t>(n));
  std::vector<std::unique_ptr<uint8_t[]>> storage;
  for (int i = 0; i < n; ++i) {
    TfnRtTensor& t = inputs[static_cast<size_t>(i)];
    if (tfn_rt_signature_input(bundle, sig, i, nullptr, &t) != 0) return;
    int bytes = DTypeBytes(t.dtype);
    if (bytes == 0 || t.rank < 0 || t.rank > TFN_RT_MAX_RANK) return;
    int64_t elements = 1;
    for (int d = 0; d < t.rank; ++d) {
      if (t.dims[d] < 0) t.dims[d] = rng->Int(1, 3);
      if (t.dims[d] > kMaxElements) return;
      elements *= t.dims[d];
      if (elements > kMaxElements) return;
    }
    storage.emplace_back(new uint8_t[static_cast<size_t>(elements * bytes) + 1]);
    t.data = storage.back().get();
    Fill(t.dtype, elements, t.data, rng);
  }
  TfnRtOutputs* outputs = nullptr;
  char error[256];
  if (tfn_rt_session_run(session, sig, inputs.data(), n, &outputs, error, sizeof error) ==
      TFN_RT_OK) {
    // Read every output byte: a tensor that claims more than it holds shows
    // up here under ASan.
    volatile uint8_t sink = 0;
    for (int o = 0; o < tfn_rt_outputs_count(outputs); ++o) {
      const TfnRtTensor* t = tfn_rt_outputs_get(outputs, o);
      // An empty output may have other large dims (the runtime bounds their
      // product: CheckedNumElements); a non-empty one cannot, within the limits.
      int64_t elements = 1;
      bool empty = false;
      for (int d = 0; d < t->rank; ++d) empty |= t->dims[d] == 0;
      for (int d = 0; d < t->rank && elements >= 0 && !empty; ++d) {
        elements = t->dims[d] < 0 || t->dims[d] > (1 << 30) || elements > (1 << 30)
                       ? -1
                       : elements * t->dims[d];
      }
      if (empty) elements = 0;
      if (elements < 0) __builtin_trap();  // an output shape no tensor can have
      const uint8_t* p = static_cast<const uint8_t*>(t->data);
      for (int64_t b = 0; p && b < elements * DTypeBytes(t->dtype); ++b) sink = sink ^ p[b];
    }
    tfn_rt_outputs_free(outputs);
  }
}

}  // namespace

uint64_t HashBytes(const uint8_t* data, size_t size) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
  return h;
}

void RunEverySignature(const TfnRtBundle* bundle, uint64_t seed) {
  // The limits an app running untrusted bundles sets (runtime/README.md,
  // "Limits"): the defaults let a run loop and allocate as much as a real
  // model may, so a bundle whose while_loop grows a tensor each iteration
  // runs for minutes within them (quadratic work, fuzz/regressions/
  // fuzz_bundle/concat_growing_loop); the fuzzer looks for crashes, and a run
  // ended by a limit is an error, not one.
  TfnRtSessionOptions options = tfn_rt_session_options_default();
  options.num_threads = 1;
  options.max_while_iterations = 100000;
  options.max_run_bytes = int64_t{256} << 20;
  options.deadline_ms = 2000;
  TfnRtSession* session = nullptr;
  char error[256];
  if (tfn_rt_session_create_with_options(bundle, &options, &session, error, sizeof error) !=
      TFN_RT_OK)
    return;
  Rng rng{seed};
  for (int s = 0; s < tfn_rt_signature_count(bundle); ++s) {
    RunOne(session, bundle, tfn_rt_signature_name(bundle, s), &rng);
  }
  tfn_rt_session_free(session);
}

}  // namespace tfn::fuzz
