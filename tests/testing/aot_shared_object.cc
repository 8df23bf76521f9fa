// AotSharedObject: tfn-aot, cc -shared, dlopen (see the header).
#include "tests/testing/aot_shared_object.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace tfn::testing {
namespace {

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs a shell command; on failure the error holds its combined output.
Status Run(const std::string& command, const std::string& log) {
  int rc = std::system((command + " >" + Quote(log) + " 2>&1").c_str());
  if (rc == 0) return Status::Ok();
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  return Internal("`" + command + "` failed (status " + std::to_string(rc) + "): " + text.str());
}

}  // namespace

void* AotSharedObject::Symbol(const std::string& name) const {
  return dlsym(handle_, name.c_str());
}

AotSharedObject::~AotSharedObject() {
  if (handle_) dlclose(handle_);
}

Result<std::unique_ptr<AotSharedObject>> AotSharedObject::Build(
    const std::string& tfn_aot_bin, const std::string& bundle, const std::string& signature,
    const std::string& name, const std::string& work_dir, const std::string& extra_flags) {
  mkdir(work_dir.c_str(), 0755);
  std::string log = work_dir + "/" + name + ".log";
  TFN_RETURN_IF_ERROR(Run(Quote(tfn_aot_bin) + " " + Quote(bundle) + " --signature " +
                              Quote(signature) + " --name " + Quote(name) + " -o " +
                              Quote(work_dir) + " " + extra_flags,
                          log));
  std::string object = work_dir + "/" + name + ".o", library = work_dir + "/lib" + name + ".so";
  const char* cc = std::getenv("CC");
  TFN_RETURN_IF_ERROR(Run(std::string(cc && *cc ? cc : "cc") + " -shared " + Quote(object) +
                              " -lm -o " + Quote(library),
                          log));
  std::unique_ptr<AotSharedObject> out(new AotSharedObject);
  // RTLD_LOCAL: several objects may define the same symbol names.
  out->handle_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!out->handle_) return Internal("dlopen " + library + ": " + dlerror());
  auto table = reinterpret_cast<const TfnAotSignature* const*>(
      dlsym(out->handle_, (name + "_signatures").c_str()));
  auto count =
      reinterpret_cast<const int32_t*>(dlsym(out->handle_, (name + "_num_signatures").c_str()));
  if (!table || !count) return Internal(library + " has no " + name + "_signatures table");
  for (int32_t i = 0; i < *count; ++i) {
    if (signature == table[i]->name) out->signature_ = table[i];
  }
  if (!out->signature_) return NotFound(library + " has no signature '" + signature + "'");
  return out;
}

}  // namespace tfn::testing
