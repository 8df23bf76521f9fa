// The C API over the C++ runtime (runtime/tfn_runtime.h): thin wrappers that
// check what C callers can get wrong (NULLs, counts, dtypes, ranks) and turn
// Status into TfnRtStatus plus a message.
#include "runtime/tfn_runtime.h"

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "runtime/c_api_internal.h"
#include "runtime/runtime.h"

static_assert(TFN_RT_FLOAT16 == static_cast<int>(tfn::DType::kFloat16) &&
                  TFN_RT_UINT64 == static_cast<int>(tfn::DType::kUInt64) &&
                  TFN_RT_INT8 == static_cast<int>(tfn::DType::kInt8),
              "the C API's dtype values are tfn::DType's");

namespace {

using tfn::runtime::c_api::Report;

const tfn::runtime::SignatureInfo* Find(const TfnRtBundle* b, const char* name) {
  return b && name ? b->bundle->FindSignature(name) : nullptr;
}

void Describe(const tfn::runtime::TensorInfo& info, const char** name, TfnRtTensor* type) {
  if (name) *name = info.name.c_str();
  if (!type) return;
  std::memset(type, 0, sizeof *type);
  type->dtype = static_cast<int32_t>(info.dtype);
  type->rank = info.shape.rank();
  for (int i = 0; i < info.shape.rank(); ++i) type->dims[i] = info.shape[i];
}

// Makes *out a view of `t` (what: "input" or "output", i its index) after
// checking what a C caller can get wrong: a known dtype, a rank in [0,
// TFN_RT_MAX_RANK], dims >= 0 with a product that fits. Allocates nothing but
// an error (Shape is inline; any owner is dropped).
tfn::Status ToView(const TfnRtTensor& t, const char* what, int i, tfn::runtime::Tensor* out) {
  if (t.rank < 0 || t.rank > TFN_RT_MAX_RANK || !tfn::IsValidDType(t.dtype)) {
    return tfn::InvalidArgument(std::string(what) + " " + std::to_string(i) +
                                " has an invalid dtype or rank");
  }
  out->dtype = static_cast<tfn::DType>(t.dtype);
  out->shape = tfn::Shape(t.dims, t.dims + t.rank);
  out->data = t.data;
  out->owner.reset();
  int64_t n = 0;
  if (!tfn::CheckedNumElements(out->shape, &n)) {
    std::string dims;  // as given: ShapeToString would print -1 as "?"
    for (int d = 0; d < t.rank; ++d) dims += (d ? "," : "") + std::to_string(t.dims[d]);
    return tfn::InvalidArgument(std::string(what) + " " + std::to_string(i) + " has dims [" + dims +
                                "]: a dim is negative or the element count overflows");
  }
  return tfn::Status::Ok();
}

tfn::Status ToViews(const TfnRtTensor* from, int n, const char* what,
                    std::vector<tfn::runtime::Tensor>* to) {
  for (int i = 0; i < n; ++i) TFN_RETURN_IF_ERROR(ToView(from[i], what, i, &(*to)[i]));
  return tfn::Status::Ok();
}

// The counts a method's calls must give (the C++ API's wording for inputs);
// num_outputs only when check_outputs.
tfn::Status CheckCounts(const TfnRtMethod& m, int num_inputs, int num_outputs,
                        bool check_outputs = true) {
  const tfn::runtime::SignatureInfo& sig = m.method.info();
  if (num_inputs != static_cast<int>(sig.inputs.size())) {
    return tfn::InvalidArgument("signature '" + sig.name + "' takes " +
                                std::to_string(sig.inputs.size()) + " inputs, got " +
                                std::to_string(num_inputs));
  }
  if (check_outputs && num_outputs != static_cast<int>(sig.outputs.size())) {
    return tfn::InvalidArgument("signature '" + sig.name + "' returns " +
                                std::to_string(sig.outputs.size()) + " outputs, got " +
                                std::to_string(num_outputs) + " output tensors");
  }
  return tfn::Status::Ok();
}

// Hands results to the caller as a TfnRtOutputs (views of the tensors it owns).
tfn::Status GiveOutputs(std::vector<tfn::runtime::Tensor>&& tensors, TfnRtOutputs** outputs) {
  auto* out = new (std::nothrow) TfnRtOutputs;
  if (!out) return tfn::ResourceExhausted("out of memory");
  out->tensors = std::move(tensors);
  for (const tfn::runtime::Tensor& t : out->tensors) {
    TfnRtTensor v;
    std::memset(&v, 0, sizeof v);
    v.dtype = static_cast<int32_t>(t.dtype);
    v.rank = t.shape.rank();
    for (int d = 0; d < t.shape.rank(); ++d) v.dims[d] = t.shape[d];
    v.data = const_cast<void*>(t.data);
    out->views.push_back(v);
  }
  *outputs = out;
  return tfn::Status::Ok();
}

}  // namespace

