// FunctionCore: the trace cache of a tfn::function (exact and compatible
// lookups, input_signature, reduce_retracing, LRU eviction, once-per-key
// tracing across threads) and its retracing diagnostics.
#include <algorithm>
#include <cinttypes>
#include <condition_variable>
#include <cstdio>
#include <future>
#include <list>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>

#include "ir/text.h"
#include "optimizer/optimize.h"
#include "tracer/concrete_impl.h"
#include "tracer/logging.h"
#include "tracer/trace_context.h"

namespace tfn::detail {

std::string FormatStatic(bool v) { return v ? "true" : "false"; }
std::string FormatStatic(int64_t v) { return std::to_string(v); }
std::string FormatStatic(uint64_t v) { return std::to_string(v); }
std::string FormatStatic(double v) { return ir::FormatDouble(v); }
std::string FormatStatic(const std::string& v) { return "\"" + v + "\""; }

namespace {

std::string SpecKey(const TensorSpec& s) { return s.ToString(); }

// The cache key as one string (exact lookups hash it).
std::string KeyString(const CallKey& key) {
  std::string out;
  for (const ArgKey& a : key) {
    out += static_cast<char>('0' + static_cast<int>(a.kind));
    for (size_t i = 0; i < a.specs.size(); ++i) {
      if (!a.keys.empty()) out += a.keys[i] + "=";
      out += SpecKey(a.specs[i]) + ";";
    }
    out += a.static_type + ":" + a.static_value + "|";
  }
  return out;
}

std::string ArgName(const FunctionOptions& o, size_t i) {
  return i < o.arg_names.size() ? o.arg_names[i] : "";
}

std::string ArgLabel(const FunctionOptions& o, size_t i) {
  std::string n = ArgName(o, i);
  return "argument " + std::to_string(i) + (n.empty() ? "" : " '" + n + "'");
}

// "(x: f32[2], use_extra: false)"
std::string Signature(const FunctionOptions& o, const CallKey& key) {
  std::string s = "(";
  for (size_t i = 0; i < key.size(); ++i) {
    const ArgKey& a = key[i];
    std::string n = ArgName(o, i);
    s += (i ? ", " : "") + (n.empty() ? "arg" + std::to_string(i) : n) + ": ";
    switch (a.kind) {
      case ArgKey::Kind::kTensor: s += a.specs[0].ToString(); break;
      case ArgKey::Kind::kTensorList: {
        s += "[";
        for (size_t k = 0; k < a.specs.size(); ++k) s += (k ? ", " : "") + a.specs[k].ToString();
        s += "]";
        break;
      }
      case ArgKey::Kind::kTensorMap: {
        s += "{";
        for (size_t k = 0; k < a.specs.size(); ++k) {
          s += (k ? ", " : "") + a.keys[k] + ": " + a.specs[k].ToString();
        }
        s += "}";
        break;
      }
      case ArgKey::Kind::kStatic: s += a.static_value; break;
    }
  }
  return s + ")";
}

// Same structure, static values, dtypes and ranks: only dims may differ.
bool SameButDims(const CallKey& a, const CallKey& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const ArgKey& x = a[i];
    const ArgKey& y = b[i];
    if (x.kind != y.kind || x.keys != y.keys || x.static_type != y.static_type ||
        x.static_value != y.static_value || x.specs.size() != y.specs.size()) {
      return false;
    }
    for (size_t k = 0; k < x.specs.size(); ++k) {
      if (x.specs[k].dtype != y.specs[k].dtype || x.specs[k].shape.rank() != y.specs[k].shape.rank()) {
        return false;
      }
    }
  }
  return true;
}

// True when every tensor of `call` fits the (possibly relaxed) `trace` key.
bool Accepts(const CallKey& trace, const CallKey& call) {
  if (!SameButDims(trace, call)) return false;
  for (size_t i = 0; i < trace.size(); ++i) {
    for (size_t k = 0; k < trace[i].specs.size(); ++k) {
      const Shape& p = trace[i].specs[k].shape;
      const Shape& c = call[i].specs[k].shape;
      for (int d = 0; d < p.rank(); ++d) {
        if (p[d] != kDynamic && p[d] != c[d]) return false;
      }
    }
  }
  return true;
}

int DynamicDims(const CallKey& key) {
  int n = 0;
  for (const ArgKey& a : key) {
    for (const TensorSpec& s : a.specs) {
      for (int64_t d : s.shape) n += d == kDynamic;
    }
  }
  return n;
}

// What changed between two keys, argument by argument, as text.
std::vector<std::string> Differences(const FunctionOptions& o, const CallKey& before,
                                     const CallKey& after, bool* static_changed,
                                     bool* shape_changed, bool* dtype_changed) {
  std::vector<std::string> out;
  for (size_t i = 0; i < before.size() && i < after.size(); ++i) {
    const ArgKey& a = before[i];
    const ArgKey& b = after[i];
    std::string label = ArgLabel(o, i);
    if (a.kind == ArgKey::Kind::kStatic && b.kind == ArgKey::Kind::kStatic) {
      if (a.static_value != b.static_value || a.static_type != b.static_type) {
        out.push_back(label + ": static value " + a.static_value + " -> " + b.static_value);
        *static_changed = true;
      }
      continue;
    }
    if (a.kind != b.kind || a.specs.size() != b.specs.size() || a.keys != b.keys) {
      out.push_back(label + ": structure changed");
      *shape_changed = true;
      continue;
    }
    for (size_t k = 0; k < a.specs.size(); ++k) {
      const TensorSpec& x = a.specs[k];
      const TensorSpec& y = b.specs[k];
      std::string where = label + (a.specs.size() > 1 ? " [" + std::to_string(k) + "]" : "");
      if (x.dtype != y.dtype) {
        out.push_back(where + ": dtype " + x.ToString() + " -> " + y.ToString());
        *dtype_changed = true;
      } else if (x.shape != y.shape) {
        out.push_back(where + ": shape " + x.ToString() + " -> " + y.ToString());
        *shape_changed = true;
      }
    }
  }
  return out;
}

// Registry of Function objects per callable type, to spot functions made in a loop.
struct TypeRegistry {
  std::mutex mu;
  std::map<std::string, int> first_traces;
  std::set<std::string> warned;
};
TypeRegistry& Registry() {
  static TypeRegistry* r = new TypeRegistry;
  return *r;
}

thread_local std::vector<const void*> t_tracing;  // FunctionCores tracing on this thread

}  // namespace

