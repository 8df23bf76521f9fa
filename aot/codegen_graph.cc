// Emitting a graph's body: storage of values, fused elementwise loops,
// kernel calls, control flow, print, and the kernel workspace size.
#include <algorithm>
#include <set>

#include "aot/codegen_internal.h"
#include "kernels/kernels.h"
#include "schema/aot_abi.h"

namespace tfn::aot {

using llvm::Value;

namespace {

// A fused loop goes through the caller's parallel_for in chunks of at least
// this many elements (as the kernels' kMinParallelChunk).
constexpr int64_t kMinParallelLoopElements = 32768;

const char* Suffix(DType t) {
  switch (t) {
    case DType::kBool:
      return "b";
    case DType::kInt32:
      return "i32";
    case DType::kInt64:
      return "i64";
    case DType::kFloat32:
      return "f32";
    case DType::kFloat64:
      return "f64";
    default:
      return "?";
  }
}

// Prepares the kernel a node would run (the same choice as the runtime's).
absl::StatusOr<kernels::KernelPlan> PlanKernel(const ir::Graph& g, const ir::Node& n,
                                               kernels::Variant variant) {
  std::vector<DType> in_types, out_types;
  std::vector<int> in_ranks, out_ranks;
  for (ir::ValueRef v : n.inputs) {
    in_types.push_back(g.type(v).dtype);
    in_ranks.push_back(g.type(v).shape.rank());
  }
  for (const ir::TensorType& t : n.outputs) {
    out_types.push_back(t.dtype);
    out_ranks.push_back(t.shape.rank());
  }
  kernels::NodeSignature sig{n.op,
                             &n.attrs,
                             static_cast<int>(in_types.size()),
                             in_types.data(),
                             in_ranks.data(),
                             static_cast<int>(out_types.size()),
                             out_types.data(),
                             out_ranks.data()};
  kernels::KernelPlan plan;
  Status s = kernels::PrepareKernel(sig, variant, &plan);
  if (!s.ok()) return ir::ToAbsl(s);
  return plan;
}

}  // namespace

GraphEmitter::GraphEmitter(FunctionEmitter& fe, const ir::Graph& g, const GraphPlan& plan,
                           Value* base, std::vector<Value*> params, Value* inputs, Value* outputs,
                           Value* workspace, Value* workspace_bytes)
    : fe_(fe),
      g_(g),
      plan_(plan),
      base_(base),
      params_(std::move(params)),
      inputs_(inputs),
      outputs_(outputs),
      workspace_(workspace),
      workspace_bytes_(workspace_bytes) {}

absl::StatusOr<Value*> GraphEmitter::Bytes(const ir::TensorType& t) {
  absl::StatusOr<Value*> n = fe_.NumElements(t);
  if (!n.ok()) return n;
  return fe_.entry().CreateMul(*n, fe_.entry().getInt64(DTypeSize(t.dtype)));
}

absl::StatusOr<Value*> GraphEmitter::Ptr(ir::ValueRef v) {
  auto cached = ptr_cache_.find(v);
  if (cached != ptr_cache_.end()) return cached->second;
  const ir::Node& n = g_.node(v.node);
  const Storage& s = plan_.storage[v.node][v.port];
  llvm::IRBuilder<>& e = fe_.entry();
  Value* p = nullptr;
  if (n.op == OpId::kVarRead) {
    auto it = fe_.mc().options().variables.find(n.attrs.GetString("name"));
    if (it == fe_.mc().options().variables.end()) {
      return absl::NotFoundError("variable '" + n.attrs.GetString("name") +
                                 "' has no value to embed");
    }
    const uint64_t* offset = fe_.mc().ExternalOffset(it->second);
    p = offset ? fe_.WeightPtr(*offset) : fe_.mc().ConstantData(it->second);
  } else {
    switch (s.kind) {
      case Storage::Kind::kInput:
        if (!inputs_) {
          if (s.index < 0 || s.index >= static_cast<int>(params_.size()))
            return absl::InternalError("bad parameter");
          p = params_[s.index];
        } else {
          p = e.CreateLoad(fe_.ptr(), e.CreateConstInBoundsGEP1_64(fe_.ptr(), inputs_, s.index));
        }
        break;
      case Storage::Kind::kOutput:
        p = e.CreateLoad(fe_.ptr(), e.CreateConstInBoundsGEP1_64(fe_.ptr(), outputs_, s.index));
        break;
      case Storage::Kind::kConstant: {
        const ConstTensor& t = *n.attrs.GetTensor("value");
        const uint64_t* offset = fe_.mc().ExternalOffset(t);
        p = offset ? fe_.WeightPtr(*offset) : fe_.mc().ConstantData(t);
        break;
      }
      case Storage::Kind::kScratch: {
        absl::StatusOr<Value*> offset = fe_.Dim(plan_.slot_offset[s.index]);
        if (!offset.ok()) return offset;
        p = e.CreateInBoundsGEP(e.getInt8Ty(), base_, *offset);
        break;
      }
      case Storage::Kind::kAlias:
        if (s.alias.valid()) return Ptr(s.alias);
        if (s.index < 0 || s.index >= static_cast<int>(params_.size()))
          return absl::InternalError("bad parameter");
        p = params_[s.index];
        break;
      case Storage::Kind::kNone:
        return absl::InternalError(std::string("value of ") + n.def().name + " has no storage");
    }
  }
  ptr_cache_[v] = p;
  return p;
}

absl::StatusOr<Value*> GraphEmitter::ScalarOp(llvm::IRBuilder<>& b, const ir::Node& n,
                                              const std::vector<Value*>& args) {
  ModuleContext& mc = fe_.mc();
  if (n.op == OpId::kIdentity) return args[0];
  DType in = g_.type(n.inputs[n.op == OpId::kWhere ? 1 : 0]).dtype;
  DType out = n.outputs[0].dtype;
  std::string name = "tfn_ew_";
  if (n.op == OpId::kCast) {
    name += std::string("cast_") + Suffix(in) + "_" + Suffix(out);
  } else if (n.op == OpId::kGelu && n.attrs.GetString("approximate") == "tanh") {
    name += std::string("gelu_tanh_") + Suffix(in);
  } else {
    // Fast-math entries (bitcode/scalar_entry_fast.cc): float arithmetic,
    // and tanh and sigmoid on f32.
    const bool fast_op =
        (n.op == OpId::kAdd || n.op == OpId::kSub || n.op == OpId::kMul || n.op == OpId::kDiv) ?
            (in == DType::kFloat32 || in == DType::kFloat64)
            : (n.op == OpId::kTanh || n.op == OpId::kSigmoid) && in == DType::kFloat32;
    if (mc.options().fast_math && fast_op) name += "fast_";
    name += std::string(n.def().name) + "_" + Suffix(in);
  }
  std::vector<llvm::Type*> arg_types;
  for (ir::ValueRef v : n.inputs) arg_types.push_back(mc.ElementType(g_.type(v).dtype));
  llvm::FunctionCallee f = mc.ScalarFunction(name, mc.ElementType(out), arg_types);
  return b.CreateCall(f, args);
}

absl::Status GraphEmitter::EmitFused(const ScheduleItem& item) {
  llvm::IRBuilder<>& b = fe_.b();
  const ir::TensorType& out_type = g_.node(item.nodes[0]).outputs[0];
  int rank = out_type.shape.rank();
  std::set<int> members(item.nodes.begin(), item.nodes.end());
  // Inputs from outside the group, each with its strides into the output shape.
  struct External {
    ir::ValueRef v;
    Value* ptr;
    llvm::Type* type;
    std::vector<Value*> strides;  // per output dim
    bool same_shape;              // element i of the output reads element i
    bool scalar;                  // one element, read everywhere
  };
  std::vector<External> ext;
  std::map<std::pair<int, int>, int> ext_index;
  absl::StatusOr<std::vector<Value*>> out_dims = fe_.Dims(out_type);
  if (!out_dims.ok()) return out_dims.status();
  for (int m : item.nodes) {
    for (ir::ValueRef v : g_.node(m).inputs) {
      if (members.count(v.node) || ext_index.count({v.node, v.port})) continue;
      const ir::TensorType& t = g_.type(v);
      absl::StatusOr<Value*> p = Ptr(v);
      if (!p.ok()) return p.status();
      External x{v, *p, fe_.mc().ElementType(t.dtype), {}, t.shape == out_type.shape, true};
      for (const SymDim& d : t.shape) x.scalar &= d.is_static() && d.value() == 1;
      // Right-aligned strides; 0 where the input broadcasts.
      llvm::IRBuilder<>& e = fe_.entry();
      Value* contiguous = e.getInt64(1);
      std::vector<Value*> rev;
      for (int j = rank - 1; j >= 0; --j) {
        int k = j - (rank - t.shape.rank());
        if (k < 0) {
          rev.push_back(e.getInt64(0));
          continue;
        }
        const SymDim& dk = t.shape[k];
        absl::StatusOr<Value*> dv = fe_.Dim(dk);
        if (!dv.ok()) return dv.status();
        if (dk.is_static() && dk.value() == 1) {
          rev.push_back(e.getInt64(0));
        } else if (dk == out_type.shape[j]) {
          rev.push_back(contiguous);
        } else {
          // Decided at run time: it must be 1 (broadcast) or the output's dim.
          Value* one = e.CreateICmpEQ(*dv, e.getInt64(1));
          fe_.ErrorIf(b.CreateNot(b.CreateOr(one, b.CreateICmpEQ(*dv, (*out_dims)[j]))),
                      TFN_AOT_SHAPE_MISMATCH);
          rev.push_back(e.CreateSelect(one, e.getInt64(0), contiguous));
        }
        contiguous = e.CreateMul(contiguous, *dv);
      }
      x.strides.assign(rev.rbegin(), rev.rend());
      ext_index[{v.node, v.port}] = static_cast<int>(ext.size());
      ext.push_back(std::move(x));
    }
  }
  std::vector<Value*> out_ptrs;
  for (int m : item.nodes) {
    Value* p = nullptr;
    if (plan_.fusion.materialize[m]) {
      absl::StatusOr<Value*> mp = Ptr(ir::ValueRef{m, 0});
      if (!mp.ok()) return mp.status();
      p = *mp;
    }
    out_ptrs.push_back(p);
  }
  bool flat = true;
  for (const External& x : ext) flat &= x.same_shape || x.scalar;
  const bool rows_mode = !(flat || rank <= 1);

  // The loop is outlined into body(arg, begin, end) over elements (or, with
  // broadcasting, rows of the last dim), so that a pool can split it. Its
  // live-ins travel in a struct; constants (static strides and dims,
  // embedded weights) are used directly, so the loop still sees them.
  ModuleContext& mc = fe_.mc();
  llvm::LLVMContext& c = mc.ctx();
  std::vector<Value*> live;
  std::vector<llvm::Type*> live_types;
  auto pass = [&](Value* v) -> int {
    if (llvm::isa<llvm::Constant>(v)) return -1;
    live.push_back(v);
    live_types.push_back(v->getType());
    return static_cast<int>(live.size()) - 1;
  };
  struct Slots {
    int ptr = -1;
    std::vector<int> strides;
  };
  std::vector<Slots> ext_slots(ext.size());
  for (size_t e = 0; e < ext.size(); ++e) {
    ext_slots[e].ptr = pass(ext[e].ptr);
    if (!flat) {
      for (Value* st : ext[e].strides) ext_slots[e].strides.push_back(pass(st));
    }
  }
  std::vector<int> out_slots;
  for (Value* p : out_ptrs) out_slots.push_back(p ? pass(p) : -1);
  std::vector<int> dim_slots;
  if (rows_mode) {
    for (Value* d : *out_dims) dim_slots.push_back(pass(d));
  }
  llvm::StructType* arg_type = llvm::StructType::get(
      c, live_types.empty() ? std::vector<llvm::Type*>{b.getInt8Ty()} : live_types);
  Value* arg = fe_.EntryAlloca(arg_type);
  for (size_t k = 0; k < live.size(); ++k)
    b.CreateStore(live[k], b.CreateStructGEP(arg_type, arg, k));

  llvm::Function* parent = fe_.function();
  auto* body_type =
      llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy(), b.getInt64Ty(), b.getInt64Ty()}, false);
  llvm::Function* body = llvm::Function::Create(body_type, llvm::GlobalValue::InternalLinkage,
                                                parent->getName() + ".fused", mc.module());
  body->addFnAttr(llvm::Attribute::NoUnwind);
  absl::Status status;
  {
    FunctionEmitter bfe(mc, body, g_, plan_);
    llvm::IRBuilder<>& e = bfe.entry();
    llvm::IRBuilder<>& bb = bfe.b();
    std::vector<Value*> in_body(live.size());
    for (size_t k = 0; k < live.size(); ++k) {
      in_body[k] = e.CreateLoad(live_types[k], e.CreateStructGEP(arg_type, body->getArg(0), k));
    }
    auto get = [&](int slot, Value* outside) { return slot < 0 ? outside : in_body[slot]; };
    std::vector<Value*> ext_ptr(ext.size());
    std::vector<std::vector<Value*>> strides(ext.size());
    for (size_t x = 0; x < ext.size(); ++x) {
      ext_ptr[x] = get(ext_slots[x].ptr, ext[x].ptr);
      for (size_t j = 0; j < ext_slots[x].strides.size(); ++j) {
        strides[x].push_back(get(ext_slots[x].strides[j], ext[x].strides[j]));
      }
    }
    std::vector<Value*> outs(out_ptrs.size(), nullptr);
    for (size_t k = 0; k < out_ptrs.size(); ++k) {
      if (out_ptrs[k]) outs[k] = get(out_slots[k], out_ptrs[k]);
    }
    // The per-element computation, given each external's element offset.
    auto element = [&](const std::vector<Value*>& offsets, Value* out_index) -> absl::Status {
      std::map<int, Value*> values;
      std::vector<Value*> loaded(ext.size(), nullptr);
      auto value_of = [&](ir::ValueRef v) {
        if (members.count(v.node)) return values[v.node];
        int x = ext_index[{v.node, v.port}];
        if (!loaded[x]) {
          loaded[x] = bb.CreateLoad(ext[x].type,
                                    bb.CreateInBoundsGEP(ext[x].type, ext_ptr[x], offsets[x]));
        }
        return loaded[x];
      };
      const FusionResult& fusion = plan_.fusion;
      for (size_t k = 0; k < item.nodes.size(); ++k) {
        int m = item.nodes[k];
        const ir::Node& n = g_.node(m);
        if (fusion.folded[m]) continue;  // computed inside its gate product
        absl::StatusOr<Value*> r;
        auto gate = fusion.gate_products.find(m);
        if (gate != fusion.gate_products.end()) {
          llvm::Type* f32 = bb.getFloatTy();
          const char* fn = mc.options().fast_math ? "tfn_ew_fast_tanh_times_sigmoid_f32"
                                                  : "tfn_ew_tanh_times_sigmoid_f32";
          r = bb.CreateCall(mc.ScalarFunction(fn, f32, {f32, f32}),
                            {value_of(g_.node(gate->second.tanh).inputs[0]),
                             value_of(g_.node(gate->second.sigmoid).inputs[0])});
        } else {
          std::vector<Value*> args;
          for (ir::ValueRef v : n.inputs) args.push_back(value_of(v));
          r = ScalarOp(bb, n, args);
        }
        if (!r.ok()) return r.status();
        values[m] = *r;
        if (outs[k]) {
          llvm::Type* t = mc.ElementType(n.outputs[0].dtype);
          bb.CreateStore(*r, bb.CreateInBoundsGEP(t, outs[k], out_index));
        }
      }
      return absl::OkStatus();
    };
    // A body with a transcendental function is a long dependency chain
    // (polynomial, scaling, division) per vector; LLVM's cost model does not
    // interleave such large bodies, so one chain runs at a time and waits on
    // latencies. Interleaved vectors fill the pipes: four for one such
    // function (or one gate product), two for more, whose registers four
    // copies would spill (bench/RESULTS.md, issue 5's chain, has the
    // measurements). Small bodies keep the vectorizer's own choice.
    const int long_chains =
        static_cast<int>(std::count_if(item.nodes.begin(), item.nodes.end(), [&](int m) {
          if (plan_.fusion.folded[m]) return false;  // counted as its gate product
          if (plan_.fusion.gate_products.count(m)) return true;
          switch (g_.node(m).op) {
            case OpId::kExp:
            case OpId::kLog:
            case OpId::kTanh:
            case OpId::kSigmoid:
            case OpId::kGelu:
            case OpId::kErf:
            case OpId::kSin:
            case OpId::kCos:
            case OpId::kPow:
              return true;
            default:
              return false;
          }
        }));
    const int interleave = long_chains == 0 ? 0 : long_chains == 1 ? 4 : 2;
    if (!rows_mode) {
      bfe.LoopRange(
          body->getArg(1), body->getArg(2),
          [&](Value* i) {
            std::vector<Value*> offsets;
            for (size_t x = 0; x < ext.size(); ++x) {
              offsets.push_back(
                  ext[x].scalar ? bb.getInt64(0)
                  : flat        ? i
                         : bb.CreateMul(i, strides[x].empty() ? bb.getInt64(0) : strides[x][0]));
            }
            if (status.ok()) status = element(offsets, i);
          },
          interleave);
    } else {
      // Outer index over all but the last dim; the inner loop strides are 0
      // or 1 for most inputs, which LLVM vectorizes.
      std::vector<Value*> dims;
      for (size_t j = 0; j < dim_slots.size(); ++j)
        dims.push_back(get(dim_slots[j], (*out_dims)[j]));
      Value* inner = dims[rank - 1];
      bfe.LoopRange(body->getArg(1), body->getArg(2), [&](Value* o) {
        std::vector<Value*> base(ext.size(), bb.getInt64(0));
        Value* rest = o;
        for (int j = rank - 2; j >= 0; --j) {
          Value* idx = bb.CreateURem(rest, dims[j]);
          rest = bb.CreateUDiv(rest, dims[j]);
          for (size_t x = 0; x < ext.size(); ++x)
            base[x] = bb.CreateAdd(base[x], bb.CreateMul(idx, strides[x][j]));
        }
        Value* row = bb.CreateMul(o, inner);
        bfe.Loop(inner, [&](Value* i) {
          std::vector<Value*> offsets;
          for (size_t x = 0; x < ext.size(); ++x) {
            offsets.push_back(bb.CreateAdd(base[x], bb.CreateMul(i, strides[x][rank - 1])));
          }
          if (status.ok()) status = element(offsets, bb.CreateAdd(row, i));
        });
      });
    }
    bfe.Finish(nullptr);
  }
  if (!status.ok()) return status;

  // Call it: through the caller's parallel_for when threads are given and
  // the loop is large enough to split, else directly.
  Value* n;
  Value* min_chunk;
  if (rows_mode) {
    ir::TensorType outer_type = out_type;
    outer_type.shape.resize(rank - 1);
    absl::StatusOr<Value*> outer = fe_.NumElements(outer_type);
    if (!outer.ok()) return outer.status();
    n = *outer;
    Value* inner = (*out_dims)[rank - 1];
    Value* safe = b.CreateSelect(b.CreateICmpSGT(inner, b.getInt64(1)), inner, b.getInt64(1));
    min_chunk = b.CreateUDiv(b.getInt64(kMinParallelLoopElements), safe);
    min_chunk = b.CreateSelect(b.CreateICmpSGT(min_chunk, b.getInt64(1)), min_chunk, b.getInt64(1));
  } else {
    absl::StatusOr<Value*> total = fe_.NumElements(out_type);
    if (!total.ok()) return total.status();
    n = *total;
    min_chunk = b.getInt64(kMinParallelLoopElements);
  }
  Value* threaded = b.CreateAnd(b.CreateAnd(b.CreateIsNotNull(fe_.parallel_for()),
                                            b.CreateICmpSGT(fe_.num_threads(), b.getInt32(1))),
                                b.CreateICmpSGT(n, min_chunk));
  llvm::BasicBlock* par = llvm::BasicBlock::Create(c, "fused.parallel", parent);
  llvm::BasicBlock* ser = llvm::BasicBlock::Create(c, "fused.serial", parent);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(c, "fused.done", parent);
  b.CreateCondBr(threaded, par, ser);
  b.SetInsertPoint(par);
  auto* pf_type = llvm::FunctionType::get(
      b.getVoidTy(), {b.getPtrTy(), b.getInt64Ty(), b.getInt64Ty(), b.getPtrTy(), b.getPtrTy()},
      false);
  b.CreateCall(pf_type, fe_.parallel_for(), {fe_.pool(), n, min_chunk, body, arg});
  b.CreateBr(done);
  b.SetInsertPoint(ser);
  b.CreateCall(body, {arg, b.getInt64(0), n});
  b.CreateBr(done);
  b.SetInsertPoint(done);
  return absl::OkStatus();
}

