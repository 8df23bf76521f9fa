// The interpreter fuses what the IR decided (ir/passes/fuse_elementwise.h)
// and nothing else: its chains lie within the bundle's fusion groups, a
// member it cannot tile splits a group rather than leaving it, a bundle
// without groups runs unfused, and groups a hostile bundle puts anywhere do
// not change results.
#include "runtime/fused_chain.h"

#include <gtest/gtest.h>

#include <cmath>

#include "runtime/executor.h"
#include "tfn/runtime.h"
#include "tfn/tfn.h"

namespace tfn {
namespace {

// relu(x * 2) * col + 1, then -|.| and exp: one group over f32[64, 512];
// `* col` (a column [64, 1]) is not a tile operand, so it splits the group
// into two chains. reduce_sum reads the group's last value.
std::shared_ptr<const runtime::Bundle> GroupBundle() {
  auto f = function([](Tensor x, Tensor col) {
    Tensor y = exp(-abs(relu(x * 2.0) * col + 1.0));
    return std::make_tuple(y, reduce_sum(y, {1}));
  });
  std::string bytes = serialize(
      {{"serving_default", f.get_concrete_function(TensorSpec({64, 512}, DType::kFloat32),
                                                   TensorSpec({64, 1}, DType::kFloat32))}});
  auto owned = std::make_shared<std::string>(bytes);
  auto b = runtime::Bundle::FromMemory(owned->data(), owned->size(), owned);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return *b;
}

const Shape kShapes[] = {Shape{64, 512}, Shape{64, 1}};

runtime::Plan PlanOf(const runtime::Module& module, int program) {
  Result<runtime::Plan> plan = runtime::MakePlan(module, program, kShapes);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return plan.ok() ? *plan : runtime::Plan();
}

std::vector<ConstTensor> RunProgram(std::shared_ptr<runtime::Module> module, int program) {
  std::vector<ConstTensor> in = {random_uniform({64, 512}, 1, -2, 2).value(),
                                 random_uniform({64, 1}, 2, -2, 2).value()};
  runtime::Executor ex(std::move(module));
  std::vector<ConstTensor> out;
  Status s = ex.Run(program, in.data(), static_cast<int>(in.size()), nullptr, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

bool Equal(const std::vector<ConstTensor>& a, const std::vector<ConstTensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    if (a[k].shape != b[k].shape) return false;
    for (int64_t i = 0; i < a[k].num_elements(); ++i) {
      if (a[k].ElementAsDouble(i) != b[k].ElementAsDouble(i)) return false;
    }
  }
  return true;
}

TEST(FusedChains, ChainsLieWithinTheBundlesGroups) {
  auto bundle = GroupBundle();
  const runtime::Module& module = *bundle->module();
  const int program = bundle->program_of(0);
  const runtime::Program& p = module.programs[program];
  runtime::Plan plan = PlanOf(module, program);
  ASSERT_EQ(plan.chains.size(), 2u) << "the column operand splits the group in two";
  int group = -1;
  for (const runtime::FusedChain& c : plan.chains) {
    for (const runtime::ChainInstr& ci : c.instrs) {
      const int g = p.instrs[ci.instr].fusion_group;
      ASSERT_GE(g, 0) << "a chain member outside every group";
      if (group < 0) group = g;
      EXPECT_EQ(g, group) << "chains of one group";
    }
  }
  EXPECT_EQ(plan.chains[0].instrs.size(), 2u);  // x * 2, relu
  EXPECT_EQ(plan.chains[1].instrs.size(), 4u);  // + 1, abs, neg, exp
}

TEST(FusedChains, WithoutGroupsNothingIsFused) {
  auto bundle = GroupBundle();
  const int program = bundle->program_of(0);
  auto stripped = std::make_shared<runtime::Module>(*bundle->module());
  for (runtime::Program& p : stripped->programs) {
    for (runtime::Instr& in : p.instrs) in.fusion_group = -1;
  }
  EXPECT_TRUE(PlanOf(*stripped, program).chains.empty());
  auto fused = std::make_shared<runtime::Module>(*bundle->module());
  EXPECT_TRUE(Equal(RunProgram(stripped, program), RunProgram(fused, program)));
}

TEST(FusedChains, HostileGroupsDoNotChangeResults) {
  auto bundle = GroupBundle();
  const int program = bundle->program_of(0);
  auto unfused = std::make_shared<runtime::Module>(*bundle->module());
  unfused->fuse_elementwise = false;
  const std::vector<ConstTensor> want = RunProgram(unfused, program);
  // Every instruction in group 0 (reduce_sum too), then groups that
  // alternate, then one id reused after its group closed.
  for (int pattern = 0; pattern < 3; ++pattern) {
    SCOPED_TRACE("pattern " + std::to_string(pattern));
    auto hostile = std::make_shared<runtime::Module>(*bundle->module());
    int k = 0;
    for (runtime::Instr& in : hostile->programs[program].instrs) {
      in.fusion_group = pattern == 0 ? 0 : pattern == 1 ? k % 2 : (k < 3 ? 0 : k < 5 ? 1 : 0);
      ++k;
    }
    EXPECT_TRUE(Equal(RunProgram(hostile, program), want));
  }
}

// A recurrence's gates: elementwise math on [4, 16] (a bias [16] broadcast
// over the rows by one member). Small tensors make one chain of one tile; members whose
// operands are whole tiles or scalars call their kernel's row form where it
// has one (optimized kernels); results equal the unfused run's, bit for bit.
TEST(FusedChains, SmallTensorsMakeOneTileChains) {
  auto f = function([](Tensor x, Tensor h, Tensor bias) {
    Tensor z = sigmoid(x + h);
    Tensor n = tanh(x * 0.5 + bias);
    return n + z * (h - n);
  });
  const Shape shapes[] = {Shape{4, 16}, Shape{4, 16}, Shape{16}};
  std::string bytes =
      serialize({{"serving_default", f.get_concrete_function(TensorSpec({4, 16}, DType::kFloat32),
                                                             TensorSpec({4, 16}, DType::kFloat32),
                                                             TensorSpec({16}, DType::kFloat32))}});
  auto owned = std::make_shared<std::string>(bytes);
  auto bundle = runtime::Bundle::FromMemory(owned->data(), owned->size(), owned);
  ASSERT_TRUE(bundle.ok()) << bundle.status().ToString();
  const runtime::Module& module = *(*bundle)->module();
  const int program = (*bundle)->program_of(0);
  const runtime::Program& p = module.programs[program];
  Result<runtime::Plan> plan = runtime::MakePlan(module, program, shapes);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->chains.size(), 1u);
  const runtime::FusedChain& chain = plan->chains[0];
  EXPECT_EQ(chain.num_tiles, 1);
  EXPECT_EQ(chain.instrs.size(), 8u);  // + sigmoid * + tanh - * +
  EXPECT_EQ(plan->steps.size(), 1u);
  int with_row = 0, kernels_with_row = 0;
  for (const runtime::ChainInstr& ci : chain.instrs) {
    kernels_with_row += p.instrs[ci.instr].kernel.row != nullptr;
    const runtime::Instr& in = p.instrs[ci.instr];
    bool whole_or_scalar = true;
    for (int k = 0; k < ci.num_inputs; ++k) {
      whole_or_scalar &= ci.in[k].rows_dim || ci.in[k].view.rank == 0;
    }
    EXPECT_EQ(ci.row != nullptr, in.kernel.row != nullptr && whole_or_scalar)
        << "instruction " << ci.instr;
    with_row += ci.row != nullptr;
  }
  // Optimized kernels have row forms for all eight; the minimal runtime's
  // reference kernels for none.
  if (kernels_with_row > 0) {
    EXPECT_EQ(with_row, 7) << "the bias add broadcasts a [16] row: it calls its kernel";
  }

  std::vector<ConstTensor> in = {random_uniform({4, 16}, 1, -3, 3).value(),
                                 random_uniform({4, 16}, 2, -3, 3).value(),
                                 random_uniform({16}, 3, -1, 1).value()};
  auto run = [&](bool fuse) {
    auto m = std::make_shared<runtime::Module>(module);
    m->fuse_elementwise = fuse;
    runtime::Executor ex(std::move(m));
    std::vector<ConstTensor> out;
    Status s = ex.Run(program, in.data(), static_cast<int>(in.size()), nullptr, &out);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  };
  const std::vector<ConstTensor> fused = run(true), unfused = run(false);
  EXPECT_TRUE(Equal(fused, unfused));
  // And against the math, in double: |error| <= 1e-5 (vec_math's tanh and
  // sigmoid are within a few ulp).
  ASSERT_EQ(fused.size(), 1u);
  for (int64_t i = 0; i < 64; ++i) {
    const double x = in[0].ElementAsDouble(i), h = in[1].ElementAsDouble(i),
                 b = in[2].ElementAsDouble(i % 16);
    const double z = 1 / (1 + std::exp(-(x + h))), n = std::tanh(x * 0.5 + b);
    EXPECT_NEAR(fused[0].ElementAsDouble(i), n + z * (h - n), 1e-5) << i;
  }
}

}  // namespace
}  // namespace tfn
