// Tests of the front end's indexing ops: gather_elements, scatter_elements,
// gather_nd, scatter_nd, top_k, non_zero and unique, eagerly and traced (the
// last two with shapes that depend on the data, also under a dynamic input
// signature), and errors that name the op.
#include <gtest/gtest.h>

#include "tfn/tfn.h"

namespace tfn {
namespace {

using I64 = std::vector<int64_t>;

TEST(IndexingOps, GatherAndScatterEagerAndTraced) {
  Tensor x = constant(std::vector<float>{1, 2, 3, 4}, Shape{2, 2});
  Tensor idx = constant(I64{0, 0, 1, 0}, Shape{2, 2});
  EXPECT_EQ(gather_elements(x, idx, 1).to_vector<float>(), (std::vector<float>{1, 1, 4, 3}));
  Tensor upd = constant(std::vector<float>{10, 20, 30, 40}, Shape{2, 2});
  EXPECT_EQ(scatter_elements(x, idx, upd, 1, "add").to_vector<float>(),
            (std::vector<float>{31, 2, 43, 34}));
  EXPECT_EQ(gather_nd(x, constant(I64{1, 0}, Shape{2, 1})).to_vector<float>(),
            (std::vector<float>{3, 4, 1, 2}));
  EXPECT_EQ(scatter_nd(x, constant(I64{1, 1}, Shape{1, 2}), constant(std::vector<float>{9}))
                .to_vector<float>(),
            (std::vector<float>{1, 2, 3, 9}));
  // Axis 0: out[i][j] = x[idx[i][j]][j].
  auto traced =
      function([](Tensor data, Tensor indices) { return gather_elements(data, indices, 0) * 2.0; });
  EXPECT_EQ(traced(x, idx).to_vector<float>(), (std::vector<float>{2, 4, 6, 4}));
}

TEST(IndexingOps, TopK) {
  Tensor x = constant(std::vector<float>{1, 5, 3, 5, 2, 0}, Shape{2, 3});
  auto [values, indices] = top_k(x, 2);
  EXPECT_EQ(values.shape(), (Shape{2, 2}));
  EXPECT_EQ(values.to_vector<float>(), (std::vector<float>{5, 3, 5, 2}));
  EXPECT_EQ(indices.to_vector<int64_t>(), (I64{1, 2, 0, 1}));
  auto smallest = function([](Tensor t) { return top_k(t, 1, 0, false).second; });
  EXPECT_EQ(smallest(x).to_vector<int64_t>(), (I64{0, 1, 1}));
}

TEST(IndexingOps, DataDependentShapes) {
  Tensor x = constant(std::vector<float>{2, 1, 1, 3, 4, 3});
  UniqueResult u = unique(x, std::nullopt, false);
  EXPECT_EQ(u.values.to_vector<float>(), (std::vector<float>{2, 1, 3, 4}));
  EXPECT_EQ(u.counts.to_vector<int64_t>(), (I64{1, 2, 2, 1}));
  EXPECT_EQ(non_zero(constant(std::vector<int32_t>{0, 7, 0, 1})).to_vector<int64_t>(), (I64{1, 3}));
  // Traced under a dynamic signature: the results' lengths follow the data.
  FunctionOptions o;
  o.input_signature = {TensorSpec({kDynamic}, DType::kFloat32)};
  auto distinct = function([](Tensor t) { return unique(t).values * 2.0; }, o);
  EXPECT_EQ(distinct(x).to_vector<float>(), (std::vector<float>{2, 4, 6, 8}));
  EXPECT_EQ(distinct(constant(std::vector<float>{5, 5})).to_vector<float>(),
            (std::vector<float>{10}));
  EXPECT_EQ(distinct.tracing_count(), 1);
  auto positions = function([](Tensor t) { return non_zero(t); }, o);
  EXPECT_EQ(positions(constant(std::vector<float>{0, 3, 3})).shape(), (Shape{1, 2}));
  EXPECT_EQ(unique(constant(std::vector<int64_t>{1, 0, 0, 1}, Shape{2, 2}), 0).values.shape(),
            (Shape{2, 2}));
}

TEST(IndexingOps, ErrorsNameTheOp) {
  Tensor x = constant(std::vector<float>{1, 2, 3, 4}, Shape{2, 2});
  try {
    gather_elements(x, constant(I64{0, 2}, Shape{1, 2}), 1);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("gather_elements"), std::string::npos) << e.what();
  }
  try {
    top_k(x, 3);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("top_k: k = 3"), std::string::npos) << e.what();
  }
  try {
    scatter_elements(x, constant(I64{0}, Shape{1, 1}), constant(std::vector<float>{1}, Shape{1, 1}),
                     0, "sub");
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("reduction 'sub'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tfn