absl::Status GraphEmitter::EmitKernel(int node) {
  const ir::Node& n = g_.node(node);
  llvm::IRBuilder<>& b = fe_.b();
  ModuleContext& mc = fe_.mc();
  absl::StatusOr<kernels::KernelPlan> plan = PlanKernel(g_, n, mc.options().variant);
  if (!plan.ok()) return plan.status();
  Value* params = mc.ConstantBytes(plan->params, plan->params_size ? plan->params_size : 1, 16);
  Value* ins = fe_.EntryAlloca(mc.tensor_type(), std::max<unsigned>(1, n.inputs.size()));
  Value* outs = fe_.EntryAlloca(mc.tensor_type(), std::max<unsigned>(1, n.outputs.size()));
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    absl::StatusOr<Value*> p = Ptr(n.inputs[i]);
    if (!p.ok()) return p.status();
    absl::Status s = fe_.FillTensor(ins, static_cast<int>(i), *p, g_.type(n.inputs[i]));
    if (!s.ok()) return s;
  }
  for (size_t o = 0; o < n.outputs.size(); ++o) {
    absl::StatusOr<Value*> p = Ptr(ir::ValueRef{node, static_cast<int>(o)});
    if (!p.ok()) return p.status();
    absl::Status s = fe_.FillTensor(outs, static_cast<int>(o), *p, n.outputs[o]);
    if (!s.ok()) return s;
  }
  Value* ctx = fe_.EntryAlloca(mc.context_type());
  b.CreateStore(workspace_, b.CreateStructGEP(mc.context_type(), ctx, 0));
  b.CreateStore(workspace_bytes_, b.CreateStructGEP(mc.context_type(), ctx, 1));
  b.CreateStore(fe_.parallel_for(), b.CreateStructGEP(mc.context_type(), ctx, 2));
  b.CreateStore(fe_.pool(), b.CreateStructGEP(mc.context_type(), ctx, 3));
  b.CreateStore(fe_.num_threads(), b.CreateStructGEP(mc.context_type(), ctx, 4));
  Value* code = b.CreateCall(mc.KernelFunction(plan->symbol),
                             {params, ins, b.getInt32(static_cast<int>(n.inputs.size())), outs,
                              b.getInt32(static_cast<int>(n.outputs.size())), ctx});
  fe_.ErrorIf(b.CreateICmpEQ(code, b.getInt32(TFN_KERNEL_INDEX_OUT_OF_RANGE)),
              TFN_AOT_INDEX_OUT_OF_RANGE);
  fe_.ErrorIf(b.CreateICmpNE(code, b.getInt32(TFN_KERNEL_OK)), TFN_AOT_KERNEL_ERROR);
  return absl::OkStatus();
}

