// The OIP GRPCInferenceService on gRPC's synchronous server: decodes each
// request into inference.h's types, runs it on InferenceServer, and encodes
// the result (outputs always as raw_output_contents, which Triton's and
// KServe's clients read first).
#include "serve/grpc_server.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/attrs.h"
#include "core/dtype.h"
#include "core/shape.h"
#include "grpc_service.grpc.pb.h"
#include "grpc_service.pb.h"
#include "serve/datatype.h"
#include "serve/inference.h"

// Raw contents are little-endian on the wire and copied as they are.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "grpc_server.cc copies raw tensor bytes as they are; a big-endian host needs swaps");

namespace tfn::serve {
namespace {

using RawContents = google::protobuf::RepeatedPtrField<std::string>;

grpc::Status ToGrpc(const Status& status) {
  return grpc::Status(static_cast<grpc::StatusCode>(GrpcCodeOf(status)), status.message());
}

std::string ShapeText(const google::protobuf::RepeatedField<int64_t>& shape) {
  std::string s = "[";
  for (int i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape.Get(i));
  return s + "]";
}

// "input 'x' (FP32[2,784])": how errors name an input.
std::string Describe(const inference::ModelInferRequest::InferInputTensor& in) {
  return "input '" + in.name() + "' (" + in.datatype() + ShapeText(in.shape()) + ")";
}

// The InferTensorContents field that holds values of `dtype` (the
// protocol's table: the narrow integers share their 32-bit field); "" for
// FP16 and BF16, which the protocol sends as raw contents only.
const char* ContentsField(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return "bool_contents";
    case DType::kInt8:
    case DType::kInt16:
    case DType::kInt32:
      return "int_contents";
    case DType::kInt64:
      return "int64_contents";
    case DType::kUInt8:
    case DType::kUInt16:
    case DType::kUInt32:
      return "uint_contents";
    case DType::kUInt64:
      return "uint64_contents";
    case DType::kFloat32:
      return "fp32_contents";
    case DType::kFloat64:
      return "fp64_contents";
    default:
      return "";
  }
}

struct FieldSize {
  const char* name;
  int size;
};

// The typed fields of `c` that hold values, with their sizes.
std::vector<FieldSize> NonEmptyFields(const inference::InferTensorContents& c) {
  std::vector<FieldSize> fields;
  auto add = [&](const char* name, int size) {
    if (size > 0) fields.push_back({name, size});
  };
  add("bool_contents", c.bool_contents_size());
  add("int_contents", c.int_contents_size());
  add("int64_contents", c.int64_contents_size());
  add("uint_contents", c.uint_contents_size());
  add("uint64_contents", c.uint64_contents_size());
  add("fp32_contents", c.fp32_contents_size());
  add("fp64_contents", c.fp64_contents_size());
  add("bytes_contents", c.bytes_contents_size());
  return fields;
}

// "[-128, 127]": T's range, for messages.
template <class T>
std::string RangeText() {
  if constexpr (std::is_signed_v<T>) {
    return "[" + std::to_string(static_cast<int64_t>(std::numeric_limits<T>::min())) + ", " +
           std::to_string(static_cast<int64_t>(std::numeric_limits<T>::max())) + "]";
  } else {
    return "[0, " + std::to_string(static_cast<uint64_t>(std::numeric_limits<T>::max())) + "]";
  }
}

// Whether `v`, from a contents field of type V, is in T's range: int_contents
// carries INT8 and INT16 as int32, uint_contents UINT8 and UINT16 as uint32,
// and a value beyond the datatype is the client's error, not a wrap-around.
template <class T, class V>
bool InRange(V v) {
  if constexpr (!std::is_integral_v<T> || std::is_same_v<T, bool> || sizeof(T) >= sizeof(V)) {
    return true;
  } else if constexpr (std::is_signed_v<T>) {
    return v >= std::numeric_limits<T>::min() && v <= std::numeric_limits<T>::max();
  } else {
    return v <= std::numeric_limits<T>::max();
  }
}

// Copies the typed values of contents.`field` into a new (aligned, owning)
// tensor, each checked against the datatype's range; the caller has checked
// that `values` holds exactly NumElements(shape) of them.
template <class T, class Values>
Result<runtime::Tensor> CopyValues(const inference::ModelInferRequest::InferInputTensor& in,
                                   DType dtype, const Shape& shape, const char* field,
                                   const Values& values) {
  void* out = nullptr;
  runtime::Tensor t = ConstTensor::Allocate(dtype, shape, &out);
  if (!out && values.size() > 0) {
    return ResourceExhausted("out of memory for an input of " + TypeToString(int(dtype), shape));
  }
  T* dst = static_cast<T*>(out);
  for (int i = 0; i < values.size(); ++i) {
    if (!InRange<T>(values.Get(i))) {
      return InvalidArgument(Describe(in) + ": contents." + field + "[" + std::to_string(i) +
                             "] is " + std::to_string(values.Get(i)) + ", outside " +
                             in.datatype() + "'s range " + RangeText<T>());
    }
    dst[i] = static_cast<T>(values.Get(i));
  }
  return t;
}

Result<runtime::Tensor> FromContents(const inference::ModelInferRequest::InferInputTensor& in,
                                     DType dtype, const Shape& shape, int64_t elements) {
  const char* field = ContentsField(dtype);
  if (*field == '\0') {
    return InvalidArgument(Describe(in) + ": " + in.datatype() +
                           " has no typed contents field in the Open Inference Protocol; send "
                           "its bytes (" +
                           std::to_string(DTypeSize(dtype)) +
                           " per element, little-endian) in raw_input_contents (then every "
                           "input's bytes go there, one entry per input, in order)");
  }
  std::vector<FieldSize> given = NonEmptyFields(in.contents());
  for (const FieldSize& f : given) {
    if (std::string(f.name) != field) {
      return InvalidArgument(Describe(in) + ": " + in.datatype() + " values go in contents." +
                             field + ", but the request has " + std::to_string(f.size) +
                             " values in contents." + f.name);
    }
  }
  const int64_t count = given.empty() ? 0 : given[0].size;
  if (count != elements) {
    if (count == 0) {
      return InvalidArgument(Describe(in) + " has no data: give its " + std::to_string(elements) +
                             " values in contents." + field +
                             ", or every input's bytes in raw_input_contents");
    }
    return InvalidArgument(Describe(in) + " has " + std::to_string(elements) +
                           " elements, but contents." + field + " has " + std::to_string(count) +
                           " values");
  }
  const inference::InferTensorContents& c = in.contents();
  switch (dtype) {
    case DType::kBool:
      return CopyValues<bool>(in, dtype, shape, field, c.bool_contents());
    case DType::kInt8:
      return CopyValues<int8_t>(in, dtype, shape, field, c.int_contents());
    case DType::kInt16:
      return CopyValues<int16_t>(in, dtype, shape, field, c.int_contents());
    case DType::kInt32:
      return CopyValues<int32_t>(in, dtype, shape, field, c.int_contents());
    case DType::kInt64:
      return CopyValues<int64_t>(in, dtype, shape, field, c.int64_contents());
    case DType::kUInt8:
      return CopyValues<uint8_t>(in, dtype, shape, field, c.uint_contents());
    case DType::kUInt16:
      return CopyValues<uint16_t>(in, dtype, shape, field, c.uint_contents());
    case DType::kUInt32:
      return CopyValues<uint32_t>(in, dtype, shape, field, c.uint_contents());
    case DType::kUInt64:
      return CopyValues<uint64_t>(in, dtype, shape, field, c.uint64_contents());
    case DType::kFloat32:
      return CopyValues<float>(in, dtype, shape, field, c.fp32_contents());
    case DType::kFloat64:
      return CopyValues<double>(in, dtype, shape, field, c.fp64_contents());
    default:
      return Internal("no contents field for dtype " + std::string(DTypeName(dtype)));
  }
}

// raw_input_contents[index] as a tensor: a view of the bytes when they are
// aligned for the dtype (the tensor and the request share `owner`, which
// holds them), else an aligned copy.
Result<runtime::Tensor> FromRaw(const inference::ModelInferRequest::InferInputTensor& in,
                                DType dtype, const Shape& shape, int64_t elements,
                                const std::string& raw, int index,
                                const std::shared_ptr<const void>& owner) {
  const int64_t size = DTypeSize(dtype);
  if (elements > std::numeric_limits<int64_t>::max() / size) {
    return InvalidArgument(Describe(in) + " would have more than 2^63 bytes");
  }
  const int64_t expected = elements * size;
  if (static_cast<uint64_t>(expected) != static_cast<uint64_t>(raw.size())) {
    return InvalidArgument(Describe(in) + ": raw_input_contents[" + std::to_string(index) +
                           "] must have " + std::to_string(expected) + " bytes (" +
                           std::to_string(elements) + " elements x " + std::to_string(size) +
                           " bytes), but has " + std::to_string(raw.size()));
  }
  if (dtype == DType::kBool) {
    TFN_RETURN_IF_ERROR(
        CheckBinaryBools(raw.data(), elements,
                         Describe(in) + ": raw_input_contents[" + std::to_string(index) + "]"));
  }
  if (reinterpret_cast<uintptr_t>(raw.data()) % static_cast<uintptr_t>(size) == 0) {
    runtime::Tensor t;
    t.dtype = dtype;
    t.shape = shape;
    t.data = raw.data();
    t.owner = owner;
    return t;
  }
  runtime::Tensor t = ConstTensor::Copy(dtype, shape, raw.data());
  if (!t.data && expected > 0) {
    return ResourceExhausted("out of memory copying " + Describe(in));
  }
  return t;
}

// The request as InferenceServer takes it. Takes the request's raw contents
// (no copy): `request` is the handler's own, destroyed when it returns.
Result<InferRequest> Decode(const inference::ModelInferRequest& request) {
  InferRequest out;
  if (request.model_name().empty()) {
    return InvalidArgument("ModelInferRequest.model_name is empty: name the model to run");
  }
  out.model = request.model_name();
  out.version = request.model_version();
  out.id = request.id();

  auto sig = request.parameters().find("signature_name");
  if (sig != request.parameters().end()) {
    if (sig->second.parameter_choice_case() != inference::InferParameter::kStringParam) {
      return InvalidArgument(
          "request parameter 'signature_name' must be a string_param (the name of the signature "
          "to run)");
    }
    out.signature = sig->second.string_param();
  }

  const bool use_raw = request.raw_input_contents_size() > 0;
  if (use_raw && request.raw_input_contents_size() != request.inputs_size()) {
    return InvalidArgument("raw_input_contents has " +
                           std::to_string(request.raw_input_contents_size()) +
                           " entries but the request has " + std::to_string(request.inputs_size()) +
                           " inputs: give one per input, in the order of inputs");
  }
  // gRPC's synchronous API hands the handler a request it owns alone and
  // destroys right after the handler returns, as const. Moving its raw
  // buffers into a shared block (a pointer swap: the message has no arena)
  // lets the InferRequest own what its tensors view, as inference.h asks,
  // without copying a byte.
  auto raw = std::make_shared<RawContents>();
  if (use_raw) {
    const_cast<inference::ModelInferRequest&>(request).mutable_raw_input_contents()->Swap(
        raw.get());
  }
  out.keepalive = raw;

  std::set<std::string> names;
  for (int i = 0; i < request.inputs_size(); ++i) {
    const inference::ModelInferRequest::InferInputTensor& in = request.inputs(i);
    if (in.name().empty()) {
      return InvalidArgument("inputs[" + std::to_string(i) + "] has no name");
    }
    if (!names.insert(in.name()).second) {
      return InvalidArgument("input '" + in.name() + "' is given twice");
    }
    const DType dtype = DTypeFromOip(in.datatype());
    if (dtype == DType::kInvalid) {
      return InvalidArgument("input '" + in.name() + "': datatype " +
                             DescribeUnsupported(in.datatype()));
    }
    if (in.shape_size() > kMaxRank) {
      return InvalidArgument(Describe(in) + " has rank " + std::to_string(in.shape_size()) +
                             "; tfn tensors have rank " + std::to_string(kMaxRank) + " at most");
    }
    const Shape shape(in.shape().begin(), in.shape().end());
    int64_t elements = 0;
    if (!CheckedNumElements(shape, &elements)) {
      for (int64_t d : shape) {
        if (d < 0) {
          return InvalidArgument(Describe(in) +
                                 ": a request's dims must be 0 or more (-1 marks a dynamic dim "
                                 "in metadata only)");
        }
      }
      return InvalidArgument(Describe(in) + " has more elements than int64 can count");
    }
    if (use_raw && !NonEmptyFields(in.contents()).empty()) {
      return InvalidArgument(Describe(in) +
                             " has contents, but the request uses raw_input_contents: then "
                             "every input's data must be in raw_input_contents");
    }
    Result<runtime::Tensor> tensor =
        use_raw ? FromRaw(in, dtype, shape, elements, raw->Get(i), i, out.keepalive)
                : FromContents(in, dtype, shape, elements);
    if (!tensor.ok()) return tensor.status();
    out.inputs.push_back({in.name(), std::move(tensor).value()});
  }

  for (int i = 0; i < request.outputs_size(); ++i) {
    const std::string& name = request.outputs(i).name();
    if (name.empty()) return InvalidArgument("outputs[" + std::to_string(i) + "] has no name");
    out.outputs.push_back(name);
  }
  return out;
}

Status Encode(const InferResponse& result, const std::string& request_id,
              inference::ModelInferResponse* response) {
  response->set_model_name(result.model);
  response->set_model_version(result.version);
  response->set_id(result.id.empty() ? request_id : result.id);
  for (const InferOutput& o : result.outputs) {
    const char* datatype = OipDatatype(o.tensor.dtype);
    if (*datatype == '\0') {
      return Internal("output '" + o.name + "' has dtype " + DTypeName(o.tensor.dtype) +
                      ", which has no Open Inference Protocol datatype");
    }
    inference::ModelInferResponse::InferOutputTensor* t = response->add_outputs();
    t->set_name(o.name);
    t->set_datatype(datatype);
    for (int64_t d : o.tensor.shape) t->add_shape(d);
    const int64_t bytes = o.tensor.byte_size();
    if (bytes > 0) {
      response->add_raw_output_contents()->assign(static_cast<const char*>(o.tensor.data),
                                                  static_cast<size_t>(bytes));
    } else {
      response->add_raw_output_contents();
    }
  }
  return Status::Ok();
}

void ToProto(const TensorMetadata& m, inference::ModelMetadataResponse::TensorMetadata* out) {
  out->set_name(m.name);
  out->set_datatype(m.datatype);
  for (int64_t d : m.shape) out->add_shape(d);
}

}  // namespace

