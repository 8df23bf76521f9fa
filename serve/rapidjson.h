// The RapidJSON headers tfn-serve uses, included in one place behind one
// fence: RapidJSON 1.1.0's stacks add offsets to their null pointer before
// their first allocation (fixed upstream after 1.1.0): harmless, but clang's
// UBSan (the fuzz build) stops on it, so RapidJSON's functions skip that one
// check. Include this instead of any <rapidjson/...> header.
#pragma once

#if defined(__clang__)
#pragma clang attribute push(__attribute__((no_sanitize("pointer-overflow"))), apply_to = function)
#endif
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#if defined(__clang__)
#pragma clang attribute pop
#endif
