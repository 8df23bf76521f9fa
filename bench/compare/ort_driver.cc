// compare_driver: one ONNX model, three engines, one process. Runs the model
// in ONNX Runtime (its C API, dlopened from libonnxruntime.so.1), in tfn's
// runtime (the bundle `tfn-export --onnx` made from the same file) and as a
// tfn AOT object (`tfn-aot`'s object linked into a shared library and
// dlopened), on the same deterministic inputs; checks that the outputs agree
// with ONNX Runtime's; then times the engines interleaved, in chunks of calls
// (A B C D, B C D A, ...), so that a change in machine load hits every engine
// alike; and prints one Markdown table row per engine. bench/compare/run.sh
// runs it over every model; bench/compare/README.md explains the columns.
//
//   compare_driver --ort-lib DIR/libonnxruntime.so.1 --onnx mlp.onnx --batch 64
//       --tfn mlp.tfn --aot-lib libmlp_aot.so --aot-name mlp_aot     (one line)
//   compare_driver --ort-lib DIR/libonnxruntime.so.1 --ort-version
//   compare_driver --header
//
// The FLOPs are counted here, from the .onnx file: 2*M*N*K for every MatMul
// and Gemm and 2*outputs*(Cin/group)*kh*kw for every Conv, with shapes from
// the file's value_info (make_models.py runs ONNX shape inference before
// saving). The .onnx file is read with a minimal protobuf wire-format reader,
// so that the driver needs neither libonnx nor libprotobuf.
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "bench/compare/ort_c_api.h"
#include "runtime/npy.h"
#include "runtime/runtime.h"
#include "runtime/thread_pool.h"
#include "schema/aot_abi.h"

// The table layout this file relies on: ReleaseCustomOpDomain is member 101.
static_assert(offsetof(OrtApi, ReleaseCustomOpDomain) == 101 * sizeof(void*),
              "ort_c_api.h: the OrtApi table prefix has the wrong number of members");

