// Losses: cross-entropy with integer labels and mean squared error.
#include "tracer/losses.h"

#include <string>

#include "tracer/ops.h"

namespace tfn::losses {
namespace {

std::string TypeOf(const Tensor& t) {
  return std::string(DTypeName(t.dtype())) + ShapeToString(t.shape());
}

}  // namespace

Tensor sparse_softmax_cross_entropy(const Tensor& logits, const Tensor& labels) {
  const char* op = "sparse_softmax_cross_entropy";
  if (!logits.defined() || !IsFloating(logits.dtype()) || logits.rank() != 2) {
    throw Error(StatusCode::kInvalidArgument,
                std::string(op) + ": logits must be float [batch, classes], got " +
                    (logits.defined() ? TypeOf(logits) : std::string("an undefined tensor")));
  }
  if (!labels.defined() || (labels.dtype() != DType::kInt32 && labels.dtype() != DType::kInt64) ||
      labels.rank() != 1) {
    throw Error(StatusCode::kInvalidArgument,
                std::string(op) + ": labels must be int32 or int64 [batch] (class indices), got " +
                    (labels.defined() ? TypeOf(labels) : std::string("an undefined tensor")) +
                    (labels.defined() && IsFloating(labels.dtype())
                         ? "; cast them with tfn::cast(labels, DType::kInt64)"
                         : ""));
  }
  const int64_t batch = logits.shape()[0], label_batch = labels.shape()[0];
  if (batch != kDynamic && label_batch != kDynamic && batch != label_batch) {
    throw Error(StatusCode::kInvalidArgument, std::string(op) + ": logits " + TypeOf(logits) +
                                                  " and labels " + TypeOf(labels) +
                                                  " disagree on the batch size");
  }
  // gather_elements checks every label against [-classes, classes) when it
  // runs; negative labels are not classes, so they are refused before.
  const int64_t classes = logits.shape()[1];
  if (!labels.is_symbolic()) {
    const ConstTensor& values = labels.value();
    for (int64_t i = 0; i < labels.num_elements(); ++i) {
      const int64_t l = values.ElementAsInt(i);
      if (l < 0 || (classes != kDynamic && l >= classes)) {
        throw Error(StatusCode::kInvalidArgument,
                    std::string(op) + ": label " + std::to_string(i) + " is " + std::to_string(l) +
                        ", outside the " + std::to_string(classes) + " classes [0, " +
                        std::to_string(classes) + ")");
      }
    }
  }
  Tensor index = labels;
  if (labels.is_symbolic()) {  // a negative label becomes one gather_elements refuses
    const Tensor zero = zeros_like(labels);
    const Tensor count = cast(slice(shape(logits), {1}, {2}), labels.dtype());
    index = where(labels < zero, zero + count, labels);
  }
  const Tensor picked = gather_elements(log_softmax(logits, 1), expand_dims(index, 1), 1);
  return -reduce_mean(picked);
}

Tensor mean_squared_error(const Tensor& prediction, const Tensor& target) {
  if (prediction.dtype() != target.dtype() || prediction.shape() != target.shape()) {
    throw Error(StatusCode::kInvalidArgument,
                "mean_squared_error: prediction " + TypeOf(prediction) + " and target " +
                    TypeOf(target) + " must have one dtype and shape");
  }
  const Tensor diff = prediction - target;
  return reduce_mean(diff * diff);
}

}  // namespace tfn::losses
