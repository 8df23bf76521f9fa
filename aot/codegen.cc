// The LLVM IR generator: module context, per-function emission helpers
// (symbolic dims, checked arithmetic, loops, errors) and the three ABI
// functions plus the descriptor of each signature.
#include <set>

#include "aot/codegen_internal.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Intrinsics.h"
#include "schema/aot_abi.h"

namespace tfn::aot {

using llvm::Value;

// ---------------------------------------------------------------- ModuleContext

ModuleContext::ModuleContext(llvm::Module& m, const CodegenOptions& options)
    : m_(m), options_(options) {
  llvm::LLVMContext& c = m.getContext();
  llvm::Type* ptr = llvm::PointerType::getUnqual(c);
  llvm::Type* i64 = llvm::Type::getInt64Ty(c);
  llvm::Type* i32 = llvm::Type::getInt32Ty(c);
  tensor_type_ =
      llvm::StructType::create(c, {ptr, llvm::ArrayType::get(i64, 8), i32, i32}, "TfnTensor");
  context_type_ = llvm::StructType::create(c, {ptr, i64, ptr, ptr, i32}, "TfnKernelContext");
  run_options_type_ =
      llvm::StructType::create(c, {i32, i32, ptr, ptr, ptr, ptr}, "TfnAotRunOptions");
}

llvm::Constant* ModuleContext::SerialRunOptions() {
  if (serial_options_) return serial_options_;
  llvm::LLVMContext& c = ctx();
  const llvm::DataLayout& dl = m_.getDataLayout();
  auto* size =
      llvm::ConstantInt::get(llvm::Type::getInt32Ty(c), dl.getTypeAllocSize(run_options_type_));
  auto* null = llvm::ConstantPointerNull::get(llvm::PointerType::getUnqual(c));
  llvm::Constant* init = llvm::ConstantStruct::get(
      run_options_type_,
      {size, llvm::ConstantInt::get(llvm::Type::getInt32Ty(c), 1), null, null, null, null});
  auto* gv = new llvm::GlobalVariable(
      m_, run_options_type_, true, llvm::GlobalValue::PrivateLinkage, init, "tfn.serial_options");
  serial_options_ = gv;
  return gv;
}

llvm::Type* ModuleContext::ElementType(DType t) {
  switch (t) {
    case DType::kBool:
      return llvm::Type::getInt8Ty(ctx());
    case DType::kInt32:
      return llvm::Type::getInt32Ty(ctx());
    case DType::kInt64:
      return llvm::Type::getInt64Ty(ctx());
    case DType::kFloat32:
      return llvm::Type::getFloatTy(ctx());
    case DType::kFloat64:
      return llvm::Type::getDoubleTy(ctx());
    // Storage-only dtypes are never computed on in generated code (fusion
    // leaves them out); as values they are their bits.
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kInt16:
    case DType::kUInt16:
      return llvm::Type::getInt16Ty(ctx());
    case DType::kUInt32:
      return llvm::Type::getInt32Ty(ctx());
    case DType::kUInt64:
      return llvm::Type::getInt64Ty(ctx());
    default:
      return llvm::Type::getInt8Ty(ctx());
  }
}

llvm::FunctionCallee ModuleContext::KernelFunction(const std::string& symbol) {
  llvm::Type* ptr = llvm::PointerType::getUnqual(ctx());
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx());
  auto* type = llvm::FunctionType::get(i32, {ptr, ptr, i32, ptr, i32, ptr}, false);
  return m_.getOrInsertFunction(symbol, type);
}

llvm::FunctionCallee ModuleContext::ScratchFunction(const std::string& symbol) {
  llvm::Type* ptr = llvm::PointerType::getUnqual(ctx());
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx());
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx());
  auto* type = llvm::FunctionType::get(i64, {ptr, ptr, i32, ptr, i32}, false);
  return m_.getOrInsertFunction(symbol, type);
}

llvm::FunctionCallee ModuleContext::ScalarFunction(const std::string& name, llvm::Type* ret,
                                                   std::vector<llvm::Type*> args) {
  return m_.getOrInsertFunction(name, llvm::FunctionType::get(ret, args, false));
}

