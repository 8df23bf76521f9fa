// Implementation of tfn-run's input collection, random inputs and statistics.
#include "tools/run_io.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "runtime/npy.h"

namespace tfn::tools {
namespace {

// SplitMix64: a tiny, portable generator (the same stream on every machine).
uint64_t Next(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

Status Mismatch(const runtime::SignatureInfo& sig, const std::string& what) {
  return InvalidArgument(what + "; signature '" + sig.name + "' takes " + DescribeInputs(sig));
}

// Every dynamic dim named alike (e.g. ?s0 in two inputs) must get one value.
Status CheckSharedDims(const runtime::SignatureInfo& sig,
                       const std::vector<runtime::Tensor>& inputs) {
  std::map<std::string, std::pair<int64_t, std::string>> seen;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const runtime::TensorInfo& info = sig.inputs[i];
    for (int d = 0; d < info.shape.rank() && d < static_cast<int>(info.dim_names.size()); ++d) {
      const std::string& sym = info.dim_names[d];
      if (sym.empty() || info.shape[d] != kDynamic) continue;
      auto [it, fresh] = seen.emplace(sym, std::make_pair(inputs[i].shape[d], info.name));
      if (!fresh && it->second.first != inputs[i].shape[d]) {
        return Mismatch(sig, "input '" + info.name + "' has " + std::to_string(inputs[i].shape[d]) +
                                 " in dim " + std::to_string(d) + " but input '" +
                                 it->second.second + "' has " + std::to_string(it->second.first) +
                                 " for the same dynamic dim " + sym);
      }
    }
  }
  return Status::Ok();
}

}  // namespace

std::string DescribeInputs(const runtime::SignatureInfo& sig) {
  std::string s;
  for (const runtime::TensorInfo& in : sig.inputs) s += (s.empty() ? "" : ", ") + in.ToString();
  return s.empty() ? "no inputs" : s;
}

runtime::Tensor RandomTensor(DType dtype, const Shape& shape, uint64_t seed) {
  void* out = nullptr;
  runtime::Tensor t = ConstTensor::Allocate(dtype, shape, &out);
  uint64_t state = seed * 0x2545F4914F6CDD1Dull + 1;
  int64_t n = t.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    uint64_t r = Next(&state);
    double u = static_cast<double>(r >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
    // Floats uniform in [-1, 1), integers in [0, 10), bools fair.
    VisitDType(dtype, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, bool>) {
        static_cast<bool*>(out)[i] = (r & 1) != 0;
      } else if (IsFloating(dtype)) {
        static_cast<T*>(out)[i] = static_cast<T>(2 * u - 1);
      } else {
        static_cast<T*>(out)[i] = static_cast<T>(r % 10);
      }
    });
  }
  return t;
}

Result<std::vector<runtime::Tensor>> CollectInputs(const runtime::SignatureInfo& sig,
                                                   const std::vector<std::string>& flags,
                                                   int64_t random_batch) {
  Result<std::vector<std::vector<runtime::Tensor>>> sets =
      CollectInputSets(sig, flags, random_batch, /*allow_stacks=*/false);
  if (!sets.ok()) return sets.status();
  return std::move(sets->front());
}