namespace {

constexpr char kTool[] = "compare_driver";

[[noreturn]] void Fail(const std::string& message, int code = 1) {
  std::fprintf(stderr, "%s: error: %s\n", kTool, message.c_str());
  std::exit(code);
}

std::string Basename(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string DimsToString(const std::vector<int64_t>& dims) {
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
  return s.empty() ? "scalar" : s;
}

int64_t NumElements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

double NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// 64-byte aligned, zeroed memory, so every engine gets buffers it can use
// with its widest vector loads.
struct AlignedBuffer {
  std::unique_ptr<void, decltype(&std::free)> ptr{nullptr, &std::free};
  size_t bytes = 0;
  explicit AlignedBuffer(size_t n = 0) { Resize(n); }
  void Resize(size_t n) {
    bytes = n;
    size_t rounded = (std::max<size_t>(n, 1) + 63) / 64 * 64;
    ptr.reset(std::aligned_alloc(64, rounded));
    if (!ptr) Fail("out of memory allocating " + std::to_string(rounded) + " bytes");
    std::memset(ptr.get(), 0, rounded);
  }
  float* f32() const { return static_cast<float*>(ptr.get()); }
  void* data() const { return ptr.get(); }
};

// ---------------------------------------------------------------------------
// FLOP counting from the .onnx file (protobuf wire format, onnx.proto field
// numbers: ModelProto.graph 7; GraphProto node 1, initializer 5, input 11,
// output 12, value_info 13; NodeProto input 1, output 2, op_type 4,
// attribute 5; AttributeProto name 1, i 3; TensorProto dims 1, name 8;
// ValueInfoProto name 1, type 2; TypeProto tensor_type 1; Tensor shape 2;
// TensorShapeProto dim 1; Dimension dim_value 1, dim_param 2).

class PbReader {
 public:
  PbReader(const uint8_t* p, size_t n) : p_(p), end_(p + n) {}
  explicit PbReader(std::string_view s)
      : PbReader(reinterpret_cast<const uint8_t*>(s.data()), s.size()) {}
  bool ok() const { return ok_; }
  // Reads the next field key; false at the end or on malformed input.
  bool Next(uint32_t* field, uint32_t* wire) {
    if (!ok_ || p_ >= end_) return false;
    uint64_t key = Varint();
    *field = static_cast<uint32_t>(key >> 3);
    *wire = static_cast<uint32_t>(key & 7);
    return ok_;
  }
  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ >= end_) break;
      uint8_t b = *p_++;
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    ok_ = false;
    return 0;
  }
  std::string_view Bytes() {
    uint64_t n = Varint();
    if (!ok_ || n > static_cast<uint64_t>(end_ - p_)) {
      ok_ = false;
      return {};
    }
    std::string_view s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
  }
  void Skip(uint32_t wire) {
    size_t n = 0;
    switch (wire) {
      case 0:
        Varint();
        return;
      case 1:
        n = 8;
        break;
      case 2:
        Bytes();
        return;
      case 5:
        n = 4;
        break;
      default:
        ok_ = false;
        return;  // groups (3, 4) do not occur in onnx.proto
    }
    if (n > static_cast<size_t>(end_ - p_)) {
      ok_ = false;
    } else {
      p_ += n;
    }
  }
  // A repeated int64 field, packed (wire 2) or not (wire 0).
  void Int64s(uint32_t wire, std::vector<int64_t>* out) {
    if (wire == 0) {
      out->push_back(static_cast<int64_t>(Varint()));
    } else if (wire == 2) {
      PbReader packed(Bytes());
      while (packed.p_ < packed.end_ && packed.ok_)
        out->push_back(static_cast<int64_t>(packed.Varint()));
      ok_ = ok_ && packed.ok_;
    } else {
      Skip(wire);
    }
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  bool ok_ = true;
};

constexpr int64_t kSymbolicDim = -1;  // a dim_param: the batch
constexpr int64_t kUnknownDim = -2;   // neither dim_value nor dim_param

struct OnnxNode {
  std::string op_type, name;
  std::vector<std::string> inputs, outputs;
  std::map<std::string, int64_t> ints;
};

struct OnnxGraph {
  std::vector<OnnxNode> nodes;
  std::map<std::string, std::vector<int64_t>> shapes;  // every value with a known rank
  bool has_symbolic_input = false;
};

void ParseValueInfo(std::string_view bytes, OnnxGraph* g, bool is_input) {
  PbReader r(bytes);
  std::string name;
  std::vector<int64_t> dims;
  bool has_shape = false;
  uint32_t f, w;
  while (r.Next(&f, &w)) {
    if (f == 1 && w == 2) {
      name = std::string(r.Bytes());
    } else if (f == 2 && w == 2) {  // TypeProto
      PbReader type(r.Bytes());
      while (type.Next(&f, &w)) {
        if (f != 1 || w != 2) {
          type.Skip(w);
          continue;
        }
        PbReader tensor(type.Bytes());  // TypeProto.Tensor
        while (tensor.Next(&f, &w)) {
          if (f != 2 || w != 2) {
            tensor.Skip(w);
            continue;
          }
          has_shape = true;
          PbReader shape(tensor.Bytes());
          while (shape.Next(&f, &w)) {
            if (f != 1 || w != 2) {
              shape.Skip(w);
              continue;
            }
            PbReader dim(shape.Bytes());
            int64_t d = kUnknownDim;
            while (dim.Next(&f, &w)) {
              if (f == 1 && w == 0) {
                d = static_cast<int64_t>(dim.Varint());
              } else if (f == 2 && w == 2) {
                dim.Bytes();
                d = kSymbolicDim;
              } else {
                dim.Skip(w);
              }
            }
            dims.push_back(d);
          }
        }
      }
    } else {
      r.Skip(w);
    }
  }
  if (!has_shape || name.empty()) return;
  if (is_input) {
    for (int64_t d : dims) g->has_symbolic_input |= d == kSymbolicDim;
  }
  g->shapes.emplace(name, dims);
}

void ParseNode(std::string_view bytes, OnnxGraph* g) {
  PbReader r(bytes);
  OnnxNode n;
  uint32_t f, w;
  while (r.Next(&f, &w)) {
    if (f == 1 && w == 2) {
      n.inputs.emplace_back(r.Bytes());
    } else if (f == 2 && w == 2) {
      n.outputs.emplace_back(r.Bytes());
    } else if (f == 3 && w == 2) {
      n.name = std::string(r.Bytes());
    } else if (f == 4 && w == 2) {
      n.op_type = std::string(r.Bytes());
    } else if (f == 5 && w == 2) {
      PbReader a(r.Bytes());
      std::string name;
      int64_t i = 0;
      bool has_i = false;
      while (a.Next(&f, &w)) {
        if (f == 1 && w == 2) {
          name = std::string(a.Bytes());
        } else if (f == 3 && w == 0) {
          i = static_cast<int64_t>(a.Varint());
          has_i = true;
        } else {
          a.Skip(w);
        }
      }
      if (has_i) n.ints[name] = i;
    } else {
      r.Skip(w);
    }
  }
  g->nodes.push_back(std::move(n));
}

OnnxGraph ParseOnnx(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail("cannot read '" + path + "'");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  OnnxGraph g;
  PbReader model(bytes);
  uint32_t f, w;
  bool found_graph = false;
  while (model.Next(&f, &w)) {
    if (f != 7 || w != 2) {
      model.Skip(w);
      continue;
    }
    found_graph = true;
    PbReader graph(model.Bytes());
    while (graph.Next(&f, &w)) {
      if (w != 2) {
        graph.Skip(w);
        continue;
      }
      std::string_view sub = graph.Bytes();
      if (f == 1) {
        ParseNode(sub, &g);
      } else if (f == 5) {  // initializer: dims and name
        PbReader t(sub);
        std::vector<int64_t> dims;
        std::string name;
        while (t.Next(&f, &w)) {
          if (f == 1) {
            t.Int64s(w, &dims);
          } else if (f == 8 && w == 2) {
            name = std::string(t.Bytes());
          } else {
            t.Skip(w);
          }
        }
        if (!name.empty()) g.shapes[name] = dims;
      } else if (f == 11 || f == 12 || f == 13) {
        ParseValueInfo(sub, &g, f == 11);
      }
    }
    if (!graph.ok()) Fail("'" + path + "' is not a valid ONNX file (its graph does not parse)");
  }
  if (!model.ok() || !found_graph) Fail("'" + path + "' is not a valid ONNX file (no graph found)");
  return g;
}

// FLOPs of the MatMul/Gemm/Conv nodes with symbolic dims set to `batch`;
// -1 (and a note on stderr) when a shape needed is missing from the file.
double CountFlops(const OnnxGraph& g, int64_t batch, std::string* summary) {
  double total = 0;
  std::map<std::string, int> counted;
  auto shape = [&](const std::string& name, std::vector<int64_t>* out) {
    auto it = g.shapes.find(name);
    if (it == g.shapes.end()) return false;
    *out = it->second;
    for (int64_t& d : *out) {
      if (d == kSymbolicDim) d = batch;
      if (d < 0) return false;
    }
    return true;
  };
  for (const OnnxNode& n : g.nodes) {
    bool matmul = n.op_type == "MatMul", gemm = n.op_type == "Gemm", conv = n.op_type == "Conv";
    if (!matmul && !gemm && !conv) continue;
    std::vector<int64_t> a, b, y;
    bool ok = n.inputs.size() >= 2 && !n.outputs.empty() && shape(n.inputs[0], &a) &&
              shape(n.inputs[1], &b) && shape(n.outputs[0], &y);
    double k = 0;
    if (ok && matmul) {
      ok = !a.empty();
      if (ok) k = static_cast<double>(a.back());
    } else if (ok && gemm) {
      auto t = n.ints.find("transA");
      bool trans_a = t != n.ints.end() && t->second != 0;
      ok = a.size() == 2;
      if (ok) k = static_cast<double>(trans_a ? a[0] : a[1]);
    } else if (ok && conv) {
      ok = b.size() >= 3;  // W: [Cout, Cin/group, k...]
      k = 1;
      for (size_t i = 1; ok && i < b.size(); ++i) k *= static_cast<double>(b[i]);
    }
    if (!ok) {
      std::fprintf(stderr,
                   "%s: note: no shapes for %s node '%s' in the .onnx value_info; FLOPs left out\n",
                   kTool, n.op_type.c_str(), n.name.c_str());
      return -1;
    }
    total += 2.0 * static_cast<double>(NumElements(y)) * k;
    ++counted[n.op_type];
  }
  for (const auto& [op, count] : counted) {
    *summary += (summary->empty() ? "" : " + ") + std::to_string(count) + " " + op;
  }
  return total;
}

// ---------------------------------------------------------------------------
// The engines.

// One model input: float32 (filled by FillInput or read from --input-npy) or
// int64 (token ids and the like: --input-npy only).
struct Input {
  std::string name;
  std::vector<int64_t> dims;  // -1 for a symbolic dim until --batch or the .npy file sets it
  tfn::DType dtype = tfn::DType::kFloat32;
  AlignedBuffer data;
};

ONNXTensorElementDataType OnnxType(tfn::DType t) {
  return t == tfn::DType::kInt64 ? ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64
                                 : ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
}

struct Output {
  std::vector<int64_t> dims;
  std::vector<float> values;
};

class Engine {
 public:
  virtual ~Engine() = default;
  // One call on the shared inputs; false with *error set on failure.
  virtual bool Run(std::string* error) = 0;
  // The outputs of the last Run, as float32.
  virtual bool Outputs(std::vector<Output>* out, std::string* error) = 0;

