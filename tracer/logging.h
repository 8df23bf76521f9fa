// Where tfn's diagnostics and tfn::print output go. Both are replaceable
// (tests capture them; applications route them to their own logs) and
// thread-safe to call; replacing them while other threads log is not.
#pragma once

#include <functional>
#include <string>

namespace tfn {

enum class LogLevel { kInfo, kWarning, kError };

using Logger = std::function<void(LogLevel level, const std::string& message)>;
// Sets the logger for warnings such as retracing; returns the previous one.
// The default writes "tfn warning: ..." lines to standard error.
Logger SetLogger(Logger logger);
void Log(LogLevel level, const std::string& message);

using PrintSink = std::function<void(const std::string& text)>;
// Sets where tfn::print writes (text ends with a newline); returns the
// previous sink. The default writes to standard output.
PrintSink SetPrintSink(PrintSink sink);
void PrintText(const std::string& text);

}  // namespace tfn
