// Force-included (-include) by clang builds against libstdc++ 12 only; see
// cmake/TfnCompiler.cmake. libstdc++ 12's std::stable_sort calls its own
// std::get_temporary_buffer, which it marks deprecated for C++17 without
// silencing the use (libstdc++ 13 does). Clang reports that deprecation even
// inside a system header, so every stable_sort fails -Werror. Clang decides
// whether a warning is enabled by the pragma state at the warning's source
// location, so including the header here, inside the push/pop, silences the
// warning at that one line of stl_tempbuf.h for every later instantiation,
// and nowhere else: deprecated declarations used in tfn's own code still
// warn (and fail -Werror).
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
#include <bits/stl_tempbuf.h>
#pragma clang diagnostic pop