  std::string name, threads;
  std::string error;            // set when the engine could not be set up or failed
  std::vector<double> samples;  // ns per call, timed rounds only
  double estimate_ns = 0;
  int reps = 1;           // calls per sample (sub-µs calls are timed in groups)
  int chunk = 1;          // samples per round
  std::string agreement;  // the outputs column
  bool is_reference = false;
  bool skipped = false;  // not run at all (e.g. the model did not import)
  int ort_threads = 0;   // ORT engines: their intra-op thread count; tfn: 0
  int tfn_threads = 0;   // tfn engines: their thread count (SessionOptions / run_with_options)
};

const OrtApi* g_ort = nullptr;

// An OrtStatus as a string (and released); empty for success.
std::string OrtError(OrtStatus* status) {
  if (status == nullptr) return "";
  std::string m = g_ort->GetErrorMessage(status);
  g_ort->ReleaseStatus(status);
  return m.empty() ? "ONNX Runtime error" : m;
}

void OrtCheck(OrtStatus* status, const std::string& what) {
  std::string m = OrtError(status);
  if (!m.empty()) Fail("ONNX Runtime: " + what + ": " + m);
}

class OrtEngine : public Engine {
 public:
  // profile: a file prefix for ORT's per-node JSON profile (written when the
  // session is released), or empty.
  OrtEngine(OrtEnv* env, const std::string& onnx, int intra_threads, const std::string& version,
            const std::string& profile) {
    name = "ORT " + version;
    threads = std::to_string(intra_threads);
    ort_threads = intra_threads;
    OrtSessionOptions* options = nullptr;
    OrtCheck(g_ort->CreateSessionOptions(&options), "CreateSessionOptions");
    OrtCheck(g_ort->SetIntraOpNumThreads(options, intra_threads), "SetIntraOpNumThreads");
    // Sequential execution: inter-op threads would only add scheduling noise.
    OrtCheck(g_ort->SetInterOpNumThreads(options, 1), "SetInterOpNumThreads");
    OrtCheck(g_ort->SetSessionExecutionMode(options, ORT_SEQUENTIAL), "SetSessionExecutionMode");
    OrtCheck(g_ort->SetSessionGraphOptimizationLevel(options, ORT_ENABLE_ALL),
             "SetSessionGraphOptimizationLevel");
    OrtCheck(g_ort->SetSessionLogSeverityLevel(options, ORT_LOGGING_LEVEL_ERROR),
             "SetSessionLogSeverityLevel");
    if (!profile.empty()) {
      const std::string prefix = profile + "_" + std::to_string(intra_threads) + "t";
      OrtCheck(g_ort->EnableProfiling(options, prefix.c_str()), "EnableProfiling");
    }
    std::string m = OrtError(g_ort->CreateSession(env, onnx.c_str(), options, &session_));
    g_ort->ReleaseSessionOptions(options);
    if (!m.empty()) Fail("ONNX Runtime cannot load '" + onnx + "': " + m);
    OrtCheck(g_ort->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &memory_),
             "CreateCpuMemoryInfo");
    OrtAllocator* allocator = nullptr;
    OrtCheck(g_ort->GetAllocatorWithDefaultOptions(&allocator), "GetAllocatorWithDefaultOptions");
    size_t n_in = 0, n_out = 0;
    OrtCheck(g_ort->SessionGetInputCount(session_, &n_in), "SessionGetInputCount");
    OrtCheck(g_ort->SessionGetOutputCount(session_, &n_out), "SessionGetOutputCount");
    for (size_t i = 0; i < n_in + n_out; ++i) {
      char* s = nullptr;
      bool in = i < n_in;
      OrtCheck(in ? g_ort->SessionGetInputName(session_, i, allocator, &s)
                  : g_ort->SessionGetOutputName(session_, i - n_in, allocator, &s),
               "SessionGetInputName/OutputName");
      (in ? input_names_ : output_names_).emplace_back(s);
      OrtCheck(g_ort->AllocatorFree(allocator, s), "AllocatorFree");
    }
    for (const std::string& s : input_names_) input_cstr_.push_back(s.c_str());
    for (const std::string& s : output_names_) output_cstr_.push_back(s.c_str());
    outputs_.assign(n_out, nullptr);
  }
  ~OrtEngine() override {
    for (OrtValue* v : inputs_) g_ort->ReleaseValue(v);
    for (OrtValue* v : outputs_) g_ort->ReleaseValue(v);
    if (memory_) g_ort->ReleaseMemoryInfo(memory_);
    if (session_) g_ort->ReleaseSession(session_);
  }

