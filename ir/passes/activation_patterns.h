// Activations written out as several elementwise ops, as ONNX exporters and
// ONNX function expansion emit them, recognized at a value x so epilogue
// fusion (fuse_epilogue.h) can compute them in the fused op's epilogue:
//
//   gelu          x * 0.5 * (1 + erf(x / sqrt2))     any association of the
//                                                   products; x * (1/sqrt2) too
//   hard_sigmoid  maximum(minimum(x * alpha + beta, 1), 0)   (ONNX HardSigmoid;
//                                                   minimum and maximum in either order)
//   hard_swish    x * hard_sigmoid(x)               (ONNX HardSwish: alpha 1/6, beta 0.5)
//   silu          x * sigmoid(x)                    (PyTorch SiLU / Swish)
//
// Every node of a pattern but x has a single use, inside the pattern, and
// the output type of x: nothing broadcasts. Matching only reads the graph.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"

namespace tfn::ir {

// Users of every node (one entry per use; graph results count as -1).
using UserLists = std::vector<std::vector<int>>;
UserLists Users(const Graph& g);

// Whether v is a float32/float64 constant with one element; its value in *out.
bool ScalarConstant(const Graph& g, ValueRef v, double* out);

struct ActivationMatch {
  std::string act;             // "gelu", "hard_sigmoid", "hard_swish" or "silu"
  double alpha = 0, beta = 0;  // hard_sigmoid's and hard_swish's
  int result = -1;             // the node that computes act(x)
  std::vector<int> inner;      // the pattern's other nodes
};

// Matches one of the activations above at x, using no node in `claimed`.
// Returns false (and leaves *m unspecified) when none matches.
bool MatchActivation(const Graph& g, ValueRef x, const UserLists& users,
                     const std::vector<bool>& claimed, ActivationMatch* m);

}  // namespace tfn::ir