absl::Status GraphEmitter::EmitSubgraph(const ir::Graph& sub, const GraphPlan& plan,
                                        std::vector<Value*> params, std::vector<Value*> result_ptrs,
                                        const std::map<ir::ValueRef, Value*>& aliases) {
  absl::StatusOr<Value*> region = fe_.Dim(plan_.region_offset);
  if (!region.ok()) return region.status();
  Value* base = fe_.entry().CreateInBoundsGEP(fe_.entry().getInt8Ty(), base_, *region);
  GraphEmitter child(fe_, sub, plan, base, std::move(params), nullptr, nullptr, workspace_,
                     workspace_bytes_);
  child.ptr_cache_.insert(aliases.begin(), aliases.end());
  absl::Status s = child.Emit();
  if (!s.ok()) return s;
  for (size_t r = 0; r < sub.results().size(); ++r) {
    if (!result_ptrs[r]) continue;
    absl::StatusOr<Value*> src = child.Ptr(sub.results()[r]);
    if (!src.ok()) return src.status();
    absl::StatusOr<Value*> bytes = Bytes(sub.type(sub.results()[r]));
    if (!bytes.ok()) return bytes.status();
    fe_.b().CreateMemMove(result_ptrs[r], llvm::MaybeAlign(1), *src, llvm::MaybeAlign(1), *bytes);
  }
  return absl::OkStatus();
}

