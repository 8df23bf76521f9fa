// The acceptance scenarios of tfn::function (the tf.function literature, in
// C++), each with exact tracing counts and exact outputs, plus the details
// around them: diagnostics, introspection, nesting, control flow, variables.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "ir/graph.h"
#include "tfn/tfn.h"

namespace tfn {
namespace {

// Captures tfn's warnings and print output for the duration of a test.
class Capture {
 public:
  Capture() {
    old_logger_ = SetLogger([this](LogLevel, const std::string& m) { warnings.push_back(m); });
    old_sink_ = SetPrintSink([this](const std::string& t) { printed += t; });
  }
  ~Capture() {
    SetLogger(old_logger_);
    SetPrintSink(old_sink_);
  }
  std::vector<std::string> warnings;
  std::string printed;

 private:
  Logger old_logger_;
  PrintSink old_sink_;
};

FunctionOptions Named(std::string name, std::vector<std::string> args) {
  FunctionOptions o;
  o.name = std::move(name);
  o.arg_names = std::move(args);
  return o;
}

// 1. Static values are part of the key; tensors contribute (dtype, shape).
TEST(FunctionScenario, ProcessWithStaticBool) {
  auto process = function(
      [](Tensor x, bool use_extra) {
        Tensor y = x * 2.0;
        if (use_extra) y = y + 10.0;
        return y;
      },
      Named("process", {"x", "use_extra"}));
  EXPECT_EQ(process(constant({1.f, 2.f}), false).to_vector<float>(), (std::vector<float>{2, 4}));
  EXPECT_EQ(process.tracing_count(), 1);
  EXPECT_EQ(process(constant({3.f, 4.f}), true).to_vector<float>(), (std::vector<float>{16, 18}));
  EXPECT_EQ(process.tracing_count(), 2);
  EXPECT_EQ(process(constant({5.f, 6.f}), false).to_vector<float>(), (std::vector<float>{10, 12}));
  EXPECT_EQ(process.tracing_count(), 2);
  EXPECT_EQ(process(constant({7.f, 8.f, 9.f}), false).to_vector<float>(),
            (std::vector<float>{14, 16, 18}));
  EXPECT_EQ(process.tracing_count(), 3);
  EXPECT_EQ(process(constant(std::vector<int32_t>{1, 2}), false).to_vector<int32_t>(),
            (std::vector<int32_t>{2, 4}));
  EXPECT_EQ(process.tracing_count(), 4);
}

// 2. input_signature + graph cond: one trace for every fitting call.
TEST(FunctionScenario, InputSignatureWithCond) {
  FunctionOptions o = Named("process", {"x", "use_extra"});
  o.input_signature = {TensorSpec({kDynamic}, DType::kFloat32), TensorSpec({}, DType::kBool)};
  auto process = function(
      [](Tensor x, Tensor use_extra) {
        Tensor y = x * 2.0;
        return cond(use_extra, [&] { return y + 10.0; }, [&] { return y; });
      },
      o);
  EXPECT_EQ(process(constant({1.f, 2.f}), constant(false)).to_vector<float>(),
            (std::vector<float>{2, 4}));
  EXPECT_EQ(process(constant({3.f, 4.f}), constant(true)).to_vector<float>(),
            (std::vector<float>{16, 18}));
  EXPECT_EQ(process(constant({5.f, 6.f, 7.f}), constant(false)).to_vector<float>(),
            (std::vector<float>{10, 12, 14}));
  EXPECT_EQ(process(constant({8.f, 9.f}), constant(true)).to_vector<float>(),
            (std::vector<float>{26, 28}));
  EXPECT_EQ(process.tracing_count(), 1);
  try {
    process(constant(std::vector<int32_t>{1, 2}), constant(false));
    FAIL() << "an int32 input must be rejected";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("argument 0 'x'"), std::string::npos) << m;
    EXPECT_NE(m.find("expects f32[?]"), std::string::npos) << m;
    EXPECT_NE(m.find("got int32[2]"), std::string::npos) << m;
  }
  EXPECT_EQ(process.tracing_count(), 1);
}

// 3. C++ side effects run while tracing; tfn::print runs on every call.
TEST(FunctionScenario, TwiceSideEffects) {
  Capture capture;
  int traces = 0;
  auto twice = function(
      [&traces](auto x) {
        ++traces;
        print("x =", x);
        return x * 2;
      },
      Named("twice", {"x"}));
  EXPECT_EQ(twice(constant(1)).item<int32_t>(), 2);
  EXPECT_EQ(twice(constant(2)).item<int32_t>(), 4);
  EXPECT_EQ(twice.tracing_count(), 1);
  EXPECT_EQ(twice(3).item<int32_t>(), 6);
  EXPECT_EQ(twice(4).item<int32_t>(), 8);
  EXPECT_EQ(twice.tracing_count(), 3);
  EXPECT_EQ(traces, twice.tracing_count());
  EXPECT_EQ(capture.printed, "x = 1\nx = 2\nx = 3\nx = 4\n");
}

// 4. A static value that varies per call retraces every time, and says so.
TEST(FunctionScenario, PowerStaticVersusTensor) {
  Capture capture;
  auto power = function([](Tensor x, int n) { return pow(x, ScalarLike(x, n)); },
                        Named("power", {"x", "n"}));
  for (int n = 1; n < 100; ++n) {
    EXPECT_EQ(power(constant(2.0), n).item<double>(), std::pow(2.0, n));
  }
  EXPECT_EQ(power.tracing_count(), 99);
  ASSERT_EQ(capture.warnings.size(), 1u);
  const std::string& w = capture.warnings[0];
  EXPECT_NE(w.find("function 'power'"), std::string::npos) << w;
  EXPECT_NE(w.find("argument 1 'n': static value 4 -> 5"), std::string::npos) << w;
  EXPECT_NE(w.find("pass the argument whose value keeps changing as a Tensor"), std::string::npos) << w;

  auto power_t = function([](Tensor x, Tensor n) { return pow(x, n); }, Named("power_t", {"x", "n"}));
  for (int n = 1; n < 100; ++n) {
    EXPECT_EQ(power_t(constant(2.0), constant(static_cast<double>(n))).item<double>(), std::pow(2.0, n));
  }
  EXPECT_EQ(power_t.tracing_count(), 1);
  EXPECT_EQ(capture.warnings.size(), 1u);
}

// 5. reduce_retracing relaxes the dims that differ.
TEST(FunctionScenario, ReduceRetracing) {
  FunctionOptions o = Named("f", {"x"});
  o.reduce_retracing = true;
  auto f = function([](Tensor x) { return x + 1.0; }, o);
  for (int n = 2; n <= 5; ++n) {
    Tensor out = f(ones({n}));
    EXPECT_EQ(out.to_vector<float>(), std::vector<float>(n, 2.0f));
  }
  EXPECT_EQ(f.tracing_count(), 2);
  std::vector<TraceInfo> traces = f.traces();
  ASSERT_EQ(traces.size(), 2u);
  EXPECT_EQ(traces[0].signature, "(x: f32[2])");
  EXPECT_EQ(traces[1].signature, "(x: f32[?])");
  EXPECT_EQ(traces[1].input_specs[0].shape, (Shape{kDynamic}));
  EXPECT_EQ(traces[1].calls, 3);
}

// 6. get_concrete_function on explicit specs; run-time batch size via shape().
TEST(FunctionScenario, ConcreteFunctionWithDynamicBatch) {
  auto f = function(
      [](Tensor x) { return std::make_tuple(x * 2.0, shape(x)[0]); }, Named("f", {"x"}));
  ConcreteFunction cf = f.get_concrete_function(TensorSpec({kDynamic, 3}, DType::kFloat32));
  EXPECT_EQ(cf.structured_input_signature(), "(x: f32[?,3])");
  EXPECT_EQ(cf.input_specs()[0].ToString(), "f32[?,3]");
  EXPECT_EQ(cf.output_specs()[0].ToString(), "f32[?,3]");
  EXPECT_EQ(cf.output_specs()[1].ToString(), "int64[]");
  EXPECT_NE(cf.graph_text().find("f32[?s0,3]"), std::string::npos) << cf.graph_text();
  std::vector<Tensor> out = cf({ones({5, 3})});
  EXPECT_EQ(out[0].shape(), (Shape{5, 3}));
  EXPECT_EQ(out[1].item<int64_t>(), 5);
  EXPECT_EQ(cf({ones({2, 3})})[1].item<int64_t>(), 2);
  // A spec's own name names the graph's input (like tf.TensorSpec(name=...)).
  auto g = function([](Tensor x) { return x + 1.0; }, Named("g", {"x"}));
  ConcreteFunction named = g.get_concrete_function(TensorSpec({2}, DType::kFloat32, "image"));
  ASSERT_EQ(named.graph().param_names().size(), 1u);
  EXPECT_EQ(named.graph().param_names()[0], "image");
  // In a map, too; unnamed entries are the argument's name and the key.
  auto h =
      function([](std::map<std::string, Tensor> m) { return m["a"] + m["b"]; }, Named("h", {"m"}));
  ConcreteFunction by_key = h.get_concrete_function(std::map<std::string, TensorSpec>{
      {"a", TensorSpec({2}, DType::kFloat32, "first")}, {"b", TensorSpec({2}, DType::kFloat32)}});
  EXPECT_EQ(by_key.graph().param_names(), (std::vector<std::string>{"first", "m_b"}));
  try {
    cf({ones({5, 4})});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("argument 0 'x' expects f32[?,3], got f32[5,4]"),
              std::string::npos)
        << e.what();
  }
  // The polymorphic function uses the relaxed trace for fitting calls.
  auto [y, n] = f(ones({7, 3}));
  EXPECT_EQ(n.item<int64_t>(), 7);
  EXPECT_EQ(f.tracing_count(), 1);
}

