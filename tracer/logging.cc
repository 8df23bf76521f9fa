// The default logger and print sink, and their replacement.
#include "tracer/logging.h"

#include <cstdio>
#include <mutex>

namespace tfn {
namespace {

std::mutex g_mu;

Logger& CurrentLogger() {
  static Logger logger = [](LogLevel level, const std::string& message) {
    const char* tag = level == LogLevel::kError ? "error" : level == LogLevel::kWarning ? "warning" : "info";
    std::fprintf(stderr, "tfn %s: %s\n", tag, message.c_str());
  };
  return logger;
}

PrintSink& CurrentSink() {
  static PrintSink sink = [](const std::string& text) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  };
  return sink;
}

}  // namespace

Logger SetLogger(Logger logger) {
  std::lock_guard<std::mutex> lock(g_mu);
  Logger old = CurrentLogger();
  CurrentLogger() = std::move(logger);
  return old;
}

void Log(LogLevel level, const std::string& message) {
  Logger logger;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    logger = CurrentLogger();
  }
  if (logger) logger(level, message);
}

PrintSink SetPrintSink(PrintSink sink) {
  std::lock_guard<std::mutex> lock(g_mu);
  PrintSink old = CurrentSink();
  CurrentSink() = std::move(sink);
  return old;
}

void PrintText(const std::string& text) {
  PrintSink sink;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    sink = CurrentSink();
  }
  if (sink) sink(text);
}

}  // namespace tfn