  // The inputs the model declares: name and dims (symbolic ones set to
  // `batch`); only float32 inputs are supported.
  std::vector<Input> DeclaredInputs(int64_t batch) const {
    std::vector<Input> result;
    for (size_t i = 0; i < input_names_.size(); ++i) {
      OrtTypeInfo* info = nullptr;
      OrtCheck(g_ort->SessionGetInputTypeInfo(session_, i, &info), "SessionGetInputTypeInfo");
      const OrtTensorTypeAndShapeInfo* tensor = nullptr;
      OrtCheck(g_ort->CastTypeInfoToTensorInfo(info, &tensor), "CastTypeInfoToTensorInfo");
      if (tensor == nullptr) Fail("input '" + input_names_[i] + "' is not a tensor");
      ONNXTensorElementDataType type;
      size_t rank = 0;
      OrtCheck(g_ort->GetTensorElementType(tensor, &type), "GetTensorElementType");
      OrtCheck(g_ort->GetDimensionsCount(tensor, &rank), "GetDimensionsCount");
      Input in;
      in.name = input_names_[i];
      in.dims.resize(rank);
      OrtCheck(g_ort->GetDimensions(tensor, in.dims.data(), rank), "GetDimensions");
      g_ort->ReleaseTypeInfo(info);
      if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64) {
        in.dtype = tfn::DType::kInt64;
      } else if (type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) {
        Fail("input '" + in.name + "' has ONNX element type " + std::to_string(type) +
             "; the driver feeds only float32 and int64 inputs");
      }
      for (int64_t& d : in.dims) {
        if (d < 0 && batch > 0) d = batch;
      }
      result.push_back(std::move(in));
    }
    return result;
  }

  void BindInputs(const std::vector<Input>& inputs) {
    for (const Input& in : inputs) {
      OrtValue* v = nullptr;
      OrtCheck(g_ort->CreateTensorWithDataAsOrtValue(memory_, in.data.data(), in.data.bytes,
                                                     in.dims.data(), in.dims.size(),
                                                     OnnxType(in.dtype), &v),
               "CreateTensorWithDataAsOrtValue for input '" + in.name + "'");
      inputs_.push_back(v);
    }
  }

  bool Run(std::string* error) override {
    *error =
        OrtError(g_ort->Run(session_, nullptr, input_cstr_.data(), inputs_.data(), inputs_.size(),
                            output_cstr_.data(), output_cstr_.size(), outputs_.data()));
    return error->empty();
  }

  // After the first Run (ORT allocated the outputs): copies them out, then
  // binds preallocated output buffers of the same shapes, so that the timed
  // runs write into caller memory as the AOT object does (ORT's fastest path).
  bool Outputs(std::vector<Output>* out, std::string* error) override {
    out->clear();
    for (size_t i = 0; i < outputs_.size(); ++i) {
      OrtTensorTypeAndShapeInfo* info = nullptr;
      *error = OrtError(g_ort->GetTensorTypeAndShape(outputs_[i], &info));
      if (!error->empty()) return false;
      ONNXTensorElementDataType type;
      size_t rank = 0;
      Output o;
      std::string e = OrtError(g_ort->GetTensorElementType(info, &type));
      if (e.empty()) e = OrtError(g_ort->GetDimensionsCount(info, &rank));
      o.dims.resize(rank);
      if (e.empty()) e = OrtError(g_ort->GetDimensions(info, o.dims.data(), rank));
      g_ort->ReleaseTensorTypeAndShapeInfo(info);
      if (!e.empty()) {
        *error = e;
        return false;
      }
      if (type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) {
        *error = "output '" + output_names_[i] + "' is not float32 (ONNX type " +
                 std::to_string(type) + ")";
        return false;
      }
      void* data = nullptr;
      *error = OrtError(g_ort->GetTensorMutableData(outputs_[i], &data));
      if (!error->empty()) return false;
      const float* f = static_cast<const float*>(data);
      o.values.assign(f, f + NumElements(o.dims));
      out->push_back(std::move(o));
    }
    if (!bound_) {
      for (size_t i = 0; i < outputs_.size(); ++i) {
        const std::vector<int64_t>& dims = (*out)[i].dims;
        buffers_.emplace_back(static_cast<size_t>(NumElements(dims)) * sizeof(float));
        OrtValue* v = nullptr;
        *error = OrtError(g_ort->CreateTensorWithDataAsOrtValue(
            memory_, buffers_.back().data(), buffers_.back().bytes, dims.data(), dims.size(),
            ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &v));
        if (!error->empty()) return false;
        g_ort->ReleaseValue(outputs_[i]);
        outputs_[i] = v;
      }
      bound_ = true;
    }
    return true;
  }

 private:
  OrtSession* session_ = nullptr;
  OrtMemoryInfo* memory_ = nullptr;
  std::vector<std::string> input_names_, output_names_;
  std::vector<const char*> input_cstr_, output_cstr_;
  std::vector<OrtValue*> inputs_, outputs_;
  std::vector<AlignedBuffer> buffers_;
  bool bound_ = false;
};

// The inputs of a tfn signature in its own order, found by name among the
// driver's inputs (by position when the names differ but the count fits).
bool MatchInputs(const std::vector<std::string>& names, const std::vector<Input>& inputs,
                 std::vector<const Input*>* order, std::string* error) {
  order->clear();
  for (size_t i = 0; i < names.size(); ++i) {
    const Input* found = nullptr;
    for (const Input& in : inputs) {
      if (in.name == names[i]) found = &in;
    }
    if (found == nullptr && names.size() == inputs.size()) found = &inputs[i];
    if (found == nullptr) {
      *error = "its input '" + names[i] + "' is not an input of the .onnx model";
      return false;
    }
    order->push_back(found);
  }
  if (names.size() != inputs.size()) {
    *error = "it takes " + std::to_string(names.size()) + " inputs, the .onnx model " +
             std::to_string(inputs.size());
    return false;
  }
  return true;
}

class TfnRuntimeEngine : public Engine {
 public:
  TfnRuntimeEngine(const std::string& path, const std::string& signature,
                   const std::vector<Input>& inputs, int num_threads)
      : signature_(signature) {
    name = "tfn runtime";
    threads = std::to_string(num_threads);
    tfn_threads = num_threads;
    auto bundle = tfn::runtime::Bundle::Load(path);
    if (!bundle.ok()) {
      error = "loading '" + path + "': " + bundle.status().message();
      return;
    }
    const tfn::runtime::SignatureInfo* sig = (*bundle)->FindSignature(signature);
    if (sig == nullptr) {
      error = "'" + path + "' has no signature '" + signature + "'";
      return;
    }
    std::vector<std::string> names;
    for (const tfn::runtime::TensorInfo& t : sig->inputs) names.push_back(t.name);
    std::vector<const Input*> order;
    if (!MatchInputs(names, inputs, &order, &error)) {
      error = "signature '" + signature + "' does not fit the model: " + error;
      return;
    }
    for (const Input* in : order) {
      views_.push_back(tfn::runtime::View(in->dtype, tfn::Shape(in->dims.begin(), in->dims.end()),
                                          in->data.data()));
    }
    tfn::runtime::SessionOptions options;
    options.num_threads = num_threads;
    session_ = std::make_unique<tfn::runtime::Session>(*bundle, options);
  }

  bool Run(std::string* err) override {
    auto out = session_->Run(signature_, views_);
    if (!out.ok()) {
      *err = out.status().message();
      return false;
    }
    last_ = std::move(*out);
    return true;
  }

  bool Outputs(std::vector<Output>* out, std::string* err) override {
    out->clear();
    for (const tfn::runtime::Tensor& t : last_) {
      if (t.dtype != tfn::DType::kFloat32) {
        *err = std::string("an output is ") + tfn::DTypeName(t.dtype) + ", not f32";
        return false;
      }
      Output o;
      o.dims.assign(t.shape.begin(), t.shape.end());
      o.values.assign(t.as<float>(), t.as<float>() + t.num_elements());
      out->push_back(std::move(o));
    }
    return true;
  }

 private:
  std::string signature_;
  std::unique_ptr<tfn::runtime::Session> session_;
  std::vector<tfn::runtime::Tensor> views_, last_;
};

