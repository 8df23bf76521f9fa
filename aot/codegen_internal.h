// Internal to aot/: the LLVM IR generator for compiled signatures. Included
// only by the few translation units that include LLVM headers.
//
// For each signature the generator emits the functions of schema/aot_abi.h
// (run_with_options, run, scratch_bytes, output_shape) and a TfnAotSignature
// descriptor. Elementwise groups become loops that call the scalar entry
// points of aot/bitcode/scalar_entry.cc; other ops call the kernels' C ABI;
// both are defined by the kernels' bitcode linked in later (compiler.cc).
//
// Threads: run_with_options reads the caller's TfnAotRunOptions once; every
// kernel call gets its parallel_for, pool and num_threads in the context,
// and each fused loop is outlined into a function over [begin, end) that
// runs through parallel_for when the loop is large (or is called directly).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "aot/aot.h"
#include "aot/memory_plan.h"
#include "ir/graph.h"
#include "kernels/kernels.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace tfn::aot {

struct CodegenSignature {
  std::string name;    // as in the bundle
  std::string symbol;  // C prefix of its functions: <object>_<signature>
  const ir::Graph* graph = nullptr;
};

struct CodegenOptions {
  // Values of variables read by the graphs (embedded like constants).
  std::map<std::string, ConstTensor> variables;
  kernels::Variant variant = kernels::Variant::kOptimized;
  std::string object_name;  // C prefix of the module's exported symbols
  // --weights external (null: every weight is embedded).
  const ExternalWeights* external_weights = nullptr;
  bool fast_math = false;  // fused loops call bitcode/scalar_entry_fast.cc where it has the op
};

// Emits every signature into `module`. Returns the names of the symbols the
// object exports (everything else is internalized after linking).
absl::StatusOr<std::vector<std::string>> EmitSignatures(llvm::Module& module,
                                                        const std::vector<CodegenSignature>& sigs,
                                                        const CodegenOptions& options);

// Module-wide state: types, constant globals, declared functions.
class ModuleContext {
 public:
  ModuleContext(llvm::Module& m, const CodegenOptions& options);
  llvm::Module& module() { return m_; }
  llvm::LLVMContext& ctx() { return m_.getContext(); }
  const CodegenOptions& options() const { return options_; }

  llvm::StructType* tensor_type() const { return tensor_type_; }            // TfnTensor
  llvm::StructType* context_type() const { return context_type_; }          // TfnKernelContext
  llvm::StructType* run_options_type() const { return run_options_type_; }  // TfnAotRunOptions
  // A constant TfnAotRunOptions for single-threaded runs.
  llvm::Constant* SerialRunOptions();
  llvm::Type* ElementType(DType t);  // bool is i8
  llvm::FunctionCallee KernelFunction(const std::string& symbol);
  llvm::FunctionCallee ScratchFunction(const std::string& symbol);
  llvm::FunctionCallee ScalarFunction(const std::string& name, llvm::Type* ret,
                                      std::vector<llvm::Type*> args);
  // A private, 64-byte aligned constant holding the tensor's bytes (shared
  // between uses of the same bytes).
  llvm::Constant* ConstantData(const ConstTensor& t);
  llvm::Constant* ConstantBytes(const void* data, size_t size, unsigned align);
  llvm::Constant* CString(const std::string& s);
  // --weights external (codegen_weights.cc): the module's pointer to the
  // bound bundle's bytes, and the file offset of a weight read from it
  // (null when `t` is embedded).
  llvm::GlobalVariable* WeightsBase();
  const uint64_t* ExternalOffset(const ConstTensor& t) const;

 private:
  llvm::Module& m_;
  const CodegenOptions& options_;
  llvm::StructType* tensor_type_;
  llvm::StructType* context_type_;
  llvm::StructType* run_options_type_;
  llvm::Constant* serial_options_ = nullptr;
  // By data pointer and size: tensors read in place from a bundle may share
  // a start (an empty one and the next weight).
  std::map<std::pair<const void*, size_t>, llvm::Constant*> constants_;
  llvm::GlobalVariable* weights_base_ = nullptr;
};

// Emits one function of one signature: owns the builder, the symbolic-dim
// cache (computed in the entry block so it dominates every use) and the
// error exit.
class FunctionEmitter {
 public:
  FunctionEmitter(ModuleContext& mc, llvm::Function* fn, const ir::Graph& root,
                  const GraphPlan& root_plan);

  llvm::IRBuilder<>& b() { return b_; }
  ModuleContext& mc() { return mc_; }
  llvm::Type* i64() { return b_.getInt64Ty(); }
  llvm::Type* i32() { return b_.getInt32Ty(); }
  llvm::Type* ptr() { return b_.getPtrTy(); }

