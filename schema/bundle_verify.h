// Structural verification of untrusted bundle bytes, shared by the runtime's
// loader and the exporter's reader: the header, the FlatBuffer (with
// flatbuffers::Verifier), and every index, count, offset and size in it
// (overflow-safe). After VerifyBundle succeeds, every reference in the
// FlatBuffer can be followed without further range checks; what remains to
// check is semantic (known ops, attribute types, shapes), which each reader
// does while building its own form.
#pragma once

#include <cstdint>
#include <string>

#include "schema/bundle_header.h"

namespace tfn::schema {

struct Bundle;  // generated (bundle_generated.h)

struct VerifyResult {
  HeaderProblem header = HeaderProblem::kOk;  // kIncompatible for version mismatches
  bool ok = true;
  std::string message;
  const Bundle* bundle = nullptr;  // the root table, when ok
  TfnBundleHeader parsed;
};

// `data` must stay valid while the returned root is used.
VerifyResult VerifyBundle(const void* data, uint64_t size);

}  // namespace tfn::schema
