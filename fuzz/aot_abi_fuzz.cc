// libFuzzer target: the runtime's reading of the descriptors an AOT object
// exposes (schema/aot_abi.h's TfnAotSignature and TfnAotTensorDesc), in
// runtime/compiled.cc's RunCompiled: how Session::UseCompiled, tfn-run --jit
// and the tests run compiled code. The fuzz input is the descriptor (its
// counts, dtypes, ranks, static sizes and dynamic-dim indices) plus what the
// fake compiled code answers; the code itself is honest within the
// descriptor's contract: it reads each input and writes each output as large
// as the descriptor and its own output_shape say, and the whole scratch area
// it asked for. So RunCompiled must refuse what does not fit (or reject the
// descriptor) before the code runs, and allocate what the code was promised.
//
// Layout (little-endian; missing bytes read as zero):
//   u32 abi_version, i32 num_inputs, i32 num_outputs, i32 num_dims,
//   i32 scratch_bytes, i32 run_code, u8 flags, 3 bytes padding;
//   per input, then per output: i32 dtype, i32 rank, i64 size[8], i32 dim_index[8];
//   per output: 8 x i8, the dims output_shape gives for dims no index names;
//   per input: 8 x u8, the given tensor's dims where the descriptor's are not small.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "core/attrs.h"
#include "runtime/compiled.h"
#include "schema/aot_abi.h"

