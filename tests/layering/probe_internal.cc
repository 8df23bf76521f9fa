// Layering probe (tests/layering/CMakeLists.txt): loader/mapped_file.h is internal
// to tfn_loader, so a component that links tfn_loader must not find it.
// This file must fail to compile, with "No such file".
#include "loader/mapped_file.h"
