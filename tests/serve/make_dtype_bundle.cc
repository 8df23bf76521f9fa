// Writes the bundle of tfn-serve's datatype tests (dtype_model.h) for the
// tests that drive tfn-serve as a process (rest_test.py, grpc_client_test.py):
// tfn-export's built-in models have only f32 and int64 tensors.
//   make_dtype_bundle OUT.tfn
#include <cstdio>
#include <exception>

#include "tests/serve/dtype_model.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_dtype_bundle OUT.tfn\n");
    return 2;
  }
  try {
    tfn::serve_testing::SaveDtypeModel(argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_dtype_bundle: %s\n", e.what());
    return 1;
  }
  return 0;
}