llvm::Constant* ModuleContext::ConstantBytes(const void* data, size_t size, unsigned align) {
  llvm::ArrayRef<uint8_t> bytes(static_cast<const uint8_t*>(data), size);
  llvm::Constant* init = llvm::ConstantDataArray::get(ctx(), bytes);
  auto* gv = new llvm::GlobalVariable(m_, init->getType(), true, llvm::GlobalValue::PrivateLinkage,
                                      init, "tfn.const");
  gv->setAlignment(llvm::Align(align));
  gv->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  return gv;
}

llvm::Constant* ModuleContext::ConstantData(const ConstTensor& t) {
  size_t bytes = static_cast<size_t>(t.byte_size());
  auto it = constants_.find({t.data, bytes});
  if (it != constants_.end()) return it->second;
  static const uint8_t kZero[64] = {};
  llvm::Constant* c = ConstantBytes(bytes ? t.data : kZero, bytes ? bytes : 1, 64);
  constants_[{t.data, bytes}] = c;
  return c;
}

llvm::Constant* ModuleContext::CString(const std::string& s) {
  return ConstantBytes(s.c_str(), s.size() + 1, 1);
}

// ---------------------------------------------------------------- FunctionEmitter

FunctionEmitter::FunctionEmitter(ModuleContext& mc, llvm::Function* fn, const ir::Graph&,
                                 const GraphPlan&)
    : mc_(mc), fn_(fn), b_(mc.ctx()), entry_(mc.ctx()) {
  entry_block_ = llvm::BasicBlock::Create(mc.ctx(), "entry", fn);
  body_block_ = llvm::BasicBlock::Create(mc.ctx(), "body", fn);
  error_block_ = llvm::BasicBlock::Create(mc.ctx(), "error", fn);
  entry_.SetInsertPoint(entry_block_);
  b_.SetInsertPoint(error_block_);
  error_code_ = b_.CreatePHI(b_.getInt32Ty(), 4, "code");
  b_.SetInsertPoint(body_block_);
  overflow_ = entry_.getFalse();
  parallel_for_ = llvm::ConstantPointerNull::get(b_.getPtrTy());
  pool_ = parallel_for_;
  print_ = parallel_for_;
  print_context_ = parallel_for_;
  num_threads_ = b_.getInt32(1);
}

void FunctionEmitter::BindRunOptions(Value* options_ptr) {
  // Branch-free: a null pointer, or a struct too small for a field, reads
  // the serial defaults instead.
  llvm::StructType* t = mc_.run_options_type();
  llvm::Constant* serial = mc_.SerialRunOptions();
  llvm::IRBuilder<>& e = entry_;
  Value* given = e.CreateSelect(e.CreateIsNull(options_ptr), serial, options_ptr);
  Value* size = e.CreateLoad(i32(), e.CreateStructGEP(t, given, 0));
  const llvm::StructLayout* layout = mc_.module().getDataLayout().getStructLayout(t);
  uint64_t pointer = mc_.module().getDataLayout().getPointerSize();
  // The struct, or the serial defaults when its size does not reach field `last`.
  auto covering = [&](unsigned last) {
    uint64_t needed = layout->getElementOffset(last) + pointer;
    return e.CreateSelect(e.CreateICmpULT(size, e.getInt32(static_cast<uint32_t>(needed))), serial,
                          given);
  };
  Value* threads = covering(3);  // ABI 2: num_threads, parallel_for, pool
  num_threads_ = e.CreateLoad(i32(), e.CreateStructGEP(t, threads, 1), "num_threads");
  parallel_for_ = e.CreateLoad(ptr(), e.CreateStructGEP(t, threads, 2), "parallel_for");
  pool_ = e.CreateLoad(ptr(), e.CreateStructGEP(t, threads, 3), "pool");
  Value* print = covering(5);  // ABI 3: print, print_context
  print_ = e.CreateLoad(ptr(), e.CreateStructGEP(t, print, 4), "print");
  print_context_ = e.CreateLoad(ptr(), e.CreateStructGEP(t, print, 5), "print_context");
}