struct FunctionCore::State {
  FunctionOptions options;
  std::string callable_type;
  mutable std::mutex mu;
  struct Entry {
    CallKey key;
    std::shared_ptr<ConcreteImpl> impl;
    uint64_t last_use = 0;
    int64_t calls = 0;
  };
  std::unordered_map<std::string, Entry> entries;  // by key string
  std::unordered_map<std::string, std::shared_future<std::shared_ptr<ConcreteImpl>>> in_flight;
  uint64_t clock = 0;
  int tracing_count = 0;
  int64_t evictions = 0;
  bool warned_retracing = false;
  std::vector<bool> recent;  // last calls: did each trace?
  CallKey last_traced_key;
  bool has_last_traced = false;
};

FunctionCore::FunctionCore(FunctionOptions options, std::string callable_type)
    : state_(std::make_unique<State>()) {
  state_->options = std::move(options);
  if (state_->options.name.empty()) state_->options.name = "function";
  if (state_->options.max_traces < 1) state_->options.max_traces = 1;
  state_->callable_type = std::move(callable_type);
}

FunctionCore::~FunctionCore() = default;

const FunctionOptions& FunctionCore::options() const { return state_->options; }

int FunctionCore::tracing_count() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->tracing_count;
}

int64_t FunctionCore::eviction_count() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->evictions;
}

