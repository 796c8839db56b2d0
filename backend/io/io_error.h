// Errors of backend/io as values: every function of the folder reports failure (an unreadable
// or malformed file, a bad command-line literal, a value that does not fit a dtype) by returning
// an IoError instead of throwing, and the driver turns the message into a coded diagnostic.
// Messages are lower-case sentences without a trailing period, e.g.
//   "x.npy: truncated data: the header declares 4096 bytes, the file holds 12"
//   "column 7: expected ',' or ']'"
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace raxc::io {

struct IoError {
  std::string message;
};

// A value or the reason there is none.
template <class T>
using Result = std::variant<T, IoError>;

// The outcome of an operation with no value: nullopt on success.
using Status = std::optional<IoError>;

template <class T>
bool ok(const Result<T>& r) {
  return r.index() == 0;
}
// The error of a failed result, nullptr when it succeeded.
template <class T>
const IoError* error_of(const Result<T>& r) {
  return std::get_if<IoError>(&r);
}

inline IoError io_error(std::string message) { return IoError{std::move(message)}; }

}  // namespace raxc::io
