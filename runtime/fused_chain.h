// Elementwise fusion in the interpreter, without code generation: a chain
// of elementwise instructions that make tensors of one shape runs tile by
// tile (about 8K elements at a time), each tile through every
// instruction's own kernel with TfnTensor views of the tile, so that the
// intermediate values stay in L1/L2 instead of travelling through memory
// once per instruction. Values that nothing outside the chain reads never
// get an arena buffer: they live in per-thread tile buffers. Tiles are
// split across the thread pool.
//
// What may fuse is decided once, on the IR, by ir/passes/fuse_elementwise.h
// (the code generator fuses the same groups); the instructions carry it as
// Instr::fusion_group, and groups run in core/fusion_schedule.h's order.
// This scheduler, part of a Plan (made once per input shapes), only decides
// how a group runs on concrete shapes: as chains of consecutive members it
// can tile, with the members it cannot as single instructions between them.
// Programs without groups (unoptimized bundles, bundles older than groups)
// run unfused.
//
// A member joins a chain when its output is not dynamic, it has a kernel and
// at most kMaxChainInputs inputs, and each input is a value of the chain or
// one whose tile can be viewed as a tensor: the same shape as the output
// (leading 1s aside), a single element, or the output's trailing dims (a
// bias row, [H, W] against [N, C, H, W]) of at most kMaxTileElements. Tiles
// are whole rows of the widest such trailing block, so those operands
// broadcast within each tile by ordinary NumPy rules. Chains of one
// instruction are not made. Small tensors make chains of one tile: what
// they save is the cost of a step (a recurrence's gates on [1, 64] are a
// dozen steps of a few vector instructions each), most of all where the
// kernels have a row form (kernels.h), called on the tile without the
// kernel's broadcasting and dispatch.
// This relies on what every elementwise kernel does: compute each output
// element from the same elements of its inputs, with params that do not
// depend on ranks or shapes (ElementwiseParams), so a tile is a valid call.
//
// Everything here is plain data owned by the Plan (immutable once made).
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/kernel_abi.h"
#include "kernels/kernels.h"
#include "runtime/program.h"

namespace tfn::runtime {

inline constexpr int kMaxChainInputs = 3;
// Elements per tile the planner aims at (rounded to whole rows).
inline constexpr int64_t kTargetTileElements = 8192;
inline constexpr int64_t kMaxTileElements = 16384;
// Parallel chunks cover at least this many elements (as the kernels' 32K).
inline constexpr int64_t kMinParallelChainElements = 32768;
inline constexpr int kMaxChainSlots = 64;

// One operand (or the result) of a chain instruction, as seen by one tile.
struct ChainArg {
  int32_t value = -1;        // the program value read or written; -1: a tile buffer
  int64_t buffer_offset = 0; // tile buffer: bytes from the start of a slot
  int64_t row_bytes = 0;     // bytes per tile row when the data moves with the tile; 0: fixed
  bool rows_dim = false;     // view.dims[0] is the tile's row count
  TfnTensor view{};          // dims of a full tile, rank, dtype (data set per tile)
};

struct ChainInstr {
  int32_t instr = -1;
  int32_t num_inputs = 0;
  ChainArg in[kMaxChainInputs];
  ChainArg out;
  // The kernel's row form (kernels.h), when it has one and every input is a
  // whole tile (stride 1) or one element (stride 0): called instead of the
  // kernel, on the tile's elements in one run.
  kernels::ElementwiseRowFn row = nullptr;
  int8_t strides[kMaxChainInputs] = {};
};

struct FusedChain {
  std::vector<ChainInstr> instrs;  // in program order
  int64_t rows = 0;          // the output's elements / row_elements
  int64_t row_elements = 1;  // elements of one row (the widest trailing block)
  int64_t tile_rows = 0;     // rows per full tile
  int64_t num_tiles = 0;
  int64_t slot_bytes = 0;    // tile buffers of one thread (64-byte aligned)
  int32_t slots = 1;         // threads that may run tiles at once
};

// What the planner gets: the order to run things in, the chains, and which
// values live only in tile buffers.
struct Schedule {
  std::vector<int32_t> steps;  // >= 0: an instruction; < 0: chain -step - 1
  std::vector<FusedChain> chains;
  std::vector<uint8_t> in_tiles;  // per value: 1 when only tile buffers hold it
};

// Groups `program`'s instructions for these value shapes (`dynamic[v]`:
// shape known only at run time). Without `fuse`, every instruction is its
// own step. `threads`: how many threads may run one chain's tiles.
Schedule MakeSchedule(const Program& program, const std::vector<Shape>& shapes,
                      const std::vector<uint8_t>& dynamic, bool fuse, int threads);

}  // namespace tfn::runtime