Result<std::vector<std::vector<runtime::Tensor>>> CollectInputSets(
    const runtime::SignatureInfo& sig, const std::vector<std::string>& flags, int64_t random_batch,
    bool allow_stacks) {
  std::map<std::string, std::string> paths;
  for (const std::string& f : flags) {
    size_t eq = f.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == f.size()) {
      return Mismatch(sig, "--input '" + f + "' is not NAME=PATH.npy");
    }
    std::string name = f.substr(0, eq);
    bool known = std::any_of(sig.inputs.begin(), sig.inputs.end(),
                             [&](const runtime::TensorInfo& in) { return in.name == name; });
    if (!known) return Mismatch(sig, "--input names '" + name + "', which is not an input");
    if (!paths.emplace(name, f.substr(eq + 1)).second) {
      return Mismatch(sig, "--input '" + name + "' is given twice");
    }
  }
  // Per input: its one tensor, or its stack of batches.
  std::vector<std::vector<runtime::Tensor>> per_input;
  int64_t sets = 1;
  std::string stacked_name;
  for (size_t i = 0; i < sig.inputs.size(); ++i) {
    const runtime::TensorInfo& want = sig.inputs[i];
    auto it = paths.find(want.name);
    if (it == paths.end()) {
      if (random_batch < 0) {
        return Mismatch(sig, "missing input '" + want.name + "' (pass --input " + want.name +
                                 "=PATH.npy, or --random-inputs BATCH)");
      }
      Shape shape = want.shape;
      for (int64_t& d : shape) d = d == kDynamic ? random_batch : d;
      per_input.push_back({RandomTensor(want.dtype, shape, i + 1)});
      continue;
    }
    Result<ConstTensor> t = runtime::ReadNpy(it->second);
    if (!t.ok()) return t.status().WithContext("input '" + want.name + "'");
    // NumPy has no bfloat16: a uint16 array holds the bit patterns (runtime/npy.h).
    if (want.dtype == DType::kBFloat16 && t->dtype == DType::kUInt16) t->dtype = DType::kBFloat16;
    if (t->dtype == want.dtype && ShapeMatches(want.shape, t->shape)) {
      per_input.push_back({*t});
      continue;
    }
    // A stack of batches: one more leading dim, each batch fits the spec.
    Shape batch;
    for (int d = 1; d < t->shape.rank(); ++d) batch.push_back(t->shape[d]);
    const bool stack = allow_stacks && t->dtype == want.dtype &&
                       t->shape.rank() == want.shape.rank() + 1 && t->shape[0] > 0 &&
                       ShapeMatches(want.shape, batch);
    if (!stack) {
      return Mismatch(sig, "input '" + want.name + "' from '" + it->second + "' is " +
                               TypeToString(static_cast<int>(t->dtype), t->shape) +
                               ", which does not fit " + DTypeName(want.dtype) +
                               ShapeToString(want.shape) +
                               (allow_stacks ? " (nor is it a stack of such batches)" : ""));
    }
    if (!stacked_name.empty() && t->shape[0] != sets) {
      return Mismatch(sig, "input '" + want.name + "' stacks " + std::to_string(t->shape[0]) +
                               " batches but input '" + stacked_name + "' " + std::to_string(sets) +
                               "; stacked inputs need one count");
    }
    sets = t->shape[0];
    stacked_name = want.name;
    std::vector<runtime::Tensor> batches;
    const int64_t bytes = NumElements(batch) * DTypeSize(t->dtype);
    for (int64_t b = 0; b < sets; ++b) {
      runtime::Tensor view = *t;  // shares t's bytes (and owner)
      view.shape = batch;
      view.data = static_cast<const char*>(t->data) + b * bytes;
      batches.push_back(view);
    }
    per_input.push_back(std::move(batches));
  }
  std::vector<std::vector<runtime::Tensor>> out(static_cast<size_t>(sets));
  for (int64_t b = 0; b < sets; ++b) {
    for (const std::vector<runtime::Tensor>& in : per_input) {
      out[b].push_back(in.size() == 1 ? in[0] : in[static_cast<size_t>(b)]);
    }
    TFN_RETURN_IF_ERROR(CheckSharedDims(sig, out[b]));
  }
  return out;
}

std::string OutputFileName(const std::string& output_name) {
  std::string s = output_name.empty() ? "output" : output_name;
  for (char& c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.';
    if (!ok) c = '_';
  }
  if (s == "." || s == "..") s = "_";
  return s + ".npy";
}

std::vector<std::string> OutputFileNames(const std::vector<runtime::TensorInfo>& outputs) {
  std::vector<std::string> names;
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string name = OutputFileName(outputs[i].name);
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      name = name.substr(0, name.size() - 4) + "_" + std::to_string(i) + ".npy";
    }
    names.push_back(name);
  }
  return names;
}

LatencyStats ComputeStats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  auto rank = [&](double p) {
    size_t k = static_cast<size_t>(std::ceil(p * static_cast<double>(v.size())));
    return v[std::min(v.size() - 1, k == 0 ? 0 : k - 1)];
  };
  LatencyStats s;
  s.min_us = v.front();
  s.max_us = v.back();
  s.median_us = rank(0.5);
  s.p90_us = rank(0.9);
  double sum = 0;
  for (double x : v) sum += x;
  s.mean_us = sum / static_cast<double>(v.size());
  return s;
}

}  // namespace tfn::tools
