// The built-in model "transformer": one Transformer encoder block over a
// single sequence of dynamic length (batch 1 implied):
//
//   x: f32[?,256]  (sequence × d_model)
//   h = layer_norm(x + MultiHeadAttention(x))        4 heads of 64, scale 1/sqrt(64)
//   y = layer_norm(h + W2 · gelu(W1 · h + b1) + b2)  FFN 256 → 1024 → 256
//   -> y: f32[?,256]
//
// Post-norm, as in the original Transformer and BERT: layer_norm follows each
// residual addition (pre-norm would normalize the sub-layer's input instead).
// The heads are split by reshape [-1,4,64] and transpose to [4,?,64], so the
// attention is two batched matmuls with the sequence length left symbolic.
//
//   tfn-export transformer -o transformer.tfn
//   tfn-export transformer -o t128.tfn --signature serving_default:x=f32[128,256]
#include <cmath>
#include <map>
#include <string>

#include "examples/models/layers.h"
#include "exporter/model_registry.h"
#include "tfn/tfn.h"

namespace tfn::examples {
namespace {

constexpr int64_t kModel = 256, kHeads = 4, kHeadDim = kModel / kHeads, kFfn = 1024;

double InvSqrt(int64_t n) { return 1.0 / std::sqrt(static_cast<double>(n)); }

class LayerNorm {
 public:
  explicit LayerNorm(const std::string& name)
      : scale_(ones({kModel}), name + "/scale"), bias_(zeros({kModel}), name + "/bias") {}
  Tensor operator()(const Tensor& x) const { return layer_norm(x, scale_, bias_, /*axis=*/-1); }

 private:
  Variable scale_, bias_;
};

class EncoderBlock {
 public:
  // Projections use scale 1/sqrt(fan_in) (no ReLU follows them).
  EncoderBlock()
      : query_(kModel, kModel, 301, "transformer/attention/query", InvSqrt(kModel)),
        key_(kModel, kModel, 302, "transformer/attention/key", InvSqrt(kModel)),
        value_(kModel, kModel, 303, "transformer/attention/value", InvSqrt(kModel)),
        output_(kModel, kModel, 304, "transformer/attention/output", InvSqrt(kModel)),
        ffn_in_(kModel, kFfn, 305, "transformer/ffn/in", InvSqrt(kModel)),
        ffn_out_(kFfn, kModel, 306, "transformer/ffn/out", InvSqrt(kFfn)),
        norm1_("transformer/norm1"),
        norm2_("transformer/norm2") {}

  Tensor operator()(const Tensor& x) const {
    Tensor h = norm1_(x + Attention(x));
    return norm2_(h + ffn_out_(gelu(ffn_in_(h))));
  }

 private:
  // [S, 256] -> [4, S, 64]: one slice per head.
  static Tensor SplitHeads(const Tensor& t) {
    return transpose(reshape(t, {-1, kHeads, kHeadDim}), {1, 0, 2});
  }

  Tensor Attention(const Tensor& x) const {
    Tensor q = SplitHeads(query_(x)), k = SplitHeads(key_(x)), v = SplitHeads(value_(x));
    // Scores [4, S, S]: every query against every key, scaled so their
    // variance does not grow with the head size.
    Tensor scores = matmul(q, k, /*transpose_a=*/false, /*transpose_b=*/true) * InvSqrt(kHeadDim);
    Tensor context = matmul(softmax(scores, /*axis=*/-1), v);  // [4, S, 64]
    // Back to [S, 256]: heads side by side.
    return output_(reshape(transpose(context, {1, 0, 2}), {-1, kModel}));
  }

  Dense query_, key_, value_, output_, ffn_in_, ffn_out_;
  LayerNorm norm1_, norm2_;
};

// Made once per process, outside any trace; never destroyed (see mlp.cc).
const EncoderBlock& Model() {
  static const EncoderBlock* model = new EncoderBlock;
  return *model;
}

std::map<std::string, ConcreteFunction> ExportTransformer(const ExportRequest& request) {
  const EncoderBlock* model = &Model();
  std::vector<TensorSpec> specs =
      request.InputSpecs("serving_default", {TensorSpec({kDynamic, kModel}, DType::kFloat32, "x")});
  auto serve = function(
      [model](Tensor x) {
        return std::map<std::string, Tensor>{{"y", (*model)(x)}};
      },
      NamedOptions("transformer", specs, request));
  return {{"serving_default", serve.get_concrete_function(specs[0])}};
}

}  // namespace
}  // namespace tfn::examples

TFN_REGISTER_MODEL(transformer,
                   "one Transformer encoder block (d_model 256, 4 heads, GELU FFN 1024, post-norm) "
                   "on one sequence; x: f32[?,256]",
                   tfn::examples::ExportTransformer);