class GrpcService final : public inference::GRPCInferenceService::Service {
 public:
  explicit GrpcService(InferenceServer& server) : server_(server) {}

  grpc::Status ServerLive(grpc::ServerContext*, const inference::ServerLiveRequest*,
                          inference::ServerLiveResponse* response) override {
    response->set_live(server_.live());
    return grpc::Status::OK;
  }

  grpc::Status ServerReady(grpc::ServerContext*, const inference::ServerReadyRequest*,
                           inference::ServerReadyResponse* response) override {
    response->set_ready(server_.ready());
    return grpc::Status::OK;
  }

  grpc::Status ModelReady(grpc::ServerContext*, const inference::ModelReadyRequest* request,
                          inference::ModelReadyResponse* response) override {
    Result<bool> ready = server_.ModelReady(request->name(), request->version());
    if (!ready.ok()) return ToGrpc(ready.status());
    response->set_ready(*ready);
    return grpc::Status::OK;
  }

  grpc::Status ServerMetadata(grpc::ServerContext*, const inference::ServerMetadataRequest*,
                              inference::ServerMetadataResponse* response) override {
    response->set_name(server_.name());
    response->set_version(server_.version());
    for (const std::string& e : server_.extensions()) response->add_extensions(e);
    return grpc::Status::OK;
  }