// 7. A bounded cache evicts the least recently used traces.
TEST(FunctionScenario, BoundedCache) {
  FunctionOptions o = Named("f", {"x"});
  o.max_traces = 4;
  auto f = function([](Tensor x) { return x * x; }, o);
  for (int n = 1; n <= 10; ++n) f(ones({n}));
  EXPECT_EQ(f.tracing_count(), 10);
  EXPECT_EQ(f.traces().size(), 4u);
  EXPECT_EQ(f.eviction_count(), 6);
  f(ones({10}));  // still cached
  EXPECT_EQ(f.tracing_count(), 10);
  f(ones({1}));  // evicted: traced again
  EXPECT_EQ(f.tracing_count(), 11);
  EXPECT_EQ(f.eviction_count(), 7);
}

// 8. Variables: updates inside the graph act on every call.
TEST(FunctionScenario, VariableCounter) {
  Variable counter(constant(0), "counter");
  auto step = function(
      [&counter](Tensor x) {
        counter.assign_add(constant(1));
        return x + counter.value();
      },
      Named("step", {"x"}));
  EXPECT_EQ(step(constant(10)).item<int32_t>(), 11);
  EXPECT_EQ(step(constant(10)).item<int32_t>(), 12);
  EXPECT_EQ(step(constant(10)).item<int32_t>(), 13);
  EXPECT_EQ(step.tracing_count(), 1);
  EXPECT_EQ(counter.value().item<int32_t>(), 3);
  auto bad = function([](Tensor x) {
    Variable v(constant(1.0f), "inner");
    return x + v.value();
  });
  try {
    bad(constant(1.0f));
    FAIL();
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("tfn::Variable 'inner' was created while a function was being traced"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("create"), std::string::npos);
    EXPECT_NE(m.find("outside functions"), std::string::npos);
  }
}

