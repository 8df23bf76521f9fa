// The activations of fused_matmul and fused_conv2d (core/rules/rules_fused.h)
// by name, in the order of kernels/params.h's FusedActivation: the one list,
// which the shape rule checks and the kernels decode.
#pragma once

#include <string>

namespace tfn {

inline constexpr const char* kFusedActivations[] = {
    "none", "relu",      "clip",         "sigmoid",    "tanh",
    "gelu", "gelu_tanh", "hard_sigmoid", "hard_swish", "silu"};
inline constexpr int kNumFusedActivations =
    static_cast<int>(sizeof(kFusedActivations) / sizeof(kFusedActivations[0]));

// The FusedActivation value of name a, or -1.
inline int FusedActivationIndex(const std::string& a) {
  for (int i = 0; i < kNumFusedActivations; ++i) {
    if (a == kFusedActivations[i]) return i;
  }
  return -1;
}

}  // namespace tfn