std::vector<TraceInfo> FunctionCore::traces() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  std::vector<TraceInfo> out;
  for (const auto& [k, e] : state_->entries) {
    TraceInfo t;
    t.signature = e.impl->signature;
    t.input_specs = e.impl->input_specs;
    t.calls = e.calls;
    t.function = ConcreteFunction(e.impl);
    out.push_back(std::move(t));
  }
  std::sort(out.begin(), out.end(),
            [](const TraceInfo& a, const TraceInfo& b) { return a.signature < b.signature; });
  return out;
}

namespace {

// Replaces the tensors' actual specs by the input_signature's, checking fit.
void ApplyInputSignature(const FunctionOptions& o, CallKey& key) {
  const std::vector<TensorSpec>& sig = o.input_signature;
  size_t next = 0;
  for (size_t i = 0; i < key.size(); ++i) {
    ArgKey& a = key[i];
    if (a.kind == ArgKey::Kind::kStatic) continue;
    for (TensorSpec& s : a.specs) {
      if (next >= sig.size()) {
        throw Error(StatusCode::kInvalidArgument,
                    "function '" + o.name + "': input_signature has " + std::to_string(sig.size()) +
                        " specs but the call passes more tensors (at " + ArgLabel(o, i) + ")");
      }
      const TensorSpec& want = sig[next++];
      if (!want.Accepts(s.dtype, s.shape) && !(s.dtype == want.dtype && s.shape == want.shape)) {
        throw Error(StatusCode::kInvalidArgument,
                    "function '" + o.name + "': " + ArgLabel(o, i) + " expects " + want.ToString() +
                        " (input_signature), got " + s.ToString());
      }
      s = TensorSpec(want.shape, want.dtype);
    }
  }
  if (next != sig.size()) {
    throw Error(StatusCode::kInvalidArgument,
                "function '" + o.name + "': input_signature has " + std::to_string(sig.size()) +
                    " specs but the call passes " + std::to_string(next) + " tensors");
  }
}

std::shared_ptr<ConcreteImpl> TraceKey(const FunctionOptions& o, const CallKey& key,
                                       const TraceFn& trace) {
  auto impl = std::make_shared<ConcreteImpl>();
  impl->name = o.name;
  impl->key = key;
  impl->signature = Signature(o, key);
  int symbol = 0;
  std::vector<Tensor> symbolic;
  {
    TraceContext ctx(&impl->graph, o.name);
    for (size_t i = 0; i < key.size(); ++i) {
      const ArgKey& a = key[i];
      for (size_t k = 0; k < a.specs.size(); ++k) {
        const TensorSpec& spec = a.specs[k];
        SymShape shape;
        for (int64_t d : spec.shape) {
          shape.push_back(d == kDynamic ? SymDim::Symbol("s" + std::to_string(symbol++)) : SymDim(d));
        }
        // Like tf.TensorSpec(name=...): a spec's own name wins over the
        // argument's name, in lists and maps too (it is not part of the
        // cache key).
        std::string name = spec.name;
        if (name.empty()) {
          name = ArgName(o, i);
          if (name.empty()) name = "arg" + std::to_string(i);
          if (a.kind == ArgKey::Kind::kTensorList) name += "_" + std::to_string(k);
          if (a.kind == ArgKey::Kind::kTensorMap) name += "_" + a.keys[k];
        }
        ir::ValueRef p = impl->graph.AddParameter(ir::TensorType{spec.dtype, shape}, name);
        symbolic.push_back(ctx.Wrap(p));
        impl->input_specs.push_back(spec);
        impl->flat_names.push_back(ArgLabel(o, i) +
                                   (a.specs.size() > 1 || a.kind != ArgKey::Kind::kTensor
                                        ? " [" + (a.keys.empty() ? std::to_string(k) : a.keys[k]) + "]"
                                        : ""));
      }
    }
    std::vector<Tensor> outs = trace(symbolic, &impl->structure);
    std::vector<ir::ValueRef> results;
    std::vector<std::string> names;
    for (size_t i = 0; i < outs.size(); ++i) {
      if (!outs[i].defined()) {
        throw Error(StatusCode::kInvalidArgument,
                    "function '" + o.name + "' returned an undefined tensor as output " + std::to_string(i));
      }
      results.push_back(ctx.Capture(outs[i]));
      names.push_back(i < impl->structure.keys.size() ? impl->structure.keys[i]
                                                      : "output_" + std::to_string(i));
    }
    impl->graph.SetResults(results, names);
    for (const auto& [name, v] : ctx.variables()) impl->variables.push_back(v);
  }
  if (o.optimize) {
    // With kernel lowering (the default): fused ops and prepacked weights for tfn's kernels.
    absl::Status st = optimizer::OptimizeGraph(impl->graph);
    if (!st.ok()) throw Error(StatusCode::kInternal, "optimizing '" + o.name + "': " + std::string(st.message()));
  }
  for (ir::ValueRef r : impl->graph.results()) {
    const ir::TensorType& t = impl->graph.type(r);
    impl->output_specs.push_back(TensorSpec(ToStaticShape(t.shape), t.dtype));
  }
  absl::Status st = Finalize(impl.get(), o.jit_compile);
  if (!st.ok()) {
    throw Error(st.code() == absl::StatusCode::kFailedPrecondition ? StatusCode::kFailedPrecondition
                                                                   : StatusCode::kInternal,
                "function '" + o.name + "': " + std::string(st.message()));
  }
  return impl;
}

}  // namespace