absl::StatusOr<std::vector<std::string>> DimSymbols(const ir::Graph& g) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (size_t i = 0; i < g.params().size(); ++i) {
    for (const SymDim& d : g.type(g.param(static_cast<int>(i))).shape) {
      if (d.is_static()) continue;
      if (!d.is_symbol()) {
        return absl::InvalidArgumentError("input " + std::to_string(i) +
                                          " has the dim expression " + d.ToString() +
                                          "; inputs need static or plain dynamic dims");
      }
      if (seen.insert(d.symbol_name()).second) out.push_back(d.symbol_name());
    }
  }
  return out;
}

void FunctionEmitter::BindDims(Value* dims_ptr, const std::vector<std::string>& symbols) {
  for (size_t k = 0; k < symbols.size(); ++k) {
    Value* slot = entry_.CreateConstInBoundsGEP1_64(i64(), dims_ptr, k);
    Value* v = entry_.CreateLoad(i64(), slot, symbols[k]);
    overflow_ = entry_.CreateOr(overflow_, entry_.CreateICmpSLT(v, entry_.getInt64(0)));
    dim_values_[symbols[k]] = v;
  }
}

Value* FunctionEmitter::Checked(llvm::Intrinsic::ID id, Value* a, Value* c) {
  llvm::Function* f = llvm::Intrinsic::getDeclaration(&mc_.module(), id, {i64()});
  Value* r = entry_.CreateCall(f, {a, c});
  overflow_ = entry_.CreateOr(overflow_, entry_.CreateExtractValue(r, 1));
  return entry_.CreateExtractValue(r, 0);
}

absl::StatusOr<Value*> FunctionEmitter::Atom(const sym::Atom* a) {
  if (a->kind == sym::AtomKind::kSymbol) {
    auto it = dim_values_.find(a->name);
    if (it == dim_values_.end()) {
      return absl::UnimplementedError(
          "a shape depends on data computed at run time (dim ?" + a->name +
          "); compiled code needs every shape to follow from the input dims");
    }
    return it->second;
  }
  absl::StatusOr<Value*> x = Dim(a->a);
  absl::StatusOr<Value*> y = Dim(a->b);
  if (!x.ok()) return x;
  if (!y.ok()) return y;
  Value* p = *x;
  Value* q = *y;
  llvm::IRBuilder<>& e = entry_;
  switch (a->kind) {
    case sym::AtomKind::kFloorDiv:
    case sym::AtomKind::kMod: {
      Value* zero = e.getInt64(0);
      Value* safe = e.CreateSelect(e.CreateICmpEQ(q, zero), e.getInt64(1), q);
      Value* quo = e.CreateSDiv(p, safe);
      Value* rem = e.CreateSRem(p, safe);
      Value* adjust =
          e.CreateAnd(e.CreateICmpNE(rem, zero),
                      e.CreateXor(e.CreateICmpSLT(rem, zero), e.CreateICmpSLT(safe, zero)));
      if (a->kind == sym::AtomKind::kFloorDiv) return e.CreateSub(quo, e.CreateZExt(adjust, i64()));
      return e.CreateSelect(adjust, e.CreateAdd(rem, safe), rem);
    }
    case sym::AtomKind::kMax:
      return e.CreateSelect(e.CreateICmpSGT(p, q), p, q);
    case sym::AtomKind::kMin:
      return e.CreateSelect(e.CreateICmpSLT(p, q), p, q);
    case sym::AtomKind::kBroadcast:
      return e.CreateSelect(e.CreateICmpEQ(p, e.getInt64(1)), q, p);
    case sym::AtomKind::kSymbol:
      break;
  }
  return absl::InternalError("unknown dim atom");
}