absl::Status GraphEmitter::EmitCond(int node) {
  const ir::Node& n = g_.node(node);
  llvm::IRBuilder<>& b = fe_.b();
  std::vector<Value*> operands, results;
  for (size_t i = 1; i < n.inputs.size(); ++i) {
    absl::StatusOr<Value*> p = Ptr(n.inputs[i]);
    if (!p.ok()) return p.status();
    operands.push_back(*p);
  }
  for (size_t o = 0; o < n.outputs.size(); ++o) {
    absl::StatusOr<Value*> p = Ptr(ir::ValueRef{node, static_cast<int>(o)});
    if (!p.ok()) return p.status();
    results.push_back(*p);
  }
  absl::StatusOr<Value*> pred_ptr = Ptr(n.inputs[0]);
  if (!pred_ptr.ok()) return pred_ptr.status();
  Value* pred = b.CreateICmpNE(b.CreateLoad(b.getInt8Ty(), *pred_ptr), b.getInt8(0));
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(fe_.mc().ctx(), "then", fn);
  llvm::BasicBlock* else_bb = llvm::BasicBlock::Create(fe_.mc().ctx(), "else", fn);
  llvm::BasicBlock* merge = llvm::BasicBlock::Create(fe_.mc().ctx(), "merge", fn);
  b.CreateCondBr(pred, then_bb, else_bb);
  for (int k = 0; k < 2; ++k) {
    b.SetInsertPoint(k == 0 ? then_bb : else_bb);
    absl::Status s = EmitSubgraph(n.subgraphs[k], plan_.sub[node][k], operands, results);
    if (!s.ok()) return s;
    b.CreateBr(merge);
  }
  b.SetInsertPoint(merge);
  return absl::OkStatus();
}

