/* tfn's embedded runtime (C). Link tfn::runtime. */
#ifndef TFN_TFN_RUNTIME_H_
#define TFN_TFN_RUNTIME_H_
#include "runtime/tfn_runtime.h"
#endif
