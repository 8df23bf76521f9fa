// The example models the benches run (examples/models, exported by
// tfn-export): their order, names and input shapes, shared by aot_bench and
// runtime_bench so that model i is the same model in both.
#pragma once

#include <cstdint>

#include "core/shape.h"

namespace tfn::bench {

inline constexpr const char* kExampleModels[] = {"mlp", "cnn", "transformer"};

// Model i's input shape at this batch (the transformer's batch is its
// sequence length).
inline Shape ExampleModelInputShape(int model, int64_t batch) {
  switch (model) {
    case 0:
      return {batch, 784};
    case 1:
      return {batch, 28, 28, 1};
    default:
      return {batch, 256};
  }
}

}  // namespace tfn::bench
