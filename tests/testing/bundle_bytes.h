// For tests: a runtime Bundle over bytes a test made (tfn::serialize), the
// bytes owned by the Bundle. Fails the test (and returns null) when they do
// not load.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "runtime/runtime.h"

namespace tfn::testing {

inline std::shared_ptr<const runtime::Bundle> BundleFromBytes(
    const std::string& bytes, const runtime::LoadOptions& options = {}) {
  auto owned = std::make_shared<std::string>(bytes);
  auto b = runtime::Bundle::FromMemory(owned->data(), owned->size(), owned, options);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? *b : nullptr;
}

}  // namespace tfn::testing
