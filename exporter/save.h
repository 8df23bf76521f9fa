// tfn::save: exports ConcreteFunctions as a bundle (the glue between the
// tracing front end and the exporter; linked as part of tfn::tfn).
//
//   tfn::save("model.tfn", {{"serving_default", f.get_concrete_function(spec)}});
//
// Variables used by the functions are stored once, under the names they were
// given, with their current values, and shared by every signature that uses
// them. Two different Variables of one name in one bundle are an error that
// names both (their types and signatures); in separate bundles they are
// fine. The file is written atomically (never half-written). Throws
// tfn::Error on failure.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tracer/function.h"

namespace tfn {

struct SaveOptions {
  bool compress = false;   // zstd-compress weight segments
  int zstd_level = 3;
  int64_t min_compress_bytes = 4096;  // smaller segments stay raw
  std::vector<std::pair<std::string, std::string>> metadata;
};

void save(const std::string& path, const std::map<std::string, ConcreteFunction>& signatures,
          const SaveOptions& options = {});
// The "save" and "restore" signatures of a trainable bundle (TFLite's
// on-device training convention, without file paths in the graph):
// save() returns every variable, each output named after it; restore takes
// one input per variable, named after it, and assigns them all. With a
// "train" and an "infer" signature they make a bundle whose state an app
// can read out and put back through any runtime, compiled code included
// (the runtime's Session::SaveCheckpoint writes the same state to a file).
//
//   auto sigs = tfn::checkpoint_signatures(model.variables());
//   sigs["train"] = train_step.get_concrete_function(x_spec, y_spec);
//   sigs["infer"] = infer.get_concrete_function(x_spec);
//   tfn::save("model.tfn", sigs);
std::map<std::string, ConcreteFunction> checkpoint_signatures(
    const std::vector<Variable>& variables);

// The bundle's bytes, without writing a file.
std::string serialize(const std::map<std::string, ConcreteFunction>& signatures,
                      const SaveOptions& options = {});

}  // namespace tfn
