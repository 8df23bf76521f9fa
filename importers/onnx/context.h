// The state of one ONNX import, and what op converters use to turn an ONNX
// node into tfn nodes.
//
// A converter reads the node's inputs (graph values, folded to constants when
// they are known) and attributes, adds tfn ops with Add (which folds ops on
// constants at once, so ONNX's shape arithmetic on static shapes becomes
// constants as the graph is built), and binds each ONNX output with Output.
// For int64 shape tensors whose values follow symbolically from input dims
// (Shape -> Gather -> Concat ...), the context keeps the symbolic values, so
// a Reshape to such a shape works with dynamic dims too.
//
// Converters live in ops_*.cc and register with TFN_ONNX_CONVERTER.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/attrs.h"
#include "ir/graph.h"
#include "onnx/onnx_pb.h"

namespace tfn::onnx_import {

// TFN_RETURN_IF_ERROR for absl::Status (the importer's status type).
#define TFN_ONNX_RETURN_IF_ERROR(expr)                   \
  do {                                                   \
    absl::Status tfn_onnx_status_ = (expr);              \
    if (!tfn_onnx_status_.ok()) return tfn_onnx_status_; \
  } while (0)

class Context;
using Converter = std::function<absl::Status(Context& ctx)>;

// Registers a converter for an ONNX op type (default domain) from `since`
// opset on (the newest registration not above the model's opset applies).
void RegisterConverter(const std::string& op_type, int since_opset, Converter converter);
// The converter for `op_type` at `opset`, or null.
const Converter* FindConverter(const std::string& op_type, int opset);

#define TFN_ONNX_CONCAT_INNER(a, b) a##b
#define TFN_ONNX_CONCAT(a, b) TFN_ONNX_CONCAT_INNER(a, b)
#define TFN_ONNX_CONVERTER(op_type, since, fn)                                         \
  static const bool TFN_ONNX_CONCAT(tfn_onnx_registered_, __LINE__) = [] {             \
    ::tfn::onnx_import::RegisterConverter(op_type, since, fn);                           \
    return true;                                                                         \
  }()

class Context {
 public:
  Context(ir::Graph* graph, int opset, std::string base_dir);

  // ---- the node being converted ----
  const onnx::NodeProto& node() const { return *node_; }
  void SetNode(const onnx::NodeProto* node) { node_ = node; }
  const onnx::NodeProto* node_ptr() const { return node_; }
  int opset() const { return opset_; }
  ir::Graph& graph() { return *graph_; }
  const std::string& base_dir() const { return base_dir_; }

  int num_inputs() const { return node_->input_size(); }
  bool HasInput(int i) const { return i < node_->input_size() && !node_->input(i).empty(); }
  // Input i as a graph value (an error names the node when it is missing).
  absl::StatusOr<ir::ValueRef> Input(int i);
  const ir::TensorType& Type(ir::ValueRef v) const { return graph_->type(v); }
  // The value's bytes when it is a constant (folding has made it one).
  const ConstTensor* ConstantOf(ir::ValueRef v) const { return graph_->ConstantValue(v); }
  // Input i must be a constant integer tensor; its values (a scalar gives one).
  absl::StatusOr<std::vector<int64_t>> ConstInts(int i);
  absl::StatusOr<std::vector<double>> ConstFloats(int i);
  // Input i is a quantization scale (`role`, e.g. "x_scale"): when it is a
  // constant, every value must be positive and finite, or the error names
  // the tensor and the value (a scale of 0 or NaN would quantize every value
  // to a saturated or undefined one, silently).
  absl::Status CheckScaleValues(int i, const std::string& role);
  // Symbolic values of an int64 shape tensor (static values included), when known.
  std::optional<std::vector<SymDim>> KnownValues(ir::ValueRef v) const;
  void SetKnownValues(ir::ValueRef v, std::vector<SymDim> values);

