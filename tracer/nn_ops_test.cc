// Tests of the front end's conv2d_transpose, resize and the pooling options
// ceil_mode and dilations: eager results, the same results from a traced
// function, and errors that name the op.
#include <gtest/gtest.h>

#include "tfn/tfn.h"

namespace tfn {
namespace {

TEST(NnOps, Conv2DTransposeEagerAndTraced) {
  // A 2x2 input scattered through a 2x2 filter of ones with stride 2: each
  // input cell fills its own 2x2 block.
  Tensor x = constant(std::vector<float>{1, 2, 3, 4}, Shape{1, 2, 2, 1});
  Tensor f = ones(Shape{2, 2, 1, 1});
  Conv2DTransposeOptions o;
  o.strides = {2, 2};
  Tensor y = conv2d_transpose(x, f, o);
  EXPECT_EQ(y.shape(), (Shape{1, 4, 4, 1}));
  EXPECT_EQ(y.to_vector<float>(),
            (std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  auto traced =
      function([f, o](Tensor in) { return conv2d_transpose(in, f, constant({0.5f}), o); });
  EXPECT_EQ(traced(x).to_vector<float>(),
            (std::vector<float>{1.5f, 1.5f, 2.5f, 2.5f, 1.5f, 1.5f, 2.5f, 2.5f, 3.5f, 3.5f, 4.5f,
                                4.5f, 3.5f, 3.5f, 4.5f, 4.5f}));
  try {
    conv2d_transpose(x, ones(Shape{2, 2, 1, 3}));
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("conv2d_transpose: filter"), std::string::npos)
        << e.what();
  }
}

TEST(NnOps, ResizeNhwcEagerAndTraced) {
  Tensor x = constant(std::vector<float>{1, 2, 3, 4}, Shape{1, 2, 2, 1});
  Tensor nearest = resize(x, Shape{1, 4, 4, 1});
  EXPECT_EQ(nearest.to_vector<float>(),
            (std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  ResizeOptions linear;
  linear.mode = "linear";
  linear.coordinate_transformation_mode = "align_corners";
  std::vector<float> expected = {1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4};
  EXPECT_EQ(resize(x, Shape{1, 3, 3, 1}, linear).to_vector<float>(), expected);
  auto traced = function([linear](Tensor in) { return resize(in, Shape{1, 3, 3, 1}, linear); });
  EXPECT_EQ(traced(x).to_vector<float>(), expected);
}

TEST(NnOps, PoolCeilModeAndDilations) {
  std::vector<float> v(16);
  for (int i = 0; i < 16; ++i) v[i] = static_cast<float>(i + 1);
  Tensor x = constant(v, Shape{1, 4, 4, 1});
  Pool2DOptions o;
  o.ksize = {3, 3};
  o.strides = {2, 2};
  o.ceil_mode = true;
  EXPECT_EQ(max_pool2d(x, o).to_vector<float>(), (std::vector<float>{11, 12, 15, 16}));
  Pool2DOptions d;
  d.ksize = {2, 2};
  d.strides = {1, 1};
  d.dilations = {3, 3};  // taps at rows/columns 0 and 3
  EXPECT_EQ(avg_pool2d(x, d).to_vector<float>(), (std::vector<float>{8.5f}));
}

}  // namespace
}  // namespace tfn