absl::Status GraphEmitter::EmitWhile(int node) {
  const ir::Node& n = g_.node(node);
  llvm::IRBuilder<>& b = fe_.b();
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    if (n.subgraphs[1].type(n.subgraphs[1].param(static_cast<int>(i))) != g_.type(n.inputs[i])) {
      return absl::UnimplementedError("while_loop: loop variable " + std::to_string(i) +
                                      " changes shape between iterations; "
                                      "compiled code supports loops whose variables keep their "
                                      "shapes (run it with the runtime)");
    }
  }
  // Results that need no copy back into their loop variable: the variable
  // itself (a loop invariant), or a scatter into the variable that nothing
  // else reads, which then updates it in place (a loop a GradientTape
  // differentiates keeps its iterations so; copying its [iterations, ...]
  // buffers every iteration would make it quadratic). The runtime's
  // while_loop does the same (runtime/executor.cc, LoopResultReuse).
  const ir::Graph& loop_body = n.subgraphs[1];
  std::vector<int> uses(static_cast<size_t>(loop_body.num_nodes()), 0);
  for (int k = 0; k < loop_body.num_nodes(); ++k) {
    for (ir::ValueRef v : loop_body.node(k).inputs) ++uses[static_cast<size_t>(v.node)];
  }
  for (ir::ValueRef v : loop_body.results()) ++uses[static_cast<size_t>(v.node)];
  std::vector<bool> invariant(n.inputs.size()), in_place(n.inputs.size());
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const ir::ValueRef param = loop_body.param(static_cast<int>(i)), r = loop_body.results()[i];
    const ir::Node& made = loop_body.node(r.node);
    invariant[i] = r == param;
    in_place[i] = made.op == OpId::kScatterND && made.inputs[0] == param &&
                  uses[static_cast<size_t>(param.node)] == 1;
  }
  std::vector<Value*> vars, staging;
  std::map<ir::ValueRef, Value*> aliases;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    absl::StatusOr<Value*> var = Ptr(ir::ValueRef{node, static_cast<int>(i)});
    absl::StatusOr<Value*> in = Ptr(n.inputs[i]);
    absl::StatusOr<Value*> bytes = Bytes(n.outputs[i]);
    if (!var.ok() || !in.ok() || !bytes.ok())
      return !var.ok() ? var.status() : !in.ok() ? in.status() : bytes.status();
    b.CreateMemMove(*var, llvm::MaybeAlign(1), *in, llvm::MaybeAlign(1), *bytes);
    vars.push_back(*var);
    if (in_place[i]) aliases[loop_body.results()[i]] = *var;
    if (invariant[i] || in_place[i]) {
      staging.push_back(nullptr);
      continue;
    }
    absl::StatusOr<Value*> offset = fe_.Dim(plan_.slot_offset[plan_.staging.at(node)[i]]);
    if (!offset.ok()) return offset.status();
    staging.push_back(fe_.entry().CreateInBoundsGEP(fe_.entry().getInt8Ty(), base_, *offset));
  }
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  llvm::BasicBlock* head = llvm::BasicBlock::Create(fe_.mc().ctx(), "while.cond", fn);
  llvm::BasicBlock* body = llvm::BasicBlock::Create(fe_.mc().ctx(), "while.body", fn);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(fe_.mc().ctx(), "while.end", fn);
  b.CreateBr(head);
  b.SetInsertPoint(head);
  Value* flag = fe_.EntryAlloca(b.getInt8Ty());
  absl::Status s = EmitSubgraph(n.subgraphs[0], plan_.sub[node][0], vars, {flag});
  if (!s.ok()) return s;
  b.CreateCondBr(b.CreateICmpNE(b.CreateLoad(b.getInt8Ty(), flag), b.getInt8(0)), body, exit);
  b.SetInsertPoint(body);
  // Results go to staging first: a result may be another loop variable.
  s = EmitSubgraph(n.subgraphs[1], plan_.sub[node][1], vars, staging, aliases);
  if (!s.ok()) return s;
  for (size_t i = 0; i < vars.size(); ++i) {
    if (!staging[i]) continue;
    absl::StatusOr<Value*> bytes = Bytes(n.outputs[i]);
    if (!bytes.ok()) return bytes.status();
    b.CreateMemCpy(vars[i], llvm::MaybeAlign(1), staging[i], llvm::MaybeAlign(1), *bytes);
  }
  b.CreateBr(head);
  b.SetInsertPoint(exit);
  return absl::OkStatus();
}

