// Ahead-of-time and just-in-time compilation of signatures with LLVM. This
// header is the whole interface of aot/: it names no LLVM type, so code that
// uses it compiles without LLVM headers.
//
//   Compile(): graphs -> a self-contained object file (only libc and libm
//              symbols undefined) and a C/C++ header (GenerateHeader).
//   JitCompile(): the same code, compiled in process with ORC LLJIT.
//
// Both expose each signature through schema/aot_abi.h's TfnAotSignature
// (ABI version 2: run_with_options takes the caller's thread pool as a
// parallel_for; the code splits kernels and large fused loops through it).
// Thread-safety: Compile and JitCompile may run concurrently; a JitLibrary's
// signatures may be run from many threads at once (separate scratch).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/attrs.h"
#include "ir/graph.h"
#include "schema/aot_abi.h"

namespace tfn::aot {

struct SignatureToCompile {
  std::string name;  // the bundle's signature name
  ir::Graph graph;   // optimized; parameter names are the input names
};

struct TargetSpec {
  std::string triple;          // "" = the host; e.g. "aarch64-linux-gnu"
  std::string cpu = "native";  // "native", "generic", "x86-64-v2", "x86-64-v3", "x86-64-v4", ...
  std::string features;        // extra "+feature,-feature" list
};

enum class Emit { kObject, kAssembly, kLlvmIr };

// tfn-aot --weights external: weights stay in the bundle file, which the app
// maps and passes to NAME_bind_weights before running; the object holds no
// weight bytes. Bind checks the bytes against these figures.
struct ExternalWeights {
  uint64_t file_size = 0;     // of the bundle
  uint64_t content_hash = 0;  // its header's content hash
  // The file offset of each external weight's raw bytes (64-byte aligned),
  // keyed by the data pointer of its ConstTensor (a variable's value or a
  // graph constant). Weights not listed (e.g. constants made by
  // optimization) are embedded as usual.
  std::map<const void*, uint64_t> offsets;
};

struct CompileOptions {
  std::string name = "model";  // C identifier prefixing every exported symbol
  TargetSpec target;
  // Values of the variables the graphs read: embedded as read-only data.
  std::map<std::string, ConstTensor> variables;
  bool reference_kernels = false;  // link the reference kernels instead of the optimized ones
  // Set: the listed weights are read from the bound bundle at run time
  // (Compile only; JitCompile always embeds).
  std::optional<ExternalWeights> external_weights;
  // Fast math in fused loops (tfn-aot --fast-math): float ops of the graph
  // may contract into FMAs, a division by a constant (or loop-invariant)
  // divisor becomes a multiplication by its reciprocal, and tanh and sigmoid use lower-degree
  // polynomials (within 8 and 5 ulp instead of 2.5). NaN, infinities and
  // signed zeros keep their meaning. Kernels (matmul, conv, ...) are
  // unchanged.
  bool fast_math = false;
};

// Compiles the signatures into one module and returns the object file (or
// assembly / LLVM IR text).
absl::StatusOr<std::string> Compile(const std::vector<SignatureToCompile>& signatures,
                                    const CompileOptions& options, Emit emit = Emit::kObject);

// The header for an object made by Compile with the same arguments: per
// signature a typed C function, output shape and scratch size helpers with
// the memory figures in comments, and a C++ wrapper class.
absl::StatusOr<std::string> GenerateHeader(const std::vector<SignatureToCompile>& signatures,
                                           const CompileOptions& options);

// The triple and CPU Compile would use for `target` (resolving "native").
absl::StatusOr<std::string> DescribeTarget(const TargetSpec& target);

// Code compiled in process. Keeps the code alive while it exists.
class JitLibrary {
 public:
  virtual ~JitLibrary() = default;
  // nullptr when there is no such signature.
  virtual const TfnAotSignature* signature(const std::string& name) const = 0;
};

absl::StatusOr<std::unique_ptr<JitLibrary>> JitCompile(
    const std::vector<SignatureToCompile>& signatures, const CompileOptions& options);

// A valid C identifier made from `name` ("serving_default" stays, "my-model" -> "my_model").
std::string CIdentifier(const std::string& name);

}  // namespace tfn::aot
