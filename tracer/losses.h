// Losses as graph ops: what a training step differentiates. Each is built
// from the front end's ops, so it runs eagerly, traces into the step's graph
// and differentiates with the ops' gradient rules. Errors name the argument,
// what was expected and what was given.
#pragma once

#include "tracer/tensor.h"

namespace tfn::losses {

// Mean over the batch of -log softmax(logits)[label] (PyTorch's
// cross_entropy, tf.nn.sparse_softmax_cross_entropy_with_logits averaged).
// logits: float [batch, classes]; labels: int32 or int64 [batch], each in
// [0, classes) (an out-of-range label is an error when the step runs).
Tensor sparse_softmax_cross_entropy(const Tensor& logits, const Tensor& labels);

// Mean of (prediction - target)^2 over every element; shapes must match.
Tensor mean_squared_error(const Tensor& prediction, const Tensor& target);

}  // namespace tfn::losses