absl::StatusOr<Value*> FunctionEmitter::Dim(const SymDim& d) {
  if (d.is_static()) return static_cast<Value*>(entry_.getInt64(d.value()));
  const sym::Node* key = d.node();
  auto it = dim_cache_.find(key);
  if (it != dim_cache_.end()) return it->second;
  Value* total = entry_.getInt64(d.node()->constant);
  for (const sym::Term& t : d.node()->terms) {
    Value* prod = entry_.getInt64(t.coeff);
    for (const sym::Atom* a : t.factors) {
      absl::StatusOr<Value*> v = Atom(a);
      if (!v.ok()) return v;
      prod = Checked(llvm::Intrinsic::smul_with_overflow, prod, *v);
    }
    total = Checked(llvm::Intrinsic::sadd_with_overflow, total, prod);
  }
  dim_cache_[key] = total;
  return total;
}

absl::StatusOr<std::vector<Value*>> FunctionEmitter::Dims(const ir::TensorType& t) {
  std::vector<Value*> out;
  for (const SymDim& d : t.shape) {
    absl::StatusOr<Value*> v = Dim(d);
    if (!v.ok()) return v.status();
    out.push_back(*v);
  }
  return out;
}

absl::StatusOr<Value*> FunctionEmitter::NumElements(const ir::TensorType& t) {
  SymDim n(1);
  for (const SymDim& d : t.shape) n = n * d;
  return Dim(n);
}

Value* FunctionEmitter::EntryAlloca(llvm::Type* type, unsigned count) {
  llvm::IRBuilder<> a(mc_.ctx());
  a.SetInsertPoint(entry_block_, entry_block_->begin());
  return a.CreateAlloca(type, a.getInt32(count));
}

void FunctionEmitter::ErrorIf(Value* cond, int32_t code) {
  llvm::BasicBlock* cont = llvm::BasicBlock::Create(mc_.ctx(), "ok", fn_);
  b_.CreateCondBr(cond, error_block_, cont);
  error_code_->addIncoming(b_.getInt32(code), b_.GetInsertBlock());
  b_.SetInsertPoint(cont);
}

void FunctionEmitter::Finish(Value* ok_value, Value*) {
  if (fn_->getReturnType()->isVoidTy()) {  // an outlined loop: no error exits
    b_.CreateRetVoid();
    entry_.CreateBr(body_block_);
    error_code_->eraseFromParent();
    error_block_->eraseFromParent();
    return;
  }
  b_.CreateRet(ok_value);
  entry_.CreateCondBr(overflow_, error_block_, body_block_);
  error_code_->addIncoming(entry_.getInt32(TFN_AOT_BAD_DIMS), entry_block_);
  llvm::IRBuilder<> e(error_block_);
  llvm::Type* ret = fn_->getReturnType();
  if (ret->isIntegerTy(64)) {
    e.CreateRet(e.getInt64(-1));
  } else {
    e.CreateRet(error_code_);
  }
}

void FunctionEmitter::Loop(Value* count, const std::function<void(Value*)>& body) {
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::BasicBlock* head = llvm::BasicBlock::Create(mc_.ctx(), "loop", fn_);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(mc_.ctx(), "loop.end", fn_);
  b_.CreateCondBr(b_.CreateICmpSGT(count, b_.getInt64(0)), head, exit);
  b_.SetInsertPoint(head);
  llvm::PHINode* i = b_.CreatePHI(i64(), 2, "i");
  i->addIncoming(b_.getInt64(0), pre);
  body(i);
  Value* next = b_.CreateAdd(i, b_.getInt64(1), "", true, true);
  i->addIncoming(next, b_.GetInsertBlock());
  b_.CreateCondBr(b_.CreateICmpSLT(next, count), head, exit);
  b_.SetInsertPoint(exit);
}

