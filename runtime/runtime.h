// tfn's embedded runtime: load a bundle, run its signatures. No LLVM, no
// Abseil, no exceptions (errors are Status/Result values), no RTTI.
//
//   auto bundle = tfn::runtime::Bundle::Load("model.tfn");
//   if (!bundle.ok()) { ... bundle.status().message() ... }
//   tfn::runtime::Session session(*bundle);
//   auto method = session.method("serving_default");  // resolved once
//   auto out = method->Run({input});                  // outputs allocated
//   std::vector<tfn::runtime::Tensor> bound = {tfn::runtime::OutputView(DType::kFloat32, {1, 10},
//   buf)}; Status s = method->Run({input}, &bound);          // written into buf: no allocation
//
// Errors: every call returns a Status or a Result (no exceptions); the
// message names the signature, the input or output, what was expected and
// what was given.
//
// Ownership and threads: a Bundle is immutable after loading and may be
// shared by any number of threads and sessions (hold it by shared_ptr; the
// file's mapping lives as long as the Bundle or any tensor that points into
// it). A Session holds the variable state of one use of the bundle; its Run
// may be called from several threads at once (variable updates are atomic
// per variable). A session's variables start on the bundle's own bytes
// (mapped, or decompressed once at load) and copy them at their first
// assign/assign_add (copy-on-write), so making a session copies no weights
// and the bundle's bytes are never written. Tensors returned by Run own
// their memory.
//
// Threads: a Session runs each call's kernels on a thread pool of
// SessionOptions::num_threads threads (the calling thread plus workers the
// session starts; by default as many as the process has cores, like ONNX
// Runtime's intra-op threads; 1 starts none). Concurrent Run calls share the
// pool: one call at a time uses it, the others run on their own threads.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/attrs.h"
#include "core/status.h"
#include "runtime/profile.h"
#include "schema/aot_abi.h"

namespace tfn::runtime {
struct Module;
class Executor;
class ThreadPool;
class VariableSlot;
struct MappedFile;

// The one tensor type of the runtime API: dtype, shape, a data pointer and
// an optional owner (core/attrs.h, ConstTensor). A tensor with an owner
// keeps its bytes alive (outputs Run allocates, variables, weights); one
// without is a view of memory someone else keeps alive. The tracer's
// tfn::Tensor converts to it (Tensor::value()) and from it
// (tfn::constant(ConstTensor)).
using Tensor = ConstTensor;

// A view of caller memory as an input tensor (no copy; keep the memory alive
// until Run returns).
Tensor View(DType dtype, const Shape& shape, const void* data);
// A view of writable caller memory to bind an output to (Method::Run writes
// the output there; keep it alive until Run returns).
Tensor OutputView(DType dtype, const Shape& shape, void* data);

struct TensorInfo {
  std::string name;
  DType dtype = DType::kInvalid;
  Shape shape;                         // kDynamic where the dim is given at run time
  std::vector<std::string> dim_names;  // "?s0" for dynamic dims, "" for static
  std::string ToString() const;        // "x: f32[?,784]"
};

struct SignatureInfo {
  std::string name;
  std::vector<TensorInfo> inputs;
  std::vector<TensorInfo> outputs;
};

struct LoadOptions {
  // Every load hashes the graph (the FlatBuffer, format version 2 on),
  // verifies its structure, checks every node against the op table, and
  // hashes the segments of 64 KiB or less (the graph's own constants:
  // shapes, indices, loop bounds) and every compressed one. This also
  // hashes the large raw segments, the weights: every byte of the file is
  // then checked. Its cost is in runtime/README.md ("Checksums").
  bool verify_checksums = false;
  // Map the file (weights used in place) instead of reading it into memory.
  bool use_mmap = true;
  // Use the reference kernels (the test oracle) instead of the optimized ones.
  bool reference_kernels = false;
};

class Bundle {
 public:
  static Result<std::shared_ptr<const Bundle>> Load(const std::string& path,
                                                    const LoadOptions& options = {});
  // Loads from memory the caller keeps alive (and unchanged) while the Bundle
  // lives; `keepalive` may own it. Weights and unassigned variables are read
  // in place (when `data` is 8-byte aligned; otherwise from a copy), and
  // tensors read from them share `keepalive`: with an empty one, keep the
  // memory alive while such tensors are.
  static Result<std::shared_ptr<const Bundle>> FromMemory(const void* data, uint64_t size,
                                                          std::shared_ptr<const void> keepalive,
                                                          const LoadOptions& options = {});
  ~Bundle();