std::shared_ptr<ConcreteImpl> FunctionCore::Lookup(CallKey& key, const TraceFn& trace, bool* traced) {
  State& s = *state_;
  *traced = false;
  if (!s.options.input_signature.empty()) ApplyInputSignature(s.options, key);
  std::string ks = KeyString(key);
  std::promise<std::shared_ptr<ConcreteImpl>> promise;
  CallKey trace_key = key;
  {
    std::unique_lock<std::mutex> lock(s.mu);
    auto hit = s.entries.find(ks);
    if (hit != s.entries.end()) {
      hit->second.last_use = ++s.clock;
      hit->second.calls++;
      return hit->second.impl;
    }
    // A relaxed trace (kDynamic dims) that fits: the most specific one.
    State::Entry* best = nullptr;
    for (auto& [k, e] : s.entries) {
      if (Accepts(e.key, key) && (!best || DynamicDims(e.key) < DynamicDims(best->key))) best = &e;
    }
    if (best) {
      best->last_use = ++s.clock;
      best->calls++;
      return best->impl;
    }
    if (s.options.reduce_retracing) {
      // Relax the dims in which this call differs from a cached trace.
      for (auto& [k, e] : s.entries) {
        if (!SameButDims(e.key, key)) continue;
        for (size_t i = 0; i < key.size(); ++i) {
          for (size_t j = 0; j < key[i].specs.size(); ++j) {
            Shape& d = trace_key[i].specs[j].shape;
            const Shape& other = e.key[i].specs[j].shape;
            for (int r = 0; r < d.rank(); ++r) {
              if (other[r] != d[r]) d[r] = kDynamic;
            }
          }
        }
        break;
      }
    }
    std::string trace_ks = KeyString(trace_key);
    auto flying = s.in_flight.find(trace_ks);
    if (flying != s.in_flight.end()) {
      std::shared_future<std::shared_ptr<ConcreteImpl>> f = flying->second;
      lock.unlock();
      std::shared_ptr<ConcreteImpl> impl = f.get();  // rethrows the tracer's error
      std::lock_guard<std::mutex> again(s.mu);
      auto e = s.entries.find(trace_ks);
      if (e != s.entries.end()) e->second.calls++;
      return impl;
    }
    if (std::find(t_tracing.begin(), t_tracing.end(), this) != t_tracing.end()) {
      throw Error(StatusCode::kFailedPrecondition,
                  "function '" + s.options.name + "' calls itself while being traced; recursion "
                  "is not supported (use tfn::while_loop)");
    }
    s.in_flight[trace_ks] = promise.get_future().share();
  }
  std::shared_ptr<ConcreteImpl> impl;
  t_tracing.push_back(this);
  try {
    impl = TraceKey(s.options, trace_key, trace);
  } catch (...) {
    t_tracing.pop_back();
    promise.set_exception(std::current_exception());
    std::lock_guard<std::mutex> lock(s.mu);
    s.in_flight.erase(KeyString(trace_key));
    throw;
  }
  t_tracing.pop_back();
  promise.set_value(impl);
  *traced = true;
  int first_trace_of_object = 0;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    std::string trace_ks = KeyString(trace_key);
    s.in_flight.erase(trace_ks);
    s.entries[trace_ks] = State::Entry{trace_key, impl, ++s.clock, 1};
    if (++s.tracing_count == 1) first_trace_of_object = 1;
    while (static_cast<int>(s.entries.size()) > s.options.max_traces) {
      auto oldest = std::min_element(s.entries.begin(), s.entries.end(), [](const auto& a, const auto& b) {
        return a.second.last_use < b.second.last_use;
      });
      s.entries.erase(oldest);
      s.evictions++;
    }
  }
  if (first_trace_of_object) {
    TypeRegistry& r = Registry();
    std::lock_guard<std::mutex> lock(r.mu);
    int n = ++r.first_traces[s.callable_type];
    if (n >= 5 && r.warned.insert(s.callable_type).second) {
      Log(LogLevel::kWarning,
          std::to_string(n) + " tfn::function objects were created from the same callable (the one "
          "named '" + s.options.name + "') and each traced its own graph: the function is probably "
          "created inside a loop, so its cache starts empty every time. Create the tfn::function "
          "once, outside the loop, and call that object.");
    }
  }
  return impl;
}