class TfnAotEngine : public Engine {
 public:
  TfnAotEngine(const std::string& lib, const std::string& object_name, const std::string& signature,
               const std::vector<Input>& inputs, int num_threads) {
    name = "tfn AOT";
    threads = std::to_string(num_threads);
    tfn_threads = num_threads;
    // Threads through run_with_options (ABI version 2) and the runtime's
    // pool; 1 thread calls the plain `run`.
    if (num_threads > 1) {
      pool_ = std::make_unique<tfn::runtime::ThreadPool>(num_threads);
      options_.struct_size = sizeof options_;
      options_.num_threads = num_threads;
      options_.parallel_for = &tfn::runtime::ThreadPool::ParallelForFn;
      options_.pool = pool_.get();
    }
    handle_ = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) {
      error = std::string("dlopen: ") + dlerror();
      return;
    }
    // NAME_signatures is `const TfnAotSignature* const NAME_signatures[]`, so
    // dlsym gives the array's address (schema/aot_abi.h, aot/header_writer.cc).
    auto* table = static_cast<const TfnAotSignature* const*>(
        dlsym(handle_, (object_name + "_signatures").c_str()));
    auto* count =
        static_cast<const int32_t*>(dlsym(handle_, (object_name + "_num_signatures").c_str()));
    if (table == nullptr || count == nullptr) {
      error = "'" + lib + "' does not export " + object_name +
              "_signatures/_num_signatures (wrong --aot-name?)";
      return;
    }
    std::string known;
    for (int32_t i = 0; i < *count; ++i) {
      if (std::string(table[i]->name) == signature) sig_ = table[i];
      known += (known.empty() ? "" : ", ") + std::string(table[i]->name);
    }
    if (sig_ == nullptr) {
      error = "the AOT object has no signature '" + signature + "' (it has: " + known + ")";
      return;
    }
    if (sig_->abi_version < 1 || sig_->abi_version > TFN_AOT_ABI_VERSION ||
        (num_threads > 1 && (sig_->abi_version < 2 || sig_->run_with_options == nullptr))) {
      error = "AOT ABI version " + std::to_string(sig_->abi_version) + ", this driver knows " +
              std::to_string(TFN_AOT_ABI_VERSION) +
              ": rebuild the object and the driver from one tree";
      return;
    }
    std::vector<std::string> names;
    for (int32_t i = 0; i < sig_->num_inputs; ++i) names.emplace_back(sig_->inputs[i].name);
    std::vector<const Input*> order;
    if (!MatchInputs(names, inputs, &order, &error)) {
      error = "signature '" + signature + "' does not fit the model: " + error;
      return;
    }
    dims_.assign(static_cast<size_t>(sig_->num_dims), -1);
    for (int32_t i = 0; i < sig_->num_inputs; ++i) {
      const TfnAotTensorDesc& d = sig_->inputs[i];
      const Input& in = *order[i];
      if (d.dtype != static_cast<int32_t>(in.dtype) ||
          d.rank != static_cast<int32_t>(in.dims.size())) {
        error = "AOT input '" + std::string(d.name) + "' is not " + tfn::DTypeName(in.dtype) +
                " of rank " + std::to_string(in.dims.size());
        return;
      }
      for (int32_t k = 0; k < d.rank; ++k) {
        if (d.dim_index[k] >= 0) {
          dims_[d.dim_index[k]] = in.dims[k];
        } else if (d.size[k] != in.dims[k]) {
          error = "AOT input '" + std::string(d.name) + "' has static dim " + std::to_string(k) +
                  " = " + std::to_string(d.size[k]) + ", the model input " +
                  std::to_string(in.dims[k]);
          return;
        }
      }
      in_ptrs_.push_back(in.data.data());
    }
    int64_t scratch = sig_->scratch_bytes(dims_.data());
    if (scratch < 0) {
      error = "scratch_bytes refused the dims";
      return;
    }
    scratch_.Resize(static_cast<size_t>(scratch));
    for (int32_t i = 0; i < sig_->num_outputs; ++i) {
      const TfnAotTensorDesc& d = sig_->outputs[i];
      if (d.dtype != static_cast<int32_t>(tfn::DType::kFloat32)) {
        error = "AOT output '" + std::string(d.name) + "' is not f32";
        return;
      }
      std::vector<int64_t> dims(static_cast<size_t>(d.rank));
      if (sig_->output_shape(dims_.data(), i, dims.data()) != TFN_AOT_OK) {
        error = "output_shape failed for output " + std::to_string(i);
        return;
      }
      out_dims_.push_back(dims);
      out_bufs_.emplace_back(static_cast<size_t>(NumElements(dims)) * sizeof(float));
      out_ptrs_.push_back(out_bufs_.back().data());
    }
  }
  ~TfnAotEngine() override {
    // The object's code and tables must outlive every call; close last.
    if (handle_ != nullptr) dlclose(handle_);
  }

  bool Run(std::string* err) override {
    int32_t status =
        pool_ ? sig_->run_with_options(in_ptrs_.data(), dims_.data(), out_ptrs_.data(),
                                       scratch_.data(), &options_)
              : sig_->run(in_ptrs_.data(), dims_.data(), out_ptrs_.data(), scratch_.data());
    if (status != TFN_AOT_OK) {
      *err = "the compiled signature returned status " + std::to_string(status) +
             " (schema/aot_abi.h)";
      return false;
    }
    return true;
  }

  bool Outputs(std::vector<Output>* out, std::string*) override {
    out->clear();
    for (size_t i = 0; i < out_bufs_.size(); ++i) {
      Output o;
      o.dims = out_dims_[i];
      o.values.assign(out_bufs_[i].f32(), out_bufs_[i].f32() + NumElements(o.dims));
      out->push_back(std::move(o));
    }
    return true;
  }

 private:
  void* handle_ = nullptr;
  const TfnAotSignature* sig_ = nullptr;
  std::vector<int64_t> dims_;
  std::vector<const void*> in_ptrs_;
  std::vector<void*> out_ptrs_;
  std::vector<std::vector<int64_t>> out_dims_;
  std::vector<AlignedBuffer> out_bufs_;
  AlignedBuffer scratch_;
  std::unique_ptr<tfn::runtime::ThreadPool> pool_;
  TfnAotRunOptions options_{};
};

// A failed engine: only its row.
class SkippedEngine : public Engine {
 public:
  SkippedEngine(const std::string& engine_name, const std::string& why,
                const std::string& thread_counts) {
    name = engine_name;
    threads = thread_counts;
    error = why;
    skipped = true;
  }
  bool Run(std::string*) override { return false; }
  bool Outputs(std::vector<Output>*, std::string*) override { return false; }
};

// max |a - ref| / max |ref| over all outputs: the error relative to the
// output's scale (elementwise relative errors blow up where ref is ~0).
std::string Compare(const std::vector<Output>& got, const std::vector<Output>& ref,
                    double tolerance) {
  if (got.size() != ref.size()) {
    return "MISMATCH (" + std::to_string(got.size()) + " outputs, ORT has " +
           std::to_string(ref.size()) + ")";
  }
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (NumElements(got[i].dims) != NumElements(ref[i].dims)) {
      return "MISMATCH (output " + std::to_string(i) + " is " + DimsToString(got[i].dims) +
             ", ORT's " + DimsToString(ref[i].dims) + ")";
    }
    double scale = 0, diff = 0;
    for (size_t k = 0; k < ref[i].values.size(); ++k) {
      scale = std::max(scale, std::fabs(static_cast<double>(ref[i].values[k])));
      double d = std::fabs(static_cast<double>(got[i].values[k]) - ref[i].values[k]);
      if (!(d <= diff)) diff = std::isnan(d) ? INFINITY : d;
    }
    worst = std::max(worst, scale > 0 ? diff / scale : diff);
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%s (%.1e)", worst <= tolerance ? "ok" : "MISMATCH", worst);
  return buf;
}

