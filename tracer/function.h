// tfn::function: TensorFlow's polymorphic tf.function for C++ callables.
//
//   auto f = tfn::function([](tfn::Tensor x, bool use_extra) {
//     tfn::Tensor y = x * 2.0;
//     if (use_extra) y = y + 10.0;  // resolved at trace time: a static value
//     return y;
//   }, {.name = "process", .arg_names = {"x", "use_extra"}});
//   f(tfn::constant({1.f, 2.f}), false);  // traces, optimizes, caches, runs
//
// Each call builds a cache key from its arguments: a Tensor contributes its
// (dtype, shape); a static value (bool, integers, floating point,
// std::string, enums) its value; std::vector<Tensor> and
// std::map<std::string, Tensor> are flattened with their structure. A hit
// replays the cached graph; a miss traces the body on symbolic tensors.
// Arguments may also be TensorSpecs in get_concrete_function.
//
// Thread-safety: a Function may be called from many threads; a key is traced
// once even when several threads miss on it at the same time. The callable
// runs only while tracing, on the tracing thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "tracer/ops.h"
#include "tracer/tensor.h"
#include "tracer/variable.h"

namespace tfn {

namespace ir {
class Graph;
}

struct FunctionOptions {
  std::string name = "function";      // used in messages and exported names
  std::vector<std::string> arg_names;  // the callable's parameter names, for messages
  // When set: one spec per Tensor parameter, in order. Calls whose tensors fit
  // share one graph; others are rejected. kDynamic marks dims that may vary.
  std::vector<TensorSpec> input_signature;
  // On a miss that differs from a cached trace only in dims, trace once with
  // those dims relaxed to kDynamic and reuse that graph.
  bool reduce_retracing = false;
  // Least recently used traces beyond this many are evicted (and counted).
  int max_traces = 64;
  // Run graphs through the LLVM JIT instead of the interpreter (needs tfn_aot).
  bool jit_compile = false;
  // Run the optimization pipeline on each traced graph.
  bool optimize = true;
};

namespace detail {

struct ArgKey {
  enum class Kind : uint8_t { kTensor, kTensorList, kTensorMap, kStatic };
  Kind kind = Kind::kStatic;
  std::vector<TensorSpec> specs;  // tensors, flattened
  std::vector<std::string> keys;  // map keys
  std::string static_type;        // "bool", "int", "std::string", ...
  std::string static_value;       // printed value
};
using CallKey = std::vector<ArgKey>;

// How flat outputs map back to the callable's return value.
struct OutputStructure {
  size_t list_size = 0;
  std::vector<std::string> keys;
};

class ConcreteImpl;
class FunctionCore;
using TraceFn =
    std::function<std::vector<Tensor>(const std::vector<Tensor>& symbolic, OutputStructure* out)>;

std::string FormatStatic(bool v);
std::string FormatStatic(int64_t v);
std::string FormatStatic(uint64_t v);
std::string FormatStatic(double v);
std::string FormatStatic(const std::string& v);

}  // namespace detail

// One traced graph with fixed input specs.
class ConcreteFunction {
 public:
  ConcreteFunction() = default;
  explicit ConcreteFunction(std::shared_ptr<detail::ConcreteImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_ != nullptr; }
  const std::string& name() const;
  // The arguments as traced, e.g. "(x: f32[?,3], use_extra: false)".
  std::string structured_input_signature() const;
  // The tensor inputs, flattened in argument order.
  const std::vector<TensorSpec>& input_specs() const;
  const std::vector<TensorSpec>& output_specs() const;
  // The optimized graph (print it with graph_text()).
  const ir::Graph& graph() const;
  std::string graph_text() const;
  // Variables the graph reads or updates.
  std::vector<Variable> variables() const;
  // Runs on flattened tensor inputs, which must fit input_specs().
  std::vector<Tensor> operator()(const std::vector<Tensor>& inputs) const;

  const std::shared_ptr<detail::ConcreteImpl>& impl() const { return impl_; }

