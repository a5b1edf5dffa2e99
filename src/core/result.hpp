// A value or the reason there is none. Expected failures of the analysis side
// (an unknown job, Prometheus down, a refused DB login) travel as values, so
// every caller decides what they mean: an HTTP status, an exit code, a line.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace petricore {

struct Error {
  enum class Kind {
    BadInput,     // the request itself is wrong: exit 2, HTTP 400
    NotFound,     // no such job or user: exit 2, HTTP 404
    NotFinished,  // the job is still running where a finished one is needed: HTTP 409
    Forbidden,    // not allowed: HTTP 403
    Unavailable,  // a dependency failed or timed out: exit 1, HTTP 502
  };
  Kind kind = Kind::Unavailable;
  std::string message;  // one line, names what failed and where
};

template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : error_(std::move(error)) {}  // NOLINT

  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  T& value() { return *value_; }
  const T& value() const { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }
  const Error& error() const { return error_; }

 private:
  std::optional<T> value_;
  Error error_;
};

inline Error bad_input(std::string message) {
  return {Error::Kind::BadInput, std::move(message)};
}
inline Error not_found(std::string message) {
  return {Error::Kind::NotFound, std::move(message)};
}
inline Error unavailable(std::string message) {
  return {Error::Kind::Unavailable, std::move(message)};
}

}  // namespace petricore