// Names are kept as given, whatever else the process made.
TEST(FunctionVariables, NamesAreKeptAsGiven) {
  Variable a(constant(1.f), "kept");
  Variable b(constant(2.f), "kept");
  EXPECT_EQ(a.name(), "kept");
  EXPECT_EQ(b.name(), "kept");
  EXPECT_EQ(Variable(constant(0)).name(), "Variable");
  EXPECT_EQ(Variable(constant(0), "").name(), "Variable");
  // Each function sees its own variable: same-named is not the same.
  auto fa = function([&a] { return a.value(); });
  auto fb = function([&b] { return b.value(); });
  EXPECT_EQ(fa().item<float>(), 1.f);
  EXPECT_EQ(fb().item<float>(), 2.f);
  EXPECT_EQ(fa.get_concrete_function().variables()[0].name(), "kept");
}

// A graph refers to variables by name: two different ones of one name in
// one trace fail there, directly or through a nested function.
TEST(FunctionVariables, TwoSameNamedVariablesInOneTraceFail) {
  Variable a(zeros({3}), "twin");
  Variable b(constant(0), "twin");
  auto both = function(
      [&] {
        Tensor x = a.value();
        return x + cast(b.value(), DType::kFloat32);
      },
      Named("both", {}));
  try {
    both();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(
        std::string(e.what()).find("function 'both' uses two different variables named 'twin' "
                                   "(f32[3] and int32[])"),
        std::string::npos)
        << e.what();
  }
  auto inner = function([&b] {
    b.assign_add(constant(1));
    return b.value();
  });
  auto outer = function(
      [&] {
        Tensor x = a.value();
        return x + cast(inner(), DType::kFloat32);
      },
      Named("outer", {}));
  EXPECT_THROW(outer(), Error);
  EXPECT_EQ(b.value().item<int32_t>(), 0) << "the failed trace ran nothing";
  // A nested function's variables are its own and its caller's.
  auto caller = function([&inner] { return inner() * 2; });
  EXPECT_EQ(caller().item<int32_t>(), 2);
  EXPECT_EQ(b.value().item<int32_t>(), 1);
  EXPECT_EQ(inner().item<int32_t>(), 2);
  EXPECT_EQ(inner.get_concrete_function().variables().size(), 1u);
  EXPECT_EQ(caller.get_concrete_function().variables().size(), 1u);
  // The same variable twice is one variable.
  auto twice = function([&a] { return a.value() + a.value(); });
  EXPECT_EQ(twice.get_concrete_function().variables().size(), 1u);
}