void FunctionEmitter::LoopRange(Value* begin, Value* end, const std::function<void(Value*)>& body,
                                int interleave) {
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::BasicBlock* head = llvm::BasicBlock::Create(mc_.ctx(), "loop", fn_);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(mc_.ctx(), "loop.end", fn_);
  b_.CreateCondBr(b_.CreateICmpSLT(begin, end), head, exit);
  b_.SetInsertPoint(head);
  llvm::PHINode* i = b_.CreatePHI(i64(), 2, "i");
  i->addIncoming(begin, pre);
  body(i);
  Value* next = b_.CreateAdd(i, b_.getInt64(1), "", true, true);
  i->addIncoming(next, b_.GetInsertBlock());
  llvm::BranchInst* latch = b_.CreateCondBr(b_.CreateICmpSLT(next, end), head, exit);
  if (interleave > 1) {
    // Loop metadata (LangRef, "llvm.loop"): a distinct self-referencing node
    // whose other operands are hints for the loop vectorizer.
    llvm::LLVMContext& c = mc_.ctx();
    llvm::Metadata* count[] = {llvm::MDString::get(c, "llvm.loop.interleave.count"),
                               llvm::ConstantAsMetadata::get(b_.getInt32(interleave))};
    llvm::MDNode* id = llvm::MDNode::getDistinct(c, {nullptr, llvm::MDNode::get(c, count)});
    id->replaceOperandWith(0, id);
    latch->setMetadata(llvm::LLVMContext::MD_loop, id);
  }
  b_.SetInsertPoint(exit);
}

absl::Status FunctionEmitter::FillTensor(Value* tensors, int i, Value* data,
                                         const ir::TensorType& t) {
  absl::StatusOr<std::vector<Value*>> dims = Dims(t);
  if (!dims.ok()) return dims.status();
  llvm::StructType* tt = mc_.tensor_type();
  Value* entry = b_.CreateConstInBoundsGEP1_64(tt, tensors, i);
  b_.CreateStore(data, b_.CreateStructGEP(tt, entry, 0));
  Value* dims_field = b_.CreateStructGEP(tt, entry, 1);
  for (size_t d = 0; d < dims->size(); ++d) {
    b_.CreateStore((*dims)[d],
                   b_.CreateConstInBoundsGEP2_64(tt->getElementType(1), dims_field, 0, d));
  }
  b_.CreateStore(b_.getInt32(t.shape.rank()), b_.CreateStructGEP(tt, entry, 2));
  b_.CreateStore(b_.getInt32(static_cast<int32_t>(t.dtype)), b_.CreateStructGEP(tt, entry, 3));
  return absl::OkStatus();
}

// ---------------------------------------------------------------- signatures

namespace {

llvm::Function* NewFunction(llvm::Module& m, const std::string& name, llvm::Type* ret,
                            std::vector<llvm::Type*> args) {
  auto* f = llvm::Function::Create(llvm::FunctionType::get(ret, args, false),
                                   llvm::GlobalValue::ExternalLinkage, name, m);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  return f;
}

// A TfnAotTensorDesc constant for a graph value.
llvm::Constant* Desc(ModuleContext& mc, llvm::StructType* type, const std::string& name,
                     const ir::TensorType& t, const std::vector<std::string>& symbols) {
  llvm::LLVMContext& c = mc.ctx();
  std::vector<llvm::Constant*> sizes, indices;
  for (int d = 0; d < 8; ++d) {
    int64_t size = 0;
    int32_t index = -1;
    if (d < t.shape.rank()) {
      const SymDim& dim = t.shape[d];
      size = dim.StaticOrDynamic();
      if (dim.is_symbol()) {
        for (size_t k = 0; k < symbols.size(); ++k) {
          if (symbols[k] == dim.symbol_name()) index = static_cast<int32_t>(k);
        }
      }
    }
    sizes.push_back(llvm::ConstantInt::get(llvm::Type::getInt64Ty(c), size));
    indices.push_back(llvm::ConstantInt::get(llvm::Type::getInt32Ty(c), index));
  }
  return llvm::ConstantStruct::get(
      type,
      {mc.CString(name),
       llvm::ConstantInt::get(llvm::Type::getInt32Ty(c), static_cast<int>(t.dtype)),
       llvm::ConstantInt::get(llvm::Type::getInt32Ty(c), t.shape.rank()),
       llvm::ConstantArray::get(llvm::ArrayType::get(llvm::Type::getInt64Ty(c), 8), sizes),
       llvm::ConstantArray::get(llvm::ArrayType::get(llvm::Type::getInt32Ty(c), 8), indices)});
}

}  // namespace