absl::Status GraphEmitter::EmitPrint(int node) {
  const ir::Node& n = g_.node(node);
  llvm::IRBuilder<>& b = fe_.b();
  ModuleContext& mc = fe_.mc();
  Value* tensors = fe_.EntryAlloca(mc.tensor_type(), std::max<unsigned>(1, n.inputs.size()));
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    absl::StatusOr<Value*> p = Ptr(n.inputs[i]);
    if (!p.ok()) return p.status();
    absl::Status s = fe_.FillTensor(tensors, static_cast<int>(i), *p, g_.type(n.inputs[i]));
    if (!s.ok()) return s;
  }
  llvm::FunctionCallee print =
      mc.ScalarFunction("tfn_aot_print", b.getVoidTy(),
                        {b.getPtrTy(), b.getPtrTy(), b.getInt32Ty(), b.getPtrTy(), b.getPtrTy()});
  b.CreateCall(print,
               {mc.CString(n.attrs.GetString("message")), tensors,
                b.getInt32(static_cast<int>(n.inputs.size())), fe_.print(), fe_.print_context()});
  return absl::OkStatus();
}

absl::Status GraphEmitter::Emit() {
  for (const ScheduleItem& item : plan_.fusion.schedule) {
    if (item.fused) {
      absl::Status s = EmitFused(item);
      if (!s.ok()) return s;
      continue;
    }
    int node = item.nodes[0];
    const ir::Node& n = g_.node(node);
    absl::Status s;
    switch (n.op) {
      case OpId::kCond:
        s = EmitCond(node);
        break;
      case OpId::kWhileLoop:
        s = EmitWhile(node);
        break;
      case OpId::kPrint:
        s = EmitPrint(node);
        break;
      case OpId::kVarRead:
        break;  // the variable's value is embedded (Ptr)
      case OpId::kVarAssign:
      case OpId::kVarAssignAdd:
        return absl::UnimplementedError("the signature updates variable '" +
                                        n.attrs.GetString("name") +
                                        "'; compiled objects are stateless (variables are embedded "
                                        "as constants): run it with the "
                                        "runtime, or export a signature that only reads variables");
      default:
        if (n.def().has(kAliasInput0)) break;
        s = EmitKernel(node);
    }
    if (!s.ok()) return s;
  }
  if (!outputs_) return absl::OkStatus();
  for (size_t r = 0; r < g_.results().size(); ++r) {
    if (!plan_.copy_result[r]) continue;
    absl::StatusOr<Value*> src = Ptr(g_.results()[r]);
    if (!src.ok()) return src.status();
    absl::StatusOr<Value*> bytes = Bytes(g_.type(g_.results()[r]));
    if (!bytes.ok()) return bytes.status();
    llvm::IRBuilder<>& b = fe_.b();
    Value* dst =
        b.CreateLoad(b.getPtrTy(), b.CreateConstInBoundsGEP1_64(b.getPtrTy(), outputs_, r));
    b.CreateMemMove(dst, llvm::MaybeAlign(1), *src, llvm::MaybeAlign(1), *bytes);
  }
  return absl::OkStatus();
}