// 9. A data-dependent number of iterations with one trace.
TEST(FunctionScenario, CollatzWhileLoop) {
  auto collatz = function(
      [](Tensor n) {
        std::vector<Tensor> out = while_loop(
            [](const std::vector<Tensor>& v) { return v[0] != 1; },
            [](const std::vector<Tensor>& v) {
              Tensor even = mod(v[0], ScalarLike(v[0], 2)) == 0;
              Tensor next = where(even, v[0] / 2, v[0] * 3 + 1);
              return std::vector<Tensor>{next, v[1] + 1};
            },
            {n, constant(0)});
        return out[1];
      },
      Named("collatz", {"n"}));
  EXPECT_EQ(collatz(constant(1)).item<int32_t>(), 0);
  EXPECT_EQ(collatz(constant(6)).item<int32_t>(), 8);
  EXPECT_EQ(collatz(constant(7)).item<int32_t>(), 16);
  EXPECT_EQ(collatz(constant(27)).item<int32_t>(), 111);
  EXPECT_EQ(collatz.tracing_count(), 1);
}

// 10. Two threads missing on the same new key trace it once.
TEST(FunctionScenario, ConcurrentCallsTraceOnce) {
  std::atomic<int> bodies{0};
  auto f = function(
      [&bodies](Tensor x) {
        ++bodies;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        return x + 1.0;
      },
      Named("f", {"x"}));
  std::atomic<bool> go{false};
  std::vector<float> results(2);
  auto worker = [&](int i) {
    while (!go) std::this_thread::yield();
    results[i] = f(constant(static_cast<float>(i))).item<float>();
  };
  std::thread a(worker, 0), b(worker, 1);
  go = true;
  a.join();
  b.join();
  EXPECT_EQ(f.tracing_count(), 1);
  EXPECT_EQ(bodies.load(), 1);
  EXPECT_EQ(results, (std::vector<float>{1, 2}));
}

// ---- details around the scenarios ----

TEST(Function, RetracingWarningForShapesSuggestsInputSignature) {
  Capture capture;
  auto f = function([](Tensor x) { return x * 2.0; }, Named("scale", {"x"}));
  for (int b : {32, 64, 16, 8, 4}) f(ones({b, 3}));
  ASSERT_EQ(capture.warnings.size(), 1u);
  const std::string& w = capture.warnings[0];
  EXPECT_NE(w.find("argument 0 'x': shape f32[8,3] -> f32[4,3]"), std::string::npos) << w;
  EXPECT_NE(w.find("kDynamic"), std::string::npos) << w;
  EXPECT_NE(w.find("reduce_retracing"), std::string::npos) << w;
}

TEST(Function, WarnsWhenCreatedInALoop) {
  Capture capture;
  for (int i = 0; i < 6; ++i) {
    auto f = function([](Tensor x) { return x + 1.0; }, Named("in_loop", {"x"}));
    f(constant(1.0f));
  }
  ASSERT_EQ(capture.warnings.size(), 1u);
  EXPECT_NE(capture.warnings[0].find("created inside a loop"), std::string::npos);
}