absl::StatusOr<std::vector<std::string>> EmitSignatures(llvm::Module& m,
                                                        const std::vector<CodegenSignature>& sigs,
                                                        const CodegenOptions& options) {
  ModuleContext mc(m, options);
  llvm::LLVMContext& c = m.getContext();
  llvm::Type* ptr = llvm::PointerType::getUnqual(c);
  llvm::Type* i64 = llvm::Type::getInt64Ty(c);
  llvm::Type* i32 = llvm::Type::getInt32Ty(c);
  llvm::StructType* desc_type = llvm::StructType::create(
      c, {ptr, i32, i32, llvm::ArrayType::get(i64, 8), llvm::ArrayType::get(i32, 8)},
      "TfnAotTensorDesc");
  llvm::StructType* sig_type = llvm::StructType::create(
      c, {i32, ptr, i32, i32, i32, ptr, ptr, ptr, ptr, ptr, ptr, ptr}, "TfnAotSignature");
  std::vector<std::string> exported;
  std::vector<llvm::Constant*> descriptors;
  for (const CodegenSignature& sig : sigs) {
    const ir::Graph& g = *sig.graph;
    absl::StatusOr<std::vector<std::string>> symbols = DimSymbols(g);
    if (!symbols.ok()) return symbols.status();
    absl::StatusOr<GraphPlan> plan = PlanMemory(g, true);
    if (!plan.ok()) return plan.status();
    auto context = [&](const absl::Status& s) {
      return absl::Status(s.code(), "signature '" + sig.name + "': " + std::string(s.message()));
    };

    // run_with_options(inputs, dims, outputs, scratch, options)
    llvm::Function* run_opt =
        NewFunction(m, sig.symbol + "_run_with_options", i32, {ptr, ptr, ptr, ptr, ptr});
    {
      llvm::Function* run = run_opt;
      FunctionEmitter fe(mc, run, g, *plan);
      fe.BindDims(run->getArg(1), *symbols);
      fe.BindRunOptions(run->getArg(4));
      fe.RequireWeights();
      absl::StatusOr<Value*> total = fe.Dim(plan->total_bytes);
      if (!total.ok()) return context(total.status());
      absl::StatusOr<Value*> ws = EmitWorkspaceBytes(fe, g);
      if (!ws.ok()) return context(ws.status());
      Value* workspace = fe.b().CreateInBoundsGEP(fe.b().getInt8Ty(), run->getArg(3), *total);
      GraphEmitter ge(fe, g, *plan, run->getArg(3), {}, run->getArg(0), run->getArg(2), workspace,
                      *ws);
      absl::Status s = ge.Emit();
      if (!s.ok()) return context(s);
      fe.Finish(fe.b().getInt32(TFN_AOT_OK));
    }
    // run(inputs, dims, outputs, scratch): run_with_options without threads.
    llvm::Function* run = NewFunction(m, sig.symbol + "_run", i32, {ptr, ptr, ptr, ptr});
    {
      llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", run));
      Value* code =
          b.CreateCall(run_opt, {run->getArg(0), run->getArg(1), run->getArg(2), run->getArg(3),
                                 llvm::ConstantPointerNull::get(llvm::PointerType::getUnqual(c))});
      b.CreateRet(code);
    }
    // scratch_bytes(dims)
    llvm::Function* scratch = NewFunction(m, sig.symbol + "_scratch_bytes", i64, {ptr});
    {
      FunctionEmitter fe(mc, scratch, g, *plan);
      fe.BindDims(scratch->getArg(0), *symbols);
      absl::StatusOr<Value*> total = fe.Dim(plan->total_bytes);
      if (!total.ok()) return context(total.status());
      absl::StatusOr<Value*> ws = EmitWorkspaceBytes(fe, g);
      if (!ws.ok()) return context(ws.status());
      Value* sum = fe.b().CreateAdd(*total, *ws);
      fe.ErrorIf(fe.b().CreateICmpSLT(sum, *total), TFN_AOT_BAD_DIMS);
      fe.Finish(sum);
    }
    // output_shape(dims, index, out_dims)
    llvm::Function* shape = NewFunction(m, sig.symbol + "_output_shape", i32, {ptr, i32, ptr});
    {
      FunctionEmitter fe(mc, shape, g, *plan);
      fe.BindDims(shape->getArg(0), *symbols);
      llvm::IRBuilder<>& b = fe.b();
      for (size_t r = 0; r < g.results().size(); ++r) {
        absl::StatusOr<std::vector<Value*>> dims = fe.Dims(g.type(g.results()[r]));
        if (!dims.ok()) return context(dims.status());
        llvm::BasicBlock* here = llvm::BasicBlock::Create(c, "out", shape);
        llvm::BasicBlock* next = llvm::BasicBlock::Create(c, "next", shape);
        b.CreateCondBr(b.CreateICmpEQ(shape->getArg(1), b.getInt32(static_cast<int>(r))), here,
                       next);
        b.SetInsertPoint(here);
        for (size_t d = 0; d < dims->size(); ++d) {
          b.CreateStore((*dims)[d], b.CreateConstInBoundsGEP1_64(i64, shape->getArg(2), d));
        }
        b.CreateRet(b.getInt32(TFN_AOT_OK));
        b.SetInsertPoint(next);
      }
      fe.Finish(b.getInt32(TFN_AOT_BAD_ARGUMENT));
    }
    // The descriptor.
    std::vector<llvm::Constant*> ins, outs, names;
    for (size_t i = 0; i < g.params().size(); ++i) {
      ins.push_back(
          Desc(mc, desc_type, g.param_names()[i], g.type(g.param(static_cast<int>(i))), *symbols));
    }
    for (size_t r = 0; r < g.results().size(); ++r) {
      outs.push_back(Desc(mc, desc_type, g.result_names()[r], g.type(g.results()[r]), *symbols));
    }
    for (const std::string& s : *symbols) names.push_back(mc.CString(s));
    auto array = [&](llvm::Type* elem, std::vector<llvm::Constant*> items,
                     const char* what) -> llvm::Constant* {
      if (items.empty()) return llvm::ConstantPointerNull::get(llvm::PointerType::getUnqual(c));
      auto* type = llvm::ArrayType::get(elem, items.size());
      return new llvm::GlobalVariable(m, type, true, llvm::GlobalValue::PrivateLinkage,
                                      llvm::ConstantArray::get(type, items), what);
    };
    llvm::Constant* descriptor = llvm::ConstantStruct::get(
        sig_type, {llvm::ConstantInt::get(i32, TFN_AOT_ABI_VERSION), mc.CString(sig.name),
                   llvm::ConstantInt::get(i32, static_cast<int>(ins.size())),
                   llvm::ConstantInt::get(i32, static_cast<int>(outs.size())),
                   llvm::ConstantInt::get(i32, static_cast<int>(symbols->size())),
                   array(desc_type, ins, "tfn.inputs"), array(desc_type, outs, "tfn.outputs"),
                   array(ptr, names, "tfn.dim_names"), run, scratch, shape, run_opt});
    auto* gv = new llvm::GlobalVariable(m, sig_type, true, llvm::GlobalValue::ExternalLinkage,
                                        descriptor, sig.symbol + "_signature");
    descriptors.push_back(gv);
    for (const char* suffix :
         {"_run", "_run_with_options", "_scratch_bytes", "_output_shape", "_signature"}) {
      exported.push_back(sig.symbol + suffix);
    }
  }
  // <object>_signatures: all descriptors, and their count.
  auto* table_type = llvm::ArrayType::get(ptr, descriptors.size());
  new llvm::GlobalVariable(m, table_type, true, llvm::GlobalValue::ExternalLinkage,
                           llvm::ConstantArray::get(table_type, descriptors),
                           options.object_name + "_signatures");
  new llvm::GlobalVariable(m, i32, true, llvm::GlobalValue::ExternalLinkage,
                           llvm::ConstantInt::get(i32, static_cast<int>(descriptors.size())),
                           options.object_name + "_num_signatures");
  if (options.external_weights) exported.push_back(EmitBindWeights(mc));
  exported.push_back(options.object_name + "_signatures");
  exported.push_back(options.object_name + "_num_signatures");
  return exported;
}

}  // namespace tfn::aot
