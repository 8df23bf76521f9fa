// For tests: compiles a bundle's signature with the tfn-aot tool into NAME.o,
// links it into a shared library with the system C compiler and loads it —
// the AOT object exactly as an app links it, reachable in-process through
// its TfnAotSignature table (schema/aot_abi.h).
#pragma once

#include <memory>
#include <string>

#include "core/status.h"
#include "schema/aot_abi.h"

namespace tfn::testing {

class AotSharedObject {
 public:
  ~AotSharedObject();
  AotSharedObject(const AotSharedObject&) = delete;
  AotSharedObject& operator=(const AotSharedObject&) = delete;

  // Runs `tfn_aot_bin BUNDLE --signature SIGNATURE --name NAME -o WORK_DIR`
  // (plus `extra_flags`), then `cc -shared`, then dlopen. Errors carry the
  // failing command's output.
  static Result<std::unique_ptr<AotSharedObject>> Build(
      const std::string& tfn_aot_bin, const std::string& bundle, const std::string& signature,
      const std::string& name, const std::string& work_dir, const std::string& extra_flags = "");

  // The compiled signature (owned by the loaded library; valid while this lives).
  const TfnAotSignature& signature() const { return *signature_; }
  // Another symbol of the library (e.g. NAME_bind_weights); null if absent.
  void* Symbol(const std::string& name) const;

 private:
  AotSharedObject() = default;
  void* handle_ = nullptr;
  const TfnAotSignature* signature_ = nullptr;
};

}  // namespace tfn::testing
