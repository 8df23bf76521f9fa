// Errors as values for the parts of tfn that run without exceptions and
// without Abseil (core, kernels, runtime). The IR and tools use absl::Status
// and convert at their boundary; the tracing front end throws tfn::Error.
//
// Messages follow one rule: say what was expected, what was found, and,
// where it helps, what to do.
#pragma once

#include <cassert>
#include <new>
#include <string>
#include <type_traits>
#include <utility>

namespace tfn {

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument = 1,      // a caller passed something wrong (dtype, shape, attr)
  kOutOfRange = 2,           // an index or size outside what is allowed
  kNotFound = 3,             // a named thing (signature, op, file) does not exist
  kFailedPrecondition = 4,   // the call is not allowed in this state
  kDataLoss = 5,             // corrupt bytes: bad checksum, truncated file
  kUnimplemented = 6,        // valid but not supported by this build
  kIncompatibleVersion = 7,  // a bundle from a format version this runtime does not accept
  kResourceExhausted = 8,    // out of memory or disk
  kInternal = 9,             // a bug in tfn
  kIoError = 10,             // the operating system refused a file operation
};

const char* StatusCodeName(StatusCode code);

// A status: ok, or a code with a message. Cheap to copy when ok.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "invalid argument: <message>", or "ok".
  std::string ToString() const;
  // Prepends context: "while loading 'x': " + message.
  Status WithContext(const std::string& context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) {
  return {StatusCode::kInvalidArgument, std::move(m)};
}
inline Status OutOfRange(std::string m) { return {StatusCode::kOutOfRange, std::move(m)}; }
inline Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status FailedPrecondition(std::string m) {
  return {StatusCode::kFailedPrecondition, std::move(m)};
}
inline Status DataLoss(std::string m) { return {StatusCode::kDataLoss, std::move(m)}; }
inline Status Unimplemented(std::string m) { return {StatusCode::kUnimplemented, std::move(m)}; }
inline Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }
inline Status ResourceExhausted(std::string m) {
  return {StatusCode::kResourceExhausted, std::move(m)};
}
inline Status IoError(std::string m) { return {StatusCode::kIoError, std::move(m)}; }

// A value or an error. T must be movable. Accessing the value of an error
// (value(), * or ->) is a bug: it asserts in builds without NDEBUG (Debug,
// and the fuzzers' build), and reads an unconstructed T otherwise.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : ok_(true) { new (&value_) T(std::move(value)); }  // NOLINT
  Result(Status status) : ok_(false), status_(std::move(status)) {    // NOLINT
    if (status_.ok()) status_ = Status(StatusCode::kInternal, "Result built from an ok Status");
  }
  Result(const Result& o) : ok_(o.ok_), status_(o.status_) {
    if (ok_) new (&value_) T(o.value_);
  }
  Result(Result&& o) noexcept : ok_(o.ok_), status_(std::move(o.status_)) {
    if (ok_) new (&value_) T(std::move(o.value_));
  }
  Result& operator=(Result o) noexcept {
    this->~Result();
    new (this) Result(std::move(o));
    return *this;
  }
  ~Result() {
    if (ok_) value_.~T();
  }

  bool ok() const { return ok_; }
  const Status& status() const { return status_; }
  T& value() & { return CheckedValue(); }
  const T& value() const& { return CheckedValue(); }
  T&& value() && { return std::move(CheckedValue()); }
  T* operator->() { return &CheckedValue(); }
  const T* operator->() const { return &CheckedValue(); }
  T& operator*() & { return CheckedValue(); }
  const T& operator*() const& { return CheckedValue(); }

 private:
  T& CheckedValue() {
    assert(ok_ && "tfn::Result: the value of an error was used; check ok() first");
    return value_;
  }
  const T& CheckedValue() const {
    assert(ok_ && "tfn::Result: the value of an error was used; check ok() first");
    return value_;
  }

  bool ok_;
  Status status_;
  union {
    T value_;
  };
};

}  // namespace tfn

// Returns early from the enclosing function when `expr` is an error.
#define TFN_RETURN_IF_ERROR(expr)              \
  do {                                         \
    ::tfn::Status tfn_status_ = (expr);        \
    if (!tfn_status_.ok()) return tfn_status_; \
  } while (0)

#define TFN_CONCAT_INNER(a, b) a##b
#define TFN_CONCAT(a, b) TFN_CONCAT_INNER(a, b)
// `TFN_ASSIGN_OR_RETURN(auto x, F())` declares x from a Result or returns its error.
#define TFN_ASSIGN_OR_RETURN(lhs, expr) \
  TFN_ASSIGN_OR_RETURN_IMPL(TFN_CONCAT(tfn_result_, __LINE__), lhs, expr)
#define TFN_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.status();             \
  lhs = std::move(tmp).value()