  uint32_t format_version() const { return format_version_; }
  const std::string& producer() const { return producer_; }
  const std::string& producer_version() const { return producer_version_; }
  const std::vector<SignatureInfo>& signatures() const { return signatures_; }
  const SignatureInfo* FindSignature(const std::string& name) const;
  // Hashes every segment and compares with the stored checksums (format
  // version 1: then the content hash, every byte after the header): a full
  // audit, which reads the weights again after a verify_checksums load.
  Status VerifyChecksums() const;
  // Bytes of all weights (as used at run time, after decompression).
  int64_t weight_bytes() const { return weight_bytes_; }

  // For Session: the runnable module and each signature's program.
  const std::shared_ptr<runtime::Module>& module() const { return module_; }
  int program_of(size_t signature_index) const { return programs_[signature_index]; }

 private:
  Bundle() = default;
  friend class BundleLoader;
  uint32_t format_version_ = 0;
  std::string producer_, producer_version_;
  std::vector<SignatureInfo> signatures_;
  std::vector<int> programs_;
  std::shared_ptr<runtime::Module> module_;
  std::shared_ptr<const void> bytes_owner_;
  const void* bytes_ = nullptr;
  uint64_t size_ = 0;
  int64_t weight_bytes_ = 0;
};

// Limits of a run that no bundle can lift (runtime/README.md, "Limits"). Each
// ends the run with a kResourceExhausted error naming the loop, the
// allocation or the deadline and how to raise the limit. They bound the
// interpreter; a signature run through UseCompiled code runs without them.
inline constexpr int64_t kDefaultMaxWhileIterations = 10'000'000;
// Half of the machine's physical memory (16 GiB where it cannot be read).
int64_t DefaultMaxRunBytes();

// How one run goes: the one options struct of every run (the executor's
// too; traced functions run in process with the limits at 0). A signature
// run through compiled code (Session::UseCompiled) has its scratch and
// outputs counted against max_run_bytes before it starts, and prints
// through `print` as the interpreter does; the iteration
// limit and the deadline bound the interpreter only, since compiled code
// cannot be interrupted.
struct RunOptions {
  // Receives tfn::print output; standard output when empty.
  std::function<void(const std::string&)> print;
  // Iterations any one while_loop may run (0: no limit).
  int64_t max_while_iterations = kDefaultMaxWhileIterations;
  // Bytes one program run may plan: arena, outputs, buffers of data-dependent
  // shape and kernel scratch; each cond branch and loop iteration counts on
  // its own (0: no limit).
  int64_t max_run_bytes = DefaultMaxRunBytes();
  // Wall-clock time the run may take, checked between instructions and loop
  // iterations (0: no deadline). A single long kernel is not interrupted.
  int64_t deadline_ms = 0;
  // When set, every step of the run is timed into it (profile.h); not owned,
  // must outlive the run. Compiled signatures (UseCompiled) record nothing.
  Profiler* profiler = nullptr;
};

struct SessionOptions {
  // Threads that run one call: the caller plus num_threads - 1 worker
  // threads the session starts. 0 (the default): the number of cores this
  // process may use; 1: no pool and no threads.
  int num_threads = 0;
  // A pool to use instead of starting one, e.g. one shared by several
  // sessions (std::make_shared<tfn::runtime::ThreadPool>(n), runtime/thread_pool.h);
  // num_threads is then ignored. The session keeps it alive.
  std::shared_ptr<runtime::ThreadPool> thread_pool;
};

class Session;

// One signature of a session, resolved once (as ExecuTorch's Method and ONNX
// Runtime's IoBinding): running it looks nothing up by name, and its outputs
// can be bound to caller memory. A cheap, copyable handle; the Session must
// outlive it. Thread-safe as Session::Run is.
class Method {
 public:
  const std::string& name() const { return info_->name; }
  const SignatureInfo& info() const { return *info_; }