std::string FormatTime(double ns) {
  char buf[32];
  if (ns < 100) {
    std::snprintf(buf, sizeof(buf), "%.1f ns", ns);
  } else if (ns < 1e3) {
    std::snprintf(buf, sizeof(buf), "%.0f ns", ns);
  } else if (ns < 1e6) {
    std::snprintf(buf, sizeof(buf), "%.2f µs", ns / 1e3);
  } else {
    std::snprintf(buf, sizeof(buf), "%.3f ms", ns / 1e6);
  }
  return buf;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string TableCell(std::string s) {
  std::replace(s.begin(), s.end(), '|', '/');
  std::replace(s.begin(), s.end(), '\n', ' ');
  if (s.size() > 160) s = s.substr(0, 157) + "...";
  return s;
}

void PrintHeader() {
  std::printf(
      "| model | batch | input | MFLOP | engine | threads | min | median | GFLOP/s | tfn/ORT (vs "
      "1t / 2t) | outputs vs ORT 1t |\n");
  std::printf("|---|---|---|---:|---|---|---:|---:|---:|---:|---|\n");
}

struct Args {
  std::string ort_lib, onnx, model, tfn, tfn_skip, aot_lib, aot_name, aot_skip, input_npy,
      ort_profile, signature = "serving_default";
  std::vector<int> ort_threads{1, 2};
  std::vector<int> tfn_threads{1, 2};
  double seconds = 3, chunk_ms = 20, warmup_ms = 200, settle_ms = 10, tolerance = 1e-3;
  // Integers, parsed as numbers like the rest and truncated after parsing.
  double batch_flag = 0, min_rounds_flag = 5, seed_flag = 1234;
  int64_t batch = 0;
  int min_rounds = 5;
  uint64_t seed = 1234;
  bool header = false, ort_version = false;
};

void Usage() {
  std::printf(
      "usage: %s --ort-lib LIB --onnx FILE [--batch N] [--tfn FILE.tfn | --tfn-skip WHY]\n"
      "                      [--aot-lib LIB.so --aot-name NAME | --aot-skip WHY] [options]\n"
      "       %s --ort-lib LIB --ort-version\n"
      "       %s --header\n\n"
      "Runs FILE in ONNX Runtime (ORT, dlopened from LIB), tfn's runtime (FILE.tfn) and a tfn AOT\n"
      "object (LIB.so exporting NAME_signatures) on the same inputs, checks the outputs agree "
      "with\n"
      "ORT's, times the engines interleaved and prints one Markdown table row per engine.\n\n"
      "options:\n"
      "  --model LABEL        the model column (default: FILE's base name)\n"
      "  --batch N            size of every symbolic (dim_param) dim\n"
      "  --input-npy F[,F..]  the inputs, in the model's order, from .npy files (float32 or\n"
      "                       int64; symbolic dims take the files' sizes) instead of --seed's\n"
      "  --signature SIG      tfn signature to run (default: serving_default)\n"
      "  --ort-threads LIST   ORT intra-op thread counts (default: 1,2)\n"
      "  --tfn-threads LIST   tfn thread counts (SessionOptions::num_threads,\n"
      "                       AOT run_with_options; default: 1,2)\n"
      "  --seconds S          timed rounds last at least S seconds (default: 3)\n"
      "  --min-rounds R       and at least R rounds (default: 5)\n"
      "  --chunk-ms MS        calls of one engine in a row, about MS ms of them (default: 20)\n"
      "  --warmup-ms MS       untimed calls per engine first (default: 200)\n"
      "  --settle-ms MS       idle time before each chunk (default: 10)\n"
      "  --ort-profile PREFIX also write ORT's per-node profile (PREFIX_<threads>t_<date>.json,\n"
      "                       Chrome trace format) to compare layers with tfn-run --profile-json\n"
      "  --tolerance T        outputs agree when max|a-ort|/max|ort| <= T (default: 1e-3)\n"
      "  --seed N             seed of the inputs, uniform in [-1, 1) (default: 1234)\n"
      "  --tfn-skip WHY       print a tfn runtime row saying WHY instead of running it (and the "
      "AOT row\n"
      "                       too unless --aot-lib or --aot-skip is given)\n"
      "  --aot-skip WHY       print a tfn AOT row saying WHY\n",
      kTool, kTool, kTool);
}

Args ParseArgs(int argc, char** argv) {
  Args a;
  const std::map<std::string, std::string*> text_flags = {{"--ort-lib", &a.ort_lib},
                                                          {"--onnx", &a.onnx},
                                                          {"--model", &a.model},
                                                          {"--tfn", &a.tfn},
                                                          {"--tfn-skip", &a.tfn_skip},
                                                          {"--aot-lib", &a.aot_lib},
                                                          {"--aot-name", &a.aot_name},
                                                          {"--aot-skip", &a.aot_skip},
                                                          {"--signature", &a.signature},
                                                          {"--input-npy", &a.input_npy},
                                                          {"--ort-profile", &a.ort_profile}};
  const std::map<std::string, double*> number_flags = {
      {"--batch", &a.batch_flag},           {"--seconds", &a.seconds},
      {"--min-rounds", &a.min_rounds_flag}, {"--chunk-ms", &a.chunk_ms},
      {"--warmup-ms", &a.warmup_ms},        {"--settle-ms", &a.settle_ms},
      {"--tolerance", &a.tolerance},        {"--seed", &a.seed_flag}};
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i], value;
    size_t eq = flag.find('=');
    bool has_inline = flag.rfind("--", 0) == 0 && eq != std::string::npos;
    if (has_inline) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
    }
    auto next = [&]() -> std::string {
      if (has_inline) return value;
      if (i + 1 >= argc) Fail(flag + " needs a value (see --help)", 2);
      return argv[++i];
    };
    auto number = [&](const std::string& text) {
      char* end = nullptr;
      double v = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !(v >= 0))
        Fail(flag + " takes a non-negative number, got '" + text + "'", 2);
      return v;
    };
    if (flag == "--help" || flag == "-h") {
      Usage();
      std::exit(0);
    }
    std::string* text = text_flags.count(flag) ? text_flags.at(flag) : nullptr;
    double* real = number_flags.count(flag) ? number_flags.at(flag) : nullptr;
    if (flag == "--header") {
      a.header = true;
    } else if (flag == "--ort-version") {
      a.ort_version = true;
    } else if (text != nullptr) {
      *text = next();
    } else if (real != nullptr) {
      *real = number(next());
    } else if (flag == "--ort-threads" || flag == "--tfn-threads") {
      std::vector<int>& counts = flag == "--ort-threads" ? a.ort_threads : a.tfn_threads;
      counts.clear();
      std::stringstream ss(next());
      for (std::string t; std::getline(ss, t, ',');) {
        int n = static_cast<int>(number(t));
        if (n < 1) Fail(flag + " takes counts >= 1, got '" + t + "'", 2);
        counts.push_back(n);
      }
      if (counts.empty()) Fail(flag + " is empty", 2);
    } else {
      Fail("unknown argument '" + std::string(argv[i]) + "' (see --help)", 2);
    }
  }
  a.batch = static_cast<int64_t>(a.batch_flag);
  a.min_rounds = static_cast<int>(a.min_rounds_flag);
  a.seed = static_cast<uint64_t>(a.seed_flag);
  if (a.header) return a;
  if (a.ort_lib.empty())
    Fail("missing --ort-lib PATH/libonnxruntime.so.1 (run.sh installs it from npm)", 2);
  if (a.ort_version) return a;
  if (a.onnx.empty()) Fail("missing --onnx FILE", 2);
  if (!a.aot_lib.empty() && a.aot_name.empty())
    Fail("--aot-lib needs --aot-name NAME (tfn-aot's --name)", 2);
  if (a.model.empty()) {
    a.model = Basename(a.onnx);
    if (a.model.size() > 5 && a.model.substr(a.model.size() - 5) == ".onnx")
      a.model.resize(a.model.size() - 5);
  }
  return a;
}

