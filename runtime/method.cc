// Method: one signature of a Session, resolved once. Runs it interpreted
// (the session's executor, variables and pool) or through the compiled code
// UseCompiled gave it, with the same input checks, options and errors.
#include "runtime/executor.h"
#include "runtime/runtime.h"
#include "runtime/thread_pool.h"

namespace tfn::runtime {

Tensor OutputView(DType dtype, const Shape& shape, void* data) { return View(dtype, shape, data); }

namespace {

// TfnAotRunOptions::print for compiled code: to RunOptions::print.
void PrintThrough(void* print, const char* text, size_t size) {
  (*static_cast<const std::function<void(const std::string&)>*>(print))(std::string(text, size));
}

}  // namespace

Method::Method(const Session* session, size_t index)
    : session_(session), index_(index), info_(&session->bundle().signatures()[index]) {}

Status Method::CheckInputs(const std::vector<Tensor>& inputs) const {
  const SignatureInfo& sig = *info_;
  if (inputs.size() != sig.inputs.size()) {
    return InvalidArgument("signature '" + sig.name + "' takes " +
                           std::to_string(sig.inputs.size()) + " inputs, got " +
                           std::to_string(inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorInfo& want = sig.inputs[i];
    if (inputs[i].dtype != want.dtype || !ShapeMatches(want.shape, inputs[i].shape)) {
      return InvalidArgument("signature '" + sig.name + "': input '" + want.name + "' expects " +
                             DTypeName(want.dtype) + ShapeToString(want.shape) + ", got " +
                             TypeToString(static_cast<int>(inputs[i].dtype), inputs[i].shape));
    }
    if (!inputs[i].data && inputs[i].num_elements() > 0) {
      return InvalidArgument("signature '" + sig.name + "': input '" + want.name + "' has no data");
    }
  }
  return Status::Ok();
}

Status Method::Run(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs,
                   const RunOptions& options) const {
  TFN_RETURN_IF_ERROR(CheckInputs(inputs));
  if (outputs->size() != info_->outputs.size()) {
    return InvalidArgument("signature '" + info_->name + "' returns " +
                           std::to_string(info_->outputs.size()) + " outputs; the vector of " +
                           "outputs to bind has " + std::to_string(outputs->size()) +
                           " (give one tensor per output; leave data null to have it allocated)");
  }
  const Session& s = *session_;
  Status status;
  if (const TfnAotSignature* compiled = s.compiled_[index_]) {
    TfnAotRunOptions threads{};
    threads.struct_size = sizeof threads;
    threads.num_threads = 1;
    if (s.pool_ && s.pool_->num_threads() > 1) {
      threads.num_threads = s.pool_->num_threads();
      threads.parallel_for = &runtime::ThreadPool::ParallelForFn;
      threads.pool = s.pool_.get();
    }
    if (options.print) {
      threads.print = &PrintThrough;
      threads.print_context = const_cast<std::function<void(const std::string&)>*>(&options.print);
    }
    status =
        s.run_compiled_(*compiled, inputs.data(), static_cast<int>(inputs.size()), outputs->data(),
                        static_cast<int>(outputs->size()), &threads, options.max_run_bytes);
  } else {
    status = s.executor_->Run(s.bundle_->program_of(index_), inputs.data(),
                              static_cast<int>(inputs.size()), s.slots_.data(), outputs->data(),
                              static_cast<int>(outputs->size()), options);
  }
  if (!status.ok()) return status.WithContext("signature '" + info_->name + "'");
  return Status::Ok();
}

Result<std::vector<Tensor>> Method::Run(const std::vector<Tensor>& inputs,
                                        const RunOptions& options) const {
  std::vector<Tensor> outputs(info_->outputs.size());
  TFN_RETURN_IF_ERROR(Run(inputs, &outputs, options));
  return outputs;
}

Result<std::vector<Shape>> Method::OutputShapes(const std::vector<Shape>& input_shapes) const {
  Result<std::vector<Shape>> shapes =
      session_->executor_->ResultShapes(session_->bundle_->program_of(index_), input_shapes);
  if (!shapes.ok()) return shapes.status().WithContext("signature '" + info_->name + "'");
  return shapes;
}

Result<int64_t> Method::ArenaBytes(const std::vector<Shape>& input_shapes) const {
  return session_->executor_->ArenaBytes(session_->bundle_->program_of(index_), input_shapes);
}

}  // namespace tfn::runtime