std::vector<Tensor> FunctionCore::Call(CallKey key, const std::vector<Tensor>& flat,
                                       const TraceFn& trace, OutputStructure* structure) {
  State& s = *state_;
  CallKey original = key;
  bool traced = false;
  std::shared_ptr<ConcreteImpl> impl = Lookup(key, trace, &traced);
  // Retracing diagnostics: 5 of the last 5 calls traced.
  std::string warning;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    s.recent.push_back(traced);
    if (s.recent.size() > 5) s.recent.erase(s.recent.begin());
    if (traced) {
      bool all = s.recent.size() == 5 &&
                 std::all_of(s.recent.begin(), s.recent.end(), [](bool b) { return b; });
      if (all && !s.warned_retracing && s.has_last_traced) {
        s.warned_retracing = true;
        bool static_changed = false, shape_changed = false, dtype_changed = false;
        std::vector<std::string> diffs = Differences(s.options, s.last_traced_key, original,
                                                     &static_changed, &shape_changed, &dtype_changed);
        warning = "5 of the last 5 calls to function '" + s.options.name + "' traced a new graph (" +
                  std::to_string(s.tracing_count) + " traces so far); tracing is expensive.";
        for (const std::string& d : diffs) warning += " Changed: " + d + ".";
        if (static_changed) {
          warning += " Fix: pass the argument whose value keeps changing as a Tensor (e.g. "
                     "tfn::constant(n)) instead of a static C++ value, so one graph serves "
                     "every value.";
        }
        if (shape_changed) {
          warning += " Fix: give input_signature a TensorSpec with kDynamic in the dims that vary "
                     "(e.g. TensorSpec({kDynamic, ...}, dtype)), or set reduce_retracing = true.";
        }
        if (dtype_changed) warning += " Fix: cast the inputs to one dtype before calling.";
      }
      s.last_traced_key = original;
      s.has_last_traced = true;
    }
  }
  if (!warning.empty()) Log(LogLevel::kWarning, warning);
  *structure = impl->structure;
  impl->calls++;
  if (TraceContext::Current()) return impl->Inline(flat);
  return impl->Run(flat);
}

ConcreteFunction FunctionCore::GetConcrete(CallKey key, const TraceFn& trace) {
  bool traced = false;
  std::shared_ptr<ConcreteImpl> impl = Lookup(key, trace, &traced);
  return ConcreteFunction(impl);
}

}  // namespace tfn::detail
