// tfn's embedded runtime (C++): load bundles and run signatures. Link tfn::runtime.
#pragma once

#include "runtime/runtime.h"