// Deterministic inputs: xorshift64* from the seed and the input's index.
void FillInput(Input* in, uint64_t seed, size_t index) {
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + index + 1;
  float* p = in->data.f32();
  for (int64_t i = 0, n = NumElements(in->dims); i < n; ++i) {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    uint64_t r = s * 0x2545F4914F6CDD1Dull;
    p[i] = static_cast<float>(static_cast<double>(r >> 40) / static_cast<double>(1ull << 24) * 2.0 -
                              1.0);
  }
}

// --input-npy: one .npy file per declared input, in order; each must have the
// input's dtype and rank and agree with its static dims.
void ReadInputs(const std::string& list, std::vector<Input>* inputs) {
  std::vector<std::string> files;
  std::stringstream ss(list);
  for (std::string f; std::getline(ss, f, ',');) files.push_back(f);
  if (files.size() != inputs->size()) {
    Fail("--input-npy names " + std::to_string(files.size()) + " files; the model has " +
         std::to_string(inputs->size()) + " inputs");
  }
  for (size_t i = 0; i < files.size(); ++i) {
    Input& in = (*inputs)[i];
    auto t = tfn::runtime::ReadNpy(files[i]);
    if (!t.ok()) Fail("--input-npy: " + t.status().message());
    bool fits = t->dtype == in.dtype && static_cast<size_t>(t->shape.rank()) == in.dims.size();
    for (size_t k = 0; fits && k < in.dims.size(); ++k)
      fits = in.dims[k] < 0 || in.dims[k] == t->shape[k];
    if (!fits) {
      Fail("--input-npy: '" + files[i] + "' holds " + tfn::DTypeName(t->dtype) +
           tfn::ShapeToString(t->shape) + "; input '" + in.name + "' is " +
           tfn::DTypeName(in.dtype) + " " + DimsToString(in.dims) + " (-1: any size)");
    }
    in.dims.assign(t->shape.begin(), t->shape.end());
    in.data.Resize(static_cast<size_t>(t->byte_size()));
    std::memcpy(in.data.data(), t->data, static_cast<size_t>(t->byte_size()));
  }
}

}  // namespace