  // ---- attributes ----
  const onnx::AttributeProto* Attr(const std::string& name) const;
  bool HasAttr(const std::string& name) const { return Attr(name) != nullptr; }
  int64_t AttrInt(const std::string& name, int64_t fallback) const;
  float AttrFloat(const std::string& name, float fallback) const;
  std::string AttrString(const std::string& name, const std::string& fallback) const;
  std::vector<int64_t> AttrInts(const std::string& name, std::vector<int64_t> fallback = {}) const;
  std::vector<float> AttrFloats(const std::string& name) const;
  absl::StatusOr<ConstTensor> AttrTensor(const std::string& name) const;

  // ---- building ----
  // Adds an op; when every input is a constant (and the op is pure) it is
  // evaluated at once and a constant is added instead. An input of a storage
  // dtype the op does not compute on (float16, bfloat16, int8 ... uint32; see
  // core/op_def.h kStorageTypes) is cast to a wider dtype the op takes and
  // the outputs in that dtype are cast back, so converters need not know
  // which dtypes each tfn op takes. uint64 has no exact wider dtype: an op
  // that does not take it is refused.
  absl::StatusOr<ir::ValueRef> Add(OpId op, std::vector<ir::ValueRef> inputs, Attrs attrs = {});
  absl::StatusOr<std::vector<ir::ValueRef>> AddMulti(OpId op, std::vector<ir::ValueRef> inputs, Attrs attrs = {});
  ir::ValueRef Constant(const ConstTensor& t) { return graph_->AddConstant(t); }
  // A scalar of `value` converted to dtype; integers saturate (a double
  // beyond int64's range, such as 2^63, becomes INT64_MAX; NaN becomes 0).
  ir::ValueRef Scalar(DType dtype, double value);
  // An exact int64 scalar (doubles hold only 53 bits).
  ir::ValueRef Int64Scalar(int64_t value);
  ir::ValueRef Ints(const std::vector<int64_t>& values);  // int64 1-D constant
  // Binds ONNX output i of the node (outputs named "" are skipped).
  absl::Status Output(int i, ir::ValueRef v);
  // Binds an ONNX value name directly (graph inputs, initializers, subgraph params).
  void Bind(const std::string& name, ir::ValueRef v) { values_[name] = v; }
  bool IsBound(const std::string& name) const { return values_.count(name) > 0; }
  absl::StatusOr<ir::ValueRef> Lookup(const std::string& name) const;

  // An error that names the node: "node 'conv1' (Conv): <what>".
  absl::Status Error(const std::string& what) const;
  absl::Status Unsupported(const std::string& what) const;

 private:
  // Add without the widening: the op as given (folded when constant).
  absl::StatusOr<std::vector<ir::ValueRef>> AddExact(OpId op, std::vector<ir::ValueRef> inputs,
                                                     Attrs attrs);
  // Casts the inputs `op` does not take to the dtype it computes them in
  // (and an attribute "dtype" naming their dtype, as range's, to that
  // dtype); returns the dtype its outputs go back to (kInvalid: none).
  absl::StatusOr<DType> WidenInputs(OpId op, std::vector<ir::ValueRef>* inputs, Attrs* attrs);
  // Casts the outputs that have the widened dtype by the op's dtype rule
  // back to `narrow` (never bool or int64 results such as indices).
  absl::StatusOr<std::vector<ir::ValueRef>> NarrowOutputs(OpId op, DType narrow,
                                                          std::vector<ir::ValueRef> outs);

  ir::Graph* graph_;
  int opset_;
  std::string base_dir_;
  const onnx::NodeProto* node_ = nullptr;
  std::map<std::string, ir::ValueRef> values_;
  std::map<std::pair<int, int>, std::vector<SymDim>> known_;
};

// Converts a whole ONNX graph body into `graph` (parameters must already be
// bound). Used for the main graph and for If/Loop bodies.
absl::Status ConvertNodes(Context& ctx, const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes);

// Lists every op type (with node names) in `graph` and its subgraphs that no
// converter handles and no ONNX function expands; empty when all are known.
std::string UnsupportedOps(const onnx::GraphProto& graph, int opset);

}  // namespace tfn::onnx_import
