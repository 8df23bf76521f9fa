// Internal: how the op dispatch, Variable reads and calls the tape cannot see
// into reach the thread's gradient tapes (tracer/gradient_tape.cc).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/attrs.h"
#include "core/op_def.h"
#include "ir/graph.h"
#include "tracer/tensor.h"

namespace tfn::detail {

struct VariableImpl;

// True when some tape of this thread may record (cheap: checked per op).
bool TapesRecording();
// Records an op that ran (eagerly or into the current trace) on the tapes
// that watch one of its inputs; `attrs` are normalized (defaults set). A
// traced cond passes its branches, a traced while_loop its condition and
// body and, as `saved`, what it kept for its gradient (RecordedOp::saved).
void RecordOnTapes(OpId op, const Attrs& attrs, const std::vector<Tensor>& inputs,
                   const std::vector<Tensor>& outputs,
                   std::shared_ptr<const std::vector<ir::Graph>> subgraphs = nullptr,
                   std::vector<Tensor> saved = {});
// True when a recording tape of this trace level watches one of `inputs`.
bool TapesWatch(const std::vector<Tensor>& inputs);
// While one is alive, no tape of this thread records (ops built to stand
// for one recorded op use it: a traced while_loop's bookkeeping).
class TapesSuspended {
 public:
  TapesSuspended();
  ~TapesSuspended();
  TapesSuspended(const TapesSuspended&) = delete;
  TapesSuspended& operator=(const TapesSuspended&) = delete;
};
// Records a read of `v` that gave `value`.
void RecordVariableRead(const std::shared_ptr<VariableImpl>& v, const Tensor& value);
// Throws when a recording tape of this trace level watches one of `inputs`
// (or reads of variables, with `reads_variables`): `what` (a tfn::function
// call, cond, while_loop) would run without being recorded.
void RefuseUnrecordable(const std::vector<Tensor>& inputs, bool reads_variables,
                        const std::string& what);

}  // namespace tfn::detail