 private:
  std::shared_ptr<detail::ConcreteImpl> impl_;
};

struct TraceInfo {
  std::string signature;  // "(x: f32[2], use_extra: true)"
  std::vector<TensorSpec> input_specs;
  int64_t calls = 0;      // calls this trace served (including the one that traced it)
  ConcreteFunction function;
};

namespace detail {

// The non-template part of a Function: cache, tracing, diagnostics.
class FunctionCore {
 public:
  FunctionCore(FunctionOptions options, std::string callable_type);
  ~FunctionCore();
  // Finds or traces the graph for `key`, then runs it on `flat` (inlines it
  // when called inside another trace). `structure` receives the output layout.
  std::vector<Tensor> Call(CallKey key, const std::vector<Tensor>& flat, const TraceFn& trace,
                           OutputStructure* structure);
  ConcreteFunction GetConcrete(CallKey key, const TraceFn& trace);
  int tracing_count() const;
  int64_t eviction_count() const;
  std::vector<TraceInfo> traces() const;
  const FunctionOptions& options() const;

  struct State;

 private:
  std::shared_ptr<ConcreteImpl> Lookup(CallKey& key, const TraceFn& trace, bool* traced);
  std::unique_ptr<State> state_;
};

template <class T>
constexpr bool kIsStaticValue = std::is_arithmetic_v<T> || std::is_enum_v<T> ||
                                std::is_same_v<T, std::string>;

// How each kind of argument enters the key, is flattened, and is rebuilt
// (from symbolic tensors) for the traced call.
template <class T, class = void>
struct ArgTraits {
  static_assert(kIsStaticValue<T>,
                "tfn::function arguments must be Tensor, std::vector<Tensor>, "
                "std::map<std::string, Tensor>, TensorSpec (get_concrete_function) or static "
                "values: bool, integers, floating point, std::string, enums");
  using Traced = T;
  static void Collect(const T& v, ArgKey* key, std::vector<Tensor>*) {
    key->kind = ArgKey::Kind::kStatic;
    if constexpr (std::is_same_v<T, bool>) {
      key->static_type = "bool";
      key->static_value = FormatStatic(v);
    } else if constexpr (std::is_enum_v<T>) {
      key->static_type = std::string("enum ") + typeid(T).name();
      key->static_value = FormatStatic(static_cast<int64_t>(v));
    } else if constexpr (std::is_integral_v<T>) {
      key->static_type = std::is_signed_v<T> ? "int" : "unsigned";
      key->static_value = std::is_signed_v<T> ? FormatStatic(static_cast<int64_t>(v))
                                              : FormatStatic(static_cast<uint64_t>(v));
    } else if constexpr (std::is_floating_point_v<T>) {
      key->static_type = "float";
      key->static_value = FormatStatic(static_cast<double>(v));
    } else {
      key->static_type = "string";
      key->static_value = FormatStatic(v);
    }
  }
  static T Rebuild(const T& v, const std::vector<Tensor>&, size_t*) { return v; }
};

template <>
struct ArgTraits<const char*> {
  using Traced = std::string;
  static void Collect(const char* v, ArgKey* key, std::vector<Tensor>* flat) {
    ArgTraits<std::string>::Collect(v, key, flat);
  }
  static std::string Rebuild(const char* v, const std::vector<Tensor>&, size_t*) { return v; }
};

template <>
struct ArgTraits<char*> : ArgTraits<const char*> {};

template <>
struct ArgTraits<Tensor> {
  using Traced = Tensor;
  static void Collect(const Tensor& t, ArgKey* key, std::vector<Tensor>* flat) {
    key->kind = ArgKey::Kind::kTensor;
    key->specs.push_back(TensorSpec(t.shape(), t.dtype()));
    flat->push_back(t);
  }
  static Tensor Rebuild(const Tensor&, const std::vector<Tensor>& sym, size_t* pos) {
    return sym[(*pos)++];
  }
};

template <>
struct ArgTraits<Variable> {
  using Traced = Tensor;
  static void Collect(const Variable& v, ArgKey* key, std::vector<Tensor>* flat) {
    ArgTraits<Tensor>::Collect(v.value(), key, flat);
  }
  static Tensor Rebuild(const Variable&, const std::vector<Tensor>& sym, size_t* pos) {
    return sym[(*pos)++];
  }
};

template <>
struct ArgTraits<TensorSpec> {
  using Traced = Tensor;
  static void Collect(const TensorSpec& s, ArgKey* key, std::vector<Tensor>* flat) {
    key->kind = ArgKey::Kind::kTensor;
    key->specs.push_back(s);
    flat->push_back(Tensor());
  }
  static Tensor Rebuild(const TensorSpec&, const std::vector<Tensor>& sym, size_t* pos) {
    return sym[(*pos)++];
  }
};

template <class E>
struct ArgTraits<std::vector<E>, std::enable_if_t<std::is_same_v<E, Tensor> || std::is_same_v<E, TensorSpec>>> {
  using Traced = std::vector<Tensor>;
  static void Collect(const std::vector<E>& v, ArgKey* key, std::vector<Tensor>* flat) {
    key->kind = ArgKey::Kind::kTensorList;
    for (const E& e : v) {
      ArgKey one;
      ArgTraits<E>::Collect(e, &one, flat);
      key->specs.push_back(one.specs[0]);
    }
  }
  static Traced Rebuild(const std::vector<E>& v, const std::vector<Tensor>& sym, size_t* pos) {
    Traced out;
    for (size_t i = 0; i < v.size(); ++i) out.push_back(sym[(*pos)++]);
    return out;
  }
};

template <class E>
struct ArgTraits<std::map<std::string, E>,
                 std::enable_if_t<std::is_same_v<E, Tensor> || std::is_same_v<E, TensorSpec>>> {
  using Traced = std::map<std::string, Tensor>;
  static void Collect(const std::map<std::string, E>& m, ArgKey* key, std::vector<Tensor>* flat) {
    key->kind = ArgKey::Kind::kTensorMap;
    for (const auto& [k, e] : m) {
      ArgKey one;
      ArgTraits<E>::Collect(e, &one, flat);
      key->keys.push_back(k);
      key->specs.push_back(one.specs[0]);
    }
  }
  static Traced Rebuild(const std::map<std::string, E>& m, const std::vector<Tensor>& sym,
                        size_t* pos) {
    Traced out;
    for (const auto& kv : m) out[kv.first] = sym[(*pos)++];
    return out;
  }
};

// The callable's return value <-> flat output tensors.
template <class R, class = void>
struct OutputTraits;

template <>
struct OutputTraits<Tensor> {
  using Output = Tensor;
  static std::vector<Tensor> Flatten(const Tensor& r, OutputStructure*) { return {r}; }
  static Tensor Unflatten(const std::vector<Tensor>& f, const OutputStructure&) { return f[0]; }
};
template <>
struct OutputTraits<Variable> {
  using Output = Tensor;
  static std::vector<Tensor> Flatten(const Variable& r, OutputStructure*) { return {r.value()}; }
  static Tensor Unflatten(const std::vector<Tensor>& f, const OutputStructure&) { return f[0]; }
};
template <class R>
struct OutputTraits<R, std::enable_if_t<std::is_arithmetic_v<R>>> {
  using Output = Tensor;
  static std::vector<Tensor> Flatten(R r, OutputStructure*) { return {constant(r)}; }
  static Tensor Unflatten(const std::vector<Tensor>& f, const OutputStructure&) { return f[0]; }
};
template <>
struct OutputTraits<std::vector<Tensor>> {
  using Output = std::vector<Tensor>;
  static std::vector<Tensor> Flatten(const std::vector<Tensor>& r, OutputStructure* s) {
    s->list_size = r.size();
    return r;
  }
  static Output Unflatten(const std::vector<Tensor>& f, const OutputStructure&) { return f; }
};
template <>
struct OutputTraits<std::map<std::string, Tensor>> {
  using Output = std::map<std::string, Tensor>;
  static std::vector<Tensor> Flatten(const Output& r, OutputStructure* s) {
    std::vector<Tensor> flat;
    for (const auto& [k, t] : r) {
      s->keys.push_back(k);
      flat.push_back(t);
    }
    return flat;
  }
  static Output Unflatten(const std::vector<Tensor>& f, const OutputStructure& s) {
    Output out;
    for (size_t i = 0; i < s.keys.size(); ++i) out[s.keys[i]] = f[i];
    return out;
  }
};
template <class... Ts>
struct OutputTraits<std::tuple<Ts...>> {
  static_assert((std::is_same_v<Ts, Tensor> && ...), "tuple outputs must hold Tensors");
  using Output = std::tuple<Ts...>;
  static std::vector<Tensor> Flatten(const Output& r, OutputStructure*) {
    return std::apply([](const auto&... t) { return std::vector<Tensor>{t...}; }, r);
  }
  static Output Unflatten(const std::vector<Tensor>& f, const OutputStructure&) {
    return Unpack(f, std::index_sequence_for<Ts...>());
  }
  template <size_t... I>
  static Output Unpack(const std::vector<Tensor>& f, std::index_sequence<I...>) {
    return Output(f[I]...);
  }
};
template <>
struct OutputTraits<std::pair<Tensor, Tensor>> {
  using Output = std::pair<Tensor, Tensor>;
  static std::vector<Tensor> Flatten(const Output& r, OutputStructure*) { return {r.first, r.second}; }
  static Output Unflatten(const std::vector<Tensor>& f, const OutputStructure&) { return {f[0], f[1]}; }
};

}  // namespace detail

template <class F>
class Function {
 public:
  explicit Function(F f, FunctionOptions options = {})
      : f_(std::make_shared<F>(std::move(f))),
        core_(std::make_shared<detail::FunctionCore>(std::move(options), typeid(F).name())) {}