absl::StatusOr<Value*> EmitWorkspaceBytes(FunctionEmitter& fe, const ir::Graph& g) {
  llvm::IRBuilder<>& b = fe.b();
  Value* most = b.getInt64(0);
  for (int i = 0; i < g.num_nodes(); ++i) {
    const ir::Node& n = g.node(i);
    for (const ir::Graph& sub : n.subgraphs) {
      absl::StatusOr<Value*> s = EmitWorkspaceBytes(fe, sub);
      if (!s.ok()) return s;
      most = b.CreateSelect(b.CreateICmpSGT(*s, most), *s, most);
    }
    const OpDef& def = n.def();
    if (def.has(kNoKernel) || def.has(kAliasInput0) || def.has(kElementwise)) continue;
    absl::StatusOr<kernels::KernelPlan> plan = PlanKernel(g, n, fe.mc().options().variant);
    if (!plan.ok()) return plan.status();
    if (!plan->scratch_symbol) continue;
    ModuleContext& mc = fe.mc();
    Value* params = mc.ConstantBytes(plan->params, plan->params_size ? plan->params_size : 1, 16);
    Value* ins = fe.EntryAlloca(mc.tensor_type(), std::max<unsigned>(1, n.inputs.size()));
    Value* outs = fe.EntryAlloca(mc.tensor_type(), std::max<unsigned>(1, n.outputs.size()));
    Value* null = llvm::ConstantPointerNull::get(b.getPtrTy());
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      absl::Status s = fe.FillTensor(ins, static_cast<int>(k), null, g.type(n.inputs[k]));
      if (!s.ok()) return s;
    }
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      absl::Status s = fe.FillTensor(outs, static_cast<int>(k), null, n.outputs[k]);
      if (!s.ok()) return s;
    }
    Value* need = b.CreateCall(mc.ScratchFunction(plan->scratch_symbol),
                               {params, ins, b.getInt32(static_cast<int>(n.inputs.size())), outs,
                                b.getInt32(static_cast<int>(n.outputs.size()))});
    need = b.CreateAnd(b.CreateAdd(need, b.getInt64(63)), b.getInt64(~int64_t{63}));
    most = b.CreateSelect(b.CreateICmpSGT(need, most), need, most);
  }
  return most;
}

}  // namespace tfn::aot