extern "C" {

const char* tfn_rt_version(void) { return "0.1.0"; }

TfnRtStatus tfn_rt_bundle_load(const char* path, TfnRtBundle** bundle, char* error,
                               size_t error_size) {
  if (!path || !bundle)
    return Report(tfn::InvalidArgument("path and bundle must not be NULL"), error, error_size);
  auto b = tfn::runtime::Bundle::Load(path);
  if (!b.ok()) return Report(b.status(), error, error_size);
  *bundle = new (std::nothrow) TfnRtBundle{*b};
  if (!*bundle) return Report(tfn::ResourceExhausted("out of memory"), error, error_size);
  return Report(tfn::Status::Ok(), error, error_size);
}

TfnRtStatus tfn_rt_bundle_from_memory(const void* data, size_t size, TfnRtBundle** bundle,
                                      char* error, size_t error_size) {
  if ((!data && size) || !bundle) {
    return Report(tfn::InvalidArgument("data and bundle must not be NULL"), error, error_size);
  }
  std::shared_ptr<void> copy = tfn::AllocateAligned(size);
  if (!copy)
    return Report(tfn::ResourceExhausted("out of memory copying the bundle"), error, error_size);
  if (size) std::memcpy(copy.get(), data, size);
  auto b = tfn::runtime::Bundle::FromMemory(copy.get(), size, copy);
  if (!b.ok()) return Report(b.status(), error, error_size);
  *bundle = new (std::nothrow) TfnRtBundle{*b};
  if (!*bundle) return Report(tfn::ResourceExhausted("out of memory"), error, error_size);
  return Report(tfn::Status::Ok(), error, error_size);
}

void tfn_rt_bundle_free(TfnRtBundle* bundle) { delete bundle; }

int tfn_rt_signature_count(const TfnRtBundle* bundle) {
  return bundle ? static_cast<int>(bundle->bundle->signatures().size()) : 0;
}

const char* tfn_rt_signature_name(const TfnRtBundle* bundle, int index) {
  if (!bundle || index < 0 || index >= tfn_rt_signature_count(bundle)) return nullptr;
  return bundle->bundle->signatures()[index].name.c_str();
}

int tfn_rt_signature_input_count(const TfnRtBundle* bundle, const char* signature) {
  const auto* s = Find(bundle, signature);
  return s ? static_cast<int>(s->inputs.size()) : -1;
}

int tfn_rt_signature_output_count(const TfnRtBundle* bundle, const char* signature) {
  const auto* s = Find(bundle, signature);
  return s ? static_cast<int>(s->outputs.size()) : -1;
}

int tfn_rt_signature_input(const TfnRtBundle* bundle, const char* signature, int index,
                           const char** name, TfnRtTensor* type) {
  const auto* s = Find(bundle, signature);
  if (!s || index < 0 || index >= static_cast<int>(s->inputs.size())) return -1;
  Describe(s->inputs[index], name, type);
  return 0;
}

int tfn_rt_signature_output(const TfnRtBundle* bundle, const char* signature, int index,
                            const char** name, TfnRtTensor* type) {
  const auto* s = Find(bundle, signature);
  if (!s || index < 0 || index >= static_cast<int>(s->outputs.size())) return -1;
  Describe(s->outputs[index], name, type);
  return 0;
}

TfnRtStatus tfn_rt_session_create(const TfnRtBundle* bundle, TfnRtSession** session, char* error,
                                  size_t error_size) {
  return tfn_rt_session_create_with_options(bundle, nullptr, session, error, error_size);
}

void tfn_rt_session_free(TfnRtSession* session) { delete session; }

TfnRtSessionOptions tfn_rt_session_options_default(void) {
  TfnRtSessionOptions o;
  std::memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.num_threads = 0;
  tfn::runtime::RunOptions defaults;
  o.max_while_iterations = defaults.max_while_iterations;
  o.max_run_bytes = defaults.max_run_bytes;
  o.deadline_ms = defaults.deadline_ms;
  return o;
}

TfnRtStatus tfn_rt_session_create_with_options(const TfnRtBundle* bundle,
                                               const TfnRtSessionOptions* options,
                                               TfnRtSession** session, char* error,
                                               size_t error_size) {
  if (!bundle || !session)
    return Report(tfn::InvalidArgument("bundle and session must not be NULL"), error, error_size);
  tfn::runtime::SessionOptions o;
  tfn::runtime::RunOptions limits;
  if (options) {
    // Fields the caller's struct has (it may come from an older header).
    if (options->struct_size < offsetof(TfnRtSessionOptions, num_threads) + sizeof(int32_t)) {
      return Report(tfn::InvalidArgument("TfnRtSessionOptions.struct_size is " +
                                         std::to_string(options->struct_size) +
                                         "; set it with tfn_rt_session_options_default()"),
                    error, error_size);
    }
    if (options->num_threads < 0) {
      return Report(
          tfn::InvalidArgument("num_threads must be 0 (the available cores) or more, got " +
                               std::to_string(options->num_threads)),
          error, error_size);
    }
    o.num_threads = options->num_threads;
    // The limits, when the caller's struct has them (API version 3).
    if (options->struct_size >= offsetof(TfnRtSessionOptions, deadline_ms) + sizeof(int64_t)) {
      if (options->max_while_iterations < 0 || options->max_run_bytes < 0 ||
          options->deadline_ms < 0) {
        return Report(tfn::InvalidArgument(
                          "max_while_iterations, max_run_bytes and deadline_ms must be 0 (no "
                          "limit) or more"),
                      error, error_size);
      }
      limits.max_while_iterations = options->max_while_iterations;
      limits.max_run_bytes = options->max_run_bytes;
      limits.deadline_ms = options->deadline_ms;
    }
  }
  *session = new (std::nothrow)
      TfnRtSession{std::make_unique<tfn::runtime::Session>(bundle->bundle, o), std::move(limits)};
  if (!*session) return Report(tfn::ResourceExhausted("out of memory"), error, error_size);
  return Report(tfn::Status::Ok(), error, error_size);
}

int tfn_rt_session_num_threads(const TfnRtSession* session) {
  return session ? session->session->num_threads() : 0;
}

TfnRtStatus tfn_rt_session_run(TfnRtSession* session, const char* signature,
                               const TfnRtTensor* inputs, int num_inputs, TfnRtOutputs** outputs,
                               char* error, size_t error_size) {
  if (!session || !signature || !outputs || (num_inputs > 0 && !inputs) || num_inputs < 0) {
    return Report(tfn::InvalidArgument("session, signature, outputs and inputs must not be NULL"),
                  error, error_size);
  }
  std::vector<tfn::runtime::Tensor> in;
  for (int i = 0; i < num_inputs; ++i) {
    tfn::runtime::Tensor t;
    tfn::Status s = ToView(inputs[i], "input", i, &t);
    if (!s.ok()) return Report(s, error, error_size);
    in.push_back(std::move(t));
  }
  auto result = session->session->Run(signature, in, session->run_options);
  if (!result.ok()) return Report(result.status(), error, error_size);
  return Report(GiveOutputs(std::move(*result), outputs), error, error_size);
}

TfnRtStatus tfn_rt_session_method(TfnRtSession* session, const char* signature,
                                  TfnRtMethod** method, char* error, size_t error_size) {
  if (!session || !signature || !method) {
    return Report(tfn::InvalidArgument("session, signature and method must not be NULL"), error,
                  error_size);
  }
  auto m = session->session->method(signature);
  if (!m.ok()) return Report(m.status(), error, error_size);
  const tfn::runtime::SignatureInfo& sig = m->info();
  *method = new (std::nothrow) TfnRtMethod{*m, session, {}, {}};
  if (!*method) return Report(tfn::ResourceExhausted("out of memory"), error, error_size);
  (*method)->inputs.resize(sig.inputs.size());
  (*method)->outputs.resize(sig.outputs.size());
  return Report(tfn::Status::Ok(), error, error_size);
}

void tfn_rt_method_free(TfnRtMethod* method) { delete method; }

int tfn_rt_method_input_count(const TfnRtMethod* method) {
  return method ? static_cast<int>(method->inputs.size()) : -1;
}

int tfn_rt_method_output_count(const TfnRtMethod* method) {
  return method ? static_cast<int>(method->outputs.size()) : -1;
}

TfnRtStatus tfn_rt_method_run(TfnRtMethod* method, const TfnRtTensor* inputs, int num_inputs,
                              TfnRtOutputs** outputs, char* error, size_t error_size) {
  if (!method || !outputs || (num_inputs > 0 && !inputs)) {
    return Report(tfn::InvalidArgument("method, outputs and inputs must not be NULL"), error,
                  error_size);
  }
  tfn::Status s = CheckCounts(*method, num_inputs, 0, false);
  if (s.ok()) s = ToViews(inputs, num_inputs, "input", &method->inputs);
  if (!s.ok()) return Report(s, error, error_size);
  auto result = method->method.Run(method->inputs, method->session->run_options);
  if (!result.ok()) return Report(result.status(), error, error_size);
  return Report(GiveOutputs(std::move(*result), outputs), error, error_size);
}

TfnRtStatus tfn_rt_method_run_into(TfnRtMethod* method, const TfnRtTensor* inputs, int num_inputs,
                                   const TfnRtTensor* outputs, int num_outputs, char* error,
                                   size_t error_size) {
  if (!method || (num_inputs > 0 && !inputs) || (num_outputs > 0 && !outputs)) {
    return Report(tfn::InvalidArgument("method, inputs and outputs must not be NULL"), error,
                  error_size);
  }
  tfn::Status s = CheckCounts(*method, num_inputs, num_outputs);
  if (s.ok()) s = ToViews(inputs, num_inputs, "input", &method->inputs);
  if (s.ok()) s = ToViews(outputs, num_outputs, "output", &method->outputs);
  if (!s.ok()) return Report(s, error, error_size);
  // An output without data would be allocated (and lost) by the C++ API.
  // Empty ones get a placeholder so that their shape is still checked.
  static char empty;
  for (int i = 0; i < num_outputs; ++i) {
    tfn::runtime::Tensor& t = method->outputs[i];
    if (t.data) continue;
    if (t.num_elements() > 0) {
      return Report(
          tfn::InvalidArgument("signature '" + method->method.name() + "': output " +
                               std::to_string(i) + " ('" + method->method.info().outputs[i].name +
                               "') has no data to write into; bind a buffer (its shape: "
                               "tfn_rt_method_output_shapes) or use tfn_rt_method_run"),
          error, error_size);
    }
    t.data = &empty;
  }
  return Report(method->method.Run(method->inputs, &method->outputs, method->session->run_options),
                error, error_size);
}

TfnRtStatus tfn_rt_method_output_shapes(TfnRtMethod* method, const TfnRtTensor* inputs,
                                        int num_inputs, TfnRtTensor* outputs, int num_outputs,
                                        char* error, size_t error_size) {
  if (!method || (num_inputs > 0 && !inputs) || (num_outputs > 0 && !outputs)) {
    return Report(tfn::InvalidArgument("method, inputs and outputs must not be NULL"), error,
                  error_size);
  }
  tfn::Status s = CheckCounts(*method, num_inputs, num_outputs);
  if (s.ok()) s = ToViews(inputs, num_inputs, "input", &method->inputs);
  if (!s.ok()) return Report(s, error, error_size);
  // The dtypes and shapes Run would take (OutputShapes sees shapes only).
  const tfn::runtime::SignatureInfo& sig = method->method.info();
  std::vector<tfn::Shape> shapes;
  for (int i = 0; i < num_inputs; ++i) {
    const tfn::runtime::TensorInfo& want = sig.inputs[i];
    const tfn::runtime::Tensor& got = method->inputs[i];
    if (got.dtype != want.dtype || !tfn::ShapeMatches(want.shape, got.shape)) {
      return Report(tfn::InvalidArgument("signature '" + sig.name + "': input '" + want.name +
                                         "' expects " + tfn::DTypeName(want.dtype) +
                                         tfn::ShapeToString(want.shape) + ", got " +
                                         tfn::TypeToString(static_cast<int>(got.dtype), got.shape)),
                    error, error_size);
    }
    shapes.push_back(got.shape);
  }
  auto result = method->method.OutputShapes(shapes);
  if (!result.ok()) return Report(result.status(), error, error_size);
  for (int i = 0; i < num_outputs; ++i) {
    Describe(sig.outputs[i], nullptr, &outputs[i]);
    const tfn::Shape& shape = (*result)[i];
    outputs[i].rank = shape.rank();
    for (int d = 0; d < shape.rank(); ++d) outputs[i].dims[d] = shape[d];
  }
  return Report(tfn::Status::Ok(), error, error_size);
}

int tfn_rt_outputs_count(const TfnRtOutputs* outputs) {
  return outputs ? static_cast<int>(outputs->views.size()) : 0;
}

const TfnRtTensor* tfn_rt_outputs_get(const TfnRtOutputs* outputs, int index) {
  if (!outputs || index < 0 || index >= tfn_rt_outputs_count(outputs)) return nullptr;
  return &outputs->views[index];
}

void tfn_rt_outputs_free(TfnRtOutputs* outputs) { delete outputs; }

}  // extern "C"