namespace {

constexpr int kMaxTensors = 8;        // descriptor arrays are allocated this large at most
constexpr int64_t kMaxOutput = 4096;  // elements per output the fake code reports

enum Flags : uint8_t {
  kNullName = 1,          // the descriptor's name is NULL
  kWithThreads = 2,       // call with a TfnAotRunOptions (a serial parallel_for)
  kNoRunWithOptions = 4,  // run_with_options is NULL
  kOutputShapeFails = 8,  // output_shape returns TFN_AOT_BAD_DIMS
  kWrongInputDType = 16,  // the given inputs have another dtype than the descriptor's
};

struct Reader {
  const uint8_t* data;
  size_t size, pos = 0;
  template <class T>
  T Get() {
    T v{};
    if (pos < size) std::memcpy(&v, data + pos, pos + sizeof v <= size ? sizeof v : size - pos);
    pos += sizeof v;
    return v;
  }
};

// The case being run: the fake code's answers (libFuzzer is single-threaded).
struct Case {
  TfnAotSignature sig{};
  std::vector<TfnAotTensorDesc> descs;
  std::vector<const char*> dim_names;
  int32_t scratch = 0, code = 0;
  uint8_t flags = 0;
  int8_t out_dims[kMaxTensors][TFN_AOT_MAX_RANK] = {};
};
const Case* g_case = nullptr;

// Counts beyond the arrays' size cannot be checked by anyone (a descriptor
// that lies about its own array lengths): fold them into [-4, 8].
int32_t Count(int32_t v) { return v > kMaxTensors ? v % (kMaxTensors + 1) : (v < -4 ? -4 : v); }
int Clamp(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

int64_t ScratchBytes(const int64_t*) {
  return g_case->scratch < -1 ? -1 : (g_case->scratch & 0xffff);
}

// As generated code: a dim named by dim_index is that dynamic dim, any other
// is the code's own (bounded) answer.
int32_t OutputShape(const int64_t* dims, int32_t index, int64_t* out) {
  const Case& c = *g_case;
  if (c.flags & kOutputShapeFails) return TFN_AOT_BAD_DIMS;
  if (index < 0 || index >= c.sig.num_outputs) return TFN_AOT_BAD_ARGUMENT;
  const TfnAotTensorDesc& d = c.sig.outputs[index];
  int64_t product = 1;
  for (int k = 0; k < Clamp(d.rank, 0, TFN_AOT_MAX_RANK); ++k) {
    int32_t idx = d.dim_index[k];
    int64_t v = idx >= 0 && idx < c.sig.num_dims ? dims[idx] : c.out_dims[index][k] % 9;
    if (v > 0 && product * v > kMaxOutput) v = 1;
    out[k] = v;
    if (v > 0) product *= v;
  }
  return TFN_AOT_OK;
}

// Elements of a descriptor's tensor for these dims (-1 when invalid).
int64_t Elements(const TfnAotTensorDesc& d, const int64_t* dims, int32_t num_dims) {
  int64_t n = 1;
  for (int k = 0; k < Clamp(d.rank, 0, TFN_AOT_MAX_RANK); ++k) {
    int64_t v = d.dim_index[k] >= 0 && d.dim_index[k] < num_dims ? dims[d.dim_index[k]] : d.size[k];
    if (v < 0 || v > (int64_t{1} << 24) || n * v > (int64_t{1} << 24)) return -1;
    n *= v;
  }
  return n;
}

int32_t Run(const void* const* inputs, const int64_t* dims, void* const* outputs, void* scratch) {
  const Case& c = *g_case;
  volatile uint8_t sink = 0;
  for (int32_t i = 0; i < c.sig.num_inputs; ++i) {
    const TfnAotTensorDesc& d = c.sig.inputs[i];
    int64_t bytes =
        Elements(d, dims, c.sig.num_dims) * tfn::DTypeSize(static_cast<tfn::DType>(d.dtype));
    const uint8_t* p = static_cast<const uint8_t*>(inputs[i]);
    for (int64_t b = 0; b < bytes; ++b) sink = sink ^ p[b];
  }
  for (int32_t o = 0; o < c.sig.num_outputs; ++o) {
    int64_t shape[TFN_AOT_MAX_RANK] = {};
    OutputShape(dims, o, shape);
    int64_t n = 1;
    for (int k = 0; k < Clamp(c.sig.outputs[o].rank, 0, TFN_AOT_MAX_RANK); ++k)
      n *= shape[k] < 0 ? 0 : shape[k];
    std::memset(
        outputs[o], 0x5a,
        static_cast<size_t>(n * tfn::DTypeSize(static_cast<tfn::DType>(c.sig.outputs[o].dtype))));
  }
  int64_t s = ScratchBytes(dims);
  if (s > 0) std::memset(scratch, 0xa5, static_cast<size_t>(s));
  (void)sink;
  return c.code;
}

int32_t RunWithOptions(const void* const* inputs, const int64_t* dims, void* const* outputs,
                       void* scratch, const TfnAotRunOptions* options) {
  if (options && options->parallel_for) {
    struct Call {
      const void* const* inputs;
      const int64_t* dims;
      void* const* outputs;
      void* scratch;
      int32_t code;
    } call{inputs, dims, outputs, scratch, 0};
    options->parallel_for(
        options->pool, 1, 1,
        [](void* arg, int64_t, int64_t) {
          Call* c = static_cast<Call*>(arg);
          c->code = Run(c->inputs, c->dims, c->outputs, c->scratch);
        },
        &call);
    return call.code;
  }
  return Run(inputs, dims, outputs, scratch);
}

void SerialFor(void*, int64_t n, int64_t, void (*fn)(void*, int64_t, int64_t), void* arg) {
  fn(arg, 0, n);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader r{data, size};
  Case c;
  c.sig.abi_version = r.Get<uint32_t>();
  c.sig.num_inputs = Count(r.Get<int32_t>());
  c.sig.num_outputs = Count(r.Get<int32_t>());
  c.sig.num_dims = Count(r.Get<int32_t>());
  c.scratch = r.Get<int32_t>();
  c.code = r.Get<int32_t>() % 10;
  c.flags = r.Get<uint8_t>();
  r.pos += 3;
  int ni = Clamp(c.sig.num_inputs, 0, kMaxTensors), no = Clamp(c.sig.num_outputs, 0, kMaxTensors);
  c.descs.resize(static_cast<size_t>(ni + no));
  for (TfnAotTensorDesc& d : c.descs) {
    d.name = "t";
    d.dtype = r.Get<int32_t>();
    d.rank = r.Get<int32_t>();
    for (int64_t& s : d.size) s = r.Get<int64_t>();
    for (int32_t& i : d.dim_index) i = r.Get<int32_t>();
  }
  for (int o = 0; o < no; ++o) {
    for (int8_t& v : c.out_dims[o]) v = r.Get<int8_t>();
  }
  c.dim_names.assign(static_cast<size_t>(Clamp(c.sig.num_dims, 0, kMaxTensors)), "d");
  c.sig.name = (c.flags & kNullName) ? nullptr : "fuzzed";
  c.sig.inputs = ni ? c.descs.data() : nullptr;
  c.sig.outputs = no ? c.descs.data() + ni : nullptr;
  c.sig.dim_names = c.dim_names.empty() ? nullptr : c.dim_names.data();
  c.sig.run = Run;
  c.sig.scratch_bytes = ScratchBytes;
  c.sig.output_shape = OutputShape;
  c.sig.run_with_options = (c.flags & kNoRunWithOptions) ? nullptr : RunWithOptions;

  // Inputs as a caller would give them: the descriptor's dtype and rank,
  // its static sizes where small, else a small dim from the input.
  std::vector<tfn::ConstTensor> inputs;
  for (int i = 0; i < ni; ++i) {
    const TfnAotTensorDesc& d = c.descs[static_cast<size_t>(i)];
    tfn::DType dtype =
        tfn::IsValidDType(d.dtype) ? static_cast<tfn::DType>(d.dtype) : tfn::DType::kFloat32;
    if (c.flags & kWrongInputDType)
      dtype = dtype == tfn::DType::kInt64 ? tfn::DType::kFloat32 : tfn::DType::kInt64;
    tfn::Shape shape;
    for (int k = 0; k < Clamp(d.rank, 0, TFN_AOT_MAX_RANK); ++k) {
      uint8_t given = r.Get<uint8_t>();
      shape.push_back(d.dim_index[k] < 0 && d.size[k] >= 0 && d.size[k] <= 16 ? d.size[k]
                                                                              : given % 5);
    }
    void* unused = nullptr;
    inputs.push_back(tfn::ConstTensor::Allocate(dtype, shape, &unused));
  }
  TfnAotRunOptions threads{sizeof(TfnAotRunOptions), 2, SerialFor, nullptr, nullptr, nullptr};
  g_case = &c;
  auto out =
      tfn::runtime::RunCompiled(c.sig, inputs, (c.flags & kWithThreads) ? &threads : nullptr);
  g_case = nullptr;
  (void)tfn::runtime::CompiledError(c.code, c.sig.name);
  if (out.ok() && out->size() != static_cast<size_t>(no)) __builtin_trap();
  return 0;
}