int main(int argc, char** argv) {
  Args args = ParseArgs(argc, argv);
  if (args.header) {
    PrintHeader();
    return 0;
  }

  // Never dlclosed: ORT's statics and thread pools are torn down at exit.
  void* ort_lib = dlopen(args.ort_lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (ort_lib == nullptr) Fail(std::string("cannot load ONNX Runtime: ") + dlerror());
  auto get_api_base = reinterpret_cast<OrtGetApiBaseFn>(dlsym(ort_lib, "OrtGetApiBase"));
  if (get_api_base == nullptr)
    Fail("'" + args.ort_lib + "' does not export OrtGetApiBase: not ONNX Runtime?");
  const OrtApiBase* base = get_api_base();
  std::string version = base->GetVersionString();
  if (args.ort_version) {
    std::printf("%s\n", version.c_str());
    return 0;
  }
  g_ort = base->GetApi(TFN_ORT_API_VERSION);
  if (g_ort == nullptr) {
    Fail("ONNX Runtime " + version + " does not serve C API version " +
         std::to_string(TFN_ORT_API_VERSION));
  }

  OnnxGraph graph = ParseOnnx(args.onnx);
  if (graph.has_symbolic_input && args.batch <= 0 && args.input_npy.empty())
    Fail("'" + args.onnx + "' has symbolic dims: give --batch N or --input-npy FILES");
  std::string flop_summary;
  // Symbolic dims set by --input-npy alone may differ from each other: no count then.
  double flops = CountFlops(graph, args.batch > 0 ? args.batch : -1, &flop_summary);
  if (flops < 0) {
    std::fprintf(stderr, "%s: %s: FLOPs unknown\n", kTool, args.model.c_str());
  } else {
    std::fprintf(stderr, "%s: %s: %.1f MFLOP in %s\n", kTool, args.model.c_str(), flops / 1e6,
                 flop_summary.empty() ? "no MatMul/Gemm/Conv" : flop_summary.c_str());
  }

  OrtEnv* env = nullptr;
  OrtCheck(g_ort->CreateEnv(ORT_LOGGING_LEVEL_ERROR, "tfn-compare", &env), "CreateEnv");
  OrtCheck(g_ort->DisableTelemetryEvents(env), "DisableTelemetryEvents");

  std::vector<std::unique_ptr<Engine>> engines;
  std::vector<Input> inputs;
  for (int t : args.ort_threads) {
    auto ort = std::make_unique<OrtEngine>(env, args.onnx, t, version, args.ort_profile);
    if (inputs.empty()) {
      inputs = ort->DeclaredInputs(args.batch);
      if (!args.input_npy.empty()) {
        ReadInputs(args.input_npy, &inputs);
      } else {
        for (size_t i = 0; i < inputs.size(); ++i) {
          if (inputs[i].dtype != tfn::DType::kFloat32)
            Fail("input '" + inputs[i].name + "' is int64: give its values with --input-npy");
          inputs[i].data.Resize(static_cast<size_t>(NumElements(inputs[i].dims)) * sizeof(float));
          FillInput(&inputs[i], args.seed, i);
        }
      }
    }
    ort->BindInputs(inputs);
    engines.push_back(std::move(ort));
  }
  engines[0]->is_reference = true;
  std::string tfn_counts;
  for (int t : args.tfn_threads) tfn_counts += (tfn_counts.empty() ? "" : ", ") + std::to_string(t);
  if (!args.tfn.empty()) {
    for (int t : args.tfn_threads) {
      engines.push_back(std::make_unique<TfnRuntimeEngine>(args.tfn, args.signature, inputs, t));
    }
  } else if (!args.tfn_skip.empty()) {
    engines.push_back(std::make_unique<SkippedEngine>("tfn runtime", args.tfn_skip, tfn_counts));
  }
  if (!args.aot_lib.empty()) {
    for (int t : args.tfn_threads) {
      engines.push_back(
          std::make_unique<TfnAotEngine>(args.aot_lib, args.aot_name, args.signature, inputs, t));
    }
  } else if (!args.aot_skip.empty() || !args.tfn_skip.empty()) {
    engines.push_back(std::make_unique<SkippedEngine>(
        "tfn AOT", args.aot_skip.empty() ? args.tfn_skip : args.aot_skip, tfn_counts));
  }

  // First call of each engine: its outputs, compared with the first ORT
  // session's (1 thread by default).
  std::vector<Output> reference;
  for (auto& e : engines) {
    if (!e->error.empty()) continue;
    std::vector<Output> out;
    std::string err;
    if (!e->Run(&err) || !e->Outputs(&out, &err)) {
      e->error = "run failed: " + err;
      continue;
    }
    if (e->is_reference) {
      reference = out;
      e->agreement = "reference";
    } else {
      e->agreement = Compare(out, reference, args.tolerance);
    }
  }
  if (!engines[0]->error.empty())
    Fail("ONNX Runtime failed on '" + args.onnx + "': " + engines[0]->error);

  std::vector<Engine*> live;
  for (auto& e : engines) {
    if (e->error.empty()) live.push_back(e.get());
  }
  // Warm-up: each engine alone for warmup_ms (at least 3 calls). The median
  // call sets how many calls make one sample (>= 10 µs, so that the clock's
  // own ~20 ns do not count for tiny calls: a sample is the mean of its
  // calls) and how many samples make one chunk of about chunk_ms.
  for (Engine* e : live) {
    std::vector<double> t;
    double start = NowNs();
    while (e->error.empty() && (t.size() < 3 || NowNs() - start < args.warmup_ms * 1e6)) {
      std::string err;
      double t0 = NowNs();
      if (!e->Run(&err)) e->error = "run failed: " + err;
      t.push_back(NowNs() - t0);
    }
    e->estimate_ns = Median(t);
    e->reps =
        static_cast<int>(std::clamp(std::ceil(10e3 / std::max(e->estimate_ns, 1.0)), 1.0, 1e4));
    e->chunk = static_cast<int>(
        std::clamp(args.chunk_ms * 1e6 / (std::max(e->estimate_ns, 1.0) * e->reps), 1.0, 100000.0));
  }
  // Timed rounds: every engine runs one chunk per round; the order rotates
  // each round so no engine always runs right after the same other one.
  double start = NowNs();
  for (int round = 0; round < args.min_rounds || NowNs() - start < args.seconds * 1e9; ++round) {
    for (size_t j = 0; j < live.size(); ++j) {
      Engine* e = live[(round + j) % live.size()];
      // A pause first, so that threads the previous engine left spinning
      // (ONNX Runtime's pool spins for a while after a run) are idle: at 2
      // threads they took a core from the next engine, whose median then
      // drifted toward its 1-thread time (MobileNet-v2, tfn runtime: 7.7 ms
      // median for a 3.7 ms minimum; 3.9 ms with 10 ms pauses; ORT's own 2-thread
      // median 4.6 -> 4.2 ms).
      if (args.settle_ms > 0) {
        const timespec gap{static_cast<time_t>(args.settle_ms / 1000),
                           static_cast<long>(std::fmod(args.settle_ms, 1000.0) * 1e6)};
        nanosleep(&gap, nullptr);
      }
      for (int k = 0; k < e->chunk && e->error.empty(); ++k) {
        std::string err;
        bool ok = true;
        double t0 = NowNs();
        for (int r = 0; r < e->reps && ok; ++r) ok = e->Run(&err);
        double t1 = NowNs();
        if (!ok) e->error = "run failed: " + err;
        e->samples.push_back((t1 - t0) / e->reps);
      }
    }
    if (NowNs() - start > 20 * args.seconds * 1e9 + 60e9) break;  // a pathologically slow engine
  }

  // Rows.
  std::string input_text;
  for (const Input& in : inputs)
    input_text += (input_text.empty() ? "" : ", ") + in.name + ": " + DimsToString(in.dims);
  std::string batch = !args.input_npy.empty()    ? "npy"
                      : graph.has_symbolic_input ? std::to_string(args.batch)
                                                 : "fixed";
  char mflop[32] = "?";
  if (flops >= 0) std::snprintf(mflop, sizeof(mflop), "%.1f", flops / 1e6);
  std::map<int, double> ort_min;  // intra-op threads -> min ns
  for (auto& e : engines) {
    if (e->ort_threads > 0 && e->error.empty() && !e->samples.empty()) {
      ort_min[e->ort_threads] = *std::min_element(e->samples.begin(), e->samples.end());
    }
  }
  for (auto& e : engines) {
    std::string row = "| " + args.model + " | " + batch + " | " + input_text + " | " + mflop +
                      " | " + e->name + " | " + e->threads + " | ";
    if (!e->error.empty() || e->samples.empty()) {
      row += "— | — | — | — | " +
             TableCell((e->skipped ? "not run: " : "failed: ") +
                       (e->error.empty() ? std::string("no samples") : e->error)) +
             " |";
    } else {
      double mn = *std::min_element(e->samples.begin(), e->samples.end());
      double med = Median(e->samples);
      char gflops[32] = "—";
      if (flops > 0) std::snprintf(gflops, sizeof(gflops), "%.1f", flops / mn);
      std::string ratio = "—";
      if (e->ort_threads == 0) {  // tfn: one ratio per ORT thread count
        ratio.clear();
        for (const auto& [t, m] : ort_min) {
          char r[32];
          std::snprintf(r, sizeof(r), mn / m >= 0.1 ? "%.2f" : "%.2g", mn / m);
          ratio += (ratio.empty() ? "" : " / ") + std::string(r);
        }
      }
      row += FormatTime(mn) + " | " + FormatTime(med) + " | " + gflops + " | " + ratio + " | " +
             TableCell(e->agreement) + " |";
    }
    std::printf("%s\n", row.c_str());
    std::fflush(stdout);
  }
  engines.clear();  // sessions before the environment
  g_ort->ReleaseEnv(env);
  return 0;
}
