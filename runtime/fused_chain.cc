// Grouping elementwise instructions into tiled chains (see fused_chain.h).
#include "runtime/fused_chain.h"

#include <algorithm>

#include "core/fusion_schedule.h"

namespace tfn::runtime {
namespace {

constexpr int64_t kAlign = 64;
int64_t AlignUp(int64_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

// How an operand from outside the chain is viewed per tile.
enum class Fit { kNone, kSame, kScalar, kTrailing };

struct OperandFit {
  Fit fit = Fit::kNone;
  int rank = 0;        // kTrailing: rank of the operand without its leading 1s
  int64_t inner = 1;   // kTrailing: its element count
};

OperandFit FitOperand(const Shape& in, const Shape& out, int64_t out_elements) {
  OperandFit f;
  const int64_t n = NumElements(in);
  if (n == out_elements) {
    f.fit = Fit::kSame;  // broadcasting keeps equal counts only for equal layouts
    return f;
  }
  if (n == 1) {
    f.fit = Fit::kScalar;
    return f;
  }
  int lead = 0;
  while (lead < in.rank() && in[lead] == 1) ++lead;
  const int t = in.rank() - lead;
  if (t >= out.rank() || n > kMaxTileElements) return f;
  for (int k = 0; k < t; ++k) {
    if (in[lead + k] != out[out.rank() - t + k]) return f;
  }
  f.fit = Fit::kTrailing;
  f.rank = t;
  f.inner = n;
  return f;
}

bool Fusible(const Instr& in, const std::vector<uint8_t>& dynamic) {
  const OpDef& def = GetOpDef(in.op);
  if (!def.has(kElementwise) || def.has(kControlFlow) || def.has(kNoKernel) || in.alias) return false;
  if (!in.kernel.fn || in.kernel.scratch || in.outputs.size() != 1) return false;
  if (in.inputs.empty() || in.inputs.size() > static_cast<size_t>(kMaxChainInputs)) return false;
  if (dynamic[in.outputs[0]]) return false;
  for (int32_t v : in.inputs) {
    if (dynamic[v]) return false;
  }
  return true;
}

class Scheduler {
 public:
  Scheduler(const Program& p, const std::vector<Shape>& shapes, const std::vector<uint8_t>& dynamic,
            int threads, Schedule* out)
      : p_(p), shapes_(shapes), dynamic_(dynamic), threads_(threads), out_(out) {
    size_t nv = p.values.size();
    in_open_.assign(nv, 0);
    readers_.assign(nv, {});
    for (size_t i = 0; i < p.instrs.size(); ++i) {
      for (int32_t v : p.instrs[i].inputs) readers_[v].push_back(static_cast<int32_t>(i));
    }
    is_result_.assign(nv, 0);
    for (int32_t v : p.results) is_result_[v] = 1;
    member_.assign(p.instrs.size(), 0);
  }

  // The IR's fusion groups (core/fusion_schedule.h) in their order; each
  // group runs as chains of the members this scheduler can tile, in program
  // order, with the others as single instructions between them.
  void Run() {
    std::vector<int32_t> producer(p_.values.size(), -1);
    for (int32_t i = 0; i < static_cast<int32_t>(p_.instrs.size()); ++i) {
      for (int32_t v : p_.instrs[i].outputs) producer[v] = i;
    }
    const std::vector<FusionStep> steps = ScheduleFusionGroups(
        static_cast<int32_t>(p_.instrs.size()),
        [&](int32_t i) { return p_.instrs[i].fusion_group; },
        [&](int32_t i, auto in_group) {
          for (int32_t v : p_.instrs[i].inputs) {
            if (producer[v] >= 0 && in_group(producer[v])) return true;
          }
          return false;
        },
        [](int32_t) { return false; });
    for (const FusionStep& step : steps) {
      if (!step.group || step.nodes.size() < 2) {
        for (int32_t i : step.nodes) out_->steps.push_back(i);
        continue;
      }
      for (int32_t i : step.nodes) {
        const Instr& in = p_.instrs[i];
        if (Fusible(in, dynamic_)) {
          const Shape& shape = shapes_[in.outputs[0]];
          if (!open_.empty() && shape == shape_ && InputsFit(in, shape_)) {
            Join(i);
            continue;
          }
          if (InputsFit(in, shape, /*open_counts=*/false)) {
            Close();
            shape_ = shape;
            Join(i);
            continue;
          }
        }
        // A member it cannot tile runs alone, after the open chain when it
        // reads one of the chain's values (the chain may go on after it).
        bool reads_open = false;
        for (int32_t v : in.inputs) reads_open |= in_open_[v] != 0;
        if (reads_open) Close();
        out_->steps.push_back(i);
      }
      Close();
    }
  }

 private:
  // Every input is a value of the open chain (when open_counts) or fits a tile.
  bool InputsFit(const Instr& in, const Shape& shape, bool open_counts = true) const {
    const int64_t n = NumElements(shape);
    for (int32_t v : in.inputs) {
      if (open_counts && in_open_[v]) continue;
      if (FitOperand(shapes_[v], shape, n).fit == Fit::kNone) return false;
    }
    return true;
  }

  void Join(int32_t i) {
    open_.push_back(i);
    in_open_[p_.instrs[i].outputs[0]] = 1;
  }

  void Close() {
    std::vector<int32_t> members;
    members.swap(open_);
    for (int32_t m : members) in_open_[p_.instrs[m].outputs[0]] = 0;
    if (members.size() >= 2 && Build(members)) return;
    for (int32_t m : members) out_->steps.push_back(m);
  }

  bool Build(const std::vector<int32_t>& members) {
    const Shape& s = shape_;
    const int64_t total = NumElements(s);
    for (int32_t m : members) member_[m] = 1;
    auto is_member_value = [&](int32_t v) {
      for (int32_t m : members) {
        if (p_.instrs[m].outputs[0] == v) return true;
      }
      return false;
    };
    // The widest trailing block sets the row; tiles are whole rows.
    int tail_rank = 0;
    for (int32_t m : members) {
      for (int32_t v : p_.instrs[m].inputs) {
        if (is_member_value(v)) continue;
        OperandFit f = FitOperand(shapes_[v], s, total);
        if (f.fit == Fit::kTrailing) tail_rank = std::max(tail_rank, f.rank);
      }
    }
    int64_t row = 1;
    for (int k = s.rank() - tail_rank; k < s.rank(); ++k) row *= s[k];
    FusedChain c;
    c.row_elements = row;
    c.rows = total / row;
    c.tile_rows = std::max<int64_t>(1, kTargetTileElements / row);
    c.num_tiles = (c.rows + c.tile_rows - 1) / c.tile_rows;
    if (c.num_tiles < 1) {  // an empty tensor: nothing to tile
      for (int32_t m : members) member_[m] = 0;
      return false;
    }
    TfnTensor tile{};
    tile.rank = 1 + tail_rank;
    tile.dims[0] = c.tile_rows;
    for (int k = 0; k < tail_rank; ++k) tile.dims[1 + k] = s[s.rank() - tail_rank + k];
    // Values read outside the chain (or returned) keep their arena buffers.
    auto materialized = [&](int32_t v) {
      if (is_result_[v]) return true;
      for (int32_t r : readers_[v]) {
        if (!member_[r]) return true;
      }
      return false;
    };
    // Tile buffers, reused once their value's last reader in the chain ran
    // (never by that reader's own output: kernels do not run in place).
    const int64_t buffer_bytes = AlignUp(c.tile_rows * row * 8);
    std::vector<int32_t> buffer_of(p_.values.size(), -1);
    std::vector<int32_t> last_read(p_.values.size(), -1);
    for (size_t j = 0; j < members.size(); ++j) {
      for (int32_t v : p_.instrs[members[j]].inputs) last_read[v] = static_cast<int32_t>(j);
    }
    std::vector<int32_t> free_buffers;
    int32_t num_buffers = 0;
    for (size_t j = 0; j < members.size(); ++j) {
      const Instr& in = p_.instrs[members[j]];
      ChainInstr ci;
      ci.instr = members[j];
      ci.num_inputs = static_cast<int32_t>(in.inputs.size());
      for (int k = 0; k < ci.num_inputs; ++k) {
        const int32_t v = in.inputs[k];
        ChainArg& a = ci.in[k];
        a.view.dtype = static_cast<int32_t>(p_.values[v].dtype);
        if (buffer_of[v] >= 0) {
          a.buffer_offset = buffer_of[v] * buffer_bytes;
          a.rows_dim = true;
          CopyDims(tile, &a.view);
          continue;
        }
        a.value = v;
        OperandFit f = is_member_value(v) ? OperandFit{Fit::kSame} : FitOperand(shapes_[v], s, total);
        if (f.fit == Fit::kSame) {
          a.rows_dim = true;
          a.row_bytes = row * DTypeSize(p_.values[v].dtype);
          CopyDims(tile, &a.view);
        } else if (f.fit == Fit::kTrailing) {
          a.view.rank = f.rank;
          for (int d = 0; d < f.rank; ++d) a.view.dims[d] = shapes_[v][shapes_[v].rank() - f.rank + d];
        } else {
          a.view.rank = 0;  // one element, broadcast everywhere
        }
      }
#if TFN_OPTIMIZED_KERNELS  // reference kernels have no row forms
      // The row form needs every input whole (stride 1) or one element
      // (stride 0), and one of them whole.
      bool whole = false, rows_ok = in.kernel.row != nullptr;
      for (int k = 0; k < ci.num_inputs; ++k) {
        const ChainArg& a = ci.in[k];
        ci.strides[k] = a.rows_dim ? 1 : 0;
        whole |= a.rows_dim;
        rows_ok &= a.rows_dim || a.view.rank == 0;
      }
      if (rows_ok && whole) ci.row = in.kernel.row;
#endif
      const int32_t out = in.outputs[0];
      ci.out.view.dtype = static_cast<int32_t>(p_.values[out].dtype);
      ci.out.rows_dim = true;
      CopyDims(tile, &ci.out.view);
      if (materialized(out)) {
        ci.out.value = out;
        ci.out.row_bytes = row * DTypeSize(p_.values[out].dtype);
      } else {
        int32_t b;
        if (!free_buffers.empty()) {
          b = free_buffers.back();
          free_buffers.pop_back();
        } else {
          b = num_buffers++;
        }
        buffer_of[out] = b;
        ci.out.buffer_offset = b * buffer_bytes;
        out_->in_tiles[out] = 1;
        if (last_read[out] < 0) last_read[out] = static_cast<int32_t>(j);  // nothing reads it
      }
      // Buffers whose last reader this is are free for the next instruction.
      for (int32_t v : in.inputs) {
        if (buffer_of[v] >= 0 && last_read[v] == static_cast<int32_t>(j)) {
          free_buffers.push_back(buffer_of[v]);
          last_read[v] = -2;  // freed once even when read twice
        }
      }
      if (buffer_of[out] >= 0 && last_read[out] == static_cast<int32_t>(j)) free_buffers.push_back(buffer_of[out]);
      c.instrs.push_back(ci);
    }
    c.slot_bytes = num_buffers * buffer_bytes;
    c.slots = static_cast<int32_t>(
        std::min<int64_t>({std::max(1, threads_), c.num_tiles, int64_t{kMaxChainSlots}}));
    out_->steps.push_back(-static_cast<int32_t>(out_->chains.size()) - 1);
    out_->chains.push_back(std::move(c));
    for (int32_t m : members) member_[m] = 0;
    return true;
  }

  static void CopyDims(const TfnTensor& from, TfnTensor* to) {
    to->rank = from.rank;
    for (int d = 0; d < from.rank; ++d) to->dims[d] = from.dims[d];
  }

  const Program& p_;
  const std::vector<Shape>& shapes_;
  const std::vector<uint8_t>& dynamic_;
  const int threads_;
  Schedule* out_;
  std::vector<int32_t> open_;
  Shape shape_;
  std::vector<uint8_t> in_open_, is_result_, member_;
  std::vector<std::vector<int32_t>> readers_;
};

}  // namespace

Schedule MakeSchedule(const Program& program, const std::vector<Shape>& shapes,
                      const std::vector<uint8_t>& dynamic, bool fuse, int threads) {
  Schedule s;
  s.in_tiles.assign(program.values.size(), 0);
  if (!fuse) {
    for (int32_t i = 0; i < static_cast<int32_t>(program.instrs.size()); ++i) s.steps.push_back(i);
    return s;
  }
  Scheduler(program, shapes, dynamic, threads, &s).Run();
  return s;
}

}  // namespace tfn::runtime