  llvm::Function* function() { return fn_; }
  // Binds the dynamic dims (symbols, in argument order) from `dims_ptr`, an
  // i64 array, and checks that none is negative.
  void BindDims(llvm::Value* dims_ptr, const std::vector<std::string>& symbols);
  // Reads a TfnAotRunOptions* argument (may be null; only the fields its
  // struct_size covers). Without it the function runs single-threaded and
  // prints to standard output.
  void BindRunOptions(llvm::Value* options_ptr);
  llvm::Value* parallel_for() const { return parallel_for_; }  // ptr, may be null at run time
  llvm::Value* pool() const { return pool_; }                  // ptr
  llvm::Value* num_threads() const { return num_threads_; }    // i32
  llvm::Value* print() const { return print_; }                // ptr, null: standard output
  llvm::Value* print_context() const { return print_context_; }  // ptr
  // The entry block's builder: code there dominates the whole function.
  llvm::IRBuilder<>& entry() { return entry_; }
  // The value of a dim expression (computed once, in the entry block).
  absl::StatusOr<llvm::Value*> Dim(const SymDim& d);
  absl::StatusOr<std::vector<llvm::Value*>> Dims(const ir::TensorType& t);
  // Element count and byte size of a type (overflow is checked).
  absl::StatusOr<llvm::Value*> NumElements(const ir::TensorType& t);
  // An alloca in the entry block.
  llvm::Value* EntryAlloca(llvm::Type* type, unsigned count = 1);
  // Emits `if (cond) return code;` (cond true means error).
  void ErrorIf(llvm::Value* cond, int32_t code);
  // Finishes the function: entry checks, error exit. `ok` returns success.
  void Finish(llvm::Value* ok_value, llvm::Value* error_value_of_code = nullptr);
  // A counted loop over [0, count); body gets the index.
  void Loop(llvm::Value* count, const std::function<void(llvm::Value* index)>& body);
  // A loop over [begin, end); interleave > 1 asks the loop vectorizer to
  // interleave that many vector iterations.
  void LoopRange(llvm::Value* begin, llvm::Value* end,
                 const std::function<void(llvm::Value* index)>& body, int interleave = 0);

  // --weights external: the address of the weight at `offset` in the bound
  // bundle (computed in the entry block), and the check, at the current
  // position, that a bundle is bound (else TFN_AOT_WEIGHTS_NOT_BOUND).
  llvm::Value* WeightPtr(uint64_t offset);
  void RequireWeights();

  // Fills `tensors` (an array of TfnTensor) entry i from a pointer and type.
  absl::Status FillTensor(llvm::Value* tensors, int i, llvm::Value* data, const ir::TensorType& t);

 private:
  absl::StatusOr<llvm::Value*> Atom(const sym::Atom* a);
  llvm::Value* Checked(llvm::Intrinsic::ID id, llvm::Value* a, llvm::Value* b);

  ModuleContext& mc_;
  llvm::Function* fn_;
  llvm::IRBuilder<> b_;
  llvm::IRBuilder<> entry_;  // appends to the entry block
  llvm::BasicBlock* entry_block_;
  llvm::BasicBlock* body_block_;
  llvm::BasicBlock* error_block_;
  llvm::PHINode* error_code_;
  llvm::Value* overflow_;
  llvm::Value* parallel_for_;
  llvm::Value* pool_;
  llvm::Value* print_;
  llvm::Value* print_context_;
  llvm::Value* num_threads_;
  llvm::Value* weights_base_ = nullptr;
  std::map<std::string, llvm::Value*> dim_values_;  // by symbol name
  // By expression: dims are interned, so one node is one expression (its
  // text can be exponentially longer than the shared DAG it prints).
  std::map<const sym::Node*, llvm::Value*> dim_cache_;
};

// The dynamic dim arguments of a root graph: distinct symbols of its
// parameters' shapes, in order of first appearance.
absl::StatusOr<std::vector<std::string>> DimSymbols(const ir::Graph& graph);

// Emits the run function body for a graph (the root, or a subgraph inside
// control flow) at the builder's position.
class GraphEmitter {
 public:
  // `base` is this graph's scratch base; `params` the storage of a
  // subgraph's parameters (empty for the root); `workspace` the kernel
  // workspace pointer and size.
  GraphEmitter(FunctionEmitter& fe, const ir::Graph& g, const GraphPlan& plan, llvm::Value* base,
               std::vector<llvm::Value*> params, llvm::Value* inputs, llvm::Value* outputs,
               llvm::Value* workspace, llvm::Value* workspace_bytes);
  absl::Status Emit();
  // Where a value of this graph lives.
  absl::StatusOr<llvm::Value*> Ptr(ir::ValueRef v);

 private:
  absl::Status EmitFused(const ScheduleItem& item);
  absl::Status EmitKernel(int node);
  absl::Status EmitCond(int node);
  absl::Status EmitWhile(int node);
  absl::Status EmitPrint(int node);
  // Emits `sub` on `params` and copies its results to result_ptrs (a null
  // one: not copied). `aliases` place values of `sub` at given pointers.
  absl::Status EmitSubgraph(const ir::Graph& sub, const GraphPlan& plan,
                            std::vector<llvm::Value*> params, std::vector<llvm::Value*> result_ptrs,
                            const std::map<ir::ValueRef, llvm::Value*>& aliases = {});
  absl::StatusOr<llvm::Value*> ScalarOp(llvm::IRBuilder<>& b, const ir::Node& node,
                                        const std::vector<llvm::Value*>& args);
  absl::StatusOr<llvm::Value*> Bytes(const ir::TensorType& t);

  FunctionEmitter& fe_;
  const ir::Graph& g_;
  const GraphPlan& plan_;
  llvm::Value* base_;
  std::vector<llvm::Value*> params_;
  llvm::Value* inputs_;
  llvm::Value* outputs_;
  llvm::Value* workspace_;
  llvm::Value* workspace_bytes_;
  std::map<ir::ValueRef, llvm::Value*>
      ptr_cache_;  // per value (a node may have any number of outputs)
};

// --weights external: emits NAME_bind_weights(bytes, size) and returns its
// name (codegen_weights.cc).
std::string EmitBindWeights(ModuleContext& mc);

// Sums the kernel workspace needs of a graph (recursively): emits calls to
// the kernels' scratch functions and returns the max.
absl::StatusOr<llvm::Value*> EmitWorkspaceBytes(FunctionEmitter& fe, const ir::Graph& g);

}  // namespace tfn::aot