  // Inputs in the signature's order, checked against its specs; the outputs
  // are allocated (and own their memory).
  Result<std::vector<Tensor>> Run(const std::vector<Tensor>& inputs,
                                  const RunOptions& options = {}) const;
  // Outputs bound to caller memory: `*outputs` holds one tensor per output
  // of the signature; each with data set (OutputView) is written in place
  // and must be of the output's dtype and shape (OutputShapes gives them);
  // the others are set to tensors Run allocates. Those stay in the vector,
  // so a later call with the same vector writes into them (they are bound
  // then, and a copy of such a tensor sees the new values); reset an entry
  // (Tensor{}) to have a fresh one allocated, e.g. for other input shapes.
  // Reuse the vector across calls: once the plan for these input shapes is
  // cached (after the first call), a run with every output bound allocates
  // nothing.
  Status Run(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs,
             const RunOptions& options = {}) const;
  // The output shapes a run makes for these input shapes, without running
  // (kDynamic where a shape depends on computed data).
  Result<std::vector<Shape>> OutputShapes(const std::vector<Shape>& input_shapes) const;
  // The arena bytes a run needs for these input shapes, without running.
  Result<int64_t> ArenaBytes(const std::vector<Shape>& input_shapes) const;

 private:
  friend class Session;
  Method(const Session* session, size_t index);
  Status CheckInputs(const std::vector<Tensor>& inputs) const;
  const Session* session_;
  size_t index_;
  const SignatureInfo* info_;
};

class Session {
 public:
  explicit Session(std::shared_ptr<const Bundle> bundle, const SessionOptions& options = {});
  ~Session();

  const Bundle& bundle() const { return *bundle_; }
  // Threads a call runs on (1 without a pool).
  int num_threads() const;
  // The handle to run `signature` by (NotFound names the signatures there are).
  Result<Method> method(const std::string& signature) const;
  // method(signature)->Run(inputs, options): a lookup by name on every call.
  Result<std::vector<Tensor>> Run(const std::string& signature, const std::vector<Tensor>& inputs,
                                  const RunOptions& options = {}) const;
  // Inputs by name.
  Result<std::vector<Tensor>> Run(const std::string& signature,
                                  const std::map<std::string, Tensor>& inputs,
                                  const RunOptions& options = {}) const;
  // The arena bytes a run needs for these input shapes, without running.
  Result<int64_t> ArenaBytes(const std::string& signature,
                             const std::vector<Shape>& input_shapes) const;
  // Runs `signature` through compiled code (an AOT object linked into the
  // program, e.g. <name>_<signature>_signature from tfn-aot) instead of
  // interpreting it, for every later Run and every Method of it. The
  // compiled signature must take and return the same dtypes and ranks;
  // compiled code of ABI version 2 or later runs on the session's thread
  // pool too, and of version 3 or later prints through RunOptions::print
  // (older code prints to standard output). Compiled code embeds the variable values of the bundle
  // it was compiled from, so a signature that reads a variable some signature of the bundle assigns
  // is refused (its results would not follow the session's state). Not thread-safe with concurrent
  // Run calls.
  Status UseCompiled(const std::string& signature, const TfnAotSignature* compiled);
  // Variable state of this session: a snapshot that later assignments do not
  // change. Until the session first assigns the variable, it points at the
  // bundle's bytes (no copy) and keeps them alive.
  Result<Tensor> ReadVariable(const std::string& name) const;
  std::vector<std::string> VariableNames() const;
  // Writes every variable of this session (its current value, name, dtype
  // and shape: model weights and optimizer slots alike) to a checkpoint
  // file, checksummed and atomically (runtime/checkpoint.h): a failure
  // leaves any old file as it was. Safe with concurrent Run calls (each
  // variable is a consistent snapshot).
  Status SaveCheckpoint(const std::string& path) const;
  // Sets the variables from a checkpoint. It must hold exactly this
  // bundle's variables with their dtypes and shapes; a checkpoint of
  // another model, a truncated or corrupt file is an error that leaves every
  // variable as it was. Not thread-safe with concurrent Run calls.
  Status RestoreCheckpoint(const std::string& path);

 private:
  friend class Method;
  Result<size_t> SignatureIndex(const std::string& name) const;
  std::shared_ptr<const Bundle> bundle_;
  std::shared_ptr<runtime::ThreadPool> pool_;
  std::unique_ptr<runtime::Executor> executor_;
  std::vector<std::unique_ptr<runtime::VariableSlot>> variables_;
  std::vector<runtime::VariableSlot*> slots_;
  std::vector<const TfnAotSignature*> compiled_;  // per signature; null: interpreted
  // RunCompiled, set by UseCompiled: called through this pointer, the
  // compiled-code glue is linked only into apps that call UseCompiled.
  Status (*run_compiled_)(const TfnAotSignature&, const ConstTensor*, int, ConstTensor*, int,
                          const TfnAotRunOptions*, int64_t) = nullptr;
};

}  // namespace tfn::runtime
