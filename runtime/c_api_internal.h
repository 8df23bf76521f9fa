// Internal: the C API's handles (runtime/tfn_runtime.h) as C++ objects, for
// the files that implement it (c_api.cc; checkpoint.cc, whose functions an
// app links only when it calls them).
#pragma once

#include <cstdio>
#include <memory>
#include <vector>

#include "runtime/runtime.h"
#include "runtime/tfn_runtime.h"

struct TfnRtBundle {
  std::shared_ptr<const tfn::runtime::Bundle> bundle;
};
struct TfnRtSession {
  std::unique_ptr<tfn::runtime::Session> session;
  tfn::runtime::RunOptions run_options;  // the limits from TfnRtSessionOptions
};
struct TfnRtOutputs {
  std::vector<tfn::runtime::Tensor> tensors;
  std::vector<TfnRtTensor> views;
};
struct TfnRtMethod {
  tfn::runtime::Method method;
  const TfnRtSession* session;  // for its run options (the limits)
  // The C tensors as C++ ones, sized once and reused by every call: fresh
  // vectors per call would allocate on the bound path. They are why a handle
  // runs on one thread at a time.
  std::vector<tfn::runtime::Tensor> inputs;
  std::vector<tfn::runtime::Tensor> outputs;
};

namespace tfn::runtime::c_api {

// The status as the C API's code, its message copied into `error`.
inline TfnRtStatus Report(const tfn::Status& s, char* error, size_t error_size) {
  if (error && error_size > 0) {
    // No snprintf on success: it is a good part of a trivial call's cost.
    if (s.ok()) {
      error[0] = '\0';
    } else {
      std::snprintf(error, error_size, "%s", s.message().c_str());
    }
  }
  return static_cast<TfnRtStatus>(s.code());
}

}  // namespace tfn::runtime::c_api
