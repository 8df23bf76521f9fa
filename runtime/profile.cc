// The profiler's records and what is read off them: totals per op type and
// per step, the printed table and the Chrome trace.
#include "runtime/profile.h"

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <tuple>
#include <utility>

#include "runtime/profile_step.h"

namespace tfn::runtime {
namespace {

std::string Format(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string Format(const char* format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  return buffer;
}

// A JSON string literal (RFC 8259: quote, backslash and control characters
// escaped; names are ASCII or UTF-8 already).
std::string JsonString(const std::string& s) {
  std::string r = "\"";
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      r += '\\';
      r += ch;
    } else if (c < 0x20) {
      r += Format("\\u%04x", c);
    } else {
      r += ch;
    }
  }
  return r + "\"";
}

// Sorted most time first; ties by name, so equal runs print alike.
void SortByTime(std::vector<ProfileSummary>* rows) {
  std::sort(rows->begin(), rows->end(), [](const ProfileSummary& a, const ProfileSummary& b) {
    return std::tie(b.total_ns, a.op, a.program, a.step) <
           std::tie(a.total_ns, b.op, b.program, b.step);
  });
}

std::string Gflops(const ProfileSummary& s) {
  return s.flops > 0 ? Format("%.1f", s.GflopsPerSecond()) : std::string("-");
}

}  // namespace

Profiler::Profiler() : record_step_(&RecordStep), start_(std::chrono::steady_clock::now()) {}

void Profiler::Record(ProfileEvent event) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::thread::id self = std::this_thread::get_id();
  size_t t = std::find(threads_.begin(), threads_.end(), self) - threads_.begin();
  if (t == threads_.size()) threads_.push_back(self);
  event.thread = static_cast<int32_t>(t);
  events_.push_back(std::move(event));
}

void Profiler::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  events_.clear();
  runs_.store(0, std::memory_order_relaxed);
}

std::vector<ProfileEvent> Profiler::events() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

std::vector<ProfileSummary> Profiler::ByOp() const {
  std::vector<ProfileSummary> steps = TopSteps(-1);
  std::map<std::string, ProfileSummary> by_op;
  for (const ProfileSummary& s : steps) {
    ProfileSummary& o = by_op[s.op];
    o.op = s.op;
    o.nodes += 1;
    o.calls += s.calls;
    o.total_ns += s.total_ns;
    o.flops += s.flops;
    o.share += s.share;
  }
  std::vector<ProfileSummary> rows;
  for (auto& [name, o] : by_op) rows.push_back(std::move(o));
  SortByTime(&rows);
  return rows;
}

std::vector<ProfileSummary> Profiler::TopSteps(int limit) const {
  std::map<std::pair<std::string, int32_t>, ProfileSummary> by_step;
  int64_t total = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const ProfileEvent& e : events_) {
      if (e.container) continue;
      ProfileSummary& s = by_step[{e.program, e.step}];
      if (s.calls == 0) {
        s.op = e.op;
        s.program = e.program;
        s.step = e.step;
        s.detail = e.detail;
        s.nodes = 1;
      } else if (s.detail != e.detail) {
        s.detail = "(shapes vary)";
      }
      ++s.calls;
      s.total_ns += e.duration_ns;
      s.flops += e.flops;
      total += e.duration_ns;
    }
  }
  std::vector<ProfileSummary> rows;
  for (auto& [key, s] : by_step) {
    s.share = total > 0 ? static_cast<double>(s.total_ns) / total : 0;
    rows.push_back(std::move(s));
  }
  SortByTime(&rows);
  if (limit >= 0 && rows.size() > static_cast<size_t>(limit)) rows.resize(limit);
  return rows;
}

std::string Profiler::Table(int top) const {
  const int64_t n = std::max<int64_t>(runs(), 1);
  std::vector<ProfileSummary> ops = ByOp();
  int64_t total = 0, steps = 0;
  for (const ProfileSummary& o : ops) {
    total += o.total_ns;
    steps += o.nodes;
  }
  std::string r = Format("profile: %" PRId64 " runs; %.3f ms per run in %" PRId64
                         " steps (kernels and fused chains)\n",
                         runs(), total / 1e6 / n, steps);
  r += Format("%-20s %6s %8s %12s %7s %8s\n", "op", "nodes", "calls", "ms per run", "share",
              "GFLOP/s");
  for (const ProfileSummary& o : ops) {
    r += Format("%-20s %6" PRId64 " %8" PRId64 " %12.3f %6.1f%% %8s\n", o.op.c_str(), o.nodes,
                o.calls, o.total_ns / 1e6 / n, 100 * o.share, Gflops(o).c_str());
  }
  std::vector<ProfileSummary> slow = TopSteps(top);
  if (slow.empty()) return r;
  r += Format("top %zu steps:\n%-24s %-16s %12s %7s %8s  %s\n", slow.size(), "program:step", "op",
              "ms per run", "share", "GFLOP/s", "output");
  for (const ProfileSummary& s : slow) {
    std::string where = s.program + ":" + std::to_string(s.step);
    r += Format("%-24s %-16s %12.3f %6.1f%% %8s  %s\n", where.c_str(), s.op.c_str(),
                s.total_ns / 1e6 / n, 100 * s.share, Gflops(s).c_str(), s.detail.c_str());
  }
  return r;
}

std::string Profiler::ChromeTrace() const {
  std::vector<ProfileEvent> all = events();
  std::string r = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  for (size_t i = 0; i < all.size(); ++i) {
    const ProfileEvent& e = all[i];
    r += Format("{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,\"name\":", e.thread,
                e.start_ns / 1e3, e.duration_ns / 1e3);
    r += JsonString(e.op + " " + e.program + ":" + std::to_string(e.step));
    r += ",\"cat\":" + JsonString(e.container ? "control_flow" : "op");
    r += ",\"args\":{\"op\":" + JsonString(e.op) + ",\"program\":" + JsonString(e.program) +
         ",\"step\":" + std::to_string(e.step) + ",\"output\":" + JsonString(e.detail);
    if (e.flops > 0) r += Format(",\"gflops\":%.6g", e.flops / 1e9);
    r += i + 1 < all.size() ? "}},\n" : "}}\n";
  }
  return r + "]}\n";
}

}  // namespace tfn::runtime