TEST(Function, CallingAFunctionInsideATraceInlinesIt) {
  auto inner = function([](Tensor x) { return x * 3.0; }, Named("inner", {"x"}));
  auto outer = function([&inner](Tensor x) { return inner(x) + 1.0; }, Named("outer", {"x"}));
  EXPECT_EQ(outer(constant({1.f, 2.f})).to_vector<float>(), (std::vector<float>{4, 7}));
  ConcreteFunction cf = outer.get_concrete_function(TensorSpec({2}, DType::kFloat32));
  EXPECT_NE(cf.graph_text().find("mul"), std::string::npos) << cf.graph_text();
  EXPECT_EQ(inner.tracing_count(), 1);
}

TEST(Function, ContainersAndStaticKinds) {
  enum class Mode { kSum, kMax };
  auto f = function(
      [](std::vector<Tensor> xs, std::map<std::string, Tensor> named, Mode mode, std::string tag) {
        Tensor total = named.at("bias");
        for (const Tensor& x : xs) total = mode == Mode::kSum ? total + x : maximum(total, x);
        if (tag == "neg") total = -total;
        return std::map<std::string, Tensor>{{"out", total}};
      },
      Named("f", {"xs", "named", "mode", "tag"}));
  auto out = f(std::vector<Tensor>{constant(1.f), constant(5.f)},
               std::map<std::string, Tensor>{{"bias", constant(2.f)}}, Mode::kSum, "pos");
  EXPECT_EQ(out.at("out").item<float>(), 8.f);
  out = f(std::vector<Tensor>{constant(1.f), constant(5.f)},
          std::map<std::string, Tensor>{{"bias", constant(2.f)}}, Mode::kMax, "neg");
  EXPECT_EQ(out.at("out").item<float>(), -5.f);
  EXPECT_EQ(f.tracing_count(), 2);
  f(std::vector<Tensor>{constant(1.f)}, std::map<std::string, Tensor>{{"bias", constant(2.f)}},
    Mode::kMax, "neg");
  EXPECT_EQ(f.tracing_count(), 3);  // the list's length is part of the key
  std::vector<TraceInfo> t = f.traces();
  EXPECT_NE(t[0].signature.find("xs: [f32[]"), std::string::npos) << t[0].signature;
}

TEST(Function, CondOutsideATraceJustRuns) {
  int taken = 0;
  Tensor r = cond(constant(true), [&] { ++taken; return constant(1.f); }, [&] { return constant(2.f); });
  EXPECT_EQ(r.item<float>(), 1.f);
  EXPECT_EQ(taken, 1);
  EXPECT_THROW(cond(constant(1.f), [] { return constant(1.f); }, [] { return constant(2.f); }), Error);
}

TEST(Function, GraphIsOptimizedAndPrintable) {
  auto f = function([](Tensor x) { return (x * 1.0 + 0.0) * (constant(2.f) + constant(3.f)); },
                    Named("f", {"x"}));
  ConcreteFunction cf = f.get_concrete_function(TensorSpec({4}, DType::kFloat32));
  std::string text = cf.graph_text();
  EXPECT_NE(text.find("constant {value=f32[] [5]}"), std::string::npos) << text;
  EXPECT_EQ(text.find("add"), std::string::npos) << text;
  EXPECT_EQ(cf.graph().num_nodes(), 3);  // parameter, constant, mul
}

TEST(Function, WhileLoopWithGrowingShape) {
  auto f = function(
      [](Tensor x) {
        auto out = while_loop([](const std::vector<Tensor>& v) { return size(v[0]) < 8; },
                              [](const std::vector<Tensor>& v) {
                                return std::vector<Tensor>{concat({v[0], v[0]}, 0)};
                              },
                              {x});
        return out[0];
      },
      Named("grow", {"x"}));
  EXPECT_EQ(f(constant({1.f})).to_vector<float>(), std::vector<float>(8, 1.f));
  EXPECT_EQ(f(constant({1.f, 2.f, 3.f})).to_vector<float>(),
            (std::vector<float>{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3}));
}

}  // namespace
}  // namespace tfn