  template <class... Args>
  auto operator()(Args&&... args) {
    using R = std::invoke_result_t<F&, typename detail::ArgTraits<std::decay_t<Args>>::Traced...>;
    detail::CallKey key;
    key.reserve(sizeof...(Args));
    std::vector<Tensor> flat;
    (detail::ArgTraits<std::decay_t<Args>>::Collect(args, &key.emplace_back(), &flat), ...);
    detail::OutputStructure structure;
    std::vector<Tensor> outs = core_->Call(std::move(key), flat, MakeTracer<R, Args...>(args...), &structure);
    if constexpr (!std::is_void_v<R>) {
      return detail::OutputTraits<std::decay_t<R>>::Unflatten(outs, structure);
    }
  }

  // Traces (or fetches) the graph for exactly these argument specs and
  // static values, without running it. Tensor arguments may be TensorSpecs.
  template <class... Args>
  ConcreteFunction get_concrete_function(Args&&... args) {
    using R = std::invoke_result_t<F&, typename detail::ArgTraits<std::decay_t<Args>>::Traced...>;
    detail::CallKey key;
    std::vector<Tensor> flat;
    (detail::ArgTraits<std::decay_t<Args>>::Collect(args, &key.emplace_back(), &flat), ...);
    return core_->GetConcrete(std::move(key), MakeTracer<R, Args...>(args...));
  }

