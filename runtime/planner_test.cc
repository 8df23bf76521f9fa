// Split views (runtime/planner.h): a split whose dims before the axis are all
// 1 gives byte ranges of its input and runs without a copy (a view of an
// arena buffer without a step at all); its input's buffer lives as long as
// the views are read (the planner reuses memory, so a short lifetime would
// show up as wrong results); other splits copy. And variable updates: an
// assign after the last use of the run's reads writes the variable in place
// (ValueFacts::read_last_step), one before it copies.
#include "runtime/planner.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "runtime/executor.h"
#include "tests/testing/bundle_bytes.h"
#include "tfn/runtime.h"
#include "tfn/tfn.h"

namespace tfn {
namespace {

struct Planned {
  std::shared_ptr<const runtime::Bundle> bundle;
  runtime::Plan plan;
  int split = -1;  // the split's instruction
};

// y = a * 2 * b + c (+ a negligible term), where [a, b, c] = split(x * 3,
// axis), and a large value made after the split competes for the arena.
// With of_input, the split reads the input x itself and y = a * 2 * b + c
// on [a, b, c] = split(x).
Planned Make(const Shape& shape, int64_t axis, bool of_input = false) {
  auto f = function([axis, of_input](Tensor x, Tensor big) {
    std::vector<Tensor> parts = split(of_input ? x : x * 3.0, 3, axis);
    Tensor noise = reduce_sum(exp(big * 0.5), {0, 1});  // a scalar from a large buffer
    return parts[0] * 2.0 * parts[1] + parts[2] + noise * 1e-30;
  });
  std::string bytes = serialize(
      {{"serving_default", f.get_concrete_function(TensorSpec(shape, DType::kFloat32),
                                                   TensorSpec({64, 256}, DType::kFloat32))}});
  auto owned = std::make_shared<std::string>(bytes);
  auto b = runtime::Bundle::FromMemory(owned->data(), owned->size(), owned);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  Planned out;
  out.bundle = *b;
  const runtime::Module& module = *out.bundle->module();
  const int program = out.bundle->program_of(0);
  const Shape shapes[] = {shape, Shape{64, 256}};
  Result<runtime::Plan> plan = runtime::MakePlan(module, program, shapes);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  if (plan.ok()) out.plan = *plan;
  const runtime::Program& p = module.programs[program];
  for (size_t i = 0; i < p.instrs.size(); ++i) {
    if (p.instrs[i].op == OpId::kSplit) out.split = static_cast<int>(i);
  }
  return out;
}

// Runs the bundle and checks y against the formula, element by element.
void CheckResults(const Planned& m, const Shape& shape, int64_t axis, double scale = 3.0) {
  ConstTensor x = random_uniform(shape, 5, -2, 2).value();
  ConstTensor big = random_uniform({64, 256}, 6, -1, 1).value();
  runtime::Executor ex(std::make_shared<runtime::Module>(*m.bundle->module()));
  std::vector<ConstTensor> in = {x, big}, out;
  Status s = ex.Run(m.bundle->program_of(0), in.data(), 2, nullptr, &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(out.size(), 1u);
  // Parts along `axis` of a rank-2 x: element (i, j) of part k.
  const int64_t rows = shape[0], cols = shape[1];
  const int64_t part_rows = axis == 0 ? rows / 3 : rows, part_cols = axis == 1 ? cols / 3 : cols;
  ASSERT_EQ(out[0].shape, (Shape{part_rows, part_cols}));
  auto at = [&](int k, int64_t i, int64_t j) {
    const int64_t r = axis == 0 ? k * part_rows + i : i, c = axis == 1 ? k * part_cols + j : j;
    return scale * static_cast<double>(x.as<float>()[r * cols + c]);
  };
  for (int64_t i = 0; i < part_rows; ++i) {
    for (int64_t j = 0; j < part_cols; ++j) {
      const double want = at(0, i, j) * 2.0 * at(1, i, j) + at(2, i, j);
      EXPECT_NEAR(out[0].as<float>()[i * part_cols + j], want, 1e-5 * (1 + std::abs(want)))
          << i << ", " << j;
    }
  }
}

TEST(SplitViews, LeadingOnesMakeViews) {
  for (auto [shape, axis] :
       {std::pair{Shape{1, 192}, int64_t{1}}, std::pair{Shape{12, 64}, int64_t{0}}}) {
    SCOPED_TRACE(ShapeToString(shape) + " axis " + std::to_string(axis));
    Planned m = Make(shape, axis);
    ASSERT_GE(m.split, 0);
    const runtime::Program& p = m.bundle->module()->programs[m.bundle->program_of(0)];
    const runtime::Instr& split = p.instrs[m.split];
    EXPECT_TRUE(runtime::IsView(m.plan, split));
    const int64_t piece = NumElements(m.plan.shapes[split.outputs[0]]) * 4;
    // x * 3 is in the arena: the views are inside its buffer, and the split
    // is no step of its own.
    const int64_t base = m.plan.offsets[split.inputs[0]];
    ASSERT_GE(base, 0);
    for (size_t k = 0; k < split.outputs.size(); ++k) {
      EXPECT_EQ(m.plan.facts[split.outputs[k]].view_offset, static_cast<int64_t>(k) * piece);
      EXPECT_EQ(m.plan.offsets[split.outputs[k]], base + static_cast<int64_t>(k) * piece);
    }
    EXPECT_EQ(std::count(m.plan.steps.begin(), m.plan.steps.end(), m.split), 0);
    CheckResults(m, shape, axis);
  }
}

// A view of an input: its pointer changes per run, so the split keeps its
// step (which sets the pointers); still no copy.
TEST(SplitViews, ViewsOfAnInputKeepTheirStep) {
  const Shape shape{1, 30};
  Planned m = Make(shape, 1, /*of_input=*/true);
  ASSERT_GE(m.split, 0);
  const runtime::Program& p = m.bundle->module()->programs[m.bundle->program_of(0)];
  EXPECT_TRUE(runtime::IsView(m.plan, p.instrs[m.split]));
  EXPECT_EQ(m.plan.offsets[p.instrs[m.split].outputs[0]], -1);
  EXPECT_EQ(std::count(m.plan.steps.begin(), m.plan.steps.end(), m.split), 1);
  CheckResults(m, shape, 1, 1.0);
}

TEST(SplitViews, OtherSplitsCopy) {
  const Shape shape{2, 48};
  Planned m = Make(shape, 1);
  ASSERT_GE(m.split, 0);
  const runtime::Program& p = m.bundle->module()->programs[m.bundle->program_of(0)];
  EXPECT_FALSE(runtime::IsView(m.plan, p.instrs[m.split]))
      << "[2, 48] along axis 1: pieces are not contiguous";
  CheckResults(m, shape, 1);
}

// w <- w * 0.5 + x, with the old w's sum returned (read before the
// assign); with late_use, the old w is also read after the assign.
std::shared_ptr<const runtime::Bundle> UpdateBundle(bool late_use) {
  Variable w(fill({256, 256}, 2.0f), "w");
  auto f = function([w, late_use](Tensor x) {
    Tensor old = w.value();
    Tensor sum = reduce_sum(old);
    w.assign(old * 0.5f + x);
    if (late_use) sum = sum + reduce_sum(old * 0.0f + old);  // uses the read after the assign
    return sum;
  });
  return testing::BundleFromBytes(
      serialize({{"step", f.get_concrete_function(TensorSpec({256, 256}, DType::kFloat32))}}));
}

TEST(VariableUpdates, AnAssignAfterTheLastReadWritesInPlace) {
  for (bool late_use : {false, true}) {
    SCOPED_TRACE(late_use ? "the read is used after the assign" : "the read is used up");
    runtime::Session session(UpdateBundle(late_use), runtime::SessionOptions{1, nullptr});
    ConstTensor x = fill({256, 256}, 1.0f).value();
    const void* storage = nullptr;
    float w = 2;  // every element of the variable
    for (int run = 0; run < 3; ++run) {
      auto out = session.Run("step", {x});
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      const double want = 65536.0 * w * (late_use ? 2 : 1);
      EXPECT_NEAR((*out)[0].ElementAsDouble(0), want, 1e-6 * want);
      w = w * 0.5f + 1;
      const void* now = nullptr;
      {
        Result<ConstTensor> v = session.ReadVariable("w");
        ASSERT_TRUE(v.ok());
        EXPECT_EQ(v->as<float>()[12345], w);
        now = v->data;
      }  // the snapshot is dropped: the next run may write in place
      // The first assign copies the bundle's bytes; then in place, unless
      // the run still needs the old value (copy-on-write).
      if (run > 0) {
        EXPECT_EQ(now == storage, !late_use) << "run " << run;
      }
      storage = now;
    }
  }
}

}  // namespace
}  // namespace tfn
