// One step of a run as a ProfileEvent (profile_step.h).
#include "runtime/profile_step.h"

#include <string>
#include <utility>
#include <vector>

#include "runtime/step_flops.h"

namespace tfn::runtime {

void RecordStep(Profiler& profiler, const StepView& view, int32_t step, int64_t start_ns) {
  const int64_t end_ns = profiler.NowNs();
  const Program& p = *view.program;
  ProfileEvent e;
  e.program = p.name;
  e.start_ns = start_ns;
  e.duration_ns = end_ns - start_ns;
  const Instr* last = nullptr;  // the instruction whose output the event shows
  if (step >= 0) {
    last = &p.instrs[step];
    e.step = step;
    e.op = OpName(last->op);
    e.container = GetOpDef(last->op).has(kControlFlow);
    if (!last->outputs.empty()) {
      std::vector<Shape> inputs;
      inputs.reserve(last->inputs.size());
      for (int32_t v : last->inputs) inputs.push_back(view.shapes[v]);
      e.flops = StepFlops(last->op, last->attrs, inputs.data(), static_cast<int>(inputs.size()),
                          view.shapes[last->outputs[0]]);
    }
  } else {
    const FusedChain& chain = view.plan->chains[-step - 1];
    e.op = "fused_chain";
    e.step = chain.instrs.front().instr;
    for (const ChainInstr& ci : chain.instrs) {
      if (!e.detail.empty()) e.detail += "+";
      e.detail += OpName(p.instrs[ci.instr].op);
    }
    e.detail += " ";
    last = &p.instrs[chain.instrs.back().instr];
  }
  if (!last->outputs.empty()) {
    const int32_t v = last->outputs[0];
    e.detail += TypeToString(static_cast<int>(p.values[v].dtype), view.shapes[v]);
  }
  profiler.Record(std::move(e));
}

}  // namespace tfn::runtime
