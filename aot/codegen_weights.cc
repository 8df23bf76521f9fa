// --weights external (tfn-aot): weights stay in the bundle file, which the
// app maps and binds at run time, instead of being embedded in the object.
// The module gets one mutable pointer (the bound bundle's bytes; null until
// a bind succeeds), weights become that pointer plus their file offset, and
// NAME_bind_weights checks the bytes against what was recorded at compile
// time (magic, file size, content hash) with plain loads and compares, so
// the object stays libc-only. Hashing the whole file at bind time would make
// binding cost as much as reading the weights; the header's content hash
// (XXH3-64 of every byte after the header, written by the exporter) names
// the bundle's contents, and the per-segment checksums stay available to
// apps that want to verify bytes (tfn-inspect --verify).
#include <cstddef>
#include <cstring>

#include "aot/codegen_internal.h"
#include "llvm/IR/Constants.h"
#include "schema/aot_abi.h"
#include "schema/bundle_format.h"

namespace tfn::aot {

using llvm::Value;

llvm::GlobalVariable* ModuleContext::WeightsBase() {
  if (weights_base_) return weights_base_;
  llvm::Type* ptr = llvm::PointerType::getUnqual(ctx());
  weights_base_ = new llvm::GlobalVariable(
      m_, ptr, false, llvm::GlobalValue::InternalLinkage,
      llvm::ConstantPointerNull::get(llvm::PointerType::getUnqual(ctx())), "tfn.weights");
  weights_base_->setAlignment(llvm::Align(8));
  return weights_base_;
}

const uint64_t* ModuleContext::ExternalOffset(const ConstTensor& t) const {
  if (!options_.external_weights || t.byte_size() == 0) return nullptr;
  auto it = options_.external_weights->offsets.find(t.data);
  return it == options_.external_weights->offsets.end() ? nullptr : &it->second;
}

Value* FunctionEmitter::WeightPtr(uint64_t offset) {
  if (!weights_base_) weights_base_ = entry_.CreateLoad(ptr(), mc_.WeightsBase(), "weights");
  return entry_.CreateGEP(entry_.getInt8Ty(), weights_base_, entry_.getInt64(offset));
}

void FunctionEmitter::RequireWeights() {
  if (!mc_.options().external_weights) return;
  Value* base = b_.CreateLoad(ptr(), mc_.WeightsBase());
  ErrorIf(b_.CreateIsNull(base), TFN_AOT_WEIGHTS_NOT_BOUND);
}

std::string EmitBindWeights(ModuleContext& mc) {
  const ExternalWeights& w = *mc.options().external_weights;
  llvm::LLVMContext& c = mc.ctx();
  llvm::Type* ptr = llvm::PointerType::getUnqual(c);
  llvm::Type* i64 = llvm::Type::getInt64Ty(c);
  llvm::Type* i32 = llvm::Type::getInt32Ty(c);
  std::string name = mc.options().object_name + "_bind_weights";
  auto* f = llvm::Function::Create(llvm::FunctionType::get(i32, {ptr, i64}, false),
                                   llvm::GlobalValue::ExternalLinkage, name, mc.module());
  f->addFnAttr(llvm::Attribute::NoUnwind);
  Value* bytes = f->getArg(0);
  Value* size = f->getArg(1);
  auto block = [&](const char* label) { return llvm::BasicBlock::Create(c, label, f); };
  llvm::IRBuilder<> b(block("entry"));  // the first block is the entry
  llvm::BasicBlock* bad_argument = block("bad_argument");
  llvm::BasicBlock* mismatch = block("mismatch");
  // Each check either falls through to the next block or fails.
  auto check = [&](Value* ok, llvm::BasicBlock* fail) {
    llvm::BasicBlock* next = block("next");
    b.CreateCondBr(ok, next, fail);
    b.SetInsertPoint(next);
  };
  // A null or misaligned pointer: weights are 64-byte aligned in the file,
  // and the code reads them as such (mmap gives page-aligned bytes).
  check(b.CreateIsNotNull(bytes), bad_argument);
  Value* low = b.CreateAnd(b.CreatePtrToInt(bytes, i64), b.getInt64(TFN_BUNDLE_ALIGNMENT - 1));
  check(b.CreateICmpEQ(low, b.getInt64(0)), bad_argument);
  check(b.CreateICmpEQ(size, b.getInt64(w.file_size)), mismatch);
  uint64_t magic = 0;
  std::memcpy(&magic, TFN_BUNDLE_MAGIC, 8);  // little-endian, as the header is
  auto field = [&](size_t offset) {
    return b.CreateAlignedLoad(i64, b.CreateConstGEP1_64(b.getInt8Ty(), bytes, offset),
                               llvm::Align(8));
  };
  check(b.CreateICmpEQ(field(offsetof(TfnBundleHeader, magic)), b.getInt64(magic)), mismatch);
  check(b.CreateICmpEQ(field(offsetof(TfnBundleHeader, file_size)), b.getInt64(w.file_size)),
        mismatch);
  check(b.CreateICmpEQ(field(offsetof(TfnBundleHeader, content_hash)), b.getInt64(w.content_hash)),
        mismatch);
  b.CreateStore(bytes, mc.WeightsBase());
  b.CreateRet(b.getInt32(TFN_AOT_OK));
  // A failed bind unbinds: later runs report TFN_AOT_WEIGHTS_NOT_BOUND
  // rather than read weights from bytes that were just refused.
  for (auto [fail, code] : {std::pair{bad_argument, TFN_AOT_BAD_ARGUMENT},
                            std::pair{mismatch, TFN_AOT_WEIGHTS_MISMATCH}}) {
    llvm::IRBuilder<> e(fail);
    e.CreateStore(llvm::ConstantPointerNull::get(llvm::PointerType::getUnqual(c)),
                  mc.WeightsBase());
    e.CreateRet(e.getInt32(code));
  }
  return name;
}

}  // namespace tfn::aot