  grpc::Status ModelMetadata(grpc::ServerContext*, const inference::ModelMetadataRequest* request,
                             inference::ModelMetadataResponse* response) override {
    Result<serve::ModelMetadata> m = server_.Metadata(request->name(), request->version());
    if (!m.ok()) return ToGrpc(m.status());
    response->set_name(m->name);
    for (const std::string& v : m->versions) response->add_versions(v);
    response->set_platform(m->platform);
    for (const TensorMetadata& t : m->inputs) ToProto(t, response->add_inputs());
    for (const TensorMetadata& t : m->outputs) ToProto(t, response->add_outputs());
    // inputs/outputs are the default signature's; OIP's properties say
    // which others a request can pick with the "signature_name" parameter.
    std::string signatures;
    for (const SignatureMetadata& s : m->signatures) {
      signatures += (signatures.empty() ? "" : ",") + s.name;
    }
    if (!m->signatures.empty()) {
      (*response->mutable_properties())["default_signature"] = m->signatures[0].name;
      (*response->mutable_properties())["signatures"] = signatures;
    }
    return grpc::Status::OK;
  }

  grpc::Status ModelInfer(grpc::ServerContext* context, const inference::ModelInferRequest* request,
                          inference::ModelInferResponse* response) override {
    const auto start = std::chrono::steady_clock::now();
    Result<InferRequest> decoded = Decode(*request);
    if (!decoded.ok()) {
      // Still a failed request of the model (when it exists).
      server_.RecordRefused(
          request->model_name(), request->model_version(), Protocol::kGrpc, decoded.status(),
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      return ToGrpc(decoded.status());
    }
    // A client whose deadline passed while the request was queued in gRPC
    // gets nothing from a run: skip it.
    if (context->IsCancelled()) {
      return grpc::Status(grpc::StatusCode::CANCELLED, "the call was cancelled before it ran");
    }
    Result<InferResponse> result = server_.Infer(*decoded, Protocol::kGrpc);
    if (!result.ok()) return ToGrpc(result.status());
    Status encoded = Encode(*result, request->id(), response);
    if (!encoded.ok()) return ToGrpc(encoded);
    return grpc::Status::OK;
  }

 private:
  InferenceServer& server_;
};

GrpcFrontEnd::GrpcFrontEnd() = default;

GrpcFrontEnd::~GrpcFrontEnd() { Shutdown(std::chrono::system_clock::now()); }

Result<std::unique_ptr<GrpcFrontEnd>> GrpcFrontEnd::Start(InferenceServer& server,
                                                          const GrpcOptions& options) {
  if (options.max_message_bytes < 1) {
    return InvalidArgument("the gRPC message limit must be at least 1 byte, not " +
                           std::to_string(options.max_message_bytes));
  }
  const int max_bytes = static_cast<int>(std::min<int64_t>(options.max_message_bytes, INT_MAX));
  std::unique_ptr<GrpcFrontEnd> front(new GrpcFrontEnd());
  front->service_ = std::make_unique<GrpcService>(server);

  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.address, grpc::InsecureServerCredentials(), &front->port_);
  builder.RegisterService(front->service_.get());
  // gRPC sets SO_REUSEPORT by default: a second server on a port in use
  // would then share it silently (each getting some of the connections)
  // instead of failing to start.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  // The handlers are synchronous and block while their batch waits and
  // runs, so every request in flight holds a thread. gRPC's default keeps
  // at most 2 idle polling threads and starts a new one for about every
  // second request under 64 batched clients (bench/RESULTS.md, "tfn-serve"):
  // keeping as many as requests may be in flight stops that churn.
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MAX_POLLERS, options.threads);
  builder.SetMaxReceiveMessageSize(max_bytes);
  builder.SetMaxSendMessageSize(max_bytes);
  front->server_ = builder.BuildAndStart();
  if (!front->server_ || front->port_ == 0) {
    // `front` shuts down whatever did start when it goes.
    return IoError("cannot listen for gRPC on '" + options.address +
                   "': the port is in use, or the address is malformed or not this machine's "
                   "(expected HOST:PORT, e.g. 0.0.0.0:8001)");
  }
  return Result<std::unique_ptr<GrpcFrontEnd>>(std::move(front));
}

void GrpcFrontEnd::Shutdown(std::chrono::system_clock::time_point deadline) {
  std::lock_guard<std::mutex> lock(shutdown_mu_);
  if (shut_down_) return;
  shut_down_ = true;
  if (!server_) return;
  server_->Shutdown(deadline);
  server_->Wait();
}

}  // namespace tfn::serve
