// Ratios between benchmarks of one run, printed after the run.
//
// The machine these benchmarks run on is shared (other people compile on its
// two cores), so absolute times move by tens of percent from one minute to
// the next. A ratio of two cases measured in the same process a few seconds
// apart is much steadier, and it is what the targets in the issues are
// about (AOT vs interpreter, the chain vs memcpy, a call vs the op alone).
// RatioReporter keeps the best (smallest) time per iteration of each
// benchmark over all repetitions (--benchmark_repetitions=N): noise from
// neighbours only ever adds time, so the minimum is the best estimate of
// the undisturbed cost. After the run, RunWithRatios prints one line per
// Line whose benchmarks ran.
//
// Benchmark names are matched without their "/real_time" suffix.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace tfn::bench {

struct Line {
  enum Kind {
    kRatio,       // numerator / denominator
    kDifference,  // numerator - denominator, in ns
    kPer,         // numerator / divisor, in ns (denominator unused)
  };
  Kind kind = kRatio;
  std::string label;
  std::string numerator;
  std::string denominator;
  double divisor = 1;
  std::string target;  // printed as is, e.g. "target < 1000 ns"
};

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  RatioReporter() : benchmark::ConsoleReporter(OO_Tabular) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.error_occurred || r.run_type != Run::RT_Iteration || r.iterations <= 0) continue;
      const std::string key = Key(r.benchmark_name());
      Best& b = best_[key];
      const double ns = r.real_accumulated_time / static_cast<double>(r.iterations) * 1e9;
      if (b.repetitions == 0 || ns < b.ns) {
        b.ns = ns;
        b.run = r;
      }
      if (b.repetitions == 0) order_.push_back(key);
      ++b.repetitions;
    }
    benchmark::ConsoleReporter::ReportRuns(runs);
  }

  // Best ns per iteration, or a negative value when `name` did not run.
  double BestNs(const std::string& name) const {
    auto it = best_.find(name);
    return it == best_.end() ? -1 : it->second.ns;
  }
  int Repetitions(const std::string& name) const {
    auto it = best_.find(name);
    return it == best_.end() ? 0 : it->second.repetitions;
  }

  // One line per benchmark, in the order they ran: the best time and that
  // repetition's counters and label.
  void PrintBest() const;

 private:
  struct Best {
    double ns = 0;
    int repetitions = 0;
    Run run;
  };
  static std::string Key(std::string name) {
    for (const std::string suffix : {"/real_time", "/manual_time"}) {
      size_t at = name.find(suffix);
      if (at != std::string::npos) name.erase(at, suffix.size());
    }
    return name;
  }
  std::map<std::string, Best> best_;
  std::vector<std::string> order_;
};

// "1.23 ms", "456 ns": three significant digits.
inline std::string FormatNs(double ns) {
  char buf[64];
  const char* unit = "ns";
  const double sign = ns < 0 ? -1 : 1;
  ns *= sign;
  if (ns >= 1e9) {
    ns /= 1e9;
    unit = "s";
  } else if (ns >= 1e6) {
    ns /= 1e6;
    unit = "ms";
  } else if (ns >= 1e4) {
    ns /= 1e3;
    unit = "us";
  }
  std::snprintf(buf, sizeof buf, ns >= 100 ? "%.0f %s" : ns >= 10 ? "%.1f %s" : "%.2f %s", sign * ns, unit);
  return buf;
}

inline void RatioReporter::PrintBest() const {
  std::printf("\nBest time per iteration over the repetitions:\n");
  for (const std::string& name : order_) {
    const Best& b = best_.at(name);
    std::string extra;
    for (const auto& [counter, value] : b.run.counters) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "  %s=%.4g", counter.c_str(), value.value);
      extra += buf;
    }
    if (!b.run.report_label.empty()) extra += "  " + b.run.report_label;
    std::printf("  %-44s %10s  (best of %d)%s\n", name.c_str(), FormatNs(b.ns).c_str(), b.repetitions,
                extra.c_str());
  }
}

inline void PrintLines(const RatioReporter& r, const std::vector<Line>& lines) {
  r.PrintBest();
  std::printf("\nRatios and differences (of the best times):\n");
  for (const Line& l : lines) {
    const double a = r.BestNs(l.numerator);
    const double b = l.kind == Line::kPer ? l.divisor : r.BestNs(l.denominator);
    if (a < 0 || b < 0) continue;  // filtered out or failed
    const std::string target = l.target.empty() ? "" : "  [" + l.target + "]";
    const int reps = r.Repetitions(l.numerator);
    switch (l.kind) {
      case Line::kRatio:
        std::printf("  %-58s %8.3fx  (%s / %s, best of %d)%s\n", l.label.c_str(), a / b,
                    FormatNs(a).c_str(), FormatNs(b).c_str(), reps, target.c_str());
        break;
      case Line::kDifference:
        std::printf("  %-58s %10s  (%s - %s, best of %d)%s\n", l.label.c_str(), FormatNs(a - b).c_str(),
                    FormatNs(a).c_str(), FormatNs(b).c_str(), reps, target.c_str());
        break;
      case Line::kPer:
        std::printf("  %-58s %10s  (%s / %g, best of %d)%s\n", l.label.c_str(), FormatNs(a / b).c_str(),
                    FormatNs(a).c_str(), b, reps, target.c_str());
        break;
    }
  }
  std::fflush(stdout);
}

// The body of main(): runs the benchmarks selected on the command line with
// a RatioReporter, then prints `lines`.
inline int RunWithRatios(int argc, char** argv, const std::vector<Line>& lines) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  PrintLines(reporter, lines);
  return 0;
}

}  // namespace tfn::bench
