// Layering probe (tests/layering/CMakeLists.txt): runtime/mapped_file.h is internal
// to tfn_runtime, so a component that links tfn_runtime must not find it.
// This file must fail to compile, with "No such file".
#include "runtime/mapped_file.h"