  // Traces made so far (evicted ones included).
  int tracing_count() const { return core_->tracing_count(); }
  int64_t eviction_count() const { return core_->eviction_count(); }
  // The traces in the cache now: signatures, specs, call counts.
  std::vector<TraceInfo> traces() const { return core_->traces(); }
  const FunctionOptions& options() const { return core_->options(); }

 private:
  template <class R, class... Args>
  detail::TraceFn MakeTracer(const std::remove_reference_t<Args>&... args) {
    return [this, &args...](const std::vector<Tensor>& symbolic, detail::OutputStructure* out) {
      size_t pos = 0;
      // Braced initialization evaluates left to right, so tensors are taken in order.
      std::tuple<typename detail::ArgTraits<std::decay_t<Args>>::Traced...> traced{
          detail::ArgTraits<std::decay_t<Args>>::Rebuild(args, symbolic, &pos)...};
      if constexpr (std::is_void_v<R>) {
        std::apply(*f_, traced);
        return std::vector<Tensor>{};
      } else {
        return detail::OutputTraits<std::decay_t<R>>::Flatten(std::apply(*f_, traced), out);
      }
    };
  }

  std::shared_ptr<F> f_;
  std::shared_ptr<detail::FunctionCore> core_;
};

// Wraps a callable into a polymorphic, caching, traced Function.
template <class F>
Function<F> function(F f, FunctionOptions options = {}) {
  return Function<F>(std::move(f), std::move(options));
}

}  // namespace tfn
